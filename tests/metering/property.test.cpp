// SPDX-License-Identifier: MIT
// Invariants on random usage (seeds printed on failure): lines sum to totals, credits never
// make a total negative, permuting records changes nothing, and meters of random shards
// merge into a byte-identical invoice.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gpurent/io/billing/invoice_csv.hpp>
#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/metering.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_property {

using namespace gpurent;

namespace {
const char* const tariff_text = R"({
  "currency": "USD", "timezone": "America/New_York", "rounding": "half_even", "rounding_point": "%POINT%",
  "rates": [
    { "resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s" },
    { "resource": "gpu/H100", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s", "protection": "1h",
      "price_changes": [ { "from": "2026-11-10T06:00:00Z", "unit_price": "0.87" }, { "from": "2026-11-20T00:00:00Z", "unit_price": "1.31" } ] },
    { "resource": "mig/3g", "mode": "on_demand", "per": "1h", "increment": "15min",
      "tiers": { "mode": "graduated", "steps": [ { "up_to": "10", "unit_price": "1.20", "flat_fee": "2" }, { "up_to": null, "unit_price": "0.95" } ] } },
    { "resource": "mig/1g", "mode": "on_demand", "increment": "1min",
      "tiers": { "mode": "volume", "steps": [ { "up_to": "5", "unit_price": "0.333" }, { "up_to": null, "unit_price": "0.3" } ] } },
    { "resource": "server/8x", "mode": "reserved", "increment": "1h", "package": { "size": "2", "price": "7.77" } }
  ],
  "credits": [ { "account": "acme", "amount": "25.00" }, { "account": "zeta", "amount": "1000" } ]
})";

tariff make(std::string point) {
  std::string s = tariff_text;
  s.replace(s.find("%POINT%"), 7, point);
  auto t = io::parse_tariff_json(s, "prop.json");
  REQUIRE(t);
  return *t;
}

std::vector<usage_record> random_records(std::mt19937_64& rng, const tariff& t, int n) {
  const char* accounts[] = {"acme", "beta", "zeta"};
  const instant base = *parse_instant("2026-10-28T00:00:00Z");
  std::vector<usage_record> out;
  for (int i = 0; i < n; ++i) {
    usage_record r;
    r.id = "r" + std::to_string(i);
    r.account = accounts[rng() % 3];
    const rate& rt = t.rate_at(rng() % t.rates().size());
    r.resource = rt.resource;
    r.mode = rt.mode;
    r.quantity = nano_quantity(static_cast<std::int64_t>(1 + rng() % 8) * detail::nano_one / static_cast<std::int64_t>(1 + rng() % 4));
    r.start = base + seconds{static_cast<std::int64_t>(rng() % (40 * 86400))};
    r.end = r.start + seconds{static_cast<std::int64_t>(1 + rng() % (rng() % 2 ? 200 : 3 * 86400))};
    out.push_back(r);
    if (rng() % 10 == 0) out.push_back(r);  // an identical repeat
  }
  return out;
}

std::string invoice_text(const tariff& t, const std::vector<usage_record>& recs) {
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  for (std::size_t i = 0; i < recs.size(); ++i) REQUIRE(m->add(recs[i], i + 2));
  auto inv = m->finish();
  REQUIRE(inv);
  return io::write_invoice_json(*inv, {true});
}
}  // namespace

TEST_CASE("property: lines sum to totals, credits never negative, permutations and shards change nothing") {
  for (const char* point : {"line", "record", "invoice"}) {
    const tariff t = make(point);
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      CAPTURE(point);
      CAPTURE(seed);
      std::mt19937_64 rng(seed);
      auto recs = random_records(rng, t, 60 + static_cast<int>(rng() % 60));
      auto m = meter::for_month(t, "2026-11");
      REQUIRE(m);
      for (std::size_t i = 0; i < recs.size(); ++i) REQUIRE(m->add(recs[i], i + 2));
      auto inv = m->finish();
      REQUIRE(inv);
      for (const auto& a : inv->accounts) {
        int128 sum = 0;
        for (const auto& l : a.lines) {
          sum += l.amount.minor_units();
          CHECK(l.amount.minor_units() >= 0);
        }
        CHECK(sum == a.total.minor_units());
        CHECK(a.due.minor_units() >= 0);
        CHECK(a.credit_applied.minor_units() >= 0);
        CHECK(a.credit_applied.minor_units() + a.due.minor_units() == a.total.minor_units());
        CHECK(a.credit_applied.minor_units() <= t.credit_for(a.account).minor_units());
      }
      const std::string whole = io::write_invoice_json(*inv, {true});

      auto shuffled = recs;
      std::ranges::shuffle(shuffled, rng);
      CHECK(invoice_text(t, shuffled) == whole);

      // Random partition into 1..5 shards, each metered alone, then merged.
      const std::size_t k = 1 + rng() % 5;
      std::vector<std::vector<usage_record>> shards(k);
      for (const auto& r : shuffled) shards[rng() % k].push_back(r);
      auto merged = meter::for_month(t, "2026-11");
      REQUIRE(merged);
      for (std::size_t s = 0; s < k; ++s) {
        auto part = meter::for_month(t, "2026-11");
        REQUIRE(part);
        part->set_source("shard" + std::to_string(s) + ".csv");
        for (std::size_t i = 0; i < shards[s].size(); ++i) REQUIRE(part->add(shards[s][i], i + 2));
        REQUIRE(merged->merge(*part));
      }
      auto minv = merged->finish();
      REQUIRE(minv);
      CHECK(io::write_invoice_json(*minv, {true}) == whole);
      CHECK(io::write_invoice_csv(*minv) == io::write_invoice_csv(*inv));
    }
  }
}

TEST_CASE("merge: a conflicting repeat across shards is an error naming both files") {
  const tariff t = make("line");
  usage_record r{"x1",
                 "acme",
                 "gpu/H100",
                 "on_demand",
                 nano_quantity(detail::nano_one),
                 *parse_instant("2026-11-03T10:00:00Z"),
                 *parse_instant("2026-11-03T11:00:00Z"),
                 {}};
  auto a = meter::for_month(t, "2026-11");
  auto b = meter::for_month(t, "2026-11");
  a->set_source("a.csv");
  b->set_source("b.csv");
  REQUIRE(a->add(r, 7));
  r.end = *parse_instant("2026-11-03T12:00:00Z");
  REQUIRE(b->add(r, 9));
  auto m = a->merge(*b);
  REQUIRE_FALSE(m);
  CHECK(m.error().where == "b.csv:9");
  CHECK(m.error().message.find("a.csv:7") != std::string::npos);
  CHECK(m.error().message.find("end") != std::string::npos);
  auto other = meter::for_month(t, "2026-12");
  CHECK_FALSE(a->merge(*other));
}

}  // namespace test_metering_property
