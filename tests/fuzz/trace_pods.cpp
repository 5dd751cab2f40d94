// SPDX-License-Identifier: MIT
// Fuzz target: the Alibaba trace pod-list reader (read_trace_pods) and the requests built
// from it (make_replay_workload against a fixed cluster). Accepted rows respect the ranges
// and the whole-GPU rule, rows written back parse the same, and every request the replay
// would place is one the matcher accepts (placement_request::ok()).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gpurent/io/fleet/trace_csv.hpp>

#include "fuzz.hpp"

namespace {

std::string write_pods(const std::vector<gpurent::trace_pod>& pods) {
  std::string out = "gpu_milli,num_gpu,gpu_spec,memory_mib,cpu_milli,name\r\n";
  for (const auto& p : pods) {
    out += std::to_string(p.gpu_milli) + "," + std::to_string(p.num_gpu) + "," + p.gpu_spec + "," + std::to_string(p.memory_mib.count()) + "," +
           std::to_string(p.cpu_milli.count()) + "," + p.name + "\r\n";
  }
  return out;
}

bool same_fields(const gpurent::trace_pod& a, const gpurent::trace_pod& b) {
  return a.name == b.name && a.cpu_milli == b.cpu_milli && a.memory_mib == b.memory_mib && a.num_gpu == b.num_gpu && a.gpu_milli == b.gpu_milli &&
         a.gpu_spec == b.gpu_spec;
}

const std::vector<gpurent::trace_node>& cluster() {
  static const std::vector<gpurent::trace_node> nodes = [] {
    std::vector<gpurent::trace_node> v;
    v.push_back({"n1", gpurent::milli_cpu(96000), gpurent::mebibytes(786432), 8, "V100M32", 2});
    v.push_back({"n2", gpurent::milli_cpu(64000), gpurent::mebibytes(262144), 2, "T4", 3});
    v.push_back({"n3", gpurent::milli_cpu(32000), gpurent::mebibytes(131072), 0, "", 4});
    v.push_back({"n4", gpurent::milli_cpu(128000), gpurent::mebibytes(1048576), 8, "A100", 5});
    v.push_back({"n5", gpurent::milli_cpu(64000), gpurent::mebibytes(524288), 4, "G2", 6});
    return v;
  }();
  return nodes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(gpurent_fuzz::as_text(data, size))};
  const auto pods = gpurent::read_trace_pods(in, "pods.csv");
  if (!pods) {
    FUZZ_CHECK(pods.error().where.starts_with("pods.csv:"), "an error does not name the file and line: " + pods.error().describe());
    return 0;
  }
  std::vector<std::string> names;
  for (const auto& p : *pods) {
    FUZZ_CHECK(!p.name.empty() && p.line >= 2);
    FUZZ_CHECK(p.cpu_milli.count() >= 0 && p.memory_mib.count() >= 0 && p.num_gpu >= 0 && p.num_gpu <= gpurent::trace_max_gpus_per_node);
    FUZZ_CHECK(p.gpu_milli >= 0 && p.gpu_milli <= 1000);
    FUZZ_CHECK((p.num_gpu == 0) == (p.gpu_milli == 0), "GPU count and share disagree");
    FUZZ_CHECK(p.num_gpu <= 1 || p.gpu_milli == 1000, "a multi-GPU task with a fractional share accepted");
    names.push_back(p.name);
  }
  std::sort(names.begin(), names.end());
  FUZZ_CHECK(std::adjacent_find(names.begin(), names.end()) == names.end(), "duplicate pod names accepted");

  std::istringstream again_in(write_pods(*pods));
  const auto again = gpurent::read_trace_pods(again_in, "again.csv");
  FUZZ_CHECK(again.has_value(), again ? std::string{} : again.error().describe());
  FUZZ_CHECK(again->size() == pods->size(), "rows written back read as another count");
  for (std::size_t i = 0; i < pods->size(); ++i) FUZZ_CHECK(same_fields((*pods)[i], (*again)[i]), "a row written back reads differently");

  const auto w = gpurent::make_replay_workload(cluster(), "nodes.csv", *pods, "pods.csv");
  if (!w) {
    FUZZ_CHECK(w.error().code == gpurent::error_code::unknown_name && w.error().where.starts_with("pods.csv:"), w.error().describe());
    return 0;
  }
  FUZZ_CHECK(w->tasks.size() == pods->size() && w->task_names.size() == pods->size());
  for (std::size_t i = 0; i < w->tasks.size(); ++i) {
    const auto& r = w->tasks[i];
    FUZZ_CHECK(r.ok(), "a task the reader accepted is not a valid request: " + (*pods)[i].name);
    FUZZ_CHECK(r.gpu_request_milli() == (*pods)[i].gpu_request_milli());
    FUZZ_CHECK(r.allowed_models != 0, "a task allows no model at all");
  }
  return 0;
}
