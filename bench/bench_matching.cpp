// SPDX-License-Identifier: MIT
// Matching speed. Each policy runs next to a naive baseline in the same binary:
//   - full FGD-protocol replays of the Alibaba `default` trace (seed 42), per policy;
//   - a synthetic 5,000-node cluster fed 50,000 requests drawn from the trace's task mix
//     (kube-scheduler's throughput-test size), placements/s for best-fit and gpurent;
//   - baselines: the matcher's algorithm without its candidate index (full_scan_matcher,
//     matching/reference/full_scan.hpp: every node in order, full constraint check, the
//     same decisions: the matcher before the index), through the same replay and loop, for
//     the replays and the synthetic cluster; best-fit on plain vectors re-deriving each node's
//     GPU sums per candidate; FGD without the per-(node, shape) cache (the fragmentation
//     recomputed for every candidate, as the paper's simulator does), on a prefix.
// Run: build-match/bench/gpurent_bench_matching --benchmark_min_time=1x

#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gpurent/io/fleet/trace_csv.hpp>
#include <gpurent/matching/matching.hpp>
#include <gpurent/matching/reference/full_scan.hpp>
#include <gpurent/matching/reference/replay.hpp>

using namespace gpurent;

namespace {

const replay_workload* trace_workload() {
  static const replay_workload* w = []() -> const replay_workload* {
    const std::string d = std::string(GPURENT_DATA_DIR) + "/alibaba-gpu-v2023/";
    auto n = read_trace_nodes_file(d + "openb_node_list_gpu_node.csv");
    auto p = read_trace_pods_file(d + "openb_pod_list_default.csv");
    if (!n || !p) return nullptr;
    auto x = make_replay_workload(*n, "nodes", *p, "pods");
    return x ? new replay_workload(std::move(*x)) : nullptr;
  }();
  return w;
}

// 5,000 nodes shaped like the trace's (8 x G2 with 96 cores, 2 x P100/T4 with 64/96 cores)
// and 50,000 requests drawn from its task list.
struct synthetic {
  inventory cluster;
  std::vector<placement_request> requests;
  shape_distribution shapes;
};

const synthetic& synthetic_cluster() {
  static const synthetic s = [] {
    synthetic x;
    const model_index g2 = x.cluster.add_model({"G2", {}, {}});
    const model_index t4 = x.cluster.add_model({"T4", {}, {}});
    for (int i = 0; i < 5000; ++i) {
      node_spec n;
      n.name = "s" + std::to_string(i);
      const bool big = i % 2 == 0;
      n.cpu_milli = milli_cpu(big ? 96000 : 64000);
      n.memory_mib = mebibytes(393216);
      n.gpu_count = big ? 8 : 2;
      n.model = big ? g2 : t4;
      x.cluster.add_node(std::move(n));
    }
    const replay_workload* w = trace_workload();
    std::mt19937_64 rng(7);
    std::vector<placement_request> mix;
    if (w != nullptr) {
      mix = w->tasks;
    } else {
      for (int i = 0; i < 100; ++i) {
        placement_request r;
        r.num_gpu = 1;
        r.gpu_milli = milli_gpu(i % 2 == 0 ? 1000 : 100 + 8 * i);
        r.cpu_milli = milli_cpu(4000);
        mix.push_back(r);
      }
    }
    for (int i = 0; i < 50000; ++i) {
      placement_request r = mix[static_cast<std::size_t>(detail::uniform_below(rng, mix.size()))];
      r.allowed_models = any_model;  // the synthetic cluster's models differ from the trace's
      x.requests.push_back(r);
    }
    x.shapes = shape_distribution::of(x.requests);
    return x;
  }();
  return s;
}

// One FGD-protocol replay (reference/replay.hpp) of the trace per iteration, with matcher
// M: matcher<P>, or its baseline full_scan_matcher<P> (reference/full_scan.hpp).
template <class M>
void bm_replay_default(benchmark::State& st) {
  const replay_workload* w = trace_workload();
  if (w == nullptr) {
    st.SkipWithError("no trace data");
    return;
  }
  std::size_t arrived = 0;
  double unalloc = 0;
  for (auto _ : st) {
    replay_options o;
    o.seed = 42;
    const replay_result r = replay_with<M>(*w, o);
    arrived += r.arrived;
    unalloc = r.unallocated_pct_at(100);
    benchmark::DoNotOptimize(r.placed);
  }
  st.counters["placements_per_s"] = benchmark::Counter(static_cast<double>(arrived), benchmark::Counter::kIsRate);
  st.counters["unalloc_pct_at_100"] = unalloc;
}

// The synthetic cluster fed its first range(0) requests, with matcher M (as above). Observed:
// with a decision observer attached that only counts (the hook's own cost; without one, the
// matcher's hot path as it is: "no hook, no cost").
template <class M, bool Observed = false>
void bm_synthetic(benchmark::State& st) {
  const synthetic& s = synthetic_cluster();
  const auto n = static_cast<std::size_t>(st.range(0));
  std::size_t placed = 0;
  std::size_t tried = 0;
  for (auto _ : st) {
    st.PauseTiming();
    inventory inv = s.cluster;
    M m(inv, policy_context{&s.shapes, 42});
    std::size_t seen = 0;
    auto count = [&seen](const match_decision&) { ++seen; };
    if constexpr (Observed) m.set_observer(decision_observer::of(count));
    st.ResumeTiming();
    for (std::size_t i = 0; i < n; ++i) placed += m.place(s.requests[i]) ? 1U : 0U;
    benchmark::DoNotOptimize(seen);
    tried += n;
  }
  st.counters["placements_per_s"] = benchmark::Counter(static_cast<double>(tried), benchmark::Counter::kIsRate);
  st.counters["placed_share"] = static_cast<double>(placed) / static_cast<double>(std::max<std::size_t>(tried, 1));
}

// Baseline: best-fit over plain vectors, recomputing each node's idle sums for every
// candidate (no summaries, no constraint composition). Same decisions as policy_best_fit on
// this trace-shaped input (no tenants, labels, topology).
void bm_synthetic_best_fit_naive(benchmark::State& st) {
  const synthetic& s = synthetic_cluster();
  const auto n = static_cast<std::size_t>(st.range(0));
  std::size_t tried = 0;
  for (auto _ : st) {
    st.PauseTiming();
    const std::size_t nodes = s.cluster.size();
    std::vector<std::int64_t> cpu(nodes);
    std::vector<std::int64_t> mem(nodes);
    std::vector<std::array<std::int32_t, 16>> idle(nodes);
    for (node_index k = 0; k < nodes; ++k) {
      cpu[k] = s.cluster.spec(k).cpu_milli.count();
      mem[k] = s.cluster.spec(k).memory_mib.count();
      idle[k] = s.cluster.state(k).idle;
    }
    st.ResumeTiming();
    for (std::size_t i = 0; i < n; ++i) {
      const placement_request& r = s.requests[i];
      std::int64_t best = std::numeric_limits<std::int64_t>::min();
      std::size_t win = nodes;
      for (std::size_t k = 0; k < nodes; ++k) {
        if (cpu[k] < r.cpu_milli.count() || mem[k] < r.memory_mib.count()) continue;
        std::int32_t total = 0;
        std::int32_t fits = 0;
        for (std::size_t g = 0; g < s.cluster.spec(static_cast<node_index>(k)).gpu_count; ++g) {
          total += idle[k][g];
          fits += idle[k][g] >= r.gpu_milli.count() ? 1 : 0;
        }
        if (r.num_gpu > 0 && fits < r.num_gpu) continue;
        const double left =
            0.5 * static_cast<double>(cpu[k] - r.cpu_milli.count()) / 128000.0 + 0.5 * static_cast<double>(total - r.gpu_request_milli()) / 8000.0;
        const auto sc = static_cast<std::int64_t>(100.0 * (1.0 - left));
        if (sc > best) {
          best = sc;
          win = k;
        }
      }
      if (win == nodes) continue;
      cpu[win] -= r.cpu_milli.count();
      mem[win] -= r.memory_mib.count();
      std::int32_t left = r.num_gpu;
      for (std::size_t g = 0; g < 16 && left > 0; ++g) {
        if (idle[win][g] >= r.gpu_milli.count()) {
          idle[win][g] -= r.gpu_milli.count();
          --left;
        }
      }
    }
    tried += n;
  }
  st.counters["placements_per_s"] = benchmark::Counter(static_cast<double>(tried), benchmark::Counter::kIsRate);
}

// Baseline: FGD without the cache: F_before and F_after recomputed for every candidate.
struct policy_fgd_uncached {
  static constexpr std::string_view name = "fgd-uncached";
  struct state {
    std::vector<weighted_shape> m;
    state(const inventory&, const policy_context& c) : m(c.shapes->shapes) {}
  };
  static void prepare(state&, const inventory&, const placement_request&) {}
  static std::int64_t score(state& s, const inventory& inv, node_index n, const placement_request& r) noexcept {
    const node_spec& sp = inv.spec(n);
    const node_state& ns = inv.state(n);
    const model_mask bit = model_mask{1} << sp.model;
    const double before = node_fragmentation(s.m, ns.idle.data(), sp.gpu_count, ns.cpu_free, bit);
    std::array<std::int32_t, max_gpus_per_node> a = ns.idle;
    std::int32_t best = -1;
    if (r.is_share()) {
      for (std::size_t g = 0; g < sp.gpu_count; ++g) {
        if (!gpu_eligible(ns, g, r)) continue;
        a[g] -= r.gpu_milli.count();
        const double d = before - node_fragmentation(s.m, a.data(), sp.gpu_count, ns.cpu_free - r.cpu_milli, bit);
        a[g] += r.gpu_milli.count();
        best = std::max(best, static_cast<std::int32_t>(100.0 / (1.0 + std::exp(-d / 1000.0))));
      }
      return best;
    }
    gpu_pick p;
    (void)pick_first_gpus(inv, n, r, p);
    for (std::size_t i = 0; i < p.count; ++i) a[p.gpu[i]] -= r.gpu_milli.count();
    const double d = before - node_fragmentation(s.m, a.data(), sp.gpu_count, ns.cpu_free - r.cpu_milli, bit);
    return static_cast<std::int32_t>(100.0 / (1.0 + std::exp(-d / 1000.0)));
  }
  static void choose_gpus(state&, const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
    detail::choose_tightest(inv, n, r, pick);
  }
};

}  // namespace

