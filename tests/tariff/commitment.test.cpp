// SPDX-License-Identifier: MIT
// Commitments, credits, subscriptions and price matrices.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <gpurent/core/money.hpp>
#include <gpurent/tariff/tariff.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_tariff_commitment {

using namespace gpurent;

namespace {
constexpr std::int64_t N = detail::nano_one;
constexpr nano_quantity units(std::int64_t n) { return nano_quantity(n * N); }
nano_price price(const char* s) { return nano_price(*parse_nano(s)); }
instant at(const char* s) { return *parse_instant(s); }
std::string usd(const ratio<>& r) { return money_value::round(*parse_currency("USD"), r, rounding_mode::half_even).to_string(); }
}  // namespace

TEST_CASE("reserved capacity covers up to N concurrent units at every instant") {
  const interval day = *interval::make(at("2026-11-03T00:00:00Z"), at("2026-11-04T00:00:00Z"));
  // 1 unit all day, 2 more from 10:00 to 12:00, with 2 reserved: 2 h x 1 unit over.
  const std::vector<usage_span> spans = {{at("2026-11-02T00:00:00Z"), at("2026-11-05T00:00:00Z"), units(1)},
                                         {at("2026-11-03T10:00:00Z"), at("2026-11-03T12:00:00Z"), units(2)}};
  auto c = cover(spans, units(2), day);
  REQUIRE(c);
  CHECK(c->excess == units(1) * seconds{2 * 3600});
  CHECK(c->covered == units(1) * seconds{24 * 3600 + 2 * 3600});
  // The order of the spans does not matter.
  const std::vector<usage_span> reversed(spans.rbegin(), spans.rend());
  CHECK(*cover(reversed, units(2), day) == *c);
  // Fee 40 for the day, excess at 2.49/h: 40 + 2 x 2.49.
  auto bill = bill_reservation(spans, {units(2), nano_money(40 * N), price("2.49"), seconds{3600}}, day);
  REQUIRE(bill);
  CHECK(usd(bill->total) == "44.98");
  CHECK_FALSE(cover(std::vector<usage_span>{{at("2026-11-03T01:00:00Z"), at("2026-11-03T01:00:00Z"), units(1)}}, units(1), day));
}

TEST_CASE("dual-rate reservation: holding rate on all reserved capacity plus usage rate while used") {
  const interval day = *interval::make(at("2026-11-03T00:00:00Z"), at("2026-11-04T00:00:00Z"));
  const std::vector<usage_span> spans = {{at("2026-11-03T08:00:00Z"), at("2026-11-03T20:00:00Z"), units(3)}};
  // 2 reserved: holding 2 x 24 h x 0.10 = 4.80; usage 2 x 12 h x 1.00 = 24; excess 1 x 12 h x 2.00 = 24.
  auto a = dual_rate_amount(spans, units(2), price("0.10"), price("1"), price("2"), seconds{3600}, day);
  REQUIRE(a);
  CHECK(usd(*a) == "52.80");
}

TEST_CASE("prepaid credits are drawn down and never make a total negative") {
  const auto cents = [](int n) { return money_value(*parse_currency("USD"), n); };
  credit_balance b(cents(1000));
  auto d1 = b.draw(cents(600));
  CHECK(d1.applied == cents(600));
  CHECK(d1.due == cents(0));
  auto d2 = b.draw(cents(600));
  CHECK(d2.applied == cents(400));
  CHECK(d2.due == cents(200));
  CHECK(b.remaining() == cents(0));
  // A refund takes no credit and stays due, negative; the balance does not grow.
  credit_balance r(cents(50));
  auto d3 = r.draw(cents(-5));
  CHECK(d3.applied == cents(0));
  CHECK(d3.due == cents(-5));
  CHECK(r.remaining() == cents(50));
  CHECK(usd(subscription_amount(nano_money(*parse_nano("199.99")), units(2))) == "399.98");
}

TEST_CASE("price matrix by (model, region, mode)") {
  price_matrix m;
  REQUIRE(m.set("H100-80GB", "us-east", "on_demand", price("2.49")));
  REQUIRE(m.set("H100-80GB", "eu-west", "on_demand", price("2.79")));
  REQUIRE(m.set("H100-80GB", "us-east", "spot", price("1.10")));
  CHECK_FALSE(m.set("H100-80GB", "us-east", "spot", price("1")));
  CHECK(m.find("H100-80GB", "eu-west", "on_demand") == price("2.79"));
  auto missing = m.find("A100", "eu-west", "on_demand");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("A100") != std::string::npos);
  auto rates = m.rates(billing_presets::aws_ec2_linux());
  REQUIRE(rates.size() == 3);
  auto t = tariff::make(*parse_currency("USD"), "UTC", {}, rates);
  REQUIRE(t);
  CHECK(t->find("gpu/H100-80GB/us-east", "spot"));
}

}  // namespace test_tariff_commitment
