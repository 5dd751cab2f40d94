// SPDX-License-Identifier: MIT
// Commitments as sold (tariff `commitments`, docs/formats/billing.md "Commitments"): by hand
// (the restarted reserved A100 billed once, two jobs overlapping on one reserved unit, a term
// starting mid-month, usage above the reserved units, an unused commitment), against a
// second-by-second reference on random records at every rounding point and with labels, on 1
// and 3 threads, and the tariff's errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>

#include "support/files.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_commitments {

using namespace gpurent;

namespace {
constexpr std::string_view a100 =
    R"({"resource":"gpu/A100-80GB","mode":"on_demand","unit_price":"0.79","per":"1h","increment":"60s","minimum":"60s"})";

expected<tariff> tariff_with(std::string_view commitments, std::string_view extra = "") {
  return io::parse_tariff_json(R"({"currency":"USD","timezone":"UTC",)" + std::string(extra) + R"("rates":[)" + std::string(a100) +
                                   R"(],"commitments":[)" + std::string(commitments) + "]}",
                               "t.json");
}
tariff make(std::string_view commitments, std::string_view extra = "") {
  auto t = tariff_with(commitments, extra);
  if (!t) FAIL(t.error().describe());
  return *t;
}

invoice run(const tariff& t, std::string_view rows, std::string_view header = "id,account,resource,mode,quantity,start,end\n") {
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  auto r = io::meter_usage_csv(*m, std::string(header) + std::string(rows), "u.csv");
  if (!r) FAIL(r.error().describe());
  auto inv = m->finish();
  if (!inv) FAIL(inv.error().describe());
  return *inv;
}

const invoice_account& account(const invoice& inv, std::string_view name) {
  for (const auto& a : inv.accounts)
    if (a.account == name) return a;
  FAIL("no account " << name);
  return inv.accounts.front();
}

constexpr std::string_view one_unit = R"({"account":"acme","resource":"gpu/A100-80GB","mode":"on_demand","units":"1","price":"568.80"})";
}  // namespace

TEST_CASE("a reserved A100 restarted once in November: billed 568.80 once, not per record") {
  const invoice inv = run(make(one_unit),
                          "a1,acme,gpu/A100-80GB,on_demand,1,2026-11-01T00:00:00Z,2026-11-15T12:00:00Z\n"
                          "a2,acme,gpu/A100-80GB,on_demand,1,2026-11-15T12:00:00Z,2026-12-01T00:00:00Z\n");
  const auto& a = account(inv, "acme");
  REQUIRE(a.lines.size() == 1);
  CHECK(a.lines[0].amount.to_string() == "0.00");
  REQUIRE(a.commitments.size() == 1);
  CHECK(a.commitments[0].amount.to_string() == "568.80");
  CHECK(a.commitments[0].used == a.commitments[0].available);
  CHECK(a.total.to_string() == "568.80");
  CHECK(a.due.to_string() == "568.80");
}

TEST_CASE("two jobs overlapping on one reserved unit: the earlier is covered, the later pays its uncovered hour and its padding") {
  // b1 10:00-12:00 covered; b2 11:00-13:00:30 covered from 12:00, uncovered 11:00-12:00 (1 h),
  // padding 30 s (60 s increments): 0.79 x (3600 + 30) / 3600 = 0.796583..., 0.80.
  const invoice inv = run(make(one_unit),
                          "b1,acme,gpu/A100-80GB,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T12:00:00Z\n"
                          "b2,acme,gpu/A100-80GB,on_demand,1,2026-11-03T11:00:00Z,2026-11-03T13:00:30Z\n");
  const auto& a = account(inv, "acme");
  CHECK(format_exact(a.lines[0].exact) == format_exact(ratio<>(int128(79) * 3630, int128(100) * 3600)));
  CHECK(a.lines[0].amount.to_string() == "0.80");
  CHECK(format_exact(a.lines[0].waste) == format_exact(ratio<>(int128(79) * 30, int128(100) * 3600)));
  // Covered: b1's 2 h and b2's 1 h 0 min 30 s.
  CHECK(a.commitments[0].used == nano_quantity(detail::nano_one) * seconds{3 * 3600 + 30});
  CHECK(a.total.to_string() == "569.60");
}

