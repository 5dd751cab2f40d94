// SPDX-License-Identifier: MIT
// gpurent.GangPlacer: a cluster read from its nodes (and topology), a gang placer of the named
// policy, and the jobs placed so far by name. Requests are JSON jobs (io/fleet/job_json.hpp);
// answers are the JSON of the audit log's writers (io/audit/audit_record.hpp), as the C API's
// matcher gives them (c/matcher.cpp): a placement reads the same from C, Python and the log.
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <gpurent/fleet/run/named.hpp>
#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/job_json.hpp>
#include <gpurent/io/fleet/topology_json.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/matching/gang/placer.hpp>

#include "bind.hpp"
#include "errors.hpp"
#include "inputs.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

// A gang placer of any policy behind one interface: the policy is chosen at run time, once.
class placer_box {
 public:
  virtual ~placer_box() = default;
  virtual std::optional<gang_outcome> place(const gang_request& g, gang_id id, std::vector<placement>& out) = 0;
  virtual void release(gang_id id, std::span<const placement> ps) = 0;
  virtual bool fits(const gang_request& g, gang_id id) = 0;
  [[nodiscard]] virtual why_not explain(const gang_request& g) = 0;
};

template <GangPolicy GP>
class gang_box final : public placer_box {
 public:
  explicit gang_box(fleet_cluster& c) : p_(c.inv, c.topology) {}
  std::optional<gang_outcome> place(const gang_request& g, gang_id id, std::vector<placement>& out) override { return p_.place(g, id, out); }
  void release(gang_id id, std::span<const placement> ps) override { p_.release(id, ps); }
  bool fits(const gang_request& g, gang_id id) override { return p_.fits(g, id); }
  [[nodiscard]] why_not explain(const gang_request& g) override { return p_.explain(g); }

 private:
  gang_placer<GP> p_;
};

struct live_job {
  gang_id id = 0;
  std::vector<placement> placements;
};

// The placer; never moved once made (the placer points into the cluster).
class py_placer {
 public:
  py_placer(const std::optional<std::string>& nodes_text, const std::string& nodes, const std::optional<std::string>& topology_text,
            const std::optional<std::string>& topology, const std::string& policy) {
    cluster_ = value_or_throw(fleet_cluster::make(value_or_throw(io::read_fleet_nodes_csv(input_text(nodes_text, nodes), nodes))));
    if (topology) value_or_throw(io::read_topology_json(input_text(topology_text, *topology), *topology, cluster_));
    const bool known = builtin_gang_policies::visit(policy, [&]<class GP>() { placer_ = std::make_unique<gang_box<GP>>(cluster_); });
    if (!known) throw library_error(no_gang_policy(policy).value());
  }
  py_placer(const py_placer&) = delete;
  py_placer& operator=(const py_placer&) = delete;

  // {"job", "placed": true, "placements", "preferred_met"}, or {"job", "placed": false, "why_not"}.
  std::string place(const std::string& request) {
    const fleet_job j = value_or_throw(io::parse_job_json(request, "request", cluster_, tenants_));
    if (jobs_.contains(j.name))
      throw library_error(error{error_code::duplicate, "name", "job \"" + j.name + "\" is placed already (release it first)", {}});
    if (next_id_ == no_gang) throw library_error(error{error_code::overflow, "name", "this placer has placed 2^32 - 1 jobs: make a new one", {}});
    live_job live{next_id_, {}};
    const auto outcome = placer_->place(j.gang, live.id, live.placements);
    if (!outcome) return text({{"job", j.name}, {"placed", false}, {"why_not", io::audit_gang_why_not(placer_->explain(j.gang))}});
    ++next_id_;
    io::ordered_json list = io::ordered_json::array();
    for (const placement& p : live.placements) list.push_back(io::audit_placement(cluster_.inv, p));
    jobs_.emplace(j.name, std::move(live));
    return text({{"job", j.name}, {"placed", true}, {"placements", std::move(list)}, {"preferred_met", outcome->preferred_met}});
  }
  void release(const std::string& job) {
    const auto at = jobs_.find(job);
    if (at == jobs_.end()) throw library_error(error{error_code::not_found, "job", "no placed job \"" + job + "\"", {}});
    placer_->release(at->second.id, at->second.placements);
    jobs_.erase(at);
  }
  // {"job", "fits", "why_not"}: whether the job fits now, and what stops it where it does not.
  std::string explain(const std::string& request) {
    const fleet_job j = value_or_throw(io::parse_job_json(request, "request", cluster_, tenants_));
    const bool fits = placer_->fits(j.gang, next_id_);
    return text({{"job", j.name}, {"fits", fits}, {"why_not", io::audit_gang_why_not(placer_->explain(j.gang))}});
  }

 private:
  static std::string text(const io::ordered_json& j) { return j.dump(2) + "\n"; }
  fleet_cluster cluster_;
  io::job_tenants tenants_;
  std::unique_ptr<placer_box> placer_;
  std::map<std::string, live_job, std::less<>> jobs_;
  gang_id next_id_ = 0;
};

}  // namespace

void bind_placer(nb::module_& m) {
  nb::class_<py_placer>(m, "GangPlacer", "The gang placer of a cluster: place, release and explain jobs given as JSON")
      .def(nb::init<const std::optional<std::string>&, const std::string&, const std::optional<std::string>&, const std::optional<std::string>&,
                    const std::string&>(),
           nb::arg("nodes_text").none(), nb::arg("nodes"), nb::arg("topology_text").none(), nb::arg("topology").none(), nb::arg("policy"))
      .def("place", &py_placer::place, nb::arg("request"), "Places a job (JSON); the answer as JSON.")
      .def("release", &py_placer::release, nb::arg("job"), "Frees the capacity of the placed job named `job`.")
      .def("explain", &py_placer::explain, nb::arg("request"), "Whether a job (JSON) fits now, and why not where it does not; as JSON.");
}

}  // namespace gpurent::py
