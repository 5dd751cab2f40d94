// SPDX-License-Identifier: MIT
// `fleet run` speed on the Alibaba trace (openb_pod_list_default.csv, read from
// ../shared/data; skipped with a message when absent):
//   - a whole run on the full GPU node list (1,213 nodes) at K = 96, an offered load of about
//     100% by docs/formats/fleet.md's measure, placement gpurent, victims gpurent (the target:
//     under 1 s of CPU);
//   - events per second (arrivals, starts and ends) of the loop (retry log, candidate index)
//     against the naive loop (fleet/reference/rescan.hpp: every queued job at every instant,
//     full-scan matcher: the same decisions, checked here), on the first 200 GPU nodes at
//     K = 1000 (contended: about 80% allocated, hundreds of preemptions) and K = 17.
// And on generated NVL72-like fleets (no data needed): gangs with preemption from 25 to 400
// blocks, the loop against the naive loop (bm_fleet_gangs); and `--check` of such a run,
// incremental against the reference that checks every running segment at every instant
// (bm_check_run).
// The cluster is copied outside the timed region before each run.
// Run: build-rel/bench/gpurent_bench_fleet_run --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/fleet/reference/check.hpp>
#include <gpurent/fleet/reference/rescan.hpp>
#include <gpurent/fleet/run/check.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/pod_jobs.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/matching/node/policy_gpurent.hpp>

using namespace gpurent;

