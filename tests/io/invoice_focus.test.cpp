// SPDX-License-Identifier: MIT
// The FOCUS writer (io/billing/invoice_focus.hpp): the BilledCost of an account's rows adds up to its
// due to the minor unit (credits as negative Credit rows), on hand-made usage and on random
// usage with a fixed seed, metered on 1 and 2 threads (the FOCUS text the same for both).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gpurent/io/billing/invoice_focus.hpp>
#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/metering.hpp>

#include "support/files.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_io_invoice_focus {

using namespace gpurent;

namespace {
const char* const tariff_text = R"({ "currency": "USD", "timezone": "UTC", "rates": [
    { "resource": "gpu/H100-80GB", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s" },
    { "resource": "gpu/H100-80GB", "mode": "spot", "unit_price": "1.13", "per": "1h" },
    { "resource": "mig/A100-80GB/3g.40gb", "mode": "reserved", "unit_price": "0.71", "per": "1h", "increment": "15min" },
    { "resource": "share/L4", "mode": "on_demand", "unit_price": "0.0333", "per": "1min" } ],
  "credits": [ { "account": "acme", "amount": "5.00" }, { "account": "zeta", "amount": "1000.00" } ] })";

// A CSV row split into fields (quoted fields may hold commas and doubled quotes).
std::vector<std::string> split_row(const std::string& row) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (quoted && c == '"' && i + 1 < row.size() && row[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

struct focus_file {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  [[nodiscard]] std::size_t col(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    FAIL("no column " << name);
    return 0;
  }
};

focus_file parse(const std::string& text) {
  focus_file f;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::string row = text.substr(at, nl - at);
    at = nl + 1;
    if (f.header.empty()) {
      f.header = split_row(row);
    } else {
      f.rows.push_back(split_row(row));
      REQUIRE(f.rows.back().size() == f.header.size());
    }
  }
  return f;
}

// The invoice of the usage text under the tariff, metered on `jobs` threads; with `shards`
// > 1, as that many --shard K/N runs (each on `jobs` threads) whose meters are merged.
invoice meter_text(const std::string& usage, unsigned jobs, const tariff& t, std::uint32_t shards = 1) {
  const auto path = gpurent::test::scratch_dir("focus") / "usage.csv";
  gpurent::test::write_file(path, usage);
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  const std::vector<std::string> files{path.string()};
  std::vector<meter> all;
  for (std::uint32_t k = 0; k < shards; ++k) {
    io::meter_run_options run{};
    run.jobs = jobs;
    run.shard = {k, shards};
    auto part = io::meter_usage_files(*m, files, run);
    REQUIRE(part);
    for (meter& p : *part) all.push_back(std::move(p));
  }
  auto inv = meter::finish_shards(all);
  if (!inv) FAIL(inv.error().describe());
  return *inv;
}

// Every account's BilledCost adds up to its due, exactly, and so does its EffectiveCost (a
// commitment's charge amortised over its Used and Unused rows); one Usage row per line and
// label set, one Purchase per commitment, one Credit row per credit applied; EffectiveCost
// equal to BilledCost outside commitments.
void check_reconciles(const invoice& inv, const tariff& t) {
  const focus_file f = parse(io::write_invoice_focus(inv, &t));
  const std::size_t acct = f.col("BillingAccountId"), billed = f.col("BilledCost"), cat = f.col("ChargeCategory");
  const std::size_t effective = f.col("EffectiveCost"), commitment = f.col("CommitmentDiscountId");
  std::map<std::string, int128> sum, effective_sum;
  std::map<std::string, std::size_t> rows_of;
  for (const auto& r : f.rows) {
    auto v = money_value::parse(inv.ccy, r[billed]);
    auto e = money_value::parse(inv.ccy, r[effective]);
    REQUIRE(v);
    REQUIRE(e);
    sum[r[acct]] += v->minor_units();
    effective_sum[r[acct]] += e->minor_units();
    if (r[commitment].empty()) CHECK(r[effective] == r[billed]);
    CHECK(r[f.col("BillingCurrency")] == "USD");
    ++rows_of[r[cat] + (r[commitment].empty() ? "" : ":commitment")];
  }
  // ConsumedQuantity adds up to what each account used, in unit-hours, whether a commitment
  // covered it (its Used row) or not, with or without labels (each row is rounded to 9 places);
  // a prepaid package's row repeats use its lines carry (docs/focus.md) and is left out.
  std::map<std::string, long double> consumed;
  std::map<std::string, std::size_t> consumed_rows;
  for (const auto& r : f.rows) {
    if (r[f.col("ConsumedQuantity")].empty() || r[f.col("SkuId")].starts_with("prepaid/")) continue;
    consumed[r[acct]] += std::stold(r[f.col("ConsumedQuantity")]);
    ++consumed_rows[r[acct]];
  }
  for (const auto& a : inv.accounts) {
    long double used = 0;
    for (const auto& l : a.lines) used += static_cast<long double>(l.used_usage.raw()) / 1e9L / 3600.0L;
    CAPTURE(a.account);
    CHECK(std::fabs(static_cast<double>(consumed[a.account] - used)) <= 1e-9 * static_cast<double>(consumed_rows[a.account] + 1));
  }
  std::size_t usage_rows = 0, applied = 0, commitments = 0;
  for (const auto& a : inv.accounts) {
    CHECK(sum[a.account] == a.due.minor_units());
    CHECK(effective_sum[a.account] == a.due.minor_units());
    for (const auto& l : a.lines) usage_rows += std::max<std::size_t>(1, l.labels.size());
    commitments += a.commitments.size();
    if (a.credit_applied.minor_units() != 0) ++applied;
  }
  CHECK(rows_of["Usage"] == usage_rows);
  CHECK(rows_of["Purchase:commitment"] == commitments);
  CHECK(rows_of["Credit"] == applied);
  CHECK(sum.size() == inv.accounts.size());
}

tariff make_tariff() {
  auto t = io::parse_tariff_json(tariff_text, "t.json");
  REQUIRE(t);
  return *t;
}
}  // namespace

