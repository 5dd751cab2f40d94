// SPDX-License-Identifier: MIT
// `gpurent advise` as a program: each advisor's JSON on a small case worked by hand, table
// output, and bad input (exit 2, file:line and field on stderr, nothing on stdout).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/tool.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_tool_advise {

namespace {
namespace fs = std::filesystem;
using gpurent::test::tool_result;

fs::path dir() { return gpurent::test::scratch_dir("advise"); }

// Writes `text` into the scratch folder and returns its quoted path.
std::string file(const std::string& name, const std::string& text) {
  gpurent::test::write_file(dir() / name, text);
  return "'" + (dir() / name).string() + "'";
}

tool_result run(const std::string& args) { return gpurent::test::run_tool("advise " + args); }

nlohmann::json run_json(const std::string& args) {
  const tool_result r = run(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

// Exit 2, nothing on stdout, and stderr holding each of `parts`.
void check_bad(const std::string& args, std::initializer_list<std::string> parts) {
  const tool_result r = run(args);
  INFO(args);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  for (const std::string& p : parts) CHECK_MESSAGE(r.err.find(p) != std::string::npos, p);
}

// Loads 2 2 3 5 5 1 0 4 over 8 hours (22 GPU-hours), as in advisors.test.cpp.
const std::string load_csv = "hour,gpus\n0,2\n1,2\n2,3\n3,5\n4,5\n5,1\n6,0\n7,4\n";
const std::string offers_json = R"({"currency": "USD", "offers": [
  {"id": "a100", "gpu": "A100-SXM4-80GB", "unit": "gpu", "mode": "on_demand", "price": "2.00", "per": "1h"},
  {"id": "a100", "gpu": "A100-SXM4-80GB", "unit": "gpu", "mode": "reserved", "price": "1.30", "per": "1h", "minimum": "720h"},
  {"id": "h100", "gpu": "H100-SXM5-80GB", "unit": "gpu", "mode": "on_demand", "price": "3.00", "per": "1h"}]})";
const std::string own_flags = "--purchase 30000 --life 30000h --hosting 0.20 --staff 0.30 --power-kw 0.7 --energy-price 0.15 --rent 2.49";
}  // namespace

TEST_CASE("gpurent advise commitment: the best level of a small profile") {
  const auto j = run_json("commitment --load " + file("load.csv", load_csv) + " --offers " + file("offers.json", offers_json) + " --offer a100");
  // Level c costs 8 x 1.30 c + 2.00 x (unit-hours above c): 0: 44.00; 1: 10.40 + 30.00 =
  // 40.40; 2: 20.80 + 18.00 = 38.80; 3: 31.20 + 10.00 = 41.20. Level 2 serves 13 of 16
  // unit-hours. The term is the reservation's minimum, 720 h = 90 windows: 3492.00 vs 3960.00.
  CHECK(j["level"] == 2);
  CHECK(j["cost"] == "38.80");
  CHECK(j["on_demand_cost"] == "44.00");
  CHECK(j["savings"] == "5.20");
  CHECK(j["utilization"] == 0.8125);
  CHECK(j["hours"] == 8);
  CHECK(j["peak"] == 5);
  CHECK(j["committed_per_hour"] == "1.300000");
  CHECK(j["term"]["hours"] == 720);
  CHECK(j["term"]["cost"] == "3492.00");
  CHECK(j["term"]["savings"] == "468.00");
  REQUIRE(j["curve"].size() == 6);
  CHECK(j["curve"][1]["cost"] == "40.40");
  CHECK(j["curve"][3]["cost"] == "41.20");
  const auto t =
      run_json("commitment --load " + file("load.csv", load_csv) + " --offers " + file("offers.json", offers_json) + " --offer a100 --term 8h");
  CHECK(t["term"]["cost"] == "38.80");  // a term as long as the window
  const tool_result table =
      run("commitment --load " + file("load.csv", load_csv) + " --offers " + file("offers.json", offers_json) + " --offer a100 --format table");
  CHECK(table.status == 0);
  CHECK(table.out.find("commit 2 units: 38.80 USD") != std::string::npos);
}

