// SPDX-License-Identifier: MIT
// Tariff building blocks: billing increments and minimums (provider presets), tiers,
// packages, spot schedules, compute units, the tariff's own checks.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <gpurent/core/format.hpp>
#include <gpurent/tariff/tariff.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_tariff_tariff {

using namespace gpurent;

namespace {
constexpr std::int64_t N = detail::nano_one;

std::int64_t nano(const char* s) { return *parse_nano(s); }
nano_price price(const char* s) { return nano_price(nano(s)); }
constexpr nano_price price(std::int64_t units) { return nano_price(units * N); }
constexpr nano_unit_hours up_to(std::int64_t units) { return nano_unit_hours(units * N); }
constexpr nano_money fee(std::int64_t units) { return nano_money(units * N); }

// An exact cost over usage_denominator, rounded to cents half-even, as text.
std::string cents(cost_numerator num) { return money_value::round(*parse_currency("USD"), usage_cost(num), rounding_mode::half_even).to_string(); }

// Usage of `units` unit-hours.
nano_usage unit_hours(std::int64_t units) { return usage_of(up_to(units)); }

instant at(const char* s) { return *parse_instant(s); }
}  // namespace

TEST_CASE("billing rule: increment and minimum") {
  CHECK_FALSE(billing_rule::make(seconds{0}));
  CHECK_FALSE(billing_rule::make(seconds{1}, seconds{-1}));
  const billing_rule r = *billing_rule::make(seconds{60}, seconds{300});
  CHECK(r.billed(1, true) == 300);
  CHECK(r.billed(1, false) == 60);  // minimum only where the caller says the record starts in the period
  CHECK(r.billed(301, true) == 360);
  CHECK(r.billed(360, true) == 360);
  CHECK(r.billed(0, false) == 0);
  // Large increments do not overflow.
  const billing_rule big = *billing_rule::make(seconds{std::int64_t{1} << 61});
  CHECK(big.billed(5, true) == (std::int64_t{1} << 61));
  static_assert(billing_presets::aws_ec2_linux().minimum() == seconds{60});
}

TEST_CASE("billing presets: the providers' published examples") {
  using namespace billing_presets;
  // AWS EC2 Linux: per second, 60 s minimum (aws.amazon.com/ec2/pricing/on-demand: "billed in
  // one-second increments, with a minimum of 60 seconds").
  CHECK(aws_ec2_linux().billed(10, true) == 60);
  CHECK(aws_ec2_linux().billed(61, true) == 61);
  CHECK(aws_ec2_linux().billed(3601, true) == 3601);
  // GCP: per second after a 1-minute minimum (cloud.google.com/compute/vm-instance-pricing).
  CHECK(gcp_compute().billed(30, true) == 60);
  CHECK(gcp_compute().billed(90, true) == 90);
  // Lambda and CoreWeave: per minute, no minimum.
  CHECK(lambda_per_minute().billed(1, true) == 60);
  CHECK(lambda_per_minute().billed(61, true) == 120);
  CHECK(coreweave_per_minute().billed(119, true) == 120);
  // SUSE on EC2: each partial hour billed as a full hour.
  CHECK(suse_on_ec2_hourly().billed(1, true) == 3600);
  CHECK(suse_on_ec2_hourly().billed(3601, true) == 7200);
  // Scaleway GPU: per minute, 60-minute minimum.
  CHECK(scaleway_gpu().billed(600, true) == 3600);
  CHECK(scaleway_gpu().billed(3661, true) == 3720);
  CHECK(quarter_hour().billed(16 * 60, true) == 30 * 60);
  CHECK(daily().billed(25 * 3600, true) == 2 * 86400);
}

TEST_CASE("AWS: 10 s at 2.49/h with a 60 s minimum is 0.0415 before rounding") {
  // aws.amazon.com/ec2/pricing/on-demand (per-second billing, 60 s minimum).
  const billing_rule r = billing_presets::aws_ec2_linux();
  const std::int64_t b = r.billed(10, true);
  const ratio<> exact(int128(nano("2.49")) * b, int128(N) * 3600);
  CHECK(format_exact(exact) == "0.0415");
  CHECK(money_value::round(*parse_currency("USD"), exact, rounding_mode::half_even).to_string() == "0.04");
  CHECK(money_value::round(*parse_currency("USD"), exact, rounding_mode::up).to_string() == "0.05");
}

