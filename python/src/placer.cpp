// SPDX-License-Identifier: MIT
// gpurent.GangPlacer and gpurent.Matcher: a cluster read from its nodes (and topology), a gang
// placer or a single-node matcher of the named policy, and the jobs placed so far by name.
// Requests are JSON jobs (io/fleet/job_json.hpp); answers are the JSON of the audit log's
// writers (io/audit/audit_record.hpp), as the C API's matcher gives them (c/matcher.cpp): a
// placement reads the same from C, Python and the log.
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/gang_matcher_json.hpp>
#include <gpurent/io/fleet/node_matcher_json.hpp>
#include <gpurent/io/fleet/topology_json.hpp>

#include "bind.hpp"
#include "errors.hpp"
#include "inputs.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

// The cluster of a nodes input and, when given, a topology input.
fleet_cluster cluster_of(const std::optional<std::string>& nodes_text, const std::string& nodes, const std::optional<std::string>& topology_text,
                         const std::optional<std::string>& topology) {
  fleet_cluster c = value_or_throw(fleet_cluster::make(value_or_throw(io::read_fleet_nodes_csv(input_text(nodes_text, nodes), nodes))));
  if (topology) value_or_throw(io::read_topology_json(input_text(topology_text, *topology), *topology, c));
  return c;
}

// The library's matcher by job name (io/fleet/gang_matcher_json.hpp or node_matcher_json.hpp),
// its errors raised.
template <class M>
class py_placer {
 public:
  explicit py_placer(std::unique_ptr<M> m) : m_(std::move(m)) {}

  // The matcher's answer to a placement (JSON), or its error raised.
  std::string place(const std::string& request) { return value_or_throw(m_->place(request, "request")); }
  void release(const std::string& job) { value_or_throw(m_->release(job)); }
  // Whether the job fits now, and what stops it where it does not (JSON).
  std::string explain(const std::string& request) { return value_or_throw(m_->explain(request, "request")); }

 private:
  std::unique_ptr<M> m_;
};

using py_gang_placer = py_placer<io::gang_matcher_json>;
using py_node_matcher = py_placer<io::node_matcher_json>;

template <class M>
void bind_calls(nb::class_<py_placer<M>>& c) {
  c.def("place", &py_placer<M>::place, nb::arg("request"), "Places a job (JSON); the answer as JSON.")
      .def("release", &py_placer<M>::release, nb::arg("job"), "Frees the capacity of the placed job named `job`.")
      .def("explain", &py_placer<M>::explain, nb::arg("request"), "Whether a job (JSON) fits now, and why not where it does not; as JSON.");
}

}  // namespace

void bind_placer(nb::module_& m) {
  nb::class_<py_gang_placer> gang(m, "GangPlacer", "The gang placer of a cluster: place, release and explain jobs given as JSON");
  gang.def(
      "__init__",
      [](py_gang_placer* self, const std::optional<std::string>& nodes_text, const std::string& nodes,
         const std::optional<std::string>& topology_text, const std::optional<std::string>& topology, const std::string& policy) {
        new (self) py_gang_placer(value_or_throw(io::gang_matcher_json::make(cluster_of(nodes_text, nodes, topology_text, topology), policy)));
      },
      nb::arg("nodes_text").none(), nb::arg("nodes"), nb::arg("topology_text").none(), nb::arg("topology").none(), nb::arg("policy"));
  bind_calls(gang);
  nb::class_<py_node_matcher> node(m, "Matcher", "The single-node matcher of a cluster: place, release and explain one-member jobs as JSON");
  node.def(
      "__init__",
      [](py_node_matcher* self, const std::optional<std::string>& nodes_text, const std::string& nodes, const std::string& policy,
         const std::vector<std::string>& workload) {
        new (self) py_node_matcher(
            value_or_throw(io::node_matcher_json::make(cluster_of(nodes_text, nodes, std::nullopt, std::nullopt), policy, workload, "workload")));
      },
      nb::arg("nodes_text").none(), nb::arg("nodes"), nb::arg("policy"), nb::arg("workload"));
  bind_calls(node);
}

}  // namespace gpurent::py
