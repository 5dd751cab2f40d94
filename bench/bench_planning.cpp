// SPDX-License-Identifier: MIT
// Planning speed: 1,000 jobs against 500 offers with finite capacities and an owned pool
// (target: under a second on one core), with the naive baseline in the same binary: for
// every job the cheapest offer of whole GPUs for its run time (planning/naive.hpp's
// cheapest_offer), no sharing, no spot, no packing, no supply.
//
//   cmake --build build --target gpurent_bench_planning && ./build/bench/gpurent_bench_planning
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gpurent/planning/naive.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/planner.hpp>

namespace {
using namespace gpurent;

// A fixed-seed generator, so every run plans the same input.
struct lcg {
  std::uint64_t s;
  std::uint64_t next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 33;
  }
  std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

// Offers with capacities: each sells 4 to 64 units; the first is a 64-GPU owned pool.
offer_catalog make_offers(std::size_t n) {
  const char* gpus[] = {"H100-SXM5-80GB", "A100-SXM4-80GB", "L4", "H100-PCIE-80GB", "A100-SXM4-40GB", "L40S", "H200-SXM-141GB"};
  const std::int64_t base_cents[] = {299, 149, 80, 249, 119, 99, 379};
  lcg r{42};
  std::vector<offer> out;
  for (std::size_t i = 0; i < n; ++i) {
    offer o;
    const auto g = static_cast<std::size_t>(r.in(0, 6));
    o.id = "p" + std::to_string(i % 40) + "/r" + std::to_string(i % 7) + "/o" + std::to_string(i);
    o.provider = "p" + std::to_string(i % 40);
    o.region = "r" + std::to_string(i % 7);
    o.gpu = gpus[g];
    const std::int64_t kind = r.in(0, 9);
    std::int64_t cents = base_cents[g] * r.in(80, 130) / 100;
    if (kind <= 3) {
      o.unit = offer_unit::gpu;
    } else if (kind <= 6) {
      o.unit = offer_unit::server;
      o.gpu_count = 8;
      o.multi_node = kind == 6;
      cents *= 8;
    } else if (kind == 7 && (g == 0 || g == 1)) {
      o.unit = offer_unit::mig_slice;
      o.mig_profile = g == 0 ? "1g.10gb" : "1g.10gb";
      cents = cents / 6;
    } else {
      o.unit = offer_unit::fraction;
      o.fraction_step = *unit_quantity::parse("0.25");
    }
    const std::int64_t mode = r.in(0, 9);
    seconds minimum{0};
    if (mode == 0 && o.unit == offer_unit::gpu) {
      o.mode = offer_mode::reserved;
      minimum = seconds(720 * 3600);
      cents = cents * 6 / 10;
    } else if (mode <= 2 && (o.unit == offer_unit::server || o.unit == offer_unit::gpu)) {
      o.mode = offer_mode::spot;
      o.notice = seconds(120);
      o.interruptions_per_hour = 0.01 * static_cast<double>(r.in(1, 10));
      cents = cents * 4 / 10;
    }
    o.max_units = static_cast<std::int32_t>(r.in(4, 64));
    if (i == 0) {
      o.unit = offer_unit::gpu;
      o.mode = offer_mode::owned;
      o.max_units = 64;
      o.fixed_cost = *decimal<9>::parse("450");
      cents = 30;  // power
    }
    o.pricing.price = *price_schedule::make(nano_price(cents * 10'000'000), {});  // cents -> nano
    o.pricing.time = *billing_rule::make(seconds(r.in(0, 2) == 0 ? 3600 : 1), minimum);
    out.push_back(std::move(o));
  }
  return *offer_catalog::make(currency{"USD", 2}, rounding_mode::half_even, std::move(out));
}

workload make_jobs(std::size_t n) {
  lcg r{7};
  workload w;
  w.account = "bench";
  for (std::size_t i = 0; i < n; ++i) {
    job j;
    j.name = "job-" + std::to_string(i);
    j.start = seconds(r.in(0, 20) * 3600);
    switch (i % 3) {
      case 0:
        j.kind = job_kind::training;
        j.gpu_hours = unit_quantity(r.in(1, 200));
        j.memory_gib = r.in(10, 600);
        j.max_gpus = 32;
        if (r.in(0, 1) == 1) j.checkpoint = seconds(r.in(30, 600));
        break;
      case 1:
        j.kind = job_kind::service;
        j.duration = seconds(r.in(1, 200) * 3600);
        j.gpu_share = unit_quantity::from_raw(int128(r.in(50, 900)));
        j.memory_gib = r.in(2, 40);
        j.latency_sensitive = r.in(0, 1) == 1;
        break;
      default:
        j.kind = job_kind::experiments;
        j.runs = static_cast<std::int32_t>(r.in(1, 64));
        j.run_duration = seconds(r.in(1, 60) * 60);
        j.memory_gib = r.in(4, 40);
        break;
    }
    w.jobs.push_back(std::move(j));
  }
  if (!validate(w)) std::abort();
  return w;
}

void BM_plan(benchmark::State& state) {
  const auto cat = make_offers(static_cast<std::size_t>(state.range(1)));
  const auto w = make_jobs(static_cast<std::size_t>(state.range(0)));
  std::size_t displaced = 0, delayed = 0;
  for (auto _ : state) {
    auto p = plan(w, cat);
    if (!p) {
      state.SkipWithError(p.error().describe().c_str());
      break;
    }
    displaced = p->supply.displaced;
    delayed = static_cast<std::size_t>(std::ranges::count_if(p->jobs, [](const job_plan& j) { return j.delay != delay_cause::none; }));
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  // How contested the supply was: jobs off their own best, jobs that wait.
  state.counters["displaced"] = static_cast<double>(displaced);
  state.counters["delayed"] = static_cast<double>(delayed);
}
BENCHMARK(BM_plan)->Args({1000, 500})->Args({100, 500})->Unit(benchmark::kMillisecond);

// Baseline: one cheapest_offer per job on whole GPUs for its reference run time.
void BM_naive_cheapest(benchmark::State& state) {
  const auto cat = make_offers(static_cast<std::size_t>(state.range(1)));
  const auto w = make_jobs(static_cast<std::size_t>(state.range(0)));
  const auto zone = find_zone(w.timezone);
  const plan_pricer pricer(cat, month_period(*zone, *parse_year_month(w.period)));
  for (auto _ : state) {
    int128 total = 0;
    for (const job& j : w.jobs) {
      gpu_demand d;
      d.vram_mib = j.memory_gib * 1024;
      d.duration = j.kind == job_kind::training  ? seconds(j.gpu_hours.raw().convert_to<std::int64_t>() * 36 / 10)
                   : j.kind == job_kind::service ? j.duration
                                                 : j.run_duration * j.runs;
      if (auto c = cheapest_offer(pricer, d)) total += c->amount;
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_naive_cheapest)->Args({1000, 500})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
