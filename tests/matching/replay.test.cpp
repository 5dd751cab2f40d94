// SPDX-License-Identifier: MIT
// The FGD-protocol replay on the real trace: every placement is re-checked after every step
// against a shadow cluster kept here, independently of the matcher's own bookkeeping
// (capacity, whole-GPU and share rules, gpu_spec). One seed per policy, to stay quick
// under sanitizers.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gpurent/io/fleet/trace_csv.hpp>
#include <gpurent/matching/matching.hpp>
#include <gpurent/matching/reference/replay.hpp>

using namespace gpurent;

// Named, not anonymous, and around the test cases too: the layer's tests are also built as
// one unity translation unit, where every file's helpers would meet.
namespace replay_test {

std::string trace_dir() { return std::string(GPURENT_DATA_DIR) + "/alibaba-gpu-v2023/"; }

bool have_trace() {
  if (std::filesystem::exists(trace_dir() + "openb_node_list_gpu_node.csv")) return true;
  MESSAGE("skipped: no trace at " << trace_dir());
  return false;
}

// The shadow: what each node and GPU holds, from the placements alone.
struct shadow {
  std::vector<trace_node> nodes;
  std::vector<std::int64_t> cpu, mem;
  std::vector<std::array<std::int32_t, 16>> used;

  explicit shadow(std::vector<trace_node> ns) : nodes(std::move(ns)), cpu(nodes.size()), mem(nodes.size()), used(nodes.size()) {}

  // Checks and applies one placement of pod p. Returns a description of the first rule
  // broken, or "".
  std::string apply(const trace_pod& p, const placement& pl) {
    if (pl.node >= nodes.size()) return "node index out of range";
    const trace_node& n = nodes[pl.node];
    if (static_cast<std::int32_t>(pl.count) != p.num_gpu) return "wrong number of GPUs";
    if (!p.gpu_spec.empty() && p.num_gpu > 0) {
      bool ok = false;
      std::stringstream ss(p.gpu_spec);
      for (std::string m; std::getline(ss, m, '|');) ok = ok || m == n.model;
      if (!ok) return "model " + n.model + " not in gpu_spec " + p.gpu_spec;
    }
    cpu[pl.node] += p.cpu_milli.count();
    mem[pl.node] += p.memory_mib.count();
    if (cpu[pl.node] > n.cpu_milli.count()) return "CPU over capacity on " + n.sn;
    if (mem[pl.node] > n.memory_mib.count()) return "memory over capacity on " + n.sn;
    std::set<int> distinct;
    for (std::size_t i = 0; i < pl.count; ++i) {
      const int g = pl.gpus[i].gpu;
      if (g >= n.gpu) return "GPU index out of range";
      if (pl.gpus[i].milli != p.gpu_milli) return "GPU share differs from the request";
      if (!distinct.insert(g).second) return "a GPU taken twice";
      if (p.gpu_milli == 1000 && used[pl.node][static_cast<std::size_t>(g)] != 0) return "whole GPU not fully idle";
      used[pl.node][static_cast<std::size_t>(g)] += pl.gpus[i].milli;
      if (used[pl.node][static_cast<std::size_t>(g)] > 1000) return "GPU shares above 1000 milli";
    }
    return {};
  }
  // Could p have gone anywhere? (A failure must be a true failure.)
  bool fits_somewhere(const trace_pod& p) const {
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const trace_node& n = nodes[k];
      if (cpu[k] + p.cpu_milli.count() > n.cpu_milli.count() || mem[k] + p.memory_mib.count() > n.memory_mib.count()) continue;
      if (p.num_gpu == 0) return true;
      if (!p.gpu_spec.empty() && ("|" + p.gpu_spec + "|").find("|" + n.model + "|") == std::string::npos) continue;
      int ok = 0;
      for (int g = 0; g < n.gpu; ++g) ok += (1000 - used[k][static_cast<std::size_t>(g)] >= p.gpu_milli) ? 1 : 0;
      if (ok >= p.num_gpu) return true;
    }
    return false;
  }
};

