// SPDX-License-Identifier: MIT
// The level sweep (planning/commitment.hpp) that sizes an owned pool or a commitment over an
// hourly load profile, against the naive algorithm in the same binary: every level summed
// hour by hour in plain integers, O(hours x peak), then priced the same way. A year of hours
// (8760) with a peak of 512 GPUs.
//
//   cmake --build build --target gpurent_bench_advise && ./build/bench/gpurent_bench_advise
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <gpurent/planning/build_vs_rent.hpp>

namespace {
using namespace gpurent;

// A year of a daily cycle plus noise, fixed seed: the same profile on every run.
std::vector<std::int64_t> year_profile(std::int64_t peak) {
  std::vector<std::int64_t> load(8760);
  std::uint64_t s = 7;
  for (std::size_t h = 0; h < load.size(); ++h) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto hour = static_cast<std::int64_t>(h % 24);
    const std::int64_t day = hour >= 8 && hour < 20 ? peak * 3 / 4 : peak / 4;
    load[h] = std::clamp<std::int64_t>(day + static_cast<std::int64_t>((s >> 33) % static_cast<std::uint64_t>(peak / 4 + 1)), 0, peak);
  }
  return load;
}

const ownership_costs own{*decimal<9>::parse("30000"), 26280, *decimal<9>::parse("0.20"), *decimal<9>::parse("0.30"), *decimal<9>::parse("0.7"),
                          *decimal<9>::parse("0.15")};

void bm_sweep(benchmark::State& st) {
  const auto load = year_profile(st.range(0));
  const decimal<9> rent = *decimal<9>::parse("2.49");
  for (auto _ : st) {
    auto a = size_owned_pool(own, rent, load);
    benchmark::DoNotOptimize(a->best.owned);
  }
}

// Baseline: the same costs, each level's unit-hours summed over every hour.
void bm_naive(benchmark::State& st) {
  const auto load = year_profile(st.range(0));
  const level_prices p{own.fixed_per_hour(), own.variable_per_hour(), ratio<>(*decimal<9>::parse("2.49"))};
  const std::int64_t peak = *std::ranges::max_element(load);
  const auto hours = static_cast<std::int64_t>(load.size());
  for (auto _ : st) {
    std::int64_t best = 0;
    ratio<> best_cost;
    for (std::int64_t n = 0; n <= peak; ++n) {
      std::int64_t served = 0, above = 0;
      for (std::int64_t l : load) {
        served += std::min(l, n);
        above += std::max<std::int64_t>(l - n, 0);
      }
      const ratio<> cost = p.held * ratio<>(n * hours, 1) + p.served * ratio<>(served, 1) + p.above * ratio<>(above, 1);
      if (n == 0 || cost < best_cost) {
        best = n;
        best_cost = cost;
      }
    }
    benchmark::DoNotOptimize(best);
  }
}

BENCHMARK(bm_sweep)->Arg(64)->Arg(512)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_naive)->Arg(64)->Arg(512)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
