// SPDX-License-Identifier: MIT
// The meter against the rating rules (docs/formats/billing.md) and published examples: clipping, minimums,
// increments, price changes, tiers, dedup, rounding points, DST and month ends.
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <string_view>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_meter {

using namespace gpurent;

namespace {
std::string tariff_json(std::string_view currency, std::string_view zone, std::string_view rates, std::string_view extra = "") {
  return "{\"currency\":\"" + std::string(currency) + "\",\"timezone\":\"" + std::string(zone) + "\",\"rates\":[" + std::string(rates) + "]" +
         std::string(extra) + "}";
}

// Meters `csv` rows (after the header) under `t` for `period`; the invoice or the error.
expected<invoice> run(const tariff& t, std::string_view period, std::string_view rows) {
  auto m = meter::for_month(t, period);
  if (!m) return unexpected(m.error());
  const std::string csv = "id,account,resource,mode,quantity,start,end\n" + std::string(rows);
  if (auto r = io::meter_usage_csv(*m, csv, "u.csv"); !r) return unexpected(r.error());
  return m->finish();
}

tariff make_tariff(std::string_view currency, std::string_view zone, std::string_view rates, std::string_view extra = "") {
  auto t = io::parse_tariff_json(tariff_json(currency, zone, rates, extra), "t.json");
  if (!t) FAIL(t.error().describe());
  return *t;
}

constexpr std::string_view h100 = R"({"resource":"gpu/H100","mode":"on_demand","unit_price":"2.49","per":"1h","increment":"1s","minimum":"60s"})";
}  // namespace

TEST_CASE("AWS: 10 s at 2.49/h with a 60 s minimum: 0.0415 exact, 0.04 charged") {
  // aws.amazon.com/ec2/pricing/on-demand: per-second billing with a 60-second minimum.
  const tariff t = make_tariff("USD", "UTC", h100);
  auto inv = run(t, "2026-11", "a,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00Z,2026-11-03T10:15:10Z\n");
  REQUIRE(inv);
  const auto& l = inv->accounts.at(0).lines.at(0);
  CHECK(l.billed_seconds == 60);
  CHECK(l.used_seconds == 10);
  CHECK(format_exact(l.exact) == "0.0415");
  CHECK(l.amount.to_string() == "0.04");
  CHECK(format_exact(l.rounding) == "-0.0015");
  CHECK(format_exact(l.waste) == "83/2400");  // 50 s of 2.49/h
}

TEST_CASE("Chargebee: 4.4556 x 10.625 = 47.34075 -> USD 47.34, JPY 47") {
  // Chargebee's multi-decimal pricing example (chargebee.com/docs, "Multi-decimal support"):
  // quantity 4.4556 at a unit price of 10.625 is 47.34075, rounded to the currency.
  const std::string rate = R"({"resource":"storage/ssd","mode":"on_demand","unit_price":"10.625","per":"1h"})";
  const std::string row = "a,acme,storage/ssd,on_demand,4.4556,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n";
  auto usd = run(make_tariff("USD", "UTC", rate), "2026-11", row);
  REQUIRE(usd);
  CHECK(format_exact(usd->accounts[0].lines[0].exact) == "47.34075");
  CHECK(usd->accounts[0].total.to_string() == "47.34");
  auto jpy = run(make_tariff("JPY", "UTC", rate), "2026-11", row);
  REQUIRE(jpy);
  CHECK(jpy->accounts[0].total.to_string() == "47");
  auto kwd = run(make_tariff("KWD", "UTC", rate), "2026-11", row);
  REQUIRE(kwd);
  CHECK(kwd->accounts[0].total.to_string() == "47.341");  // 3 minor digits, half-even
}

TEST_CASE("Stripe tiers through the meter: 6 unit-hours, graduated 41.50, volume 39.00") {
  // docs.stripe.com/subscriptions/pricing-models/tiered-pricing (1-5: 7, 6-10: 6.5, 11+: 6).
  const std::string steps = R"("steps":[{"up_to":"5","unit_price":"7"},{"up_to":"10","unit_price":"6.5"},{"up_to":null,"unit_price":"6"}])";
  const std::string rows =
      "a,acme,font,std,4,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\nb,acme,font,std,2,2026-11-04T10:00:00Z,2026-11-04T11:00:00Z\n";
  auto g =
      run(make_tariff("USD", "UTC", R"({"resource":"font","mode":"std","per":"1h","tiers":{"mode":"graduated",)" + steps + "}}"), "2026-11", rows);
  REQUIRE(g);
  CHECK(g->accounts[0].total.to_string() == "41.50");
  auto v = run(make_tariff("USD", "UTC", R"({"resource":"font","mode":"std","tiers":{"mode":"volume",)" + steps + "}}"), "2026-11", rows);
  REQUIRE(v);
  CHECK(v->accounts[0].total.to_string() == "39.00");
  // Record-point rounding lays each record on the steps after the ones before it.
  auto rt =
      make_tariff("USD", "UTC", R"({"resource":"font","mode":"std","tiers":{"mode":"graduated",)" + steps + "}}", R"(,"rounding_point":"record")");
  auto gr = run(rt, "2026-11", rows);
  REQUIRE(gr);
  CHECK(gr->accounts[0].total.to_string() == "41.50");
}

TEST_CASE("rating rules: clipping, minimum only when starting inside, out of period") {
  const tariff t = make_tariff("USD", "UTC", R"({"resource":"g","mode":"m","unit_price":"3.60","per":"1h","increment":"60s","minimum":"600s"})");
  // Starts before the period: no minimum, clipped to 00:00:00..00:00:30 -> 60 s.
  // Starts inside: 30 s -> minimum 600 s. Entirely in October: out of period.
  auto inv = run(t, "2026-11",
                 "a,x,g,m,1,2026-10-31T23:59:00Z,2026-11-01T00:00:30Z\n"
                 "b,x,g,m,1,2026-11-30T23:59:50Z,2026-12-01T00:10:00Z\n"
                 "c,x,g,m,1,2026-10-01T00:00:00Z,2026-10-02T00:00:00Z\n");
  REQUIRE(inv);
  const auto& l = inv->accounts[0].lines[0];
  CHECK(l.records == 2);
  CHECK(l.billed_seconds == 60 + 600);
  CHECK(l.used_seconds == 30 + 10);
  CHECK(l.amount.to_string() == "0.66");
  CHECK(inv->records_out_of_period == 1);
}

TEST_CASE("price changes: split at the change, extra seconds at the last second's price") {
  const tariff t = make_tariff("USD", "UTC",
                               R"({"resource":"g","mode":"spot","unit_price":"1.10","per":"1h","increment":"3600s",
                                   "price_changes":[{"from":"2026-11-10T06:00:00Z","unit_price":"0.87"}]})");
  // 05:30..06:30 actual: 0.5 h at 1.10 + 0.5 h at 0.87 = 0.985; b = a, no extra.
  // 05:00..05:10: 600 s at 1.10, extra 3000 s at 1.10 -> 1.10.
  // 05:50..06:10: 600 s at 1.10 + 600 s at 0.87, extra 2400 s at 0.87.
  auto inv = run(t, "2026-11",
                 "a,x,g,spot,1,2026-11-10T05:30:00Z,2026-11-10T06:30:00Z\n"
                 "b,y,g,spot,1,2026-11-10T05:00:00Z,2026-11-10T05:10:00Z\n"
                 "c,z,g,spot,2,2026-11-10T05:50:00Z,2026-11-10T06:10:00Z\n");
  REQUIRE(inv);
  CHECK(format_exact(inv->accounts[0].lines[0].exact) == "0.985");
  CHECK(inv->accounts[0].lines[0].amount.to_string() == "0.98");  // half-even
  CHECK(format_exact(inv->accounts[1].lines[0].exact) == "1.1");
  // 2 x (600 x 1.10 + 3000 x 0.87) / 3600 = 2 x 3270 / 3600
  CHECK(format_exact(inv->accounts[2].lines[0].exact) == "109/60");
  CHECK(inv->accounts[2].lines[0].amount.to_string() == "1.82");
}