TEST_CASE("gpurent advise commitment: bad input") {
  const std::string offers = " --offers " + file("offers.json", offers_json);
  check_bad("commitment --load " + file("l1.csv", "hour,gpus\n0,2\n1,x\n") + offers + " --offer a100", {"l1.csv:3", "'gpus'"});
  check_bad("commitment --load " + file("l2.csv", "hour,gpus\n0,2\n2,3\n") + offers + " --offer a100", {"l2.csv:3", "'hour'"});
  check_bad("commitment --load " + file("l3.csv", "hour,gpus\n0,-1\n") + offers + " --offer a100", {"l3.csv:2", "'gpus'", "negative"});
  check_bad("commitment --load " + file("l4.csv", "hour,gpus\n0\n") + offers + " --offer a100", {"l4.csv:2", "'gpus'"});
  const std::string load = "commitment --load " + file("load.csv", load_csv);
  check_bad(load + offers + " --offer h100", {"offers.json", "'--offer'", "reserved"});
  check_bad(load + offers + " --offer nope", {"'--offer'", "nope"});
  check_bad(load + " --offers " + file("o2.json", R"({"offers": [{"id": "a", "gpu": "H100", "price": "2,49"}]})") + " --offer a",
            {"o2.json", "offers[0].price"});
  check_bad(load + offers + " --offer a100 --term 0", {"'--term'"});
  check_bad(load + offers, {"--offer"});
}

TEST_CASE("gpurent advise build-vs-rent: scalar form") {
  // F = 1.50/h, V = 0.105: at 50% a delivered hour costs 3.00 + 0.105 = 3.105 > 2.49;
  // u* = 1.50 / 2.385 = 0.62893.
  const auto j = run_json("build-vs-rent " + own_flags + " --utilization 0.5");
  CHECK(j["form"] == "scalar");
  CHECK(j["fixed_per_hour"] == "1.500000");
  CHECK(j["variable_per_hour"] == "0.105000");
  CHECK(j["owned_per_delivered_hour"] == "3.105000");
  CHECK(j["break_even_utilization"] == 0.6289);
  CHECK(j["own_is_cheaper"] == false);
  CHECK(run_json("build-vs-rent " + own_flags + " --utilization 0.9")["own_is_cheaper"] == true);
  CHECK(run_json("build-vs-rent --purchase 30000 --life 30000h --rent 1.00 --hosting 0.5 --utilization 1")["break_even_utilization"].is_null());
  // --life as a duration: 1250d = 30000 h.
  CHECK(run_json("build-vs-rent " + own_flags.substr(0, own_flags.find("--life")) + "--life 1250d" + own_flags.substr(own_flags.find(" --hosting")) +
                 " --utilization 0.5")["fixed_per_hour"] == "1.500000");
}

TEST_CASE("gpurent advise build-vs-rent: profile form, own the base and rent the peak") {
  const auto j = run_json("build-vs-rent " + own_flags + " --load " + file("load.csv", load_csv));
  // n GPUs owned cost 12 n + 0.105 served(n) + 2.49 above(n) (see advise_levels.test.cpp):
  // 54.78, 50.085, 47.775, 50.235, ..., 62.31. Best: 2, at 47.775 -> 47.78 (half to even).
  CHECK(j["form"] == "profile");
  CHECK(j["owned"] == 2);
  CHECK(j["cost"] == "47.78");
  CHECK(j["utilization"] == 0.8125);
  CHECK(j["all_rented_cost"] == "54.78");
  CHECK(j["all_owned_cost"] == "62.31");
  CHECK(j["savings_vs_rented"] == "7.00");
  CHECK(j["savings_vs_owned"] == "14.53");
  CHECK(j["hours"] == 8);
  CHECK(j["gpu_hours"] == 22);
  CHECK(j["peak"] == 5);
  REQUIRE(j["curve"].size() == 6);
  CHECK(j["curve"][0]["utilization"].is_null());
  CHECK(j["curve"][1]["cost"] == "50.08");  // 50.085 -> 50.08
  const tool_result t = run("build-vs-rent " + own_flags + " --load " + file("load.csv", load_csv) + " --format table");
  CHECK(t.status == 0);
  CHECK(t.out.find("own 2 GPUs") != std::string::npos);
}