TEST_CASE("FOCUS: hand-made usage reconciles to the due, rows carry the rate's facts") {
  const tariff t = make_tariff();
  const std::string usage =
      "id,account,resource,mode,quantity,start,end\n"
      "a1,acme,gpu/H100-80GB,on_demand,2,2026-11-03T10:00:00Z,2026-11-03T12:30:10Z\n"
      "a2,acme,gpu/H100-80GB,spot,1,2026-11-04T00:00:00Z,2026-11-04T07:00:00Z\n"
      "a3,acme,mig/A100-80GB/3g.40gb,reserved,1,2026-11-05T00:00:00Z,2026-11-05T01:01:00Z\n"
      "z1,zeta,share/L4,on_demand,0.25,2026-11-06T00:00:00Z,2026-11-06T00:10:07Z\n"
      "b1,beta,gpu/H100-80GB,on_demand,1,2026-11-30T23:59:30Z,2026-12-01T00:00:00Z\n";
  const invoice one = meter_text(usage, 1, t);
  check_reconciles(one, t);
  CHECK(io::write_invoice_focus(meter_text(usage, 2, t), &t) == io::write_invoice_focus(one, &t));
  const focus_file f = parse(io::write_invoice_focus(one, &t));
  std::map<std::string, std::vector<std::string>> by_sku;
  for (const auto& r : f.rows) by_sku[r[f.col("SkuPriceId")]] = r;
  const auto& mig = by_sku.at("mig/A100-80GB/3g.40gb:reserved");
  CHECK(mig[f.col("PricingCategory")] == "Committed");
  CHECK(mig[f.col("x_GpuModel")] == "A100-80GB");
  CHECK(mig[f.col("x_MigProfile")] == "3g.40gb");
  CHECK(mig[f.col("x_BilledSeconds")] == "4500");  // 61 min in 15 min increments
  CHECK(mig[f.col("PricingQuantity")] == "1.25");
  CHECK(mig[f.col("ListUnitPrice")] == "0.71");
  CHECK(by_sku.at("gpu/H100-80GB:spot")[f.col("PricingCategory")] == "Dynamic");
  const auto& od = by_sku.at("gpu/H100-80GB:on_demand");
  CHECK(od[f.col("PricingCategory")] == "Standard");
  CHECK(od[f.col("PricingUnit")] == "GPU-Hours");
  CHECK(by_sku.at("share/L4:on_demand")[f.col("x_SharingMode")] == "Fractional");
  CHECK(by_sku.at("share/L4:on_demand")[f.col("PricingUnit")] == "GPU-Minutes");
  CHECK(by_sku.at("")[f.col("ChargeCategory")] == "Credit");
}

namespace {
// The rows of a FOCUS text by key: SkuPriceId, then ChargeCategory and CommitmentDiscountStatus.
std::map<std::string, std::vector<std::string>> rows_by_key(const focus_file& f, const std::string& account) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& r : f.rows) {
    if (r[f.col("BillingAccountId")] != account) continue;
    out[r[f.col("SkuPriceId")] + "/" + r[f.col("ChargeCategory")] + "/" + r[f.col("CommitmentDiscountStatus")]] = r;
  }
  return out;
}
}  // namespace