TEST_CASE("DST: a record crossing 2026-11-01 in America/New_York is billed once across the months") {
  // November 2026 in New York starts 2026-11-01T04:00Z (EDT) and ends 2026-12-01T05:00Z (EST);
  // the clocks go back at 2026-11-01T06:00Z, inside the record.
  const tariff t = make_tariff("USD", "America/New_York", R"({"resource":"g","mode":"m","unit_price":"1","per":"1h"})");
  const std::string row = "a,x,g,m,1,2026-11-01T02:00:00Z,2026-11-01T08:00:00Z\n";
  auto oct = run(t, "2026-10", row);
  auto nov = run(t, "2026-11", row);
  REQUIRE(oct);
  REQUIRE(nov);
  CHECK(oct->accounts[0].lines[0].billed_seconds == 2 * 3600);
  CHECK(nov->accounts[0].lines[0].billed_seconds == 4 * 3600);
  CHECK(oct->accounts[0].total.to_string() == "2.00");
  CHECK(nov->accounts[0].total.to_string() == "4.00");
  CHECK(nov->span.end() - nov->span.begin() == seconds{(30 * 24 + 1) * 3600});
}

TEST_CASE("month end in Australia/Lord_Howe (half-hour DST): billed in both months exactly once") {
  // Lord Howe is UTC+10:30 in winter and UTC+11 from the first Sunday of October: the
  // 2026-11/2026-12 boundary is 2026-11-30T13:00Z. A record over it splits 1 h + 2 h.
  const tariff t = make_tariff("USD", "Australia/Lord_Howe", R"({"resource":"g","mode":"m","unit_price":"1","per":"1h","minimum":"2h"})");
  const std::string row = "a,x,g,m,1,2026-11-30T12:00:00Z,2026-11-30T15:00:00Z\n";
  auto nov = run(t, "2026-11", row);
  auto dec = run(t, "2026-12", row);
  REQUIRE(nov);
  REQUIRE(dec);
  CHECK(nov->span.end() == *parse_instant("2026-11-30T13:00:00Z"));
  CHECK(nov->accounts[0].lines[0].used_seconds + dec->accounts[0].lines[0].used_seconds == 3 * 3600);
  CHECK(nov->accounts[0].lines[0].billed_seconds == 2 * 3600);  // the minimum, once: it started in November
  CHECK(dec->accounts[0].lines[0].billed_seconds == 2 * 3600);  // no minimum in December
  // Around the April change (UTC+11 -> +10:30) the months still tile the time line.
  const interval mar = t.month(date::year(2026) / date::month(3)), apr = t.month(date::year(2026) / date::month(4));
  CHECK(mar.end() == apr.begin());
}