namespace {

const std::string data_dir = std::string(GPURENT_DATA_DIR) + "/alibaba-gpu-v2023/";

struct workload {
  fleet_cluster cluster;
  std::vector<fleet_job> jobs;
};

// The first `nodes` GPU nodes (0: all) and the default pod list at compression k, built once.
const workload* trace(std::size_t nodes, std::int64_t k) {
  static std::map<std::pair<std::size_t, std::int64_t>, std::optional<workload>> made;
  auto [it, fresh] = made.try_emplace({nodes, k});
  if (!fresh) return it->second ? &*it->second : nullptr;
  auto text = io::read_file(data_dir + "openb_node_list_gpu_node.csv");
  if (!text) return nullptr;
  auto all = io::read_fleet_nodes_csv(*text, "openb_node_list_gpu_node.csv");
  if (!all) return nullptr;
  if (nodes != 0 && nodes < all->size()) all->resize(nodes);
  auto c = fleet_cluster::make(*all);
  if (!c) return nullptr;
  auto pj = io::read_pod_jobs_file(data_dir + "openb_pod_list_default.csv", c->inv, k);
  if (!pj) return nullptr;
  it->second = workload{std::move(*c), std::move(pj->jobs)};
  return &*it->second;
}

run_options options() { return run_options{}; }

std::int64_t events_of(const workload& w, const run_result& r) { return static_cast<std::int64_t>(w.jobs.size() + 2 * r.segments.size()); }

void report(benchmark::State& st, const workload& w, const run_result& r, std::int64_t events) {
  st.SetItemsProcessed(events);
  st.counters["jobs"] = static_cast<double>(w.jobs.size());
  st.counters["segments"] = static_cast<double>(r.segments.size());
  st.counters["preemptions"] = static_cast<double>(r.preemptions);
}

// The loop: the node matcher (with its candidate index) as the Placer, and the retry log.
template <PlacementPolicy P, VictimPolicy VP>
void bm_run(benchmark::State& st) {
  const workload* w = trace(static_cast<std::size_t>(st.range(0)), st.range(1));
  if (w == nullptr) {
    st.SkipWithError("no trace data in ../shared/data/alibaba-gpu-v2023");
    return;
  }
  run_result r;
  std::int64_t events = 0;
  for (auto _ : st) {
    st.PauseTiming();
    fleet_cluster c = w->cluster;
    st.ResumeTiming();
    const shape_distribution shapes = shapes_of(w->jobs);
    matcher<P> b(c.inv, policy_context{&shapes, 0});
    r = run_fleet<VP, true>(b, w->jobs, options());
    events += events_of(*w, r);
  }
  report(st, *w, r, events);
}

// The naive loop; its run must be the loop's, segment for segment.
template <PlacementPolicy P, VictimPolicy VP>
void bm_run_rescan(benchmark::State& st) {
  const workload* w = trace(static_cast<std::size_t>(st.range(0)), st.range(1));
  if (w == nullptr) {
    st.SkipWithError("no trace data in ../shared/data/alibaba-gpu-v2023");
    return;
  }
  fleet_cluster fast_c = w->cluster;
  const shape_distribution shapes = shapes_of(w->jobs);
  matcher<P> fast_b(fast_c.inv, policy_context{&shapes, 0});
  const run_result fast = run_fleet<VP, true>(fast_b, w->jobs, options());
  run_result r;
  std::int64_t events = 0;
  for (auto _ : st) {
    st.PauseTiming();
    fleet_cluster c = w->cluster;
    st.ResumeTiming();
    r = run_fleet_rescan<P, VP, true>(c, w->jobs, options());
    events += events_of(*w, r);
  }
  if (r.segments.size() != fast.segments.size() || r.end_time != fast.end_time || r.preemptions != fast.preemptions) {
    st.SkipWithError("the naive loop's run differs from the loop's");
    return;
  }
  report(st, *w, r, events);
}

// A generated GB200-NVL72-like fleet (fleet/generate.hpp: 18 nodes x 4 GPUs per block, 8
// blocks per spine, 2% down) with `blocks` blocks and `days` days of Poisson arrivals at
// 110% offered load, half the jobs preemptible with a checkpoint every 30 minutes; built once.
const generated_fleet& nvl72(std::int32_t blocks, std::int64_t days) {
  static std::map<std::pair<std::int32_t, std::int64_t>, generated_fleet> made;
  auto [it, fresh] = made.try_emplace({blocks, days});
  if (fresh) {
    generate_options g;
    g.blocks = blocks;
    g.down = 0.02;
    g.seed = 1;
    g.load_pct = 110;
    g.horizon = seconds(days * 86400);
    g.spot = 0.5;
    g.checkpoint_every = seconds(1800);
    it->second = *generate_fleet(g);
  }
  return it->second;
}

// Gangs on a generated fleet with preemption, placement gpurent: the loop (gang placer with
// its capacity cache, retry log, shape memo, preemption plan), or (Naive) the naive loop
// (every job at every instant, every node counted, every candidate domain searched; its run
// checked against the loop's). Items: jobs, so items_per_second is jobs per second.
template <VictimPolicy VP, bool Naive>
void bm_fleet_gangs(benchmark::State& st) {
  const generated_fleet& f = nvl72(static_cast<std::int32_t>(st.range(0)), st.range(1));
  run_result r;
  for (auto _ : st) {
    st.PauseTiming();
    fleet_cluster c = f.cluster;
    st.ResumeTiming();
    if constexpr (Naive) {
      r = run_fleet_rescan_gangs<gang_policy_gpurent, VP, true>(c, f.jobs, options());
    } else {
      gang_placer<gang_policy_gpurent> b(c.inv, c.topology, context_of(f.jobs, c));
      r = run_fleet<VP, true>(b, f.jobs, options());
    }
  }
  if constexpr (Naive) {
    fleet_cluster c = f.cluster;
    gang_placer<gang_policy_gpurent> b(c.inv, c.topology, context_of(f.jobs, c));
    const run_result fast = run_fleet<VP, true>(b, f.jobs, options());
    if (r.segments.size() != fast.segments.size() || r.end_time != fast.end_time || r.preemptions != fast.preemptions) {
      st.SkipWithError("the naive loop's run differs from the loop's");
      return;
    }
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(f.jobs.size()));
  st.counters["jobs"] = static_cast<double>(f.jobs.size());
  st.counters["preemptions"] = static_cast<double>(r.preemptions);
}

// `fleet run --check` on the run of a generated fleet (gpurent placement and victims): the
// incremental check (fleet/run/check.hpp), or (Full) the reference that checks every running
// segment at every instant (fleet/reference/check.hpp; its count checked against the
// incremental one's). Items: run segments.
template <bool Full>
void bm_check_run(benchmark::State& st) {
  const generated_fleet& f = nvl72(static_cast<std::int32_t>(st.range(0)), st.range(1));
  fleet_cluster c = f.cluster;
  gang_placer<gang_policy_gpurent> b(c.inv, c.topology, context_of(f.jobs, c));
  const run_result r = run_fleet<victim_policy_gpurent, true>(b, f.jobs, options());
  std::size_t violations = 0;
  for (auto _ : st) violations = (Full ? check_run_full(f.cluster, f.jobs, r) : check_run(f.cluster, f.jobs, r)).violations;
  if (violations != 0 || (Full && check_run(f.cluster, f.jobs, r).violations != violations)) {
    st.SkipWithError("the check found violations, or the two checks differ");
    return;
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(r.segments.size()));
  st.counters["segments"] = static_cast<double>(r.segments.size());
}

}  // namespace

// Growth with the fleet: 7 days at 25 to 400 blocks (jobs grow with blocks); the naive loop
// at 25 and 50 blocks for the ratio in the same binary.
BENCHMARK(bm_fleet_gangs<victim_policy_gpurent, false>)->ArgsProduct({{25, 50, 100, 200, 400, 800}, {7}})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_fleet_gangs<victim_policy_kube, false>)->ArgsProduct({{25, 50, 100, 200, 400}, {7}})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_fleet_gangs<victim_policy_gpurent, true>)->ArgsProduct({{25, 50}, {7}})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_check_run<false>)->ArgsProduct({{25, 50, 100, 200, 400}, {7}})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_check_run<true>)->ArgsProduct({{25, 50, 100}, {7}})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_run<policy_gpurent, victim_policy_gpurent>)->Args({0, 96})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_run<policy_gpurent, victim_policy_gpurent>)->Args({200, 17})->Args({200, 1000})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_run_rescan<policy_gpurent, victim_policy_gpurent>)->Args({0, 96})->Args({200, 17})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_run<policy_gpurent, victim_policy_kube>)->Args({200, 1000})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_run_rescan<policy_gpurent, victim_policy_kube>)->Args({200, 1000})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