TEST_CASE("FOCUS: ConsumedQuantity is the quantity-seconds used, PricingQuantity the quantity-seconds billed, in the units") {
  auto t = io::parse_tariff_json(R"({ "currency": "USD", "timezone": "UTC", "rates": [
      { "resource": "gpu/H100-80GB", "mode": "on_demand", "unit_price": "2.00", "per": "1h", "minimum": "1h" },
      { "resource": "gpu/H100-80GB", "mode": "spot", "unit_price": "1.00", "per": "1h",
        "price_changes": [ { "from": "2026-11-10T00:00:00Z", "unit_price": "0.50" } ] },
      { "resource": "gpu/H100-80GB", "mode": "tiered", "tiers": { "mode": "volume", "steps": [ { "up_to": null, "unit_price": "1.00" } ] } } ] })",
                                 "t.json");
  REQUIRE(t);
  const std::string usage =
      "id,account,resource,mode,quantity,start,end\n"
      "a1,acme,gpu/H100-80GB,spot,8,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z\n"
      "b1,acme,gpu/H100-80GB,tiered,8,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z\n"
      "c1,acme,gpu/H100-80GB,on_demand,8,2026-11-02T00:00:00Z,2026-11-02T00:06:00Z\n"
      "c2,acme,gpu/H100-80GB,on_demand,1,2026-11-03T00:00:00Z,2026-11-03T10:00:00Z\n";
  const invoice inv = meter_text(usage, 1, *t);
  check_reconciles(inv, *t);
  const focus_file f = parse(io::write_invoice_focus(inv, &*t));
  const auto rows = rows_by_key(f, "acme");
  const std::size_t consumed = f.col("ConsumedQuantity"), priced = f.col("PricingQuantity"), list = f.col("ListCost");
  // Spot and tiered: 8 GPUs x 1 h = 8 GPU-hours used and billed, at 1.00 = 8.00.
  for (const char* sku : {"gpu/H100-80GB:spot/Usage/", "gpu/H100-80GB:tiered/Usage/"}) {
    CHECK(rows.at(sku)[consumed] == "8.0");
    CHECK(rows.at(sku)[priced] == "8.0");
    CHECK(rows.at(sku)[f.col("PricingUnit")] == "GPU-Hours");
    CHECK(rows.at(sku)[list] == "8.00");
  }
  // On demand: used 8 x 0.1 h + 1 x 10 h = 10.8; billed 8 x 1 h (the minimum) + 10 h = 18,
  // at 2.00 = 36.00 (PricingQuantity x ListUnitPrice = ListCost).
  const auto& od = rows.at("gpu/H100-80GB:on_demand/Usage/");
  CHECK(od[consumed] == "10.8");
  CHECK(od[priced] == "18.0");
  CHECK(od[f.col("ListUnitPrice")] == "2.0");
  CHECK(od[list] == "36.00");
}

TEST_CASE("FOCUS: a commitment's Used and Unused rows, each only when not zero, cost only EffectiveCost") {
  auto t = io::parse_tariff_json(R"({ "currency": "USD", "timezone": "UTC",
    "rates": [ { "resource": "gpu/A100-80GB", "mode": "on_demand", "unit_price": "0.79", "per": "1h", "increment": "60s", "minimum": "60s" } ],
    "commitments": [
      { "account": "acme", "resource": "gpu/A100-80GB", "mode": "on_demand", "units": "1", "price": "568.80" },
      { "account": "beta", "resource": "gpu/A100-80GB", "mode": "on_demand", "units": "2", "price": "500.00",
        "start": "2026-11-16T00:00:00Z", "end": "2026-12-16T00:00:00Z" } ] })",
                                 "t.json");
  REQUIRE(t);
  const std::string usage =
      "id,account,resource,mode,quantity,start,end\n"
      "a1,acme,gpu/A100-80GB,on_demand,1,2026-11-01T00:00:00Z,2026-11-15T12:00:00Z\n"
      "a2,acme,gpu/A100-80GB,on_demand,1,2026-11-15T12:00:00Z,2026-12-01T00:00:00Z\n"
      "b1,beta,gpu/A100-80GB,on_demand,1,2026-11-15T23:00:00Z,2026-11-16T01:00:00Z\n";
  const invoice inv = meter_text(usage, 1, *t);
  check_reconciles(inv, *t);
  const focus_file f = parse(io::write_invoice_focus(inv, &*t));
  const std::size_t consumed = f.col("ConsumedQuantity"), effective = f.col("EffectiveCost");
  const std::size_t list = f.col("ListCost"), contracted = f.col("ContractedCost"), billed = f.col("BilledCost");
  const std::string sku = "gpu/A100-80GB:on_demand";
  // acme: 1 GPU all month (720 h), all covered: the usage row bills and consumes nothing, the
  // Used row consumes 720 GPU-hours and carries the whole charge; no Unused row.
  const auto acme = rows_by_key(f, "acme");
  CHECK(acme.size() == 3);
  CHECK(acme.at(sku + "/Usage/")[consumed] == "0.0");
  CHECK(acme.at(sku + "/Usage/")[billed] == "0.00");
  CHECK(acme.at(sku + "/Purchase/")[contracted] == "568.80");
  const auto& used = acme.at(sku + "/Usage/Used");
  CHECK(used[consumed] == "720.0");
  CHECK(used[effective] == "568.80");
  CHECK(used[billed] == "0.00");
  CHECK(used[list] == "0.00");
  CHECK(used[contracted] == "0.00");
  CHECK(acme.count(sku + "/Usage/Unused") == 0);
  // beta: 2 units from the 16th (360 h: 720 unit-hours offered); 1 GPU for 2 h, 1 h of it in
  // the window: used 1 h, 500.00 x 1 / 720 = 0.694.. -> 0.69, unused 719 h -> 499.31.
  const auto beta = rows_by_key(f, "beta");
  CHECK(beta.at(sku + "/Usage/")[consumed] == "1.0");
  CHECK(beta.at(sku + "/Usage/")[billed] == "0.79");
  CHECK(beta.at(sku + "/Usage/Used")[consumed] == "1.0");
  CHECK(beta.at(sku + "/Usage/Used")[effective] == "0.69");
  CHECK(beta.at(sku + "/Usage/Used")[contracted] == "0.00");
  const auto& unused = beta.at(sku + "/Usage/Unused");
  CHECK(unused[consumed].empty());
  CHECK(unused[f.col("PricingQuantity")] == "719.0");
  CHECK(unused[effective] == "499.31");
  CHECK(unused[list] == "0.00");
  CHECK(unused[contracted] == "0.00");
}

