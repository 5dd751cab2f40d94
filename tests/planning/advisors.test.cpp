// SPDX-License-Identifier: MIT
// The advisors against numbers worked by hand.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gpurent/planning/build_vs_rent.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/commitment.hpp>
#include <gpurent/planning/granularity.hpp>
#include <gpurent/planning/scaling.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_planning_advisors {

using namespace gpurent;

namespace {
decimal<9> d9(const char* s) { return *decimal<9>::parse(s); }
const currency usd{"USD", 2};
}  // namespace

TEST_CASE("Young's interval: delta = 5 min, M = 24 h gives 2 h") {
  // sqrt(2 x 300 x 86400) = sqrt(51 840 000) = 7200 exactly.
  CHECK(young_interval(300, 86400) == doctest::Approx(7200.0).epsilon(1e-12));
}

TEST_CASE("Daly's higher-order interval, worked by hand") {
  // x = delta/(2M) = 300/172800 = 1/576, sqrt(x) = 1/24:
  // tau = 7200 (1 + 1/72 + 1/5184) - 300 = 7200 + 100 + 1.388... - 300 = 7001.3889 s.
  CHECK(daly_interval(300, 86400) == doctest::Approx(7001.0 + 7.0 / 18.0).epsilon(1e-12));
  // delta >= 2M: checkpoint every M.
  CHECK(daly_interval(200, 100) == doctest::Approx(100.0));
}

TEST_CASE("Daly's expected wall time reduces to the solve time without failures") {
  // M -> infinity: M (e^((tau+delta)/M) - 1) Ts / tau -> (tau + delta) Ts / tau.
  const double w = daly_expected_wall(36000, 3600, 60, 600, 1e15);
  CHECK(w == doctest::Approx(36000.0 * 3660.0 / 3600.0).epsilon(1e-6));
}

TEST_CASE("spot estimate: notice window and checkpoint") {
  SUBCASE("the notice fits a checkpoint: write on notice, lose delta + R per interruption") {
    // lambda = 0.1/h; delta = 60 s, R = 540 s: lambda (delta + R) = 600/36000 = 1/60;
    // T_w = 36000 / (1 - 1/60) = 36610.169..., up to 36611 s; 1.017 interruptions -> 1.
    const spot_estimate e = estimate_spot(seconds(36000), seconds(60), seconds(540), seconds(120), 0.1);
    CHECK(e.notice_fits_checkpoint);
    CHECK(e.expected_wall_s == doctest::Approx(36000.0 * 60.0 / 59.0));
    CHECK(e.wall == seconds(36611));
    CHECK(e.interruptions == 1);
    CHECK(e.rework_per_interruption_s == 0.0);
  }
  SUBCASE("the notice is too short: checkpoint every Daly interval") {
    const spot_estimate e = estimate_spot(seconds(86400), seconds(300), seconds(600), seconds(120), 1.0 / 24.0);
    CHECK_FALSE(e.notice_fits_checkpoint);
    CHECK(e.mtbf_s == doctest::Approx(86400.0));
    CHECK(e.young_s == doctest::Approx(7200.0));
    CHECK(e.daly_s == doctest::Approx(7001.3889).epsilon(1e-6));
    // About half a segment is lost per interruption, less than (tau + delta)/2.
    CHECK(e.rework_per_interruption_s > 3000);
    CHECK(e.rework_per_interruption_s < (e.daly_s + 300) / 2);
    CHECK(e.wall.count() == static_cast<std::int64_t>(std::ceil(e.expected_wall_s)));
    CHECK(e.expected_wall_s > 86400 * (1 + 300 / e.daly_s));
  }
  SUBCASE("no interruptions: the solve time") {
    const spot_estimate e = estimate_spot(seconds(1000), seconds(60), seconds(60), seconds(0), 0);
    CHECK(e.wall == seconds(1000));
    CHECK(e.interruptions == 0);
  }
  SUBCASE("interruptions faster than progress: infeasible") {
    CHECK_FALSE(estimate_spot(seconds(1000), seconds(60), seconds(3600), seconds(120), 2.0).feasible);
  }
}