TEST_CASE("a term starting mid-month: charged for its share of the term, covering only inside it") {
  // 30-day term from Nov 16: half of it in November, so 2 units x 500.00 / 2 = 500.00.
  const tariff t = make(R"({"account":"acme","resource":"gpu/A100-80GB","mode":"on_demand","units":"2","price":"500.00",
                            "start":"2026-11-16T00:00:00Z","end":"2026-12-16T00:00:00Z"})");
  // c1 runs 2 h across the term's start: the hour before it pays, the hour inside is covered.
  const invoice inv = run(t, "c1,acme,gpu/A100-80GB,on_demand,1,2026-11-15T23:00:00Z,2026-11-16T01:00:00Z\n");
  const auto& k = account(inv, "acme").commitments.at(0);
  CHECK(k.amount.to_string() == "500.00");
  CHECK(k.window.begin() == *parse_instant("2026-11-16T00:00:00Z"));
  CHECK(k.used == nano_quantity(detail::nano_one) * seconds{3600});
  CHECK(k.available == nano_quantity(2 * detail::nano_one) * seconds{15 * 86400});
  CHECK(account(inv, "acme").lines[0].amount.to_string() == "0.79");
  // December: the other half, prorated by exact seconds.
  auto m = meter::for_month(t, "2026-12");
  REQUIRE(m);
  auto dec = m->finish();
  REQUIRE(dec);
  CHECK(account(*dec, "acme").commitments.at(0).amount.to_string() == "500.00");
}

TEST_CASE("usage above the reserved units pays for the units beyond them; an unused commitment is still charged") {
  const tariff t = make(R"({"account":"acme","resource":"gpu/A100-80GB","mode":"on_demand","units":"2","price":"1000"},
                           {"account":"idle","resource":"gpu/A100-80GB","mode":"on_demand","units":"1","price":"300"})");
  // 3 GPUs for 10 h: 2 covered, 1 pays 10 h at 0.79.
  const invoice inv = run(t, "d1,acme,gpu/A100-80GB,on_demand,3,2026-11-03T00:00:00Z,2026-11-03T10:00:00Z\n");
  CHECK(account(inv, "acme").lines[0].amount.to_string() == "7.90");
  CHECK(account(inv, "acme").total.to_string() == "2007.90");  // 2 units x 1000 + 7.90
  const auto& idle = account(inv, "idle");
  CHECK(idle.lines.empty());
  CHECK(idle.total.to_string() == "300.00");
  CHECK(idle.commitments.at(0).used == nano_usage{});
  CHECK(io::write_invoice_json(inv).find(R"("unused_unit_seconds": "2592000")") != std::string::npos);
}

namespace {
struct ref_record {
  std::string id;
  std::int64_t start, end;  // seconds since the period's start
  std::int64_t quantity;    // halves of a unit
};

// The rule second by second: at each second the records in use, in (start, id) order, are
// covered by what is left of `units` halves; a record pays its uncovered unit-seconds and,
// unless wholly covered, its padding to whole minutes (60 s minimum). In units of 0.79/7200.
std::int64_t reference_pay(std::vector<ref_record> recs, std::int64_t units) {
  std::ranges::sort(recs, [](const ref_record& a, const ref_record& b) { return std::tie(a.start, a.id) < std::tie(b.start, b.id); });
  std::vector<std::int64_t> covered(recs.size(), 0);
  std::int64_t last = 0;
  for (const auto& r : recs) last = std::max(last, r.end);
  for (std::int64_t t = 0; t < last; ++t) {
    std::int64_t left = units;
    for (std::size_t i = 0; i < recs.size(); ++i) {
      if (recs[i].start > t || recs[i].end <= t) continue;
      const std::int64_t c = std::min(left, recs[i].quantity);
      covered[i] += c;
      left -= c;
    }
  }
  std::int64_t pay = 0;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    const std::int64_t a = recs[i].end - recs[i].start, b = std::max<std::int64_t>((a + 59) / 60 * 60, 60);
    const std::int64_t used = recs[i].quantity * a;
    pay += used - covered[i] + (covered[i] == used ? 0 : recs[i].quantity * (b - a));
  }
  return pay;
}
}  // namespace