TEST_CASE("gpurent advise build-vs-rent: bad input") {
  check_bad("build-vs-rent --purchase 30,000 --life 30000h --rent 2 --utilization 0.5", {"'--purchase'"});
  check_bad("build-vs-rent --purchase 30000 --life 3y --rent 2 --utilization 0.5", {"'--life'"});
  check_bad("build-vs-rent --purchase 30000 --life 0 --rent 2 --utilization 0.5", {"'--life'"});
  check_bad("build-vs-rent --purchase 30000 --life 30000h --rent 2 --utilization 1.5", {"'--utilization'"});
  check_bad("build-vs-rent --purchase 30000 --life 30000h --rent 2", {"--utilization", "--load"});
  check_bad("build-vs-rent --purchase 30000 --life 30000h --rent -2 --utilization 0.5", {"'--rent'"});
  check_bad("build-vs-rent --purchase 30000 --life 30000h --rent 2 --currency XYZ --utilization 0.5", {"'--currency'"});
  check_bad("build-vs-rent --purchase 30000 --life 30000h --rent 2 --load " + file("b.csv", "hour,gpus\n0,1\n1,1.5\n"), {"b.csv:3", "'gpus'"});
}

TEST_CASE("gpurent advise checkpoint: a 70B model's checkpoint from size and bandwidth") {
  // 70e9 parameters x 16 bytes = 1.12e12 bytes; at 2000 MB/s: 560 s to write; read back at
  // 4000 MB/s: 280 s, added to the 600 s restart. M = 1/0.05 h = 72000 s; Young =
  // sqrt(2 x 560 x 72000) = 8979.978 s; Daly = 8610.525 s (advise_levels.test.cpp).
  const auto j = run_json(
      "checkpoint --solve 48h --params 70000000000 --bytes-per-param 16 --write-mb-per-s 2000 --read-mb-per-s 4000 "
      "--restart 10min --notice 2min --interruptions-per-hour 0.05");
  CHECK(j["checkpoint_bytes"] == 1120000000000);
  CHECK(j["write_s"] == 560);
  CHECK(j["restore_s"] == 280);
  CHECK(j["restart_s"] == 880);
  CHECK(j["mtbf_s"] == 72000.0);
  CHECK(j["young_interval_s"] == 8979.978);
  CHECK(j["daly_interval_s"] == 8610.525);
  CHECK(j["notice_fits_checkpoint"] == false);
  CHECK(j["feasible"] == true);
  CHECK(j["wall_s"].get<std::int64_t>() > 172800);
  // The same size as GB: 1120 GB.
  const auto g = run_json("checkpoint --solve 48h --size-gb 1120 --write-mb-per-s 2000 --interruptions-per-hour 0.05");
  CHECK(g["write_s"] == 560);
  CHECK(g["daly_interval_s"] == 8610.525);
  // A typed-in write time that the notice holds: write on notice, T = Ts / (1 - lambda (delta + R)):
  // 36000 / (1 - 0.1 x 600 / 3600) = 36000 x 60/59 = 36610.169 s.
  const auto n = run_json("checkpoint --solve 10h --checkpoint-write 1min --restart 9min --notice 2min --interruptions-per-hour 0.1");
  CHECK(n["notice_fits_checkpoint"] == true);
  CHECK(n["expected_wall_s"] == 36610.169);
  CHECK(n["wall_s"] == 36611);
  CHECK(n["interruptions"] == 1);
  const tool_result t = run("checkpoint --solve 10h --write 1min --interruptions-per-hour 0.1 --format table");
  CHECK(t.status == 0);
  CHECK(t.out.find("expected wall time") != std::string::npos);
}