TEST_CASE("billing granularity: a 12-minute job billed by the hour pays 5x") {
  const billing_rule hourly = billing_rule::fixed(3600);
  const granularity_waste w = billing_waste(hourly, seconds(720));
  CHECK(w.billed == seconds(3600));
  CHECK(w.factor() == ratio<>(5, 1));
  const billing_rule per_second = billing_presets::aws_ec2_linux();  // 1 s increments, 60 s minimum
  CHECK(billing_waste(per_second, seconds(720)).factor() == ratio<>(1, 1));
  CHECK(billing_waste(per_second, seconds(30)).billed == seconds(60));
  // 40 runs of 12 minutes each, separately, hourly: 40 h billed for 8 h used.
  const std::vector<seconds> runs(40, seconds(720));
  CHECK(billing_waste(hourly, runs).factor() == ratio<>(5, 1));
}

TEST_CASE("commitment sizing: the optimum of a small profile equals brute force") {
  const std::array<std::int64_t, 8> load = {2, 2, 3, 5, 5, 1, 0, 4};
  const decimal<9> od = d9("2.00"), rsv = d9("1.30");
  auto a = size_commitment(load, usd, rounding_mode::half_even, od, rsv);
  REQUIRE(a);
  // Brute force in cents: level c costs 8 x c x 130 + sum max(0, L - c) x 200.
  std::int64_t best_c = -1, best = std::numeric_limits<std::int64_t>::max();
  for (std::int64_t c = 0; c <= 5; ++c) {
    std::int64_t cost = 8 * c * 130;
    for (std::int64_t l : load) cost += std::max<std::int64_t>(0, l - c) * 200;
    CHECK(a->curve[static_cast<std::size_t>(c)].cost.minor_units() == cost);
    if (cost < best) {
      best = cost;
      best_c = c;
    }
  }
  CHECK(a->best.level == best_c);
  CHECK(a->best.level == 2);  // by hand: 0: 44.00, 1: 10.40 + 30.00, 2: 20.80 + 18.00, 3: 31.20 + 10.00
  CHECK(a->best.cost.to_string() == "38.80");
  CHECK(a->on_demand_cost.to_string() == "44.00");
  CHECK(a->savings.to_string() == "5.20");
  CHECK(a->best.utilization == ratio<>(13, 16));  // used 2+2+2+2+2+1+0+2 = 13 of 16
  CHECK_FALSE(size_commitment(std::array<std::int64_t, 1>{-1}, usd, rounding_mode::half_even, od, rsv));
}

TEST_CASE("build versus rent: break-even utilization by hand") {
  // F = 30000/30000 + 0.20 + 0.30 = 1.50 per hour; V = 0.7 kW x 0.15 = 0.105 per used hour.
  // Against 2.49/h: u* = 1.50 / (2.49 - 0.105) = 1.50 / 2.385 = 100/159.
  ownership_costs own{d9("30000"), 30000, d9("0.20"), d9("0.30"), d9("0.7"), d9("0.15")};
  auto r = compare_build_rent(own, d9("2.49"), ratio<>(1, 2));
  REQUIRE(r);
  CHECK(r->fixed_per_hour == ratio<>(3, 2));
  CHECK(r->variable_per_hour == ratio<>(21, 200));
  REQUIRE(r->break_even);
  CHECK(*r->break_even == ratio<>(100, 159));
  // At 50% a delivered hour costs 3.00 + 0.105 = 3.105 > 2.49: rent.
  CHECK(r->owned_per_delivered_hour == ratio<>(621, 200));
  CHECK_FALSE(r->own_is_cheaper);
  CHECK(compare_build_rent(own, d9("2.49"), ratio<>(9, 10))->own_is_cheaper);
  // Renting at 1.00/h: owning never pays (u* > 1).
  CHECK_FALSE(compare_build_rent(own, d9("1.00"), ratio<>(1, 1))->break_even);
}