TEST_CASE("FOCUS: random usage, labels and commitments reconcile to the due on 1, 2 and 8 threads and merged shards (fixed seed)") {
  std::string with_commitments = tariff_text;
  with_commitments.insert(with_commitments.rfind('}'), R"(, "commitments": [
      { "account": "acme", "resource": "gpu/H100-80GB", "mode": "on_demand", "units": "1.5", "price": "700" },
      { "account": "beta", "resource": "share/L4", "mode": "on_demand", "units": "0.5", "price": "20",
        "start": "2026-11-20T00:00:00Z", "end": "2027-01-01T00:00:00Z" },
      { "account": "nobody", "resource": "gpu/H100-80GB", "mode": "spot", "units": "1", "price": "99.99" } ])");
  auto committed = io::parse_tariff_json(with_commitments, "t.json");
  REQUIRE(committed);
  const char* const label_sets[] = {"", "project=vision", "project=nlp|team=lm", "\"team=a,b\""};
  std::mt19937_64 rng(36);
  const char* const accounts[] = {"acme", "beta", "zeta", "omega"};
  const char* const rates[][2] = {
      {"gpu/H100-80GB", "on_demand"}, {"gpu/H100-80GB", "spot"}, {"mig/A100-80GB/3g.40gb", "reserved"}, {"share/L4", "on_demand"}};
  const char* const quantities[] = {"1", "2", "0.25", "0.5", "3"};
  for (int round = 0; round < 4; ++round) {
    const tariff t = round % 2 == 0 ? make_tariff() : *committed;
    std::string usage = round < 2 ? "id,account,resource,mode,quantity,start,end\n" : "id,account,resource,mode,quantity,start,end,labels\n";
    const instant base = *parse_instant("2026-10-31T00:00:00Z");
    for (int i = 0; i < 200; ++i) {
      const auto& r = rates[rng() % 4];
      const instant s = base + seconds{static_cast<std::int64_t>(rng() % (31 * 86400))};
      const instant e = s + seconds{static_cast<std::int64_t>(1 + rng() % 20000)};
      usage += "r" + std::to_string(i) + "," + accounts[rng() % 4] + "," + r[0] + "," + r[1] + "," + quantities[rng() % 5] + "," + format_instant(s) +
               "," + format_instant(e) + (round < 2 ? "" : std::string(",") + label_sets[rng() % 4]) + "\n";
    }
    const invoice one = meter_text(usage, 1, t);
    check_reconciles(one, t);
    const std::string focus = io::write_invoice_focus(one, &t);
    CHECK(io::write_invoice_focus(meter_text(usage, 2, t), &t) == focus);
    CHECK(io::write_invoice_focus(meter_text(usage, 8, t), &t) == focus);
    CHECK(io::write_invoice_focus(meter_text(usage, 2, t, 3), &t) == focus);
  }
}

}  // namespace test_io_invoice_focus
