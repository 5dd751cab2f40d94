// SPDX-License-Identifier: MIT
// Usage labels (metering/labels.hpp, docs/formats/billing.md "Labels"): the `labels` cell and
// label columns read into one label set per record, errors naming file, line and field;
// labels never change the rating (the invoice without them is the same, line for line, on
// random usage under every price kind and rounding point); a line's amount told per label set
// adds up to the line exactly, by largest remainder with ties to the set first in byte order;
// a repeat with other labels is a conflict; partials keep label sets.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/invoice_csv.hpp>
#include <gpurent/io/billing/invoice_focus.hpp>
#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_partial.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/labels.hpp>
#include <gpurent/metering/metering.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_labels {

using namespace gpurent;

namespace {
tariff make_tariff(std::string_view rates, std::string_view rounding = "") {
  const std::string text = R"({"currency":"USD","timezone":"UTC",)" + std::string(rounding) + R"("rates":[)" + std::string(rates) +
                           R"(],"credits":[{"account":"acme","amount":"3.00"}]})";
  auto t = io::parse_tariff_json(text, "t.json");
  if (!t) FAIL(t.error().describe());
  return *t;
}

expected<invoice> run(const tariff& t, std::string_view csv) {
  auto m = meter::for_month(t, "2026-11");
  if (!m) return unexpected(m.error());
  if (auto r = io::meter_usage_csv(*m, csv, "u.csv"); !r) return unexpected(r.error());
  return m->finish();
}

std::string key_of(std::vector<label_pair> pairs) {
  std::string out;
  if (auto r = label_set_text(pairs, out); !r) return "error: " + r.error().message;
  return out;
}

constexpr std::string_view unit_rate =
    R"({"resource":"gpu/H100","mode":"on_demand","unit_price":"2.49","per":"1h","increment":"60s","minimum":"60s"})";
constexpr std::string_view changing_rate =
    R"({"resource":"gpu/H100","mode":"spot","unit_price":"1.10","per":"1h","price_changes":[{"from":"2026-11-10T06:00:00Z","unit_price":"0.87"}]})";
constexpr std::string_view graduated_rate =
    R"({"resource":"mig/A100/3g.40gb","mode":"on_demand","increment":"15min","tiers":{"mode":"graduated","steps":[{"up_to":"10","unit_price":"1.20"},{"up_to":null,"unit_price":"0.95"}]}})";
constexpr std::string_view volume_rate =
    R"({"resource":"share/L4","mode":"on_demand","tiers":{"mode":"volume","steps":[{"up_to":"5","unit_price":"0.50","flat_fee":"1.00"},{"up_to":null,"unit_price":"0.40"}]}})";

// Random usage over the four rates, with and without labels (same records otherwise).
struct usage_pair {
  std::string with, without;
};
usage_pair random_usage(std::mt19937_64& rng, int rows) {
  const std::vector<std::string> rates = {"gpu/H100,on_demand", "gpu/H100,spot", "mig/A100/3g.40gb,on_demand", "share/L4,on_demand"};
  const std::vector<std::string> cells = {"", "project=vision", "project=nlp|team=a", "project=vision|team=b", "\"team=a,b|x=\"\"y\"\"\""};
  usage_pair u{"id,account,resource,mode,quantity,start,end,team,labels\n", "id,account,resource,mode,quantity,start,end\n"};
  for (int i = 0; i < rows; ++i) {
    const int day = 1 + static_cast<int>(rng() % 28), h = static_cast<int>(rng() % 12);
    const std::string d = (day < 10 ? "0" : "") + std::to_string(day), hh = (h < 10 ? "0" : "") + std::to_string(h);
    const std::string base = "r" + std::to_string(i) + "," + (rng() % 3 == 0 ? "beta" : "acme") + "," + rates[rng() % rates.size()] + "," +
                             std::to_string(1 + rng() % 4) + (rng() % 4 == 0 ? ".5" : "") + ",2026-11-" + d + "T" + hh + ":0" +
                             std::to_string(rng() % 10) + ":00Z,2026-11-" + d + "T" + std::to_string(12 + rng() % 12) + ":" +
                             std::to_string(10 + rng() % 50) + ":07Z";
    const std::string team = rng() % 3 == 0 ? "" : "t" + std::to_string(rng() % 2);
    std::string cell = cells[rng() % cells.size()];
    if (!team.empty() && cell.find("team=") != std::string::npos) cell.clear();  // a key once per record
    u.with += base + "," + team + "," + cell + "\n";
    u.without += base + "\n";
  }
  return u;
}

// The invoice with every line's label shares dropped.
invoice without_shares(invoice inv) {
  for (auto& a : inv.accounts)
    for (auto& l : a.lines) l.labels.clear();
  return inv;
}
}  // namespace