template <class P>
void check_replay(const std::string& pods_file, std::uint64_t seed) {
  CAPTURE(pods_file);
  CAPTURE(seed);
  CAPTURE(P::name);
  auto nodes = read_trace_nodes_file(trace_dir() + "openb_node_list_gpu_node.csv");
  REQUIRE(nodes);
  auto pods = read_trace_pods_file(trace_dir() + pods_file);
  REQUIRE(pods);
  auto w = make_replay_workload(*nodes, "nodes", *pods, "pods");
  REQUIRE(w);
  replay_options o;
  o.seed = seed;
  o.keep_placements = true;
  const replay_result r = replay<P>(*w, o);
  REQUIRE(r.placements.size() == r.arrived);
  CHECK(r.placed + r.failed == r.arrived);
  shadow sh(*nodes);
  std::size_t placed = 0;
  std::int64_t arrived_milli = 0;
  for (std::size_t i = 0; i < r.arrivals.size(); ++i) {
    const trace_pod& p = (*pods)[r.arrivals[i]];
    arrived_milli += p.gpu_request_milli();
    const placement& pl = r.placements[i];
    if (pl.node == no_node) {
      if (i % 16 == 0) {  // sampled: a full scan per failure would dominate the test
        INFO("task " << i << " (" << p.name << ") failed but fits");
        CHECK_FALSE(sh.fits_somewhere(p));
      }
      continue;
    }
    ++placed;
    const std::string broken = sh.apply(p, pl);
    INFO("task " << i << " (" << p.name << ")");
    REQUIRE(broken == "");
  }
  CHECK(placed == r.placed);
  // The tune target is respected: inflation stops before passing 1.3 x capacity.
  CHECK(arrived_milli <= static_cast<std::int64_t>(1.3 * 6212000.0));
  CHECK(r.gpus_total == 6212);
  CHECK(r.nodes == 1213);
  for (std::size_t i = 1; i < r.alloc_pct.size(); ++i) CHECK(r.alloc_pct[i] >= r.alloc_pct[i - 1]);
}

TEST_CASE("replay: every placement valid, checked after every step") {
  if (!have_trace()) return;
  check_replay<policy_gpurent>("openb_pod_list_default.csv", 42);
  check_replay<policy_fgd>("openb_pod_list_gpuspec33.csv", 43);
  check_replay<policy_best_fit>("openb_pod_list_multigpu50.csv", 44);
}

TEST_CASE("replay: same seed, same result; arrival sequence follows the protocol") {
  if (!have_trace()) return;
  auto nodes = read_trace_nodes_file(trace_dir() + "openb_node_list_gpu_node.csv");
  auto pods = read_trace_pods_file(trace_dir() + "openb_pod_list_default.csv");
  REQUIRE(nodes);
  REQUIRE(pods);
  auto w = make_replay_workload(*nodes, "nodes", *pods, "pods");
  REQUIRE(w);
  const auto cap = w->cluster.gpu_capacity_milli();
  const auto a = arrival_sequence(w->tasks, cap, 1.3, 42);
  CHECK(a == arrival_sequence(w->tasks, cap, 1.3, 42));
  CHECK(a != arrival_sequence(w->tasks, cap, 1.3, 43));
  // The first |tasks| arrivals are a permutation of the list; the rest are clones.
  std::vector<std::uint32_t> head(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(w->tasks.size()));
  std::sort(head.begin(), head.end());
  for (std::uint32_t i = 0; i < head.size(); ++i) REQUIRE(head[i] == i);
  std::int64_t total = 0;
  for (auto i : a) total += w->tasks[i].gpu_request_milli();
  CHECK(total <= static_cast<std::int64_t>(1.3 * static_cast<double>(cap)));
  // Deflation: tune below the list's own demand removes tasks down to the target.
  const auto d = arrival_sequence(w->tasks, cap, 0.5, 42);
  std::int64_t dt = 0;
  for (auto i : d) dt += w->tasks[i].gpu_request_milli();
  CHECK(dt <= cap / 2);
  CHECK(d.size() < w->tasks.size());
  // FGD's M covers at least 95% of the tasks, weights sum to 1.
  double sum = 0;
  for (const auto& s : w->shapes.shapes) sum += s.weight;
  CHECK(sum == doctest::Approx(1.0));
  replay_options o;
  o.seed = 7;
  const auto r1 = replay<policy_best_fit>(*w, o);
  const auto r2 = replay<policy_best_fit>(*w, o);
  CHECK(r1.alloc_pct == r2.alloc_pct);
  CHECK(r1.placed == r2.placed);
}

}  // namespace replay_test