TEST_CASE("build versus rent: inputs with nine decimals are compared exactly (they threw 'overflow in multiplication')") {
  // Realistic amounts with every decimal used: before ratio comparisons went to 256 bits when
  // their cross products needed it, about half of these threw. The answers must also agree:
  // owning is cheaper exactly when the utilization is above the break-even.
  std::mt19937_64 rng(5);
  const auto draw = [&](std::uint64_t whole) { return decimal<9>::from_raw(int128(static_cast<std::int64_t>(rng() % (whole * 1'000'000'000ULL)))); };
  for (int i = 0; i < 500; ++i) {
    const ownership_costs own{draw(50'000), static_cast<std::int64_t>(rng() % 100'000 + 1), draw(2), draw(2), draw(2), draw(2)};
    const decimal<9> rent = draw(10);
    const ratio<> u(static_cast<std::int64_t>(rng() % 1'000'000'000ULL + 1), 1'000'000'000);
    const auto r = compare_build_rent(own, rent, u);
    REQUIRE(r);
    if (r->break_even)
      CHECK(r->own_is_cheaper == (*r->break_even < u));
    else
      CHECK_FALSE(r->own_is_cheaper);
    std::vector<std::int64_t> load(24);
    for (auto& l : load) l = static_cast<std::int64_t>(rng() % 16);
    const auto a = size_owned_pool(own, rent, load);
    REQUIRE(a);
    CHECK_FALSE(a->all_rented.cost < a->best.cost);
  }
}

TEST_CASE("scaling: out on backlog, in only after a checkpoint") {
  const instant t0{};
  const scaling_policy p{4, 0.85, 0.30, 1, 10};
  const std::vector<node_status> busy = {{"a", 0.9, true, t0, t0}, {"b", 0.95, true, t0, t0}};
  auto out = decide_scaling(p, 20, busy);
  CHECK(out.action == scaling_action::scale_out);
  CHECK(out.add == 3);                                                                            // 20 queued / 4 per node = 5 nodes
  const std::vector<node_status> quiet = {{"a", 0.1, true, t0 + seconds(100), t0 + seconds(50)},  // checkpointed since
                                          {"b", 0.05, true, t0 + seconds(10), t0 + seconds(90)},  // progress after checkpoint
                                          {"c", 0.0, false, t0, t0},                              // idle
                                          {"d", 0.6, true, t0, t0}};
  auto in = decide_scaling(p, 0, quiet);
  CHECK(in.action == scaling_action::scale_in);
  CHECK(in.release == std::vector<std::string>{"c", "a"});
  CHECK(in.waiting == std::vector<std::string>{"b"});
  CHECK(decide_scaling(p, 0, std::vector<node_status>{{"a", 0.5, true, t0, t0}}).action == scaling_action::hold);
  // At the maximum with a backlog: hold, and the reason says why (it said "within thresholds").
  const scaling_policy capped{1, 0.85, 0.30, 1, 2};
  const auto full = decide_scaling(capped, 20, std::vector<node_status>(4, node_status{"a", 0.5, true, t0, t0}));
  CHECK(full.action == scaling_action::hold);
  CHECK(full.add == 0);
  CHECK(full.reason == "queue backlog above threshold, but at the maximum node count");
}

TEST_CASE("idle detection from utilization samples, through the planning header") {
  const instant t0{};
  std::vector<utilization_sample> s;
  const int u[] = {90, 2, 1, 3, 80, 2, 70, 0, 0};
  for (int i = 0; i < 9; ++i) s.push_back({t0 + seconds(300 * i), u[i]});
  const interval window = *interval::make(t0, t0 + seconds(2700));
  const auto idle = idle_periods(s, 5, seconds(600), window);
  REQUIRE(idle);
  REQUIRE(idle->size() == 1);
  CHECK((*idle)[0] == *interval::make(t0 + seconds(300), t0 + seconds(1200)));  // three low samples, to the next one
  const auto shorter = idle_periods(s, 5, seconds(299), window);
  REQUIRE(shorter);
  REQUIRE(shorter->size() == 3);
  CHECK((*shorter)[1] == *interval::make(t0 + seconds(1500), t0 + seconds(1800)));
  CHECK((*shorter)[2] == *interval::make(t0 + seconds(2100), t0 + seconds(2700)));  // the last sample holds to the window's end
}

}  // namespace test_planning_advisors