TEST_CASE("a label set's key: pairs in byte order of key, each key once; bad keys and values are errors naming labels") {
  CHECK(key_of({{"team", "cv"}, {"project", "vision"}}) == "project=vision|team=cv");
  CHECK(key_of({}).empty());
  CHECK(key_of({{"a", ""}}) == "a=");
  CHECK(key_of({{"my key", "x"}}).starts_with("error: label key \"my key\""));
  CHECK(key_of({{"a", "x"}, {"a", "y"}}) == "error: label \"a\" given twice");
  CHECK(key_of({{"a", "x|y"}}).find("cannot hold '|'") != std::string::npos);
  CHECK(key_of({{"a", "\xff"}}).starts_with("error: label \"a\": "));
  std::vector<label_pair> pairs;
  CHECK(parse_label_cell("a=1|b=x=y", pairs));
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[1].second == "x=y");
  pairs.clear();
  CHECK_FALSE(parse_label_cell("a=1|", pairs));
  CHECK_FALSE(parse_label_cell("novalue", pairs));
  CHECK(is_label_set_key("a=1|b=2"));
  CHECK_FALSE(is_label_set_key("b=2|a=1"));
  CHECK(label_set_pairs("a=1|b=x=y") == std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "x=y"}});
}

TEST_CASE("the usage reader: the labels cell and label columns make one label set; errors name file, line and field") {
  const std::string csv =
      "id,account,resource,mode,quantity,start,end,team,labels\n"
      "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z,cv,project=vision|env=prod\n"
      "r2,acme,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z,,\n";
  auto recs = io::parse_usage_csv(csv, "u.csv");
  REQUIRE(recs);
  CHECK(recs->at(0).record.labels == std::vector<std::pair<std::string, std::string>>{{"env", "prod"}, {"project", "vision"}, {"team", "cv"}});
  CHECK(recs->at(1).record.labels.empty());

  const auto error_of = [](const std::string& text) {
    auto r = io::parse_usage_csv(text, "u.csv");
    REQUIRE_FALSE(r);
    return r.error().describe();
  };
  const std::string head = "id,account,resource,mode,quantity,start,end,team,labels\n";
  const std::string row = "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z,";
  const std::string twice = error_of(head + "\n" + row + "cv,team=nlp\n");
  CHECK(twice.find("u.csv:3") != std::string::npos);
  CHECK(twice.find("labels") != std::string::npos);
  CHECK(twice.find("\"team\" given twice") != std::string::npos);
  CHECK(error_of(head + row + ",project\n").find("\"project\" is not key=value") != std::string::npos);
  CHECK(error_of(head + row + ",bad key=1\n").find("label key \"bad key\"") != std::string::npos);
  CHECK(error_of("id,account,resource,mode,quantity,start,end,my project\n").find("u.csv:1") != std::string::npos);
  CHECK(error_of("id,account,resource,mode,quantity,start,end,labels,labels\n").find("column appears twice") != std::string::npos);
}