TEST_CASE("dedup: an identical repeat counts once, a conflicting one names both lines") {
  const tariff t = make_tariff("USD", "UTC", h100);
  auto ok = run(t, "2026-11",
                "a,x,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n"
                "a,x,gpu/H100,on_demand,1.0,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n");
  REQUIRE(ok);
  CHECK(ok->accounts[0].lines[0].records == 1);
  CHECK(ok->duplicates_ignored == 1);
  auto bad = run(t, "2026-11",
                 "a,x,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n"
                 "b,x,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n"
                 "a,x,gpu/H100,on_demand,2,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().where == "u.csv:4");
  CHECK(bad.error().field == "id");
  CHECK(bad.error().message.find("u.csv:2") != std::string::npos);
  CHECK(bad.error().message.find("quantity") != std::string::npos);
}

TEST_CASE("a usage row with too few or too many fields names the field, its line and the counts") {
  const tariff t = make_tariff("USD", "UTC", h100);
  auto short_row = run(t, "2026-11", "a,x,gpu/H100,on_demand,1,2026-11-03T10:00:00Z\n");
  REQUIRE_FALSE(short_row);
  CHECK(short_row.error().describe() == "u.csv:2: field 'end': expected 7 fields, found 6");
  // An unquoted comma inside a field: the extra field follows the last column.
  auto long_row = run(t, "2026-11",
                      "a,x,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n"
                      "b,x,y,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n");
  REQUIRE_FALSE(long_row);
  CHECK(long_row.error().describe() ==
        "u.csv:3: field 'end': expected 7 fields, found 8 (1 after the last column; quote a field that holds a comma)");
}

TEST_CASE("line totals that overflow when added (totals-only partial results) name the account, labels and rate") {
  const tariff t = make_tariff("USD", "UTC", h100);
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  line_totals big;
  big.records = 1;
  big.billed_seconds = std::numeric_limits<std::int64_t>::max();
  REQUIRE(m->add_line_totals("acme", "team=ml", 0, big));
  auto over = m->add_line_totals("acme", "team=ml", 0, big);
  REQUIRE_FALSE(over);
  CHECK(over.error().code == error_code::overflow);
  CHECK(over.error().field == "account");
  CHECK(over.error().message ==
        "overflow: the totals of account \"acme\" (labels team=ml) for gpu/H100 on_demand do not fit (64-bit seconds and counts, 128-bit amounts)");
  REQUIRE(m->add_line_totals("other", "", 0, big));  // another line: no overflow
}

TEST_CASE("rounding points, forgiveness and carry") {
  const std::string rate = R"({"resource":"g","mode":"m","unit_price":"0.004","per":"1h"})";
  // Three records of 0.004 each (1 h, 1 unit): exact line 0.012.
  const std::string rows =
      "a,x,g,m,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n"
      "b,x,g,m,1,2026-11-04T10:00:00Z,2026-11-04T11:00:00Z\n"
      "c,x,g,m,1,2026-11-05T10:00:00Z,2026-11-05T11:00:00Z\n";
  auto line = run(make_tariff("USD", "UTC", rate), "2026-11", rows);
  REQUIRE(line);
  CHECK(line->accounts[0].total.to_string() == "0.01");
  auto record = run(make_tariff("USD", "UTC", rate, R"(,"rounding_point":"record","rounding":"up")"), "2026-11", rows);
  REQUIRE(record);
  CHECK(record->accounts[0].total.to_string() == "0.03");  // each 0.004 rounds up to 0.01
  auto forgive =
      run(make_tariff("USD", "UTC", rate, R"(,"rounding_point":"record","rounding":"up","forgive_below_minor_unit":true)"), "2026-11", rows);
  REQUIRE(forgive);
  CHECK(forgive->accounts[0].total.to_string() == "0.00");
  // Invoice point: two lines of 0.005 each round to 0.01 in total, allocated to one line.
  auto inv = run(make_tariff("USD", "UTC",
                             R"({"resource":"g","mode":"m","unit_price":"0.005","per":"1h"})" + std::string(",") +
                                 R"({"resource":"h","mode":"m","unit_price":"0.005","per":"1h"})",
                             R"(,"rounding_point":"invoice")"),
                 "2026-11", "a,x,g,m,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\nb,x,h,m,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n");
  REQUIRE(inv);
  CHECK(inv->accounts[0].total.to_string() == "0.01");
  CHECK(inv->accounts[0].lines[0].amount.to_string() == "0.01");
  CHECK(inv->accounts[0].lines[1].amount.to_string() == "0.00");
  // Carry: round down, and the remainder comes back next time.
  const tariff ct = make_tariff("USD", "UTC", rate, R"(,"rounding":"down","carry":true)");
  auto m = meter::for_month(ct, "2026-11");
  REQUIRE(m);
  REQUIRE(io::meter_usage_csv(*m, "id,account,resource,mode,quantity,start,end\n" + rows, "u.csv"));
  carry_book book;
  book[{"x", "g", "m"}] = ratio<>(int128(9), int128(1000));
  auto c = m->finish(book);
  REQUIRE(c);
  CHECK(c->accounts[0].total.to_string() == "0.02");  // 0.012 + 0.009 = 0.021 -> 0.02
  CHECK(format_exact(-c->accounts[0].lines[0].rounding) == "0.001");
}

TEST_CASE("credits: applied up to the total, never negative") {
  const tariff t = make_tariff("USD", "UTC", h100, R"(,"credits":[{"account":"x","amount":"1.00"},{"account":"y","amount":"100"}])");
  auto inv = run(t, "2026-11",
                 "a,x,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n"
                 "b,y,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n");
  REQUIRE(inv);
  CHECK(inv->accounts[0].credit_applied.to_string() == "1.00");
  CHECK(inv->accounts[0].due.to_string() == "1.49");
  CHECK(inv->accounts[1].credit_applied.to_string() == "2.49");
  CHECK(inv->accounts[1].due.to_string() == "0.00");
  CHECK(inv->accounts[1].credit_remaining.to_string() == "97.51");
}

TEST_CASE("the meter contract's example tariff end to end") {
  const tariff t =
      make_tariff("USD", "America/New_York",
                  R"({ "resource": "gpu/H100-80GB", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s" },
    { "resource": "gpu/H100-80GB", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s",
      "price_changes": [ { "from": "2026-11-10T06:00:00Z", "unit_price": "0.87" } ] },
    { "resource": "mig/H100-80GB/3g.40gb", "mode": "on_demand", "per": "1h", "increment": "1s",
      "tiers": { "mode": "graduated", "steps": [ { "up_to": "100", "unit_price": "1.20" }, { "up_to": null,  "unit_price": "0.95" } ] } })",
                  R"(,"credits": [ { "account": "acme", "amount": "100.00" } ])");
  auto inv = run(t, "2026-11",
                 "r1,acme,gpu/H100-80GB,on_demand,1,2026-11-03T10:15:00Z,2026-11-03T10:15:10Z\n"
                 "r2,acme,gpu/H100-80GB,spot,2,2026-11-10T05:00:00Z,2026-11-10T07:00:00Z\n"
                 "r3,beta,mig/H100-80GB/3g.40gb,on_demand,0.5,2026-10-31T23:00:00Z,2026-11-01T06:00:00Z\n"
                 "r1,acme,gpu/H100-80GB,on_demand,1,2026-11-03T10:15:00Z,2026-11-03T10:15:10Z\n"
                 "r4,beta,mig/H100-80GB/3g.40gb,on_demand,300,2026-11-05T00:00:00Z,2026-11-05T01:00:00Z\n"
                 "r5,acme,gpu/H100-80GB,on_demand,1,2026-12-03T10:15:00Z,2026-12-03T10:15:10Z\n");
  REQUIRE(inv);
  const std::string json = io::write_invoice_json(*inv);
  auto j = nlohmann::json::parse(json);
  CHECK(j["accounts"][0]["account"] == "acme");
  CHECK(j["accounts"][0]["lines"][0]["amount"] == "0.04");
  CHECK(j["accounts"][0]["lines"][1]["amount"] == "3.94");  // 2 x (1 h x 1.10 + 1 h x 0.87)
  CHECK(j["accounts"][0]["total"] == "3.98");
  CHECK(j["accounts"][0]["credit_applied"] == "3.98");
  CHECK(j["accounts"][0]["due"] == "0.00");
  CHECK(j["accounts"][1]["lines"][0]["billed_seconds"] == 2 * 3600 + 3600);
  CHECK(j["accounts"][1]["total"] == "310.95");  // 301 unit-hours: 100 x 1.20 + 201 x 0.95
  CHECK(j["records_out_of_period"] == 1);
  CHECK(json.find("\"currency\": \"USD\"") < json.find("\"period\""));
}

