// SPDX-License-Identifier: MIT
// The FOCUS writer (io/billing/invoice_focus.hpp): the BilledCost of an account's rows adds up to its
// due to the minor unit (credits as negative Credit rows), on hand-made usage and on random
// usage with a fixed seed, metered on 1 and 2 threads (the FOCUS text the same for both).
#include <doctest/doctest.h>

#include <algorithm>
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