TEST_CASE("commitments against the second-by-second reference: random records, every rounding point, labels, 1 and 3 threads") {
  std::mt19937_64 rng(568);
  const std::vector<std::string> labels = {"", "project=a", "project=b|team=x"};
  for (int round = 0; round < 24; ++round) {
    const std::int64_t units = 1 + static_cast<std::int64_t>(rng() % 6);  // halves
    std::vector<ref_record> recs;
    std::string rows;
    const int n = 2 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      const std::int64_t s = static_cast<std::int64_t>(rng() % 7200), len = 1 + static_cast<std::int64_t>(rng() % 3000);
      const std::int64_t q = 1 + static_cast<std::int64_t>(rng() % 5);
      recs.push_back({"r" + std::to_string(i), s, s + len, q});
      const auto at = [](std::int64_t sec) { return format_instant(*parse_instant("2026-11-10T00:00:00Z") + seconds{sec}); };
      rows += "r" + std::to_string(i) + ",acme,gpu/A100-80GB,on_demand," + std::to_string(q / 2) + (q % 2 != 0 ? ".5" : "") + "," + at(s) + "," +
              at(s + len) + "," + labels[rng() % labels.size()] + "\n";
    }
    const std::string commitment = R"({"account":"acme","resource":"gpu/A100-80GB","mode":"on_demand","units":")" + std::to_string(units / 2) +
                                   (units % 2 != 0 ? ".5" : "") + R"(","price":"100"})";
    const ratio<> expected_exact(int128(79) * reference_pay(recs, units), int128(100) * 7200);
    for (const std::string_view point : {"line", "record", "invoice"}) {
      CAPTURE(round);
      CAPTURE(point);
      const tariff t = make(commitment, R"("rounding_point":")" + std::string(point) + R"(",)");
      const invoice inv = run(t, rows, "id,account,resource,mode,quantity,start,end,labels\n");
      const auto& l = account(inv, "acme").lines.at(0);
      CHECK(l.exact == expected_exact);
      int128 parts = 0;
      for (const auto& s : l.labels) parts += s.amount.minor_units();
      if (!l.labels.empty()) CHECK(parts == l.amount.minor_units());
      // Threads: the shards' records merged before the invoice, the same invoice.
      const auto dir = test::scratch_dir("commitments");
      const std::string file = test::write_file(dir / "u.csv", "id,account,resource,mode,quantity,start,end,labels\n" + rows);
      auto blank = meter::for_month(t, "2026-11");
      REQUIRE(blank);
      const std::vector<std::string> files = {file};
      auto shards = io::meter_usage_files(*blank, files, {.shard = {}, .jobs = 3});
      REQUIRE(shards);
      CHECK(meter::finish_shards(*shards).value() == inv);
    }
  }
}

TEST_CASE("commitment errors name the tariff field") {
  const auto error_of = [](std::string_view commitments) {
    auto t = tariff_with(commitments);
    REQUIRE_FALSE(t);
    return t.error().describe();
  };
  CHECK(error_of(R"({"account":"acme","resource":"gpu/H100","mode":"on_demand","units":"1","price":"1"})").find("commitments[0].resource") !=
        std::string::npos);
  CHECK(error_of(R"({"account":"acme","resource":"gpu/A100-80GB","mode":"on_demand","units":"0","price":"1"})").find("commitments[0].units") !=
        std::string::npos);
  CHECK(error_of(R"({"account":"acme","resource":"gpu/A100-80GB","mode":"on_demand","units":"1","price":"1","start":"2026-11-01T00:00:00Z"})")
            .find("commitments[0].end") != std::string::npos);
  CHECK(error_of(std::string(one_unit) + "," + std::string(one_unit)).find("a second commitment") != std::string::npos);
  auto tiered = io::parse_tariff_json(
      R"({"currency":"USD","timezone":"UTC","rates":[{"resource":"x","mode":"m","tiers":{"mode":"volume","steps":[{"up_to":null,"unit_price":"1"}]}}],
          "commitments":[{"account":"a","resource":"x","mode":"m","units":"1","price":"1"}]})",
      "t.json");
  REQUIRE_FALSE(tiered);
  CHECK(tiered.error().describe().find("one unit price") != std::string::npos);
  // A tariff written and read back keeps its commitments (partials fingerprint it).
  const tariff t = make(R"({"account":"acme","resource":"gpu/A100-80GB","mode":"on_demand","units":"1.5","price":"9.99",
                            "start":"2026-11-16T00:00:00Z","end":"2026-12-16T00:00:00Z"})");
  auto again = io::parse_tariff_json(io::tariff_to_json(t).value().dump(), "again.json");
  REQUIRE(again);
  CHECK(again->commitments() == t.commitments());
}

}  // namespace test_metering_commitments