TEST_CASE("waste report and idle detection") {
  const tariff t = make_tariff("USD", "UTC", R"({"resource":"g","mode":"m","unit_price":"3.60","per":"1h","increment":"1h"})");
  auto inv = run(t, "2026-11", "a,x,g,m,1,2026-11-03T10:00:00Z,2026-11-03T10:15:00Z\n");
  REQUIRE(inv);
  const auto w = waste_report(*inv);
  REQUIRE(w.size() == 1);
  CHECK(w[0].waste_seconds == 45 * 60);
  CHECK(format_exact(w[0].waste_amount) == "2.7");
  // Utilization: busy, then 20 min at 3%, then busy, then 5 min at 0%: one idle stretch over 10 min.
  const auto t0 = *parse_instant("2026-11-03T10:00:00Z");
  const interval window = *interval::make(t0, t0 + seconds{3600});
  auto idle = idle_periods({{t0 + seconds{1800}, 90}, {t0, 80}, {t0 + seconds{600}, 3}, {t0 + seconds{3000}, 0}, {t0 + seconds{3300}, 50}}, 5,
                           seconds{600}, window);
  REQUIRE(idle);
  REQUIRE(idle->size() == 1);
  CHECK((*idle)[0].begin() == t0 + seconds{600});
  CHECK((*idle)[0].length() == seconds{1200});
  const interval billed = *interval::make(t0, t0 + seconds{900});
  CHECK(idle_billed_seconds(*idle, std::span<const interval>(&billed, 1)) == seconds{300});
  CHECK_FALSE(idle_periods({}, 101, seconds{0}, window));
}

