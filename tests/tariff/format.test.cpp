// SPDX-License-Identifier: MIT
// fmt formatters of the tariff layer (tariff/format.hpp): each type prints what it says,
// exactly (prices never through a double), and width and alignment work as for strings.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/tariff/format.hpp>

namespace test_tariff_format {
namespace {
using namespace gpurent;

// the meter contract's first example tariff (USD, New York), with a credit for a second account, a volume tier
// table with a flat fee, a package, a protected spot rate and a compute-unit divisor.
tariff example() {
  auto t = io::parse_tariff_json(R"({
    "currency": "USD", "timezone": "America/New_York", "rounding": "half_even", "rounding_point": "record", "carry": false,
    "forgive_below_minor_unit": true,
    "rates": [
      {"resource": "gpu/H100-80GB", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s"},
      {"resource": "gpu/H100-80GB", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s", "protection": "1h",
       "price_changes": [{"from": "2026-11-10T06:00:00Z", "unit_price": "0.87"}]},
      {"resource": "mig/H100-80GB/3g.40gb", "mode": "on_demand", "per": "1h", "increment": "1s",
       "tiers": {"mode": "graduated", "steps": [{"up_to": "100", "unit_price": "1.20"}, {"up_to": null, "unit_price": "0.95"}]}},
      {"resource": "share/A100", "mode": "on_demand", "per": "1h", "increment": "15min",
       "tiers": {"mode": "volume", "steps": [{"up_to": "10", "unit_price": "0.5", "flat_fee": "2"}, {"up_to": null, "unit_price": "0.4"}]}},
      {"resource": "compute/tflops", "mode": "prepaid", "per": "1h", "package": {"size": "10", "price": "15.5"}}
    ],
    "credits": [{"account": "zeta", "amount": "5"}, {"account": "acme", "amount": "100.00"}]
  })",
                                 "t.json");
  if (!t) FAIL(t.error().describe());
  return *t;
}

TEST_CASE("enums print their names") {
  CHECK(fmt::format("{}", resource_kind::mig_slice) == "mig_slice");
  CHECK(fmt::format("{}", rounding_point::invoice) == "invoice");
  CHECK(fmt::format("{}", tier_mode::volume) == "volume");
  CHECK(fmt::format("{}", price_kind::package) == "package");
  CHECK(fmt::format("[{:>6}]", tier_mode::volume) == "[volume]");
  CHECK(fmt::format("[{:>8}]", rounding_point::line) == "[    line]");
  // One table per enum gives parsing and the list of names too.
  CHECK(parse_enum<rounding_point>("record") == rounding_point::record);
  CHECK_FALSE(parse_enum<tier_mode>("Volume"));
  CHECK(enum_choices<price_kind>() == "unit, tiers or package");
  CHECK(parse_enum<resource_kind>("fractional_share") == resource_kind::fractional_share);
}

TEST_CASE("billing rules and rounding rules") {
  CHECK(fmt::format("{}", billing_presets::aws_ec2_linux()) == "increment 1s, minimum 1min");
  CHECK(fmt::format("{}", billing_rule::fixed(3600)) == "increment 1h");
  CHECK(fmt::format("{}", billing_rule::fixed(86400, 90)) == "increment 1d, minimum 1min30s");
  CHECK(fmt::format("{}", rounding_rule{}) == "half_even at line");
  CHECK(fmt::format("{}", rounding_rule{rounding_mode::up, rounding_point::invoice, true, true}) ==
        "up at invoice, forgiving amounts below one minor unit, carrying remainders");
}

TEST_CASE("every kind of rate, exactly") {
  const tariff t = example();
  REQUIRE(t.rates().size() == 5);
  CHECK(fmt::format("{}", t.rates()[0]) == "gpu/H100-80GB on_demand: 2.49 per 1h, increment 1min, minimum 1min");
  CHECK(fmt::format("{}", t.rates()[1]) ==
        "gpu/H100-80GB spot: 1.1, 0.87 from 2026-11-10T06:00:00Z (first 1h at the price in force at the start) per 1h, increment 1s");
  CHECK(fmt::format("{}", t.rates()[2]) ==
        "mig/H100-80GB/3g.40gb on_demand: tiers graduated: up to 100 at 1.2, beyond at 0.95 per unit-hour, increment 1s");
  CHECK(fmt::format("{}", t.rates()[3]) ==
        "share/A100 on_demand: tiers volume: up to 10 at 0.5 + 2 flat, beyond at 0.4 per unit-hour, increment 15min");
  CHECK(fmt::format("{}", t.rates()[4]) == "compute/tflops prepaid: packages of 10 unit-hours at 15.5, increment 1s");
  CHECK(fmt::format("{}", t.rates()[2].tiers) == "graduated: up to 100 at 1.2, beyond at 0.95");
  CHECK(fmt::format("{}", t.rates()[1].price) == "1.1, 0.87 from 2026-11-10T06:00:00Z (first 1h at the price in force at the start)");
}

TEST_CASE("a compute-unit rate prints its exact per-GPU price, not a rounded one") {
  // 2.00 per TFLOPS-hour on a GPU of 66,913 GFLOPS is 2 x 66.913 = 133.826 per GPU-hour.
  rate r;
  r.resource = "gpu/H100-80GB";
  r.mode = "tflops";
  r.price = price_schedule(nano_price(2'000'000'000));
  auto c = compute_unit_rate(r, gflops{66'913});
  REQUIRE(c);
  CHECK(fmt::format("{}", *c) == "gpu/H100-80GB tflops: 133.826 per 1h, increment 1s");
  // A price no decimal holds prints as a fraction.
  auto third = compute_unit_rate(r, gflops{1});
  REQUIRE(third);
  third->price_divisor = 3000;
  CHECK(fmt::format("{}", *third) == "gpu/H100-80GB tflops: 1/1500 per 1h, increment 1s");
}

TEST_CASE("a tariff prints its setting, rates in order and credits by account") {
  const std::string s = fmt::format("{}", example());
  CHECK(
      s.starts_with("tariff in USD, zone America/New_York, rounding half_even at record, forgiving amounts below one minor unit\n"
                    "  gpu/H100-80GB on_demand: 2.49 per 1h"));
  CHECK(s.ends_with("\n  credit acme: 100.00 USD\n  credit zeta: 5.00 USD"));
  const std::vector<credit_grant> credits = example().credits();
  REQUIRE(credits.size() == 2);
  CHECK(credits[0].account == "acme");
  CHECK(credits[0].amount.minor_units() == 10000);
}

}  // namespace
}  // namespace test_tariff_format
