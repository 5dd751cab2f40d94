// SPDX-License-Identifier: MIT
// `gpurent meter` as a program: the invoice of docs/formats/billing.md, and every invalid input exits 2 with
// a message naming the file, line and field on stderr and nothing on stdout.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/tool.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_tool_meter {

namespace {
namespace fs = std::filesystem;

using result = gpurent::test::tool_result;
using gpurent::test::slurp;
using gpurent::test::write_file;
fs::path scratch() { return gpurent::test::scratch_dir("meter"); }

const std::string good_tariff = R"({
  "currency": "USD", "timezone": "America/New_York",
  "rates": [
    { "resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s" },
    { "resource": "mig/3g", "mode": "on_demand", "per": "1h",
      "tiers": { "mode": "graduated", "steps": [ { "up_to": "100", "unit_price": "1.20" }, { "up_to": null, "unit_price": "0.95" } ] } }
  ],
  "credits": [ { "account": "acme", "amount": "1.00" } ]
})";
const std::string header = "id,account,resource,mode,quantity,start,end\n";
const std::string good_row = "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00Z,2026-11-03T10:15:10Z\n";

result meter(const std::string& tariff, const std::string& usage, const std::string& extra = "--period 2026-11",
             const std::string& files = "--tariff t.json --usage u.csv") {
  const fs::path d = scratch();
  write_file(d / "t.json", tariff);
  write_file(d / "u.csv", usage);
  return gpurent::test::run_tool("meter " + files + " " + extra, {}, d);
}

// Exit 2, nothing on stdout, and stderr names where and which field.
void invalid(const result& r, const std::string& where, const std::string& field) {
  CAPTURE(r.err);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(where) != std::string::npos);
  CHECK(r.err.find("field '" + field + "'") != std::string::npos);
}

std::string tariff_with_rate(const std::string& rate, const std::string& top = R"("currency": "USD", "timezone": "UTC")",
                             const std::string& tail = "") {
  return "{" + top + R"(, "rates": [ )" + rate + " ]" + tail + " }";
}
}  // namespace

TEST_CASE("gpurent meter: JSON by default, CSV on request") {
  auto r = meter(good_tariff, header + good_row + "r2,beta,mig/3g,on_demand,2,2026-11-04T00:00:00Z,2026-11-04T01:00:00Z\n");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["currency"] == "USD");
  CHECK(j["period"] == "2026-11");
  CHECK(j["timezone"] == "America/New_York");
  CHECK(j["accounts"][0]["account"] == "acme");
  CHECK(j["accounts"][0]["lines"][0]["billed_seconds"] == 60);
  CHECK(j["accounts"][0]["lines"][0]["amount"] == "0.04");
  CHECK(j["accounts"][0]["credit_applied"] == "0.04");
  CHECK(j["accounts"][0]["due"] == "0.00");
  CHECK(j["accounts"][1]["total"] == "2.40");
  CHECK(j["records_out_of_period"] == 0);
  auto c = meter(good_tariff, header + good_row, "--period 2026-11 --format csv");
  REQUIRE(c.status == 0);
  CHECK(
      c.out.starts_with("kind,account,resource,mode,records,billed_seconds,amount,currency,period,quantity,unit,unit_price,labels\n"
                        "line,acme,gpu/H100,on_demand,1,60,0.04,USD,2026-11,0.016666667,GPU-Hours,2.49,\n"));
  auto d = meter(good_tariff, header + good_row, "--period 2026-11 --detail");
  REQUIRE(d.status == 0);
  CHECK(nlohmann::json::parse(d.out)["accounts"][0]["lines"][0]["exact"] == "0.0415");
  auto table = meter(good_tariff, header + good_row, "--period 2026-11 --format table");
  REQUIRE(table.status == 0);
  CHECK(table.out.starts_with("invoice 2026-11 (America/New_York, 2026-11-01T04:00:00Z to 2026-12-01T05:00:00Z), USD, rounding half_even at line\n"));
  CHECK(table.out.find("acme     gpu/H100          on_demand        1        60    0.04  0.0415  -0.0015\n") != std::string::npos);
  CHECK(table.out.find("acme     due                                               0.00\n") != std::string::npos);
  // Same input, same bytes.
  CHECK(meter(good_tariff, header + good_row).out == meter(good_tariff, header + good_row).out);
}

