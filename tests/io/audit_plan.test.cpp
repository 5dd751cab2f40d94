// SPDX-License-Identifier: MIT
// The audit line of a planner decision counts the offers each rule rejected as the planner
// did, the job's hourly cap included (an offer ruled out by max_hourly_cost is not "allowed").
#include <doctest/doctest.h>

#include <string>

#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/planning.hpp>

namespace test_io_audit_plan {
using namespace gpurent;

TEST_CASE("audit: a plan line counts the offers the hourly cap ruled out") {
  // 80 GPU-hours: one 8-GPU server at 31.20/h, or one GPU at 4.00/h; an A100 the job may not use.
  auto cat = read_offers_json(R"({"offers": [
    {"id": "srv", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "price": "31.20", "increment": "1s"},
    {"id": "one", "gpu": "H100-SXM5-80GB", "unit": "gpu", "price": "4.00", "increment": "1s"},
    {"id": "a100", "gpu": "A100-SXM4-80GB", "unit": "gpu", "price": "1.00", "increment": "1s"}]})");
  REQUIRE_MESSAGE(cat, cat.error().describe());
  auto w = read_workload_json(R"({"jobs": [{"name": "t", "kind": "training", "gpu_hours": "80", "memory_gib": 60, "max_gpus": 8,
                                            "constraints": {"gpus": ["H100-SXM5-80GB"]}, "max_hourly_cost": {"on_demand": "30.00"}}]})");
  REQUIRE_MESSAGE(w, w.error().describe());
  auto p = plan(*w, *cat);
  REQUIRE_MESSAGE(p, p.error().describe());
  const auto line = io::audit_plan_job(w->jobs[0], p->jobs[0], *cat);
  CHECK(line["explain"]["offers"] == 3);
  CHECK(line["explain"]["allowed"] == 1);
  CHECK(line["explain"]["rejected"]["cap"] == 1);
  CHECK(line["explain"]["rejected"]["gpu"] == 1);
  CHECK(line["choice"]["offer"] == "one");
  CHECK(line["choice"]["expected_cost"] == "320.00");
}

}  // namespace test_io_audit_plan
