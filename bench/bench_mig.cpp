// SPDX-License-Identifier: MIT
// MIG fit and layout enumeration, each against its naive baseline in the same binary.
//   fit:        mig_fit (bitmasks + the precomputed option table) vs a naive fit that tries
//               every start slot recursively, re-validates the whole layout at each step and
//               ranks candidates by counting the layouts that extend them; and vs a naive
//               first fit (same recursion, no ranking).
//   enumerate:  mig_for_each_layout vs checking every subset of all (profile, start) pairs.
#include <array>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include <gpurent/spec/mig.hpp>

namespace {
using namespace gpurent;

const mig_geometry& h100 = *find_mig_geometry("H100-SXM5-80GB");
const mig_profile_index p1 = *h100.find_profile("1g.10gb");
const mig_profile_index p2 = *h100.find_profile("2g.20gb");
const mig_profile_index p3 = *h100.find_profile("3g.40gb");

// A partial layout: a 2g at 0 and a 1g at 2; slices 3..7 are free.
const mig_layout partial{{p2, 0}, {p1, 2}};

// ---- naive fit ----------------------------------------------------------------------------
bool extends(const mig_layout& big, const mig_layout& small) {
  for (const mig_instance& x : small)
    if (!big.contains(x)) return false;
  return true;
}

struct naive_fit {
  const mig_geometry& g;
  std::vector<mig_profile_index> want;
  bool rank = true;
  long best = -1;
  mig_layout best_layout;

  void run(const mig_layout& cur, std::size_t i) {
    if (i == want.size()) {
      long options = 1;
      if (rank) {
        options = 0;
        mig_for_each_layout(g, [&](const mig_layout& l) { options += extends(l, cur) ? 1 : 0; });
      }
      if (options > best) {
        best = options;
        best_layout = cur;
      }
      return;
    }
    for (int s = 0; s < g.memory_slices; ++s) {
      mig_layout next = cur;
      if (!next.add({want[i], static_cast<std::uint8_t>(s)}) || !mig_valid(g, next)) continue;
      run(next, i + 1);
      if (!rank && best >= 0) return;  // first fit: stop at the first complete placement
    }
  }
};

void BM_mig_fit(benchmark::State& state, std::vector<mig_profile_index> want) {
  for (auto _ : state) {
    auto r = mig_fit(h100, partial, want);
    benchmark::DoNotOptimize(r);
  }
}

void BM_mig_fit_naive_ranked(benchmark::State& state, std::vector<mig_profile_index> want) {
  for (auto _ : state) {
    naive_fit f{h100, want, true, -1, {}};
    f.run(partial, 0);
    benchmark::DoNotOptimize(f.best_layout);
  }
}

void BM_mig_fit_naive_first(benchmark::State& state, std::vector<mig_profile_index> want) {
  for (auto _ : state) {
    naive_fit f{h100, want, false, -1, {}};
    f.run(partial, 0);
    benchmark::DoNotOptimize(f.best_layout);
  }
}

BENCHMARK_CAPTURE(BM_mig_fit, one_3g, std::vector<mig_profile_index>{p3});
BENCHMARK_CAPTURE(BM_mig_fit, 1g_1g_2g, std::vector<mig_profile_index>{p1, p1, p2});
BENCHMARK_CAPTURE(BM_mig_fit_naive_ranked, one_3g, std::vector<mig_profile_index>{p3});
BENCHMARK_CAPTURE(BM_mig_fit_naive_ranked, 1g_1g_2g, std::vector<mig_profile_index>{p1, p1, p2});
BENCHMARK_CAPTURE(BM_mig_fit_naive_first, one_3g, std::vector<mig_profile_index>{p3});
BENCHMARK_CAPTURE(BM_mig_fit_naive_first, 1g_1g_2g, std::vector<mig_profile_index>{p1, p1, p2});

// A fit on an empty GPU with seven 1g (the deepest search) and one that cannot fit.
void BM_mig_fit_seven_1g(benchmark::State& state) {
  const std::vector<mig_profile_index> want(7, p1);
  for (auto _ : state) {
    auto r = mig_fit(h100, {}, want);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_mig_fit_seven_1g);

// ---- enumeration ---------------------------------------------------------------------------
void BM_mig_enumerate(benchmark::State& state) {
  for (auto _ : state) {
    std::size_t n = 0;
    mig_for_each_layout(h100, [&](const mig_layout& l) { n += l.size(); });
    benchmark::DoNotOptimize(n);
  }
  state.counters["layouts"] = static_cast<double>(mig_count_layouts(h100));
}
BENCHMARK(BM_mig_enumerate)->Unit(benchmark::kMicrosecond);

void BM_mig_enumerate_to_vector(benchmark::State& state) {
  for (auto _ : state) {
    auto v = mig_enumerate_layouts(h100);
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(BM_mig_enumerate_to_vector)->Unit(benchmark::kMicrosecond);

void BM_mig_enumerate_naive(benchmark::State& state) {
  std::vector<mig_instance> all;
  for (std::size_t p = 0; p < h100.profiles.size(); ++p) {
    if (h100.profiles[p].media_extensions) continue;
    for (int s = 0; s < h100.memory_slices; ++s)
      if (h100.profiles[p].can_start_at(s)) all.push_back({static_cast<mig_profile_index>(p), static_cast<std::uint8_t>(s)});
  }
  for (auto _ : state) {
    std::size_t n = 0;
    for (std::uint32_t subset = 0; subset < (1U << all.size()); ++subset) {
      mig_layout l;
      bool room = true;
      for (std::size_t i = 0; i < all.size() && room; ++i)
        if (((subset >> i) & 1U) != 0) room = l.add(all[i]);
      n += room && mig_valid(h100, l) ? 1U : 0U;
    }
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_mig_enumerate_naive)->Unit(benchmark::kMicrosecond);

// ---- repartition ---------------------------------------------------------------------------
void BM_mig_repartition(benchmark::State& state, mig_layout have, mig_repartition_mode mode) {
  const std::vector<mig_profile_index> want{*h100.find_profile("4g.40gb")};
  for (auto _ : state) {
    auto plan = mig_plan_repartition(h100, have, want, mode);
    benchmark::DoNotOptimize(plan);
  }
}
BENCHMARK_CAPTURE(BM_mig_repartition, move_3g_out_of_the_way, mig_layout{{p3, 0}, {p1, 5}}, mig_repartition_mode::move);
BENCHMARK_CAPTURE(BM_mig_repartition, drop_3g, mig_layout{{p3, 0}, {p1, 4}}, mig_repartition_mode::drop);

}  // namespace

BENCHMARK_MAIN();