TEST_CASE("gpurent meter: invalid tariffs") {
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":"2,49","per":"1h"})"), header), "t.json", "rates[0].unit_price");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":2.49,"per":"1h"})"), header), "t.json", "rates[0].unit_price");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":"1","per":"1h"})", R"("currency": "USX", "timezone": "UTC")"), header),
          "t.json", "currency");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":"1","per":"1h"})", R"("currency": "USD", "timezone": "Europe/Nowhere")"),
                header),
          "t.json", "timezone");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":"1","per":"1h"})",
                                 R"("currency": "USD", "timezone": "UTC", "rounding": "bankers")"),
                header),
          "t.json", "rounding");
  invalid(
      meter(
          tariff_with_rate(
              R"({"resource":"g","mode":"m","tiers":{"mode":"graduated","steps":[{"up_to":"5","unit_price":"1"},{"up_to":"9","unit_price":"1"}]}})"),
          header),
      "t.json", "rates[0].tiers.steps[1].up_to");
  invalid(
      meter(tariff_with_rate(
                R"({"resource":"g","mode":"m","tiers":{"mode":"volume","steps":[{"up_to":null,"unit_price":"1"},{"up_to":null,"unit_price":"1"}]}})"),
            header),
      "t.json", "rates[0].tiers.steps[0].up_to");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","tiers":{"mode":"volume","steps":[{"up_to":null,"unit_price":"1"}]},
                                   "price_changes":[{"from":"2026-11-10T06:00:00Z","unit_price":"0.87"}]})"),
                header),
          "t.json", "rates[0].price_changes");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":"1","per":"1h",
                                   "price_changes":[{"from":"2026-11-10 06:00","unit_price":"0.87"}]})"),
                header),
          "t.json", "rates[0].price_changes[0].from");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":"1","per":"1h"})", R"("currency": "JPY", "timezone": "UTC")",
                                 R"(, "credits": [{"account":"a","amount":"0.5"}])"),
                header),
          "t.json", "credits[0].amount");
  // Mixed price models in one rate.
  invalid(meter(tariff_with_rate(
                    R"({"resource":"g","mode":"m","unit_price":"1","per":"1h","tiers":{"mode":"volume","steps":[{"up_to":null,"unit_price":"1"}]}})"),
                header),
          "t.json", "rates[0].tiers");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":"1","per":"1h","increment":"0s"})"), header), "t.json",
          "rates[0].increment");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":"1","per":"1 h"})"), header), "t.json", "rates[0].per");
  invalid(
      meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_price":"1","per":"1h"},{"resource":"g","mode":"m","unit_price":"2","per":"1h"})"),
            header),
      "t.json", "rates[1]");
  invalid(meter(tariff_with_rate(R"({"resource":"g","mode":"m","unit_prize":"1","per":"1h"})"), header), "t.json", "rates[0].unit_prize");
  auto broken = meter("{\n \"currency\": \"USD\",\n \"rates\": [ \n", header);
  CHECK(broken.status == 2);
  CHECK(broken.out.empty());
  CHECK(broken.err.find("t.json:") != std::string::npos);
}

TEST_CASE("gpurent meter: invalid usage") {
  const std::string row_tail = ",2026-11-03T10:15:00Z,2026-11-03T10:15:10Z\n";
  invalid(meter(good_tariff, header + "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00,2026-11-03T10:15:10Z\n"), "u.csv:2", "start");
  invalid(meter(good_tariff, header + good_row + "r2,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00Z,2026-02-30T10:15:10Z\n"), "u.csv:3", "end");
  invalid(meter(good_tariff, header + "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00Z,2026-11-03T10:15:00Z\n"), "u.csv:2", "end");
  invalid(meter(good_tariff, header + "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00Z,2026-11-03T09:15:00Z\n"), "u.csv:2", "end");
  invalid(meter(good_tariff, header + "r1,acme,gpu/H100,on_demand,0" + row_tail), "u.csv:2", "quantity");
  invalid(meter(good_tariff, header + "r1,acme,gpu/H100,on_demand,-1" + row_tail), "u.csv:2", "quantity");
  invalid(meter(good_tariff, header + "r1,acme,gpu/H100,on_demand,1.5.1" + row_tail), "u.csv:2", "quantity");
  invalid(meter(good_tariff, header + "r1,acme,gpu/A100,on_demand,1" + row_tail), "u.csv:2", "resource");
  invalid(meter(good_tariff, header + "r1,acme,gpu/H100,spot,1" + row_tail), "u.csv:2", "resource");
  const result dup = meter(good_tariff, header + good_row + good_row + "r1,acme,gpu/H100,on_demand,2" + row_tail);
  invalid(dup, "u.csv:4", "id");
  CHECK(dup.err.find("u.csv:2") != std::string::npos);
  invalid(meter(good_tariff, ""), "u.csv:1", "id");
  invalid(meter(good_tariff, "id,account,resource,mode,start,end\n"), "u.csv:1", "quantity");
  invalid(meter(good_tariff, header + "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00Z\n"), "u.csv:2", "end");
  invalid(meter(good_tariff, header + ",acme,gpu/H100,on_demand,1" + row_tail), "u.csv:2", "id");
  // A bad row after good ones still leaves stdout empty.
  invalid(meter(good_tariff, header + good_row + "r9,acme,gpu/H100,on_demand,x" + row_tail), "u.csv:3", "quantity");
  // Text that is not UTF-8 (the invoice's JSON could not hold it), in either output format;
  // a label column's value or name too. An offset that leaves the years 0000-9999.
  for (const char* format : {"--period 2026-11", "--period 2026-11 --format csv"}) {
    const result acct = meter(good_tariff, header + good_row + "r2,acm\x9a,gpu/H100,on_demand,1" + row_tail, format);
    invalid(acct, "u.csv:3", "account");
    CHECK(acct.err.find("not UTF-8: byte 0x9A at offset 3") != std::string::npos);
    invalid(meter(good_tariff, header + "r\xC3,acme,gpu/H100,on_demand,1" + row_tail, format), "u.csv:2", "id");
  }
  const std::string labelled = "id,account,resource,mode,quantity,start,end,project\n";
  invalid(meter(good_tariff, labelled + "r1,acme,gpu/H100,on_demand,1,2026-11-03T10:15:00Z,2026-11-03T10:15:10Z,\"x\xE2\x82\"\n"), "u.csv:2",
          "project");
  const result label_name = meter(good_tariff, "id,account,resource,mode,quantity,start,end,proj\xFF\n");
  CHECK(label_name.status == 2);
  CHECK(label_name.err.find("u.csv:1: label column 8: not UTF-8: byte 0xFF at offset 4") != std::string::npos);
  invalid(meter(good_tariff, header + "r1,acme,gpu/H100,on_demand,1,0000-01-01T00:00:00+00:01,2026-11-03T10:15:10Z\n"), "u.csv:2", "start");
}

