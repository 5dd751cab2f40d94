// SPDX-License-Identifier: MIT
// The FOCUS writer (io/billing/invoice_focus.hpp): the BilledCost of an account's rows adds up to its
// due to the minor unit (credits as negative Credit rows), on hand-made usage and on random
// usage with a fixed seed, metered on 1 and 2 threads (the FOCUS text the same for both).
#include <doctest/doctest.h>

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

// The invoice of the usage text under the tariff, metered on `jobs` threads.
invoice meter_text(const std::string& usage, unsigned jobs, const tariff& t) {
  const auto path = gpurent::test::scratch_dir("focus") / "usage.csv";
  gpurent::test::write_file(path, usage);
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  const std::vector<std::string> files{path.string()};
  io::meter_run_options run{};
  run.jobs = jobs;
  auto shards = io::meter_usage_files(*m, files, run);
  REQUIRE(shards);
  auto inv = meter::finish_shards(*shards);
  REQUIRE(inv);
  return *inv;
}

// Every account's BilledCost adds up to its due, exactly; one Usage row per line, one Credit
// row per credit applied, and EffectiveCost equal to BilledCost.
void check_reconciles(const invoice& inv, const tariff& t) {
  const focus_file f = parse(io::write_invoice_focus(inv, &t));
  const std::size_t acct = f.col("BillingAccountId"), billed = f.col("BilledCost"), cat = f.col("ChargeCategory");
  std::map<std::string, int128> sum;
  std::size_t usage = 0, credits = 0;
  for (const auto& r : f.rows) {
    auto v = money_value::parse(inv.ccy, r[billed]);
    REQUIRE(v);
    sum[r[acct]] += v->minor_units();
    CHECK(r[f.col("EffectiveCost")] == r[billed]);
    CHECK(r[f.col("BillingCurrency")] == "USD");
    (r[cat] == "Usage" ? usage : credits) += 1;
  }
  std::size_t lines = 0, applied = 0;
  for (const auto& a : inv.accounts) {
    CHECK(sum[a.account] == a.due.minor_units());
    lines += a.lines.size();
    if (a.credit_applied.minor_units() != 0) ++applied;
  }
  CHECK(usage == lines);
  CHECK(credits == applied);
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

TEST_CASE("FOCUS: random usage reconciles to the due on 1 and 2 threads (fixed seed)") {
  const tariff t = make_tariff();
  std::mt19937_64 rng(36);
  const char* const accounts[] = {"acme", "beta", "zeta", "omega"};
  const char* const rates[][2] = {
      {"gpu/H100-80GB", "on_demand"}, {"gpu/H100-80GB", "spot"}, {"mig/A100-80GB/3g.40gb", "reserved"}, {"share/L4", "on_demand"}};
  const char* const quantities[] = {"1", "2", "0.25", "0.5", "3"};
  for (int round = 0; round < 4; ++round) {
    std::string usage = "id,account,resource,mode,quantity,start,end\n";
    const instant base = *parse_instant("2026-10-31T00:00:00Z");
    for (int i = 0; i < 200; ++i) {
      const auto& r = rates[rng() % 4];
      const instant s = base + seconds{static_cast<std::int64_t>(rng() % (31 * 86400))};
      const instant e = s + seconds{static_cast<std::int64_t>(1 + rng() % 20000)};
      usage += "r" + std::to_string(i) + "," + accounts[rng() % 4] + "," + r[0] + "," + r[1] + "," + quantities[rng() % 5] + "," + format_instant(s) +
               "," + format_instant(e) + "\n";
    }
    const invoice one = meter_text(usage, 1, t);
    check_reconciles(one, t);
    CHECK(io::write_invoice_focus(meter_text(usage, 2, t), &t) == io::write_invoice_focus(one, &t));
  }
}

}  // namespace test_io_invoice_focus
