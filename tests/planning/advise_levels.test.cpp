// SPDX-License-Identifier: MIT
// The level sweep and its two users, commitment sizing and build versus rent's profile form,
// against brute force over every level (fixed profiles worked by hand, and random ones with
// their seed printed on failure); checkpoint times from size and bandwidth.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include <gpurent/planning/build_vs_rent.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/commitment.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_planning_advise_levels {

using namespace gpurent;

namespace {
decimal<9> d9(const char* s) { return *decimal<9>::parse(s); }
const currency usd{"USD", 2};

// The owned pool's cost at size n, summed hour by hour: n F + V min(L, n) + R max(L - n, 0).
ratio<> brute_cost(std::span<const std::int64_t> load, std::int64_t n, const ratio<>& f, const ratio<>& v, const ratio<>& r) {
  ratio<> total(0, 1);
  for (std::int64_t l : load) {
    const std::int64_t served = std::min(l, n), above = std::max<std::int64_t>(l - n, 0);
    total += f * ratio<>(n, 1) + v * ratio<>(served, 1) + r * ratio<>(above, 1);
  }
  return total;
}

// The cheapest n by brute force (ties: the smaller).
std::int64_t brute_best(std::span<const std::int64_t> load, const ratio<>& f, const ratio<>& v, const ratio<>& r) {
  const std::int64_t peak = *std::ranges::max_element(load);
  std::int64_t best = 0;
  for (std::int64_t n = 1; n <= peak; ++n)
    if (brute_cost(load, n, f, v, r) < brute_cost(load, best, f, v, r)) best = n;
  return best;
}

// A price with up to 4 fractional digits in [0, hi) units.
decimal<9> random_price(std::mt19937_64& rng, std::int64_t hi) {
  return decimal<9>::from_raw(int128(std::uniform_int_distribution<std::int64_t>(0, hi * 10000 - 1)(rng)) * 100000);
}
}  // namespace

TEST_CASE("the level sweep: served and above unit-hours of every level, by hand") {
  const std::array<std::int64_t, 5> load = {3, 0, 1, 3, 2};  // sorted 0 1 2 3 3, total 9
  auto s = sweep_levels(load);
  REQUIRE(s);
  // level 0: serves 0, above 9; 1: serves 4 (0+1+1+1+1), above 5; 2: serves 7, above 2; 3: 9, 0.
  CHECK(*s == std::vector<level_hours>{{0, 0, 9}, {1, 4, 5}, {2, 7, 2}, {3, 9, 0}});
  CHECK(sweep_levels(std::array<std::int64_t, 2>{0, 0})->size() == 1);
  CHECK_FALSE(sweep_levels(std::vector<std::int64_t>{}));
  CHECK(sweep_levels(std::array<std::int64_t, 1>{-1}).error().field == "load[0]");
  CHECK_FALSE(sweep_levels(std::array<std::int64_t, 1>{max_hourly_load + 1}));
}

TEST_CASE("own the base, rent the peak: a profile worked by hand") {
  // F = 30000/30000 + 0.20 + 0.30 = 1.50/h; V = 0.7 kW x 0.15 = 0.105; R = 2.49; H = 8.
  // Loads 2 2 3 5 5 1 0 4 (22 GPU-hours). Owning n costs 12 n + 0.105 served(n) + 2.49 above(n):
  //   n=0: 2.49 x 22 = 54.78;  n=1: 12 + 0.105 x 7 + 2.49 x 15 = 50.085;
  //   n=2: 24 + 0.105 x 13 + 2.49 x 9 = 47.775;  n=3: 36 + 0.105 x 17 + 2.49 x 5 = 50.235;
  //   n=5: 60 + 0.105 x 22 = 62.31. The best is 2: the second GPU is busy 6 hours of 8 (75% >
  //   u* = 100/159 = 62.9%), the third 4 of 8 (50% < u*).
  const ownership_costs own{d9("30000"), 30000, d9("0.20"), d9("0.30"), d9("0.7"), d9("0.15")};
  const std::array<std::int64_t, 8> load = {2, 2, 3, 5, 5, 1, 0, 4};
  auto a = size_owned_pool(own, d9("2.49"), load);
  REQUIRE(a);
  CHECK(a->hours == 8);
  CHECK(a->gpu_hours == 22);
  CHECK(a->best.owned == 2);
  CHECK(a->best.cost == ratio<>(47775, 1000));
  CHECK(a->best.utilization == ratio<>(13, 16));
  CHECK(a->all_rented.owned == 0);
  CHECK(a->all_rented.cost == ratio<>(5478, 100));
  CHECK(a->all_owned.owned == 5);
  CHECK(a->all_owned.cost == ratio<>(6231, 100));
  CHECK(a->savings_vs_rented == ratio<>(7005, 1000));
  CHECK(a->savings_vs_owned == ratio<>(14535, 1000));
  CHECK(a->curve[1].cost == ratio<>(50085, 1000));
  CHECK(a->curve[3].cost == ratio<>(50235, 1000));
  REQUIRE(a->break_even);
  CHECK(*a->break_even == ratio<>(100, 159));
  CHECK(brute_best(load, a->fixed_per_hour, a->variable_per_hour, ratio<>(d9("2.49"))) == 2);
}