TEST_CASE("Stripe's tier example: 6 units, volume 39.00, graduated 41.50") {
  // docs.stripe.com/subscriptions/pricing-models/tiered-pricing: tiers 1-5 at 7 USD, 6-10 at
  // 6.5 USD, 11+ at 6 USD; 6 units cost 39 USD volume-based (6 x 6.5) and 41.50 USD graduated
  // (5 x 7 + 1 x 6.5).
  const std::vector<tier_step> steps = {{up_to(5), price(7), {}}, {up_to(10), price("6.5"), {}}, {std::nullopt, price(6), {}}};
  const tier_table volume = *tier_table::make(tier_mode::volume, steps);
  const tier_table graduated = *tier_table::make(tier_mode::graduated, steps);
  cost_numerator v, g;
  REQUIRE(volume.cost(unit_hours(6), v));
  REQUIRE(graduated.cost(unit_hours(6), g));
  CHECK(cents(v) == "39.00");
  CHECK(cents(g) == "41.50");
  // The table's other published rows (volume): 1 -> 7, 5 -> 35, 20 -> 120, 25 -> 150.
  for (auto [units, total] : {std::pair{1, "7.00"}, {5, "35.00"}, {20, "120.00"}, {25, "150.00"}}) {
    REQUIRE(volume.cost(unit_hours(units), v));
    CHECK(cents(v) == total);
  }
  // Graduated laid record by record adds up to the whole.
  cost_numerator a, b;
  REQUIRE(graduated.graduated_part(nano_usage{}, unit_hours(4), a));
  REQUIRE(graduated.graduated_part(unit_hours(4), unit_hours(2), b));
  CHECK(cents(a) == "28.00");
  CHECK(cents(b) == "13.50");
  CHECK(a + b == g);
}

TEST_CASE("Orb bulk: 101 units at 0.40 is 40.40") {
  // docs.withorb.com/product-catalog/price-configuration, "Bulk pricing": under 10 units 0.50
  // each; past 10 all units at 0.40, "101 units total would be $40.40".
  const tier_table bulk = *tier_table::make(tier_mode::volume, {{up_to(10), price("0.50"), {}}, {std::nullopt, price("0.40"), {}}});
  cost_numerator c;
  REQUIRE(bulk.cost(unit_hours(101), c));
  CHECK(cents(c) == "40.40");
  REQUIRE(bulk.cost(unit_hours(10), c));
  CHECK(cents(c) == "5.00");
}

TEST_CASE("package: Stripe's 150 minutes at 10 per hour rounded up is 30.00") {
  // docs.stripe.com/products-prices/pricing-models ("transform quantity": divide usage by 60
  // and round up, so 150 minutes bill as 3 hours at 10 USD).
  const package_pricing p = *package_pricing::make(up_to(1), fee(10));
  cost_numerator c;
  REQUIRE(p.cost(nano_quantity(N) * seconds{150 * 60}, c));
  CHECK(cents(c) == "30.00");
  CHECK(p.packages(nano_quantity(N) * seconds{3600}) == 1);
  CHECK_FALSE(package_pricing::make(nano_unit_hours{0}, fee(1)));
}

TEST_CASE("flat fee per tier") {
  // Graduated: every step the usage enters adds its fee; volume: the chosen step's fee.
  const std::vector<tier_step> steps = {{up_to(10), price(1), fee(5)}, {std::nullopt, price("0.5"), fee(20)}};
  const tier_table g = *tier_table::make(tier_mode::graduated, steps);
  const tier_table v = *tier_table::make(tier_mode::volume, steps);
  cost_numerator c;
  REQUIRE(g.cost(unit_hours(4), c));
  CHECK(cents(c) == "9.00");  // 5 fee + 4 x 1
  REQUIRE(g.cost(unit_hours(12), c));
  CHECK(cents(c) == "36.00");  // 5 + 10 + 20 + 2 x 0.5
  REQUIRE(v.cost(unit_hours(12), c));
  CHECK(cents(c) == "26.00");  // 20 + 12 x 0.5
}

TEST_CASE("tier tables are validated") {
  CHECK_FALSE(tier_table::make(tier_mode::graduated, {}));
  auto not_last = tier_table::make(tier_mode::graduated, {{std::nullopt, price(1), {}}, {up_to(5), price(1), {}}});
  REQUIRE_FALSE(not_last);
  CHECK(not_last.error().field == "steps[0].up_to");
  auto bounded_last = tier_table::make(tier_mode::graduated, {{up_to(5), price(1), {}}});
  REQUIRE_FALSE(bounded_last);
  CHECK(bounded_last.error().field == "steps[0].up_to");
  auto decreasing = tier_table::make(tier_mode::volume, {{up_to(5), price(1), {}}, {up_to(5), price(1), {}}, {std::nullopt, price(1), {}}});
  REQUIRE_FALSE(decreasing);
  CHECK(decreasing.error().field == "steps[1].up_to");
}