TEST_CASE("labels never change the rating: random usage, every price kind and rounding point, with and without labels") {
  const std::string rates =
      std::string(unit_rate) + "," + std::string(changing_rate) + "," + std::string(graduated_rate) + "," + std::string(volume_rate);
  std::mt19937_64 rng(36);
  for (const std::string_view point : {"line", "record", "invoice"}) {
    const tariff t = make_tariff(rates, R"("rounding":"half_even","rounding_point":")" + std::string(point) + R"(",)");
    for (int round = 0; round < 8; ++round) {
      const usage_pair u = random_usage(rng, 5 + round * 7);
      auto with = run(t, u.with);
      auto without = run(t, u.without);
      REQUIRE(with);
      REQUIRE(without);
      CHECK(without_shares(*with) == *without);
      for (const auto& a : with->accounts) {
        for (const auto& l : a.lines) {
          if (l.labels.empty()) continue;
          int128 sum = 0;
          std::int64_t records = 0, billed = 0;
          ratio<> exact{};
          for (std::size_t i = 0; i < l.labels.size(); ++i) {
            const auto& s = l.labels[i];
            if (i > 0) CHECK(l.labels[i - 1].labels < s.labels);
            sum += s.amount.minor_units();
            records += s.records;
            billed += s.billed_seconds;
            exact += s.exact;
            // Each part within one minor unit of its share of the line's amount (in minor units).
            if (!(l.exact == ratio<>{})) {
              const ratio<> share = ratio<>(l.amount.minor_units(), int128(1)) * s.exact * ratio<>(l.exact.den(), l.exact.num());
              const ratio<> diff = ratio<>(s.amount.minor_units(), int128(1)) - share;
              CHECK(diff < ratio<>(int128(1), int128(1)));
              CHECK(ratio<>(int128(-1), int128(1)) < diff);
            }
          }
          CHECK(sum == l.amount.minor_units());
          CHECK(records == l.records);
          CHECK(billed == l.billed_seconds);
          CHECK(exact == l.exact);
        }
      }
    }
  }
}

TEST_CASE("a line's amount per label set: largest remainder, ties to the set first in byte order") {
  // Two records of 30 s at 0.60/h: 0.005 each, 0.01 for the line (half even); the two sets tie.
  const tariff t = make_tariff(R"({"resource":"gpu/T4","mode":"on_demand","unit_price":"0.60","per":"1h"})");
  auto inv = run(t,
                 "id,account,resource,mode,quantity,start,end,labels\n"
                 "r1,acme,gpu/T4,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T10:00:30Z,project=zeta\n"
                 "r2,acme,gpu/T4,on_demand,1,2026-11-04T10:00:00Z,2026-11-04T10:00:30Z,project=alpha\n");
  REQUIRE(inv);
  const auto& l = inv->accounts.at(0).lines.at(0);
  CHECK(l.amount.to_string() == "0.01");
  REQUIRE(l.labels.size() == 2);
  CHECK(l.labels[0].labels == "project=alpha");
  CHECK(l.labels[0].amount.to_string() == "0.01");
  CHECK(l.labels[1].amount.to_string() == "0.00");
  CHECK(format_exact(l.labels[1].exact) == "0.005");
  // The JSON invoice carries the parts; an invoice without labels has no such field.
  const std::string json = io::write_invoice_json(*inv);
  CHECK(json.find(R"("project": "alpha")") < json.find(R"("project": "zeta")"));
  CHECK(json.find(R"("project": "zeta")") != std::string::npos);
  // The CSV invoice: the line, then one `label` row per set with its part; --detail's exact
  // amounts as 9-digit decimals beside the exact fraction.
  CHECK(io::write_invoice_csv(*inv, {}, &t) ==
        "kind,account,resource,mode,records,billed_seconds,amount,currency,period,quantity,unit,unit_price,labels\n"
        "line,acme,gpu/T4,on_demand,2,60,0.01,USD,2026-11,0.016666667,GPU-Hours,0.6,\n"
        "label,acme,gpu/T4,on_demand,1,30,0.01,USD,2026-11,0.008333333,GPU-Hours,0.6,project=alpha\n"
        "label,acme,gpu/T4,on_demand,1,30,0.00,USD,2026-11,0.008333333,GPU-Hours,0.6,project=zeta\n"
        "total,acme,,,2,60,0.01,USD,2026-11,,,,\n"
        "credit_applied,acme,,,,,0.01,USD,2026-11,,,,\n"  // acme's prepaid 3.00
        "due,acme,,,,,0.00,USD,2026-11,,,,\n"
        "records_out_of_period,,,,0,,,USD,2026-11,,,,\n");
  const std::string detail = io::write_invoice_csv(*inv, {.detail = true}, &t);
  CHECK(detail.find(",unit_price,labels,used_seconds,exact,exact_fraction,rounding,waste_amount\n") != std::string::npos);
  CHECK(detail.find(",project=zeta,30,0.005000000,0.005,,\n") != std::string::npos);
  auto plain = run(t, "id,account,resource,mode,quantity,start,end\nr1,acme,gpu/T4,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T10:00:30Z\n");
  REQUIRE(plain);
  CHECK(io::write_invoice_json(*plain).find("labels") == std::string::npos);
}