TEST_CASE("own the base, rent the peak: renting at cost never owns; free ownership owns the peak") {
  const std::array<std::int64_t, 4> load = {1, 4, 2, 0};
  const ownership_costs own{d9("1000"), 1000, d9("0"), d9("0"), d9("1"), d9("0.5")};  // F = 1, V = 0.5
  CHECK(size_owned_pool(own, d9("0.5"), load)->best.owned == 0);                      // R = V: owning never pays
  CHECK(size_owned_pool(own, d9("1.4"), load)->best.owned == 0);                      // u* = 1/0.9 > 1
  const ownership_costs free_own{d9("0"), 1000, d9("0"), d9("0"), d9("0"), d9("0")};
  auto a = size_owned_pool(free_own, d9("2"), load);
  CHECK(a->best.owned == 4);
  CHECK(a->best.cost == ratio<>(0, 1));
  CHECK_FALSE(size_owned_pool(own, d9("-1"), load));
  CHECK(size_owned_pool(ownership_costs{d9("1"), 0, d9("0"), d9("0"), d9("0"), d9("0")}, d9("1"), load).error().field == "life_hours");
}

TEST_CASE("own the base, rent the peak: random profiles against brute force") {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const auto hours = std::uniform_int_distribution<std::size_t>(1, 60)(rng);
    const std::int64_t top = std::uniform_int_distribution<std::int64_t>(0, 25)(rng);
    std::vector<std::int64_t> load(hours);
    for (auto& l : load) l = std::uniform_int_distribution<std::int64_t>(0, top)(rng);
    const ownership_costs own{random_price(rng, 40000), std::uniform_int_distribution<std::int64_t>(1, 40000)(rng),
                              random_price(rng, 2),     random_price(rng, 2),
                              random_price(rng, 2),     random_price(rng, 1)};
    const decimal<9> rent = random_price(rng, 6);
    auto a = size_owned_pool(own, rent, load);
    REQUIRE(a);
    const ratio<> f = own.fixed_per_hour(), v = own.variable_per_hour(), r(rent);
    REQUIRE(a->curve.size() == static_cast<std::size_t>(*std::ranges::max_element(load)) + 1);
    for (const owned_pool_option& o : a->curve) CHECK(o.cost == brute_cost(load, o.owned, f, v, r));
    CHECK(a->best.owned == brute_best(load, f, v, r));
    // The n-th GPU is owned exactly when it is busy more than u* of the hours.
    std::int64_t levels_above = 0;
    for (std::int64_t k = 1; k <= a->all_owned.owned; ++k) {
      const auto busy = static_cast<std::int64_t>(std::ranges::count_if(load, [k](std::int64_t l) { return l >= k; }));
      if (a->break_even && *a->break_even < ratio<>(busy, static_cast<std::int64_t>(hours))) ++levels_above;
    }
    CHECK(a->best.owned == levels_above);
  }
}

TEST_CASE("commitment sizing: random profiles against brute force, each level rounded once") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<std::int64_t> load(std::uniform_int_distribution<std::size_t>(1, 50)(rng));
    for (auto& l : load) l = std::uniform_int_distribution<std::int64_t>(0, 12)(rng);
    const decimal<9> od = random_price(rng, 5), rsv = random_price(rng, 5);
    auto a = size_commitment(load, usd, rounding_mode::half_even, od, rsv);
    REQUIRE(a);
    std::size_t best = 0;
    for (std::int64_t c = 0; c <= *std::ranges::max_element(load); ++c) {
      const money_value cost = money_value::round(usd, brute_cost(load, c, ratio<>(rsv), ratio<>(0, 1), ratio<>(od)), rounding_mode::half_even);
      CHECK(a->curve[static_cast<std::size_t>(c)].cost == cost);
      if (cost.minor_units() < a->curve[best].cost.minor_units()) best = static_cast<std::size_t>(c);
    }
    CHECK(a->best.level == static_cast<std::int64_t>(best));
    CHECK(a->savings == a->on_demand_cost - a->best.cost);
  }
}

