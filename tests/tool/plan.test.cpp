// SPDX-License-Identifier: MIT
// `gpurent plan` as a program: its JSON contract, exit statuses, and agreement with
// `gpurent meter` on the usage and tariff it emits.
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

#include <gpurent/core/currency.hpp>
#include <gpurent/core/money.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_tool_plan {

namespace {
namespace fs = std::filesystem;

using run_result = gpurent::test::tool_result;
using gpurent::test::slurp;
using gpurent::test::write_file;
fs::path scratch() { return gpurent::test::scratch_dir("plan"); }
run_result run(const std::string& args) { return gpurent::test::run_tool(args); }
}  // namespace

TEST_CASE("gpurent plan: the built-in example as JSON") {
  const run_result r = run("plan");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["jobs"].size() >= 5);
  for (const auto& x : j["jobs"]) {
    for (const char* key : {"name", "offer", "sharing", "count", "expected_cost", "reason"}) CHECK_MESSAGE(x.contains(key), key);
  }
  for (const char* key : {"total_cost", "naive_cost", "billed_total"}) CHECK_MESSAGE(j.contains(key), key);
  CHECK(j["total_cost"] == "20905.70");
  CHECK(j["billed_total"] == j["total_cost"]);
}

TEST_CASE("gpurent plan: table output and the example files give the same plan") {
  const run_result t = run("plan --format table");
  REQUIRE(t.status == 0);
  CHECK(t.out.find("llm-pretrain") != std::string::npos);
  CHECK(t.out.find("billed total") != std::string::npos);
  const std::string dir = std::string(GPURENT_SOURCE_DIR) + "/examples/plan/";
  const run_result f = run("plan --workload \"" + dir + "workload.json\" --offers \"" + dir + "offers.json\"");
  REQUIRE(f.status == 0);
  CHECK(f.out == run("plan").out);
}

TEST_CASE("gpurent plan: bad files exit 2 naming the field, with nothing on stdout") {
  const fs::path d = scratch();
  write_file(d / "w.json", R"({"jobs": [{"name": "x", "kind": "training", "gpu_hours": 12}]})");
  const run_result w = run("plan --workload \"" + (d / "w.json").string() + "\"");
  CHECK(w.status == 2);
  CHECK(w.out.empty());
  CHECK(w.err.find("jobs[0].gpu_hours") != std::string::npos);
  CHECK(w.err.find("w.json") != std::string::npos);
  write_file(d / "o.json", R"({"offers": [{"id": "a", "gpu": "H100", "price": "2,49"}]})");
  const run_result o = run("plan --offers \"" + (d / "o.json").string() + "\"");
  CHECK(o.status == 2);
  CHECK(o.out.empty());
  CHECK(o.err.find("offers[0].price") != std::string::npos);
  write_file(d / "bad.json", "{ not json");
  CHECK(run("plan --offers \"" + (d / "bad.json").string() + "\"").status == 2);
  CHECK(run("plan --workload \"" + (d / "missing.json").string() + "\"").status == 2);
  // A job no offer can run: exit 3.
  write_file(d / "huge.json", R"({"jobs": [{"name": "huge", "kind": "training", "gpu_hours": "1", "memory_gib": 100000, "max_gpus": 8}]})");
  const run_result h = run("plan --workload \"" + (d / "huge.json").string() + "\"");
  CHECK(h.status == 3);
  CHECK(h.out.empty());
}

TEST_CASE("gpurent meter on the plan's usage and tariff totals exactly billed_total") {
  const fs::path d = scratch();
  const std::string dir = std::string(GPURENT_SOURCE_DIR) + "/examples/plan/";
  // The built-in example, and the hybrid one: an owned pool (mode owned, its marginal cost
  // metered), quotas, spot price rules and storage.
  for (const std::string& files : {std::string(), " --workload \"" + dir + "hybrid-workload.json\" --offers \"" + dir + "hybrid-offers.json\""}) {
    CAPTURE(files);
    const run_result p =
        run("plan" + files + " --emit-usage \"" + (d / "usage.csv").string() + "\" --emit-tariff \"" + (d / "tariff.json").string() + "\"");
    REQUIRE(p.status == 0);
    const auto plan = nlohmann::json::parse(p.out);
    CHECK(slurp(d / "usage.csv").starts_with("id,account,resource,mode,quantity,start,end\n"));
    const auto tariff = nlohmann::json::parse(slurp(d / "tariff.json"));
    CHECK(tariff["currency"] == "USD");
    CHECK(tariff["rates"].size() >= 3);
    const run_result m = run("meter --tariff \"" + (d / "tariff.json").string() + "\" --usage \"" + (d / "usage.csv").string() + "\" --period " +
                             plan["period"].get<std::string>());
    REQUIRE_MESSAGE(m.status == 0, m.err);
    const auto invoice = nlohmann::json::parse(m.out);
    const gpurent::currency usd{"USD", 2};
    gpurent::money_value total(usd, 0);
    for (const auto& a : invoice["accounts"]) total += *gpurent::money_value::parse(usd, a["total"].get<std::string>());
    CHECK(total.to_string() == plan["billed_total"].get<std::string>());
    CHECK(invoice["records_out_of_period"] == 0);
  }
}

}  // namespace test_tool_plan