TEST_CASE("meter::add turns down a record without an id, an account (both UTF-8), a positive quantity or an end after its start, naming the field") {
  const tariff t = make_tariff("USD", "UTC", h100);
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  const instant s0 = *parse_instant("2026-11-02T00:00:00Z");
  const nano_quantity one(1'000'000'000);
  struct bad_case {
    std::string_view id, account;
    nano_quantity quantity;
    std::int64_t secs;
    std::string_view field, message;
  };
  const bad_case cases[] = {
      {"", "acme", one, 60, "id", "a record needs an id"},
      {"r1", "", one, 60, "account", "a record needs an account"},
      {"r1", "acme", nano_quantity(0), 60, "quantity", "quantity must be greater than 0, got 0.000000000"},
      {"r1", "acme", nano_quantity(-500'000'000), 60, "quantity", "quantity must be greater than 0, got -0.500000000"},
      {"r1", "acme", one, 0, "end", "end 2026-11-02T00:00:00Z must be after start 2026-11-02T00:00:00Z"},
      {"r1", "acme", one, -1, "end", "end 2026-11-01T23:59:59Z must be after start 2026-11-02T00:00:00Z"},
      {"", "", nano_quantity(0), 0, "id", "a record needs an id"},  // the first rule broken is named
  };
  for (const bad_case& c : cases) {
    const auto r = m->add(c.id, c.account, 0, c.quantity, s0, s0 + seconds{c.secs}, 7);
    INFO(c.message);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == c.field);
    CHECK(r.error().message == c.message);
    CHECK(r.error().where == "record 7");  // no file set: the record's line
  }
  // Not UTF-8 (an invoice writes them), or instants outside the years 0000-9999 (the meter
  // subtracts them: a partial result holding such a record overflowed, a fuzz finding).
  struct bad_text_or_time {
    std::string_view id, account;
    instant start, end;
    std::string_view field, message;
  };
  const instant far_past{seconds{-7'782'220'154'302'516'188}}, far_future{seconds{8'466'767'299'456'562'997}};
  const bad_text_or_time more[] = {
      {"r\xFF", "acme", s0, s0 + seconds{60}, "id", "not UTF-8: byte 0xFF at offset 1"},
      {"r1", "acm\x9a", s0, s0 + seconds{60}, "account", "not UTF-8: byte 0x9A at offset 3"},
      {"r1", "acme", far_past, far_future, "start", "-7782220154302516188 s from 1970 is outside the years 0000-9999"},
      {"r1", "acme", s0, far_future, "end", "8466767299456562997 s from 1970 is outside the years 0000-9999"},
      {"r1", "acme", earliest_instant - seconds{1}, s0, "start", "-62167219201 s from 1970 is outside the years 0000-9999"},
      {"r1", "acme", s0, latest_instant + seconds{1}, "end", "253402300800 s from 1970 is outside the years 0000-9999"},
  };
  for (const bad_text_or_time& c : more) {
    const auto r = m->add(c.id, c.account, 0, one, c.start, c.end, 7);
    INFO(c.message);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == c.field);
    CHECK(r.error().message == c.message);
  }
  CHECK(m->distinct_records() == 0);
  REQUIRE(m->add("r0", "Zürich AG", 0, one, earliest_instant, latest_instant, 8));  // the widest span there is
  REQUIRE(m->add("r1", "acme", 0, one, s0, s0 + seconds{60}, 8));
  CHECK(m->distinct_records() == 2);
}

}  // namespace test_metering_meter