TEST_CASE("commitment sizing over a term: the window's exact costs scaled, rounded once") {
  // The profile of advisors.test.cpp: 8 hours, best level 2 at 38.80, on demand 44.00. Over
  // 720 h (the window 90 times): 3492.00 and 3960.00.
  const std::array<std::int64_t, 8> load = {2, 2, 3, 5, 5, 1, 0, 4};
  auto a = size_commitment(load, usd, rounding_mode::half_even, ratio<>(d9("2.00")), ratio<>(d9("1.30")), seconds(720 * 3600));
  REQUIRE(a);
  REQUIRE(a->term);
  CHECK(a->term->cost.to_string() == "3492.00");
  CHECK(a->term->on_demand_cost.to_string() == "3960.00");
  CHECK(a->term->savings.to_string() == "468.00");
  // A 1-hour term: 38.80 / 8 = 4.85 exactly; 44 / 8 = 5.50.
  auto h = size_commitment(load, usd, rounding_mode::half_even, ratio<>(d9("2.00")), ratio<>(d9("1.30")), seconds(3600));
  CHECK(h->term->cost.to_string() == "4.85");
  CHECK(h->term->on_demand_cost.to_string() == "5.50");
  CHECK_FALSE(size_commitment(load, usd, rounding_mode::half_even, ratio<>(d9("2.00")), ratio<>(d9("1.30")), seconds(0)));
}

TEST_CASE("a rate's base price per unit-hour") {
  rate r;
  r.per = seconds(60);
  r.price = *price_schedule::make(nano_price(50'000'000), {});  // 0.05 per minute = 3.00 per hour
  CHECK(*base_price_per_hour(r) == ratio<>(3, 1));
  r.kind = price_kind::tiers;
  CHECK_FALSE(base_price_per_hour(r));
}

TEST_CASE("checkpoint times from size and bandwidth") {
  // A 70B-parameter model at 16 bytes per parameter (mixed-precision Adam): 1.12 x 10^12
  // bytes; written at 2 GB/s (2000 MB/s): 1.12e12 / 2e9 = 560 s.
  auto state = model_state_bytes(70'000'000'000, 16);
  REQUIRE(state);
  CHECK(state->count() == 1'120'000'000'000);
  CHECK(*transfer_time(*state, gb_per_s(2)) == seconds(560));
  // Rounded up: one byte more takes a second more; 1 byte at 1 MB/s takes 1 s.
  CHECK(*transfer_time(*state + bytes(1), gb_per_s(2)) == seconds(561));
  CHECK(*transfer_time(bytes(1), mb_per_s(1)) == seconds(1));
  CHECK(*transfer_time(bytes(0), mb_per_s(1)) == seconds(0));
  CHECK(*transfer_time(bytes(3'000'000), mb_per_s(3)) == seconds(1));
  CHECK(*transfer_time(bytes(3'000'001), mb_per_s(3)) == seconds(2));
  CHECK_FALSE(transfer_time(bytes(1), mb_per_s(0)));
  CHECK_FALSE(model_state_bytes(std::int64_t{1} << 62, 16));
  // Daly's interval from that write time, 1 interruption per 20 h (M = 72000 s):
  // Young = sqrt(2 x 560 x 72000) = sqrt(80 640 000) = 8979.98 s; x = 560/144000 = 7/1800,
  // Daly = 8979.98 (1 + sqrt(x)/3 + x/9) - 560 = 8979.98 x 1.0212191 - 560 = 8610.52 s.
  const spot_estimate e = estimate_spot(seconds(48 * 3600), *transfer_time(*state, gb_per_s(2)), seconds(600), seconds(120), 0.05);
  CHECK(e.young_s == doctest::Approx(8979.9777).epsilon(1e-7));
  CHECK(e.daly_s == doctest::Approx(8610.525).epsilon(1e-6));
  CHECK_FALSE(e.notice_fits_checkpoint);  // 120 s of notice < 560 s of writing
}

}  // namespace test_planning_advise_levels
