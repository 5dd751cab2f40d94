// SPDX-License-Identifier: MIT
// fmt formatters of the metering layer (metering/format.hpp): records, lines and accounts
// in one line each, the invoice as a table with every exact amount and rounding shown, and
// every record the meter left out counted.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/format.hpp>
#include <gpurent/metering/meter.hpp>

namespace test_metering_format {
namespace {
using namespace gpurent;

// 2.49/h per second with a 60 s minimum (aws.amazon.com/ec2/pricing/on-demand), a credit.
//   a: 10 s of 1 GPU, billed 60 s: 0.0415
//   b: 1 h of 2 GPUs: 4.98                 -> acme's line 5.0215 exact, 5.02 charged
//   c: 30 min of 0.5 GPU: 0.6225          -> beta's line 0.62 (half_even)
//   a again, identically: counted once; d: in October, out of the period.
invoice example_invoice() {
  auto t = io::parse_tariff_json(R"({"currency": "USD", "timezone": "UTC", "rates": [
      {"resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "1s", "minimum": "60s"}],
      "credits": [{"account": "acme", "amount": "1.00"}]})",
                                 "t.json");
  REQUIRE(t);
  auto m = meter::for_month(*t, "2026-11");
  REQUIRE(m);
  const std::string csv =
      "id,account,resource,mode,quantity,start,end\n"
      "a,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00Z,2026-11-03T10:15:10Z\n"
      "b,acme,gpu/H100,on_demand,2,2026-11-04T00:00:00Z,2026-11-04T01:00:00Z\n"
      "c,beta,gpu/H100,on_demand,0.5,2026-11-05T00:00:00Z,2026-11-05T00:30:00Z\n"
      "a,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00Z,2026-11-03T10:15:10Z\n"
      "d,acme,gpu/H100,on_demand,1,2026-10-05T00:00:00Z,2026-10-05T00:30:00Z\n";
  REQUIRE(io::meter_usage_csv(*m, csv, "u.csv"));
  auto inv = m->finish();
  REQUIRE(inv);
  return *inv;
}

TEST_CASE("a usage record in one line, labels included") {
  usage_record r;
  r.id = "r1";
  r.account = "acme";
  r.resource = "gpu/H100";
  r.mode = "spot";
  r.quantity = nano_quantity(500'000'000);
  r.start = *parse_instant("2026-11-01T00:00:00Z");
  r.end = *parse_instant("2026-11-01T01:00:00Z");
  CHECK(fmt::format("{}", r) == "r1: acme gpu/H100 spot x0.5 [2026-11-01T00:00:00Z, 2026-11-01T01:00:00Z)");
  r.labels = {{"job", "train-7"}, {"team", "ml"}};
  CHECK(fmt::format("{}", r) == "r1: acme gpu/H100 spot x0.5 [2026-11-01T00:00:00Z, 2026-11-01T01:00:00Z) {job=train-7, team=ml}");
}

TEST_CASE("lines and accounts in one line each, the rounding signed") {
  const invoice inv = example_invoice();
  REQUIRE(inv.accounts.size() == 2);
  CHECK(fmt::format("{}", inv.accounts[0].lines[0]) == "gpu/H100 on_demand: 5.02 USD (2 records, 3660 s billed, exact 5.0215, rounding -0.0015)");
  CHECK(fmt::format("{}", inv.accounts[1].lines[0]) == "gpu/H100 on_demand: 0.62 USD (1 record, 1800 s billed, exact 0.6225, rounding -0.0025)");
  CHECK(fmt::format("{}", inv.accounts[0]) == "acme: 5.02 USD in 1 line, credit applied 1.00 USD, due 4.02 USD");
  CHECK(fmt::format("{}", inv.accounts[1]) == "beta: 0.62 USD in 1 line, due 0.62 USD");

  invoice_line up = inv.accounts[1].lines[0];
  up.rounding = ratio<>(int128(1), int128(300));
  up.forgiven = true;
  CHECK(fmt::format("{}", up).ends_with("rounding +1/300, forgiven)"));
}

TEST_CASE("the invoice as a table") {
  const std::string s = fmt::format("{}", example_invoice());
  CHECK(s ==
        "invoice 2026-11 (UTC, 2026-11-01T00:00:00Z to 2026-12-01T00:00:00Z), USD, rounding half_even at line\n"
        "ACCOUNT  RESOURCE          MODE       RECORDS  BILLED_S  AMOUNT   EXACT  ROUNDING\n"
        "acme     gpu/H100          on_demand        2      3660    5.02  5.0215  -0.0015\n"
        "acme     total                                             5.02  5.0215\n"
        "acme     credit applied                                   -1.00\n"
        "acme     credit remaining                                  0.00\n"
        "acme     due                                               4.02\n"
        "beta     gpu/H100          on_demand        1      1800    0.62  0.6225  -0.0025\n"
        "beta     total                                             0.62  0.6225\n"
        "beta     due                                               0.62\n"
        "1 record out of period, 1 identical repeat counted once\n");
}

TEST_CASE("the rating status prints its name") {
  CHECK(fmt::format("{}", rating_status::out_of_period) == "out_of_period");
  CHECK(parse_enum<rating_status>("overflow") == rating_status::overflow);
}

TEST_CASE("an invoice without usage says so") {
  invoice inv;
  inv.period = "2026-11";
  inv.timezone = "UTC";
  const std::string s = fmt::format("{}", inv);
  CHECK(s.find("(no usage in the period)\n") != std::string::npos);
  CHECK(s.ends_with("0 records out of period, 0 identical repeats counted once\n"));
}

}  // namespace
}  // namespace test_metering_format