TEST_CASE("spot schedule: an Alibaba spot record across two price periods") {
  // Alibaba Cloud preemptible (spot) instances are billed at the market price of each period
  // the instance runs in (alibabacloud.com/help/en/ecs/user-guide/spot-instances): here 0.80
  // until 10:00 and 0.60 after, for 09:30 to 10:45 -> 0.5 h x 0.80 + 0.75 h x 0.60 = 0.85.
  const price_schedule s =
      *price_schedule::make(price("1.00"), {{at("2026-11-10T10:00:00Z"), price("0.60")}, {at("2026-11-10T08:00:00Z"), price("0.80")}});
  CHECK(s.price_at(at("2026-11-10T07:59:59Z")) == price(1));
  CHECK(s.price_at(at("2026-11-10T08:00:00Z")) == price("0.80"));
  price_seconds ps;
  cost_numerator c;
  REQUIRE(s.integrate(at("2026-11-10T09:30:00Z"), at("2026-11-10T09:30:00Z"), at("2026-11-10T10:45:00Z"), ps));
  REQUIRE(mul_into(ps, nano_quantity(N), c));
  CHECK(cents(c) == "0.85");  // x 1 unit, per hour
  // With a one-hour protection period the first hour stays at the purchase price 0.80:
  // 1 h x 0.80 + 0.25 h x 0.60 = 0.95.
  const price_schedule p = *price_schedule::make(price("1.00"), s.changes(), seconds{3600});
  REQUIRE(p.integrate(at("2026-11-10T09:30:00Z"), at("2026-11-10T09:30:00Z"), at("2026-11-10T10:45:00Z"), ps));
  REQUIRE(mul_into(ps, nano_quantity(N), c));
  CHECK(cents(c) == "0.95");
  CHECK(p.price_for(at("2026-11-10T09:30:00Z"), at("2026-11-10T10:29:59Z")) == price("0.80"));
  CHECK(p.price_for(at("2026-11-10T09:30:00Z"), at("2026-11-10T10:30:00Z")) == price("0.60"));
  CHECK_FALSE(price_schedule::make(price(1), {{at("2026-11-10T10:00:00Z"), price(1)}, {at("2026-11-10T10:00:00Z"), price(2)}}));
  CHECK_FALSE(price_schedule::make(nano_price(-1), {}));
}

TEST_CASE("compute units: a price per TFLOPS-hour becomes an exact price per GPU") {
  rate r;
  r.resource = "compute/H100-80GB";
  r.mode = "on_demand";
  r.price = price_schedule(price("0.003"));        // per TFLOPS-hour
  auto g = compute_unit_rate(r, gflops(989'400));  // 989.4 TFLOPS dense FP16 (H100 SXM)
  REQUIRE(g);
  // 989.4 x 0.003 = 2.9682 per GPU-hour, exactly.
  cost_numerator one;
  REQUIRE(mul_into(g->price.base() * seconds{3600}, nano_quantity(N), one));
  const ratio<> one_hour = exact_amount(one, g->denominator());
  CHECK(format_exact(one_hour) == "2.9682");
  CHECK(kind_of_resource("compute/H100-80GB") == resource_kind::compute_unit);
  CHECK(kind_of_resource("mig/H100-80GB/3g.40gb") == resource_kind::mig_slice);
  CHECK(quantity_of(milli_gpu(250)) == nano_quantity(N / 4));
}

TEST_CASE("a tariff: one rate per (resource, mode), one credit per account, a real zone") {
  rate a;
  a.resource = "gpu/A";
  a.mode = "on_demand";
  auto t = tariff::make(*parse_currency("USD"), "America/New_York", {}, {a});
  REQUIRE(t);
  CHECK(t->find("gpu/A", "on_demand") == 0U);
  CHECK_FALSE(t->find("gpu/A", "spot"));
  auto dup = tariff::make(*parse_currency("USD"), "UTC", {}, {a, a});
  REQUIRE_FALSE(dup);
  CHECK(dup.error().field == "rates[1]");
  auto zone = tariff::make(*parse_currency("USD"), "Mars/Olympus", {}, {a});
  REQUIRE_FALSE(zone);
  CHECK(zone.error().field == "timezone");
  const currency usd = *parse_currency("USD");
  auto credits = tariff::make(usd, "UTC", {}, {a}, {{"x", money_value(usd, 1)}, {"x", money_value(usd, 2)}});
  REQUIRE_FALSE(credits);
  CHECK(credits.error().field == "credits[1].account");
  auto euros = tariff::make(usd, "UTC", {}, {a}, {{"x", money_value(*parse_currency("EUR"), 1)}});
  REQUIRE_FALSE(euros);
  CHECK(euros.error().code == error_code::currency_mismatch);
  CHECK(euros.error().field == "credits[0].amount");
  CHECK(tariff::make(usd, "UTC", {}, {a}, {{"x", money_value(usd, 5)}})->credit_for("y") == money_value(usd, 0));
}

TEST_CASE("nano decimals and exact display") {
  CHECK(parse_nano("2.49") == 2'490'000'000);
  CHECK(parse_nano("-0.000000001") == -1);
  CHECK_FALSE(parse_nano("1.0000000001"));
  CHECK_FALSE(parse_nano("1e3"));
  CHECK_FALSE(parse_nano("+1"));
  CHECK_FALSE(parse_nano("9223372037"));
  CHECK(parse_nano("9223372036") == std::int64_t{9223372036} * N);
  CHECK_FALSE(parse_positive_nano("0"));
  CHECK(format_nano(2'490'000'000) == "2.490000000");
  CHECK(format_exact(ratio<>(int128(1), int128(3))) == "1/3");
  CHECK(format_exact(ratio<>(int128(-83), int128(2000))) == "-0.0415");
  CHECK(format_exact(ratio<>(int128(7), int128(1))) == "7");
}

}  // namespace test_tariff_tariff
