// SPDX-License-Identifier: MIT
// The C API's matcher: a cluster read from its nodes file (and topology), a gang placer of the
// named policy, and the jobs placed so far by name. Requests are JSON jobs
// (io/fleet/job_json.hpp); answers are JSON written with the audit log's writers
// (io/audit/audit_record.hpp), so a placement and an explanation read the same everywhere.
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gpurent/fleet/run/named.hpp>
#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/job_json.hpp>
#include <gpurent/io/fleet/topology_json.hpp>
#include <gpurent/matching/gang/placer.hpp>

#include "api.hpp"

namespace gpurent::c_api {

// A gang placer of any policy behind one interface: the policy is chosen at run time, once;
// each call then runs that policy's compiled code.
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

// A placed job: its gang id and its members' placements.
struct live_job {
  gang_id id = 0;
  std::vector<placement> placements;
};

}  // namespace gpurent::c_api

// The handle: never moved once made (the placer points into the cluster).
struct gpurent_matcher {
  gpurent::fleet_cluster cluster;
  gpurent::io::job_tenants tenants;
  std::unique_ptr<gpurent::c_api::placer_box> placer;
  std::map<std::string, gpurent::c_api::live_job, std::less<>> jobs;
  gpurent::gang_id next_id = 0;
};

namespace gpurent::c_api {
namespace {

expected<void> open_matcher(gpurent_matcher& m, const char* nodes, const char* topology, std::string_view policy) {
  GPURENT_TRY(c, io::read_fleet_cluster_file(nodes));
  m.cluster = std::move(*c);
  if (topology != nullptr) GPURENT_TRY(io::read_topology_file(topology, m.cluster));
  const bool known = builtin_gang_policies::visit(policy, [&]<class GP>() { m.placer = std::make_unique<gang_box<GP>>(m.cluster); });
  if (!known) return no_gang_policy(policy);
  return {};
}

std::string text_of(const io::ordered_json& j) { return j.dump(2) + "\n"; }

// {"job", "placed": true, "placements", "preferred_met"} of a job just placed.
std::string placed_json(const gpurent_matcher& m, const std::string& job, std::span<const placement> ps, const gang_outcome& o) {
  io::ordered_json list = io::ordered_json::array();
  for (const placement& p : ps) list.push_back(io::audit_placement(m.cluster.inv, p));
  return text_of({{"job", job}, {"placed", true}, {"placements", std::move(list)}, {"preferred_met", o.preferred_met}});
}

// Places the job of request_json, or says why it fits nowhere now.
expected<std::string> place_request(gpurent_matcher& m, const char* request_json) {
  GPURENT_TRY(j, io::parse_job_json(request_json, "request_json", m.cluster, m.tenants));
  if (m.jobs.contains(j->name)) return make_error(error_code::duplicate, "name", "job \"" + j->name + "\" is placed already (release it first)");
  if (m.next_id == no_gang) return make_error(error_code::overflow, "name", "this matcher has placed 2^32 - 1 jobs: make a new one");
  live_job live{m.next_id, {}};
  const auto outcome = m.placer->place(j->gang, live.id, live.placements);
  if (!outcome) return text_of({{"job", j->name}, {"placed", false}, {"why_not", io::audit_gang_why_not(m.placer->explain(j->gang))}});
  ++m.next_id;
  std::string out = placed_json(m, j->name, live.placements, *outcome);
  m.jobs.emplace(j->name, std::move(live));
  return out;
}

expected<std::string> explain_request(gpurent_matcher& m, const char* request_json) {
  GPURENT_TRY(j, io::parse_job_json(request_json, "request_json", m.cluster, m.tenants));
  const bool fits = m.placer->fits(j->gang, m.next_id);
  return text_of({{"job", j->name}, {"fits", fits}, {"why_not", io::audit_gang_why_not(m.placer->explain(j->gang))}});
}

}  // namespace
}  // namespace gpurent::c_api

extern "C" {

GPURENT_C_API int gpurent_matcher_create(const char* nodes_path, const char* topology_path, const char* policy, gpurent_matcher** out,
                                         char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (out == nullptr) return missing("out", out_error);
    *out = nullptr;
    if (nodes_path == nullptr) return missing("nodes_path", out_error);
    auto m = std::make_unique<gpurent_matcher>();
    if (auto opened = open_matcher(*m, nodes_path, topology_path, policy == nullptr ? "gpurent" : policy); !opened)
      return fail(opened.error(), out_error);
    *out = m.release();
    return GPURENT_OK;
  });
}

GPURENT_C_API void gpurent_matcher_destroy(gpurent_matcher* m) { delete m; }

GPURENT_C_API int gpurent_matcher_place(gpurent_matcher* m, const char* request_json, char** out_json, char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (out_json == nullptr) return missing("out_json", out_error);
    *out_json = nullptr;
    if (m == nullptr) return missing("m", out_error);
    if (request_json == nullptr) return missing("request_json", out_error);
    auto text = place_request(*m, request_json);
    return text ? give(*text, out_json, out_error) : fail(text.error(), out_error);
  });
}

GPURENT_C_API int gpurent_matcher_release(gpurent_matcher* m, const char* job, char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (m == nullptr) return missing("m", out_error);
    if (job == nullptr) return missing("job", out_error);
    const auto at = m->jobs.find(std::string_view(job));
    if (at == m->jobs.end())
      return fail(gpurent::error{gpurent::error_code::not_found, "job", "no placed job \"" + std::string(job) + "\"", {}}, out_error);
    m->placer->release(at->second.id, at->second.placements);
    m->jobs.erase(at);
    return GPURENT_OK;
  });
}

GPURENT_C_API int gpurent_matcher_explain(gpurent_matcher* m, const char* request_json, char** out_json, char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (out_json == nullptr) return missing("out_json", out_error);
    *out_json = nullptr;
    if (m == nullptr) return missing("m", out_error);
    if (request_json == nullptr) return missing("request_json", out_error);
    auto text = explain_request(*m, request_json);
    return text ? give(*text, out_json, out_error) : fail(text.error(), out_error);
  });
}
}
