// SPDX-License-Identifier: MIT
// Spot price rules: a job's maximum spot price (per GPU-hour) keeps it off spot while the
// price is over it, a job with slack starts in the cheapest price window, short experiments
// go to spot only when allowed, and the meter bills exactly what the plan says.
#include <doctest/doctest.h>

#include <string>

#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/format.hpp>
#include <gpurent/planning/planner.hpp>

namespace test_planning_spot_rules {
using namespace gpurent;

namespace {
instant at(const char* s) { return *parse_instant(s); }

// An 8 x H100 spot server at 14.00/h (1.75 per GPU-hour) that falls to 9.00 (1.125) on Nov 5
// and rises to 16.00 (2.00) on Nov 8; the same on demand at 25.00.
const char* offers = R"({"offers": [
  {"id": "s/8xh100", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "mode": "spot", "max_units": 4, "price": "14.00",
   "spot": {"notice": "2min", "interruptions_per_hour": "0"},
   "price_changes": [{"from": "2026-11-05T00:00:00Z", "price": "9.00"}, {"from": "2026-11-08T00:00:00Z", "price": "16.00"}]},
  {"id": "s/8xh100", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "max_units": 4, "price": "25.00"}]})";

plan_result plan_of(const std::string& job_fields) {
  auto cat = read_offers_json(offers);
  REQUIRE_MESSAGE(cat, cat.error().describe());
  auto w = read_workload_json(R"({"jobs": [{"name": "t", "kind": "training", "gpu_hours": "240", "memory_gib": 500, "max_gpus": 8,
                                            "checkpoint": "5min", "start": "1d", )" +
                              job_fields + "}]}");
  REQUIRE_MESSAGE(w, w.error().describe());
  auto p = plan(*w, *cat);
  REQUIRE_MESSAGE(p, p.error().describe());
  return std::move(*p);
}
}  // namespace

TEST_CASE("without rules the job starts when asked, on spot at 14.00") {
  const plan_result p = plan_of(R"("deadline": "8d")");
  const job_plan& j = p.jobs[0];
  CHECK(j.mode == offer_mode::spot);
  CHECK(j.start == at("2026-11-02T00:00:00Z"));
  CHECK(j.wall == seconds(30 * 3600));             // 240 GPU-hours on 8 GPUs, no interruptions
  CHECK(j.expected_cost.to_string() == "420.00");  // 30 h x 14.00
  CHECK(p.billed_total == p.total_cost);
}

TEST_CASE("a maximum spot price: spot only while the price is under it, so the job waits for the cheap window") {
  const plan_result p = plan_of(R"("deadline": "8d", "max_spot_price": "1.50")");
  const job_plan& j = p.jobs[0];
  // 1.75 per GPU-hour now is over 1.50; from Nov 5 it is 1.125 until Nov 8, and the 30 h
  // fit before then: 30 x 9.00 = 270.00, against 30 x 25.00 on demand now.
  CHECK(j.mode == offer_mode::spot);
  CHECK(j.start == at("2026-11-05T00:00:00Z"));
  CHECK(j.end == at("2026-11-06T06:00:00Z"));
  CHECK(j.expected_cost.to_string() == "270.00");
  CHECK(j.delay == delay_cause::price);
  const std::string why = to_string(j.why);
  CHECK(why.find("on spot only while its price stays at or under 1.5 per GPU-hour") != std::string::npos);
  CHECK(why.find("starts 3d after its requested start: the price is lower then") != std::string::npos);
  // The meter bills exactly the plan.
  CHECK(p.billed_total == p.total_cost);
  REQUIRE(p.usage.size() == 1);
  CHECK(p.usage[0].start == j.start);
}

TEST_CASE("a maximum spot price the deadline cannot wait for: on demand now") {
  const plan_result p = plan_of(R"("deadline": "2d", "max_spot_price": "1.50")");
  CHECK(p.jobs[0].mode == offer_mode::on_demand);
  CHECK(p.jobs[0].start == at("2026-11-02T00:00:00Z"));
  CHECK(p.jobs[0].expected_cost.to_string() == "750.00");
}

TEST_CASE("a maximum no window ever meets: never on spot, even with time to wait") {
  const plan_result p = plan_of(R"("deadline": "20d", "max_spot_price": "1.00")");
  CHECK(p.jobs[0].mode == offer_mode::on_demand);
}

TEST_CASE("slack before the start lets a job start in the cheapest window") {
  // Without a maximum, 2 days of slack reach the Nov 5 price? No: Nov 2 + 2d = Nov 4, so the
  // job starts on time; with 3 days of slack it waits for 9.00.
  CHECK(plan_of(R"("deadline": "8d", "start_slack": "2d")").jobs[0].start == at("2026-11-02T00:00:00Z"));
  const plan_result p = plan_of(R"("deadline": "8d", "start_slack": "3d")");
  CHECK(p.jobs[0].start == at("2026-11-05T00:00:00Z"));
  CHECK(p.jobs[0].expected_cost.to_string() == "270.00");
  CHECK(p.jobs[0].delay == delay_cause::price);
}

TEST_CASE("short experiments go to spot only when allowed, each interrupted run starting over") {
  auto cat = read_offers_json(R"({"offers": [
    {"id": "g", "gpu": "L4", "unit": "gpu", "max_units": 64, "price": "0.80"},
    {"id": "g", "gpu": "L4", "unit": "gpu", "mode": "spot", "max_units": 64, "price": "0.20", "spot": {"notice": "30s", "interruptions_per_hour": "0.5"}}]})");
  REQUIRE(cat);
  const auto run = [&](const char* constraints) {
    auto w = read_workload_json(std::string(R"({"jobs": [{"name": "x", "kind": "experiments", "reference_gpu": "L4", "runs": 8, "run_duration": "1h",
                                                          "memory_gib": 8, "restart": "5min", "deadline": "6h")") +
                                constraints + "}]}");
    REQUIRE_MESSAGE(w, w.error().describe());
    auto p = plan(*w, *cat);
    REQUIRE_MESSAGE(p, p.error().describe());
    return std::move(*p);
  };
  CHECK(run("").jobs[0].mode == offer_mode::on_demand);
  const plan_result p = run(R"(, "constraints": {"spot": true})");
  CHECK(p.jobs[0].mode == offer_mode::spot);
  // lambda = 0.5/h: a 1 h run takes (e^0.5 - 1)(2 h + 5 min) = 4865.4 s expected, written in whole seconds as 4866.
  const std::string why = to_string(p.jobs[0].why);
  INFO(why);
  CHECK(why.find("on spot an interrupted run starts over: 1h21min6s expected per 1h run") != std::string::npos);
  CHECK(p.billed_total == p.total_cost);
}

}  // namespace test_planning_spot_rules
