// SPDX-License-Identifier: MIT
// gpurent.GangPlacer: a cluster read from its nodes (and topology), a gang placer of the named
// policy, and the jobs placed so far by name. Requests are JSON jobs (io/fleet/job_json.hpp);
// answers are the JSON of the audit log's writers (io/audit/audit_record.hpp), as the C API's
// matcher gives them (c/matcher.cpp): a placement reads the same from C, Python and the log.
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/gang_matcher_json.hpp>
#include <gpurent/io/fleet/topology_json.hpp>

#include "bind.hpp"
#include "errors.hpp"
#include "inputs.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

// The library's matcher by job name (io/fleet/gang_matcher_json.hpp), its errors raised.
class py_placer {
 public:
  py_placer(const std::optional<std::string>& nodes_text, const std::string& nodes, const std::optional<std::string>& topology_text,
            const std::optional<std::string>& topology, const std::string& policy) {
    fleet_cluster c = value_or_throw(fleet_cluster::make(value_or_throw(io::read_fleet_nodes_csv(input_text(nodes_text, nodes), nodes))));
    if (topology) value_or_throw(io::read_topology_json(input_text(topology_text, *topology), *topology, c));
    m_ = value_or_throw(io::gang_matcher_json::make(std::move(c), policy));
  }

  // {"job", "placed": true, "placements", "preferred_met"}, or {"job", "placed": false, "why_not"}.
  std::string place(const std::string& request) { return value_or_throw(m_->place(request, "request")); }
  void release(const std::string& job) { value_or_throw(m_->release(job)); }
  // {"job", "fits", "why_not"}: whether the job fits now, and what stops it where it does not.
  std::string explain(const std::string& request) { return value_or_throw(m_->explain(request, "request")); }

 private:
  std::unique_ptr<io::gang_matcher_json> m_;
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
