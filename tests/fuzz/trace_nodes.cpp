// SPDX-License-Identifier: MIT
// Fuzz target: the Alibaba trace node-list reader (read_trace_nodes) and the cluster built
// from it (make_replay_workload). Accepted rows respect the documented ranges, names are
// unique and non-empty, the rows written back parse to the same nodes, and the inventory
// holds exactly the nodes, GPUs, CPU and memory that were read.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gpurent/io/fleet/trace_csv.hpp>

#include "fuzz.hpp"

namespace {

std::string write_nodes(const std::vector<gpurent::trace_node>& nodes) {
  // Another column order than the usual file, and CRLF endings: the reader must not care.
  std::string out = "model,gpu,memory_mib,cpu_milli,sn\r\n";
  for (const auto& n : nodes) {
    out += n.model + "," + std::to_string(n.gpu) + "," + std::to_string(n.memory_mib.count()) + "," + std::to_string(n.cpu_milli.count()) + "," +
           n.sn + "\r\n";
  }
  return out;
}

bool same_fields(const gpurent::trace_node& a, const gpurent::trace_node& b) {
  return a.sn == b.sn && a.cpu_milli == b.cpu_milli && a.memory_mib == b.memory_mib && a.gpu == b.gpu && a.model == b.model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(gpurent_fuzz::as_text(data, size))};
  const auto nodes = gpurent::read_trace_nodes(in, "nodes.csv");
  if (!nodes) {
    FUZZ_CHECK(nodes.error().where.starts_with("nodes.csv:"), "an error does not name the file and line: " + nodes.error().describe());
    return 0;
  }
  FUZZ_CHECK(!nodes->empty());
  std::int64_t gpus = 0;
  std::vector<std::string> names;
  for (const auto& n : *nodes) {
    FUZZ_CHECK(!n.sn.empty() && n.line >= 2);
    FUZZ_CHECK(n.cpu_milli.count() >= 0 && n.memory_mib.count() >= 0 && n.gpu >= 0 && n.gpu <= gpurent::trace_max_gpus_per_node);
    FUZZ_CHECK(n.gpu == 0 || !n.model.empty());
    gpus += n.gpu;
    names.push_back(n.sn);
  }
  std::sort(names.begin(), names.end());
  FUZZ_CHECK(std::adjacent_find(names.begin(), names.end()) == names.end(), "duplicate node names accepted");

  std::istringstream again_in(write_nodes(*nodes));
  const auto again = gpurent::read_trace_nodes(again_in, "again.csv");
  FUZZ_CHECK(again.has_value(), again ? std::string{} : again.error().describe());
  FUZZ_CHECK(again->size() == nodes->size(), "rows written back read as another count");
  for (std::size_t i = 0; i < nodes->size(); ++i) FUZZ_CHECK(same_fields((*nodes)[i], (*again)[i]), "a row written back reads differently");

  const auto w = gpurent::make_replay_workload(*nodes, "nodes.csv", {}, "pods.csv");
  if (!w) {
    FUZZ_CHECK(w.error().message.find("64 GPU models") != std::string::npos, w.error().describe());
    return 0;
  }
  const gpurent::inventory& inv = w->cluster;
  FUZZ_CHECK(inv.size() == nodes->size());
  FUZZ_CHECK(static_cast<std::int64_t>(inv.gpu_count()) == gpus);
  FUZZ_CHECK(inv.gpu_capacity_milli() == 1000 * gpus && inv.gpu_allocated_milli() == 0);
  for (gpurent::node_index i = 0; i < inv.size(); ++i) {
    const auto& n = (*nodes)[i];
    const auto& st = inv.state(i);
    FUZZ_CHECK(inv.spec(i).name == n.sn && st.cpu_free == n.cpu_milli && st.memory_free == n.memory_mib);
    FUZZ_CHECK(st.full_idle == n.gpu && st.idle_total == 1000 * n.gpu && st.condition == gpurent::node_condition::up);
    if (n.gpu > 0) FUZZ_CHECK(inv.model(inv.spec(i).model).name == n.model);
  }
  return 0;
}
