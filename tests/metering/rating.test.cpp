// SPDX-License-Identifier: MIT
// One rating path: a line priced with rate_usage + line_totals::add + line_cost /
// line_denominator (what the planner does) is the meter's exact invoice line, for every
// price kind.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>

namespace test_metering_rating {

using namespace gpurent;

namespace {
constexpr std::string_view tariff_text = R"({"currency":"USD","timezone":"UTC","rates":[
  {"resource":"unit","mode":"m","unit_price":"2.49","per":"1h","increment":"60s","minimum":"300s"},
  {"resource":"spot","mode":"m","unit_price":"1.10","per":"1h","increment":"900s","protection":"1h",
   "price_changes":[{"from":"2026-11-10T06:00:00Z","unit_price":"0.87"},{"from":"2026-11-10T07:20:00Z","unit_price":"1.31"}]},
  {"resource":"graduated","mode":"m","increment":"60s","tiers":{"mode":"graduated","steps":[
    {"up_to":"2","unit_price":"7","flat_fee":"1.5"},{"up_to":"5","unit_price":"6.5"},{"up_to":null,"unit_price":"6"}]}},
  {"resource":"volume","mode":"m","tiers":{"mode":"volume","steps":[
    {"up_to":"2","unit_price":"7"},{"up_to":"5","unit_price":"6.5","flat_fee":"0.25"},{"up_to":null,"unit_price":"6"}]}},
  {"resource":"package","mode":"m","increment":"1s","package":{"size":"1.5","price":"3.333"}}]})";

// Records of every rate; some start before the period, one is out of it.
constexpr std::string_view records[] = {
    "2026-11-01T00:00:00Z,2026-11-01T00:00:10Z,1",           "2026-10-31T23:50:00Z,2026-11-01T01:07:13Z,0.5",
    "2026-11-10T05:10:00Z,2026-11-10T07:41:03Z,2.25",        "2026-11-10T06:59:59Z,2026-11-10T07:20:01Z,3",
    "2026-11-29T20:00:00Z,2026-12-01T00:00:00Z,0.333333333", "2026-10-01T00:00:00Z,2026-10-02T00:00:00Z,1",
};

tariff make_tariff() {
  auto t = io::parse_tariff_json(tariff_text, "t.json");
  if (!t) FAIL(t.error().describe());
  return *t;
}
}  // namespace

TEST_CASE("a line rated with line_cost and line_denominator is the meter's invoice line, for every price kind") {
  const tariff t = make_tariff();
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  std::string csv = "id,account,resource,mode,quantity,start,end\n";
  int id = 0;
  for (const rate& r : t.rates()) {
    for (std::string_view rec : records) {
      const auto c1 = rec.find(','), c2 = rec.rfind(',');
      csv += std::to_string(++id) + ",acme," + r.resource + ",m," + std::string(rec.substr(c2 + 1)) + "," + std::string(rec.substr(0, c1)) + "," +
             std::string(rec.substr(c1 + 1, c2 - c1 - 1)) + "\n";
    }
  }
  REQUIRE(io::meter_usage_csv(*m, csv, "u.csv"));
  auto inv = m->finish();
  REQUIRE(inv);
  REQUIRE(inv->accounts.size() == 1);
  REQUIRE(inv->accounts[0].lines.size() == t.rates().size());
  for (const invoice_line& line : inv->accounts[0].lines) {
    CAPTURE(line.resource);
    const rate& r = t.rate_at(*t.find(line.resource, line.mode));
    line_totals tot;
    for (std::string_view rec : records) {
      const auto c1 = rec.find(','), c2 = rec.rfind(',');
      const instant start = *parse_instant(rec.substr(0, c1)), end = *parse_instant(rec.substr(c1 + 1, c2 - c1 - 1));
      rated_usage u;
      const rating_status s = rate_usage(r, m->period(), start, end, nano_quantity(*parse_positive_nano(rec.substr(c2 + 1))), u);
      REQUIRE(s != rating_status::overflow);
      if (s == rating_status::rated) REQUIRE(tot.add(u, 0, sums_waste(r)));
    }
    cost_numerator num;
    REQUIRE(line_cost(r, tot, num));
    CHECK(exact_amount(num, line_denominator(r)) == line.exact);
    CHECK(line.exact != ratio<>{});
    CHECK(tot.records == line.records);
    CHECK(line_waste(r, tot, line.exact) == line.waste);
  }
}

}  // namespace test_metering_rating