TEST_CASE("a tiered line's label shares that need more than 128 bits: the invoice is written, shares to 18 places (an outside probe's finding)") {
  // Graduated 300 then 111.111111111 per unit-hour, a quantity of 0.333333333: each set's
  // exact share of the line needs about 135 bits. The invoice was refused with "overflow:
  // ratio *" while the same records without labels metered.
  const tariff t = make_tariff(
      R"({"resource":"other","mode":"grad","tiers":{"mode":"graduated","steps":[{"up_to":"10","unit_price":"300"},{"up_to":null,"unit_price":"111.111111111"}]}})");
  const std::string rows =
      "r209,acme,other,grad,2,2026-11-18T02:46:34Z,2026-11-19T00:42:05Z,team=a\n"
      "r212,acme,other,grad,2,2026-11-11T16:57:17Z,2026-11-13T03:24:53Z,team=b\n"
      "r244,acme,other,grad,0.333333333,2026-11-03T14:12:23Z,2026-11-05T12:54:52Z,team=c\n";
  auto with = run(t, "id,account,resource,mode,quantity,start,end,labels\n" + rows);
  REQUIRE_MESSAGE(with, (with ? std::string() : with.error().describe()));
  std::string plain_rows = rows;
  for (const char* set : {",team=a", ",team=b", ",team=c"}) plain_rows.erase(plain_rows.find(set), std::string_view(set).size());
  auto without = run(t, "id,account,resource,mode,quantity,start,end\n" + plain_rows);
  REQUIRE(without);
  CHECK(without_shares(*with) == *without);
  const auto& l = with->accounts.at(0).lines.at(0);
  REQUIRE(l.labels.size() == 3);
  int128 minor = 0, exact18 = 0;
  for (const auto& share : l.labels) {
    minor += share.amount.minor_units();
    exact18 += share.exact.round_to_digits(18, rounding_mode::half_even);
  }
  CHECK(minor == l.amount.minor_units());
  // Each share is its exact value rounded to 18 places (or exact): the three add up to the
  // line's exact amount within 3 x 10^-18.
  const int128 line18 = l.exact.round_to_digits(18, rounding_mode::half_even);
  CHECK(exact18 - line18 <= 3);
  CHECK(line18 - exact18 <= 3);
}

TEST_CASE("a repeated id with other labels is a conflict naming labels; with the same labels it counts once") {
  const tariff t = make_tariff(unit_rate);
  const std::string head = "id,account,resource,mode,quantity,start,end,labels\n";
  const std::string rec = "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z,";
  auto same = run(t, head + rec + "project=a\n" + rec + "project=a\n");
  REQUIRE(same);
  CHECK(same->duplicates_ignored == 1);
  auto other = run(t, head + rec + "project=a\n" + rec + "project=b\n");
  REQUIRE_FALSE(other);
  CHECK(other.error().message.find("with a different labels") != std::string::npos);
  CHECK(other.error().where == "u.csv:3");
}