TEST_CASE("gpurent meter: invalid arguments and files") {
  invalid(meter(good_tariff, header + good_row, "--period 2026-13"), "gpurent:", "--period");
  auto missing = meter(good_tariff, header, "--period 2026-11", "--tariff t.json --usage nope.csv");
  CHECK(missing.status == 2);
  CHECK(missing.out.empty());
  auto nofile = meter(good_tariff, header, "--period 2026-11", "--tariff nope.json --usage u.csv");
  CHECK(nofile.status == 2);
  CHECK(nofile.err.find("nope.json") != std::string::npos);
  auto fmt = meter(good_tariff, header, "--period 2026-11 --format xml");
  CHECK(fmt.status == 2);
  CHECK(fmt.out.empty());
}

TEST_CASE("gpurent meter: several files, --jobs, --shard, --partial-out and merge give the one run's invoice") {
  const fs::path d = scratch();
  write_file(d / "t.json", good_tariff);
  std::string a = header, b = header;
  for (int i = 0; i < 40; ++i) {
    const std::string row = "r" + std::to_string(i) + (i % 2 ? ",acme" : ",beta") + ",gpu/H100,on_demand," + std::to_string(1 + i % 3) +
                            ",2026-11-0" + std::to_string(1 + i % 9) + "T10:00:00Z,2026-11-0" + std::to_string(1 + i % 9) + "T1" +
                            std::to_string(1 + i % 8) + ":00:00Z\n";
    (i % 3 ? a : b) += row;
    if (i % 5 == 0) b += row;  // an identical repeat in the other file
  }
  write_file(d / "a.csv", a);
  write_file(d / "b.csv", b);
  const auto run = [&](const std::string& args) { return gpurent::test::run_tool("meter --tariff t.json --period 2026-11 " + args, {}, d); };
  const result one = run("--usage a.csv b.csv --jobs 1");
  REQUIRE(one.status == 0);
  CHECK(run("--usage a.csv b.csv --jobs 3").out == one.out);
  CHECK(run("--usage a.csv b.csv").out == one.out);  // every core
  for (int k = 0; k < 3; ++k)
    REQUIRE(run("--usage a.csv b.csv --jobs 2 --shard " + std::to_string(k) + "/3 --partial-out p" + std::to_string(k)).status == 0);
  const result merged = gpurent::test::run_tool("meter merge --tariff t.json --period 2026-11 p2 p0 p1", {}, d);
  CAPTURE(merged.err);
  REQUIRE(merged.status == 0);
  CHECK(merged.out == one.out);
  const result csv = gpurent::test::run_tool("meter merge --tariff t.json --period 2026-11 p0 p1 p2 --format csv", {}, d);
  CHECK(csv.out == run("--usage a.csv b.csv --format csv").out);

  invalid(run("--usage a.csv --shard 3/3"), "gpurent:", "--shard");
  write_file(d / "junk", "GPURENTP and then nothing");
  invalid(gpurent::test::run_tool("meter merge --tariff t.json --period 2026-11 p0 junk", {}, d), "junk", "partial");
  invalid(gpurent::test::run_tool("meter merge --tariff t.json --period 2026-12 p0", {}, d), "p0", "partial");
  const result none = run("");
  CHECK(none.status == 2);
  CHECK(none.err.find("--usage") != std::string::npos);
  const result jobs0 = run("--usage a.csv --jobs 0");
  CHECK(jobs0.status == 2);
  CHECK(jobs0.out.empty());
}

}  // namespace test_tool_meter