BENCHMARK(bm_replay_default<matcher<policy_best_fit>>)->Name("replay_default/best-fit")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_replay_default<full_scan_matcher<policy_best_fit>>)->Name("replay_default/best-fit-full-scan (baseline)")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_replay_default<matcher<policy_fgd>>)->Name("replay_default/fgd")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_replay_default<matcher<policy_gpurent>>)->Name("replay_default/gpurent")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_replay_default<full_scan_matcher<policy_gpurent>>)->Name("replay_default/gpurent-full-scan (baseline)")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_replay_default<matcher<policy_dot_product>>)->Name("replay_default/dot-product")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_replay_default<matcher<policy_random>>)->Name("replay_default/random")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_synthetic<matcher<policy_best_fit>>)->Name("synthetic_5000x50000/best-fit")->Arg(50000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_synthetic<full_scan_matcher<policy_best_fit>>)
    ->Name("synthetic_5000x50000/best-fit-full-scan (baseline)")
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_synthetic<matcher<policy_best_fit>, true>)
    ->Name("synthetic_5000x50000/best-fit-observed (counting observer)")
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_synthetic_best_fit_naive)->Name("synthetic_5000x50000/best-fit-naive (baseline)")->Arg(50000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_synthetic<matcher<policy_gpurent>>)->Name("synthetic_5000x50000/gpurent")->Arg(50000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_synthetic<full_scan_matcher<policy_gpurent>>)
    ->Name("synthetic_5000x50000/gpurent-full-scan (baseline)")
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_synthetic<matcher<policy_fgd_uncached>>)
    ->Name("synthetic_5000/fgd-uncached (baseline, first 500 requests)")
    ->Arg(500)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