TEST_CASE("partials keep label sets: full and totals-only partials merge to the invoice of one run") {
  const std::string rates =
      std::string(unit_rate) + "," + std::string(changing_rate) + "," + std::string(graduated_rate) + "," + std::string(volume_rate);
  const tariff t = make_tariff(rates);
  std::mt19937_64 rng(7);
  const usage_pair u = random_usage(rng, 40);
  auto one = run(t, u.with);
  if (!one) FAIL(one.error().describe());
  auto blank = meter::for_month(t, "2026-11");
  REQUIRE(blank);
  meter m = *blank;
  REQUIRE(io::meter_usage_csv(m, u.with, "u.csv"));
  auto full = io::write_partial(std::span<const meter>(&m, 1));
  REQUIRE(full);
  auto back = io::read_partial(*blank, *full, "p.bin");
  REQUIRE(back);
  CHECK(back->finish().value() == *one);
  auto totals = io::write_totals_partial(m);
  REQUIRE(totals);
  auto back_totals = io::read_totals_partial(*blank, *totals, "p.bin");
  REQUIRE(back_totals);
  CHECK(back_totals->finish().value() == *one);
  // A label set that is not one, checksum recomputed: refused, naming the file.
  std::string spoiled = *full;
  const std::size_t at = spoiled.find("project=nlp");
  REQUIRE(at != std::string::npos);
  spoiled[at + 7] = '~';
  spoiled.resize(spoiled.size() - 8);
  const std::uint64_t sum = fnv1a64(spoiled);
  for (int k = 0; k < 8; ++k) spoiled.push_back(static_cast<char>(static_cast<unsigned char>(sum >> (8 * k))));
  auto bad = io::read_partial(*blank, spoiled, "p.bin");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().where == "p.bin");
  CHECK(bad.error().message.find("not label sets") != std::string::npos);
}

TEST_CASE("FOCUS: one Usage row per line and label set, Tags a JSON object, the rows adding up to the account's due") {
  const tariff t = make_tariff(unit_rate);
  auto inv = run(t,
                 "id,account,resource,mode,quantity,start,end,labels\n"
                 "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z,project=vision|team=cv\n"
                 "r2,acme,gpu/H100,on_demand,2,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z,project=nlp\n"
                 "r3,acme,gpu/H100,on_demand,1,2026-11-05T10:00:00Z,2026-11-05T10:20:00Z,\n");
  REQUIRE(inv);
  const std::string focus = io::write_invoice_focus(*inv, &t);
  CHECK(focus.find(R"("{""project"":""nlp""}")") != std::string::npos);
  CHECK(focus.find(R"("{""project"":""vision"",""team"":""cv""}")") != std::string::npos);
  // 2.49 x 1 h, 2.49 x 2 h, 2.49 / 3: 8.30 for the line, parts 4.98 (nlp), 2.49 (vision) and 0.83; 3.00 of credit.
  const auto& l = inv->accounts.at(0).lines.at(0);
  CHECK(l.amount.to_string() == "8.30");
  REQUIRE(l.labels.size() == 3);
  CHECK(l.labels[0].labels.empty());
  CHECK(l.labels[0].amount.to_string() == "0.83");
  CHECK(l.labels[1].amount.to_string() == "4.98");
  CHECK(l.labels[2].amount.to_string() == "2.49");
  std::size_t rows = 0;
  for (std::size_t at = focus.find('\n'); at != std::string::npos && at + 1 < focus.size(); at = focus.find('\n', at + 1)) ++rows;
  CHECK(rows == 4);  // three Usage rows and the Credit row
  CHECK(inv->accounts.at(0).due.to_string() == "5.30");
}

}  // namespace test_metering_labels