TEST_CASE("gpurent advise checkpoint: bad input") {
  check_bad("checkpoint --solve 48h --interruptions-per-hour 0.1", {"'--checkpoint-write'"});
  check_bad("checkpoint --solve 48h --size-gb 100 --interruptions-per-hour 0.1", {"'--write-mb-per-s'"});
  check_bad("checkpoint --solve 2days --write 5min --interruptions-per-hour 0.1", {"'--solve'"});
  check_bad("checkpoint --solve 48h --write 5min --interruptions-per-hour abc", {"'--interruptions-per-hour'"});
  check_bad("checkpoint --solve 48h --write 5min --interruptions-per-hour -1", {"--interruptions-per-hour"});
  check_bad("checkpoint --solve 48h --write 5min --size-gb 3 --write-mb-per-s 10 --interruptions-per-hour 1", {"--checkpoint-write"});
  check_bad("checkpoint --solve 48h --size-gib 1.5x --write-mb-per-s 10 --interruptions-per-hour 1", {"'--size-gib'"});
  // A bandwidth of 0: what it must be, not CLI11's range up to a 309-digit number.
  check_bad("checkpoint --solve 48h --size-gb 1000 --write-mb-per-s 0 --interruptions-per-hour 0.05",
            {"--write-mb-per-s: must be a number above 0, got \"0\""});
  check_bad("checkpoint --solve 48h --params 1000000000 --bytes-per-param nan --write-mb-per-s 10 --interruptions-per-hour 1",
            {"--bytes-per-param: must be a number above 0, got \"nan\""});
}

TEST_CASE("gpurent advise scaling: release idle and checkpointed nodes, wait for the others") {
  const std::string nodes = file("nodes.csv",
                                 "node,utilization,busy,last_checkpoint,last_progress\n"
                                 "a,0.10,true,2026-11-03T10:00:00Z,2026-11-03T09:50:00Z\n"  // checkpointed since its last work
                                 "b,0.05,true,2026-11-03T09:00:00Z,2026-11-03T09:40:00Z\n"  // worked after its checkpoint
                                 "c,0,false,,\n"                                            // idle
                                 "d,0.6,true,2026-11-03T10:00:00Z,2026-11-03T10:00:00Z\n");
  // Mean (0.10 + 0.05 + 0 + 0.6) / 4 = 0.1875 < 0.30, nothing queued: scale in, least used
  // first (c, b, a), b must wait; d is above the threshold. Never below --min-nodes 1.
  const auto j = run_json("scaling --nodes " + nodes + " --queued 0 --min-nodes 1");
  CHECK(j["action"] == "scale_in");
  CHECK(j["release"] == nlohmann::json::array({"c", "a"}));
  CHECK(j["waiting"] == nlohmann::json::array({"b"}));
  CHECK(j["mean_utilization"] == 0.1875);
  // 20 queued, 4 per node: 5 nodes wanted, 4 there: add 1.
  const auto out = run_json("scaling --nodes " + nodes + " --queued 20");
  CHECK(out["action"] == "scale_out");
  CHECK(out["add"] == 1);
  CHECK(run_json("scaling --nodes " + nodes + " --queued 20 --max-nodes 4")["action"] == "hold");
  const tool_result t = run("scaling --nodes " + nodes + " --queued 0 --format table");
  CHECK(t.status == 0);
  CHECK(t.out.find("release now: c, a") != std::string::npos);
}

TEST_CASE("gpurent advise scaling: bad input") {
  check_bad("scaling --nodes " + file("n1.csv", "node,utilization,busy\na,0.5,maybe\n") + " --queued 1", {"n1.csv:2", "'busy'"});
  check_bad("scaling --nodes " + file("n2.csv", "node,utilization,busy\na,0.5,true\n") + " --queued 1", {"n2.csv:2", "'last_checkpoint'"});
  check_bad("scaling --nodes " + file("n3.csv", "node,utilization,busy\na,0.5,false\na,0.1,false\n") + " --queued 1", {"n3.csv:3", "'node'"});
  check_bad("scaling --nodes " + file("n4.csv", "node,utilization,busy\n") + " --queued -1", {"--queued"});
  check_bad("scaling --nodes " + file("n4.csv", "node,utilization,busy\n") + " --queued 1 --utilization-in 0.9", {"'--utilization-in'"});
  check_bad("scaling --nodes " + file("n4.csv", "node,utilization,busy\n") + " --queued 1 --min-nodes 5 --max-nodes 2", {"'--max-nodes'"});
  check_bad("scaling --nodes " + (dir() / "missing.csv").string() + " --queued 1", {"missing.csv"});
}

TEST_CASE("gpurent advise: --help on each command") {
  for (const char* c : {"", "commitment ", "build-vs-rent ", "checkpoint ", "scaling "}) {
    const tool_result r = run(std::string(c) + "--help");
    CHECK(r.status == 0);
    CHECK(r.out.find("Usage") != std::string::npos);
  }
}

}  // namespace test_tool_advise
