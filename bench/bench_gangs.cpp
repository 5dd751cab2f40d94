// SPDX-License-Identifier: MIT
// Gang placement speed on generated NVL72 fleets (`gpurent fleet generate`: 18 nodes of 4
// GPUs per block, 8 blocks per spine, 2% of nodes down, the job mix to 130% of the up GPUs):
//   - `fleet pack` of the whole job list per policy on 400 blocks (7,200 nodes): the time of
//     one pack (the target: under 1 s of CPU);
//   - gang decisions per second of the placer (gang.hpp: per-block capacities cached per
//     member shape and block version) against the plain full-scan gang placer
//     (matching/reference/full_scan_gang.hpp: every node recounted for every decision, the
//     same decisions), through the same pack loop, on 200 and 400 blocks.
// The cluster is copied outside the timed region before each pack.
// Run: build-rel/bench/gpurent_bench_gangs --benchmark_min_time=1x

#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <utility>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/matching/gang/placer.hpp>
#include <gpurent/matching/reference/full_scan_gang.hpp>

using namespace gpurent;

namespace {

// The generated fleet of `blocks` blocks, seed 1, built once.
const generated_fleet& fleet(std::int32_t blocks) {
  static std::map<std::int32_t, generated_fleet> made;
  auto it = made.find(blocks);
  if (it == made.end()) {
    generate_options o;
    o.blocks = blocks;
    o.down = 0.02;
    o.seed = 1;
    it = made.emplace(blocks, std::move(*generate_fleet(o))).first;
  }
  return it->second;
}

template <class Placer>
void bm_pack(benchmark::State& state) {
  const generated_fleet& f = fleet(static_cast<std::int32_t>(state.range(0)));
  const gang_context ctx = context_of(f.jobs, f.cluster);
  std::size_t placed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fleet_cluster c = f.cluster;
    state.ResumeTiming();
    const pack_result r = pack_with<Placer>(c, f.jobs, pack_options{}, ctx);
    placed = r.placed;
    benchmark::DoNotOptimize(r.gpu_milli_allocated);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(f.jobs.size()));  // gang decisions
  state.counters["jobs"] = static_cast<double>(f.jobs.size());
  state.counters["placed"] = static_cast<double>(placed);
}

}  // namespace

BENCHMARK(bm_pack<gang_placer<gang_policy_gpurent>>)->Name("pack/gpurent")->Arg(200)->Arg(400)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pack<full_scan_gang_placer<gang_policy_gpurent>>)
    ->Name("pack/gpurent-full-scan (baseline)")
    ->Arg(200)
    ->Arg(400)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pack<gang_placer<gang_policy_slurm_block>>)->Name("pack/slurm-block")->Arg(400)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pack<full_scan_gang_placer<gang_policy_slurm_block>>)
    ->Name("pack/slurm-block-full-scan (baseline)")
    ->Arg(400)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pack<gang_placer<gang_policy_kueue_best_fit>>)->Name("pack/kueue-best-fit")->Arg(400)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pack<gang_placer<gang_policy_best_fit>>)->Name("pack/best-fit")->Arg(400)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
