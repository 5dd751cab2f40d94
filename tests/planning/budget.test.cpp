// SPDX-License-Identifier: MIT
// A workload's budget and a job's max_hourly_cost: a plan that fits says what is left; one
// that does not says by how much and what would fit (moves to spot first, then drops), each
// step re-planned; a cap rules offers out and says so.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/plan_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/planning.hpp>

#include "support/plan.hpp"
#include "support/tool.hpp"

namespace test_planning_budget {
using namespace gpurent;

namespace {
using gpurent::test::find_job;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// L4s on demand at 0.80/h, per second; with `spot`, also at 0.30/h on spot (never reclaimed).
std::string l4_offers(bool spot) {
  std::string s = R"({"offers": [{"id": "l4", "gpu": "L4", "unit": "gpu", "max_units": 64, "price": "0.80", "increment": "1s"})";
  if (spot)
    s += R"(, {"id": "l4", "gpu": "L4", "unit": "gpu", "mode": "spot", "max_units": 64, "price": "0.30", "increment": "1s",
               "spot": {"notice": "30s", "interruptions_per_hour": "0"}})";
  return s + "]}";
}

// A service of one L4 for 100 h (80.00), ten 1 h runs (8.00) and a 20 GPU-hour training
// without checkpoints (16.00): 104.00 in all, on demand.
std::string three_jobs(const std::string& budget) {
  return R"({)" + (budget.empty() ? std::string() : R"("budget": ")" + budget + R"(", )") + R"("jobs": [
    {"name": "svc", "kind": "service", "reference_gpu": "L4", "duration": "100h", "gpu_share": "1", "memory_gib": 16},
    {"name": "batch", "kind": "experiments", "reference_gpu": "L4", "runs": 10, "run_duration": "1h", "memory_gib": 16},
    {"name": "train", "kind": "training", "reference_gpu": "L4", "gpu_hours": "20", "memory_gib": 16, "max_gpus": 1}]})";
}

struct checked {
  plan_result plan;
  std::optional<budget_report> over;
};
checked check(const std::string& offers, const std::string& workload) {
  auto cat = read_offers_json(offers);
  REQUIRE_MESSAGE(cat, cat.error().describe());
  auto w = read_workload_json(workload);
  REQUIRE_MESSAGE(w, w.error().describe());
  auto p = plan(*w, *cat);
  REQUIRE_MESSAGE(p, p.error().describe());
  auto r = check_budget(*w, *cat, *p);
  REQUIRE_MESSAGE(r, r.error().describe());
  return {std::move(*p), std::move(*r)};
}

}  // namespace

TEST_CASE("a plan within its budget: no report, and the plan says what is left") {
  const checked c = check(l4_offers(false), three_jobs("104.00"));
  CHECK(c.plan.spend().to_string() == "104.00");
  CHECK_FALSE(c.over);
  CHECK(has(format_plan_table(c.plan), "budget: 104.00 USD, 0.00 left"));
  const auto j = plan_to_json(c.plan);
  CHECK(j["budget"]["spend"] == "104.00");
  CHECK(j["budget"]["left"] == "0.00");
  CHECK_FALSE(check(l4_offers(false), three_jobs("")).over);  // no budget, no check
}

TEST_CASE("over by a little: drop the job that covers the excess with the least to spare") {
  const checked c = check(l4_offers(false), three_jobs("100.00"));
  REQUIRE(c.over);
  const budget_report& r = *c.over;
  CHECK(r.cheapest.to_string() == "104.00");
  CHECK(format_exact(r.over) == "4");
  CHECK(budget_to_json(r)["over_by"] == "4.00");
  REQUIRE(r.steps.size() == 1);
  CHECK(r.steps[0].job == "batch");  // 8.00 covers 4.00; train (16.00) and svc (80.00) spare more
  CHECK(r.steps[0].action == budget_action::drop);
  CHECK(r.steps[0].saving.to_string() == "8.00");
  CHECK(r.spend_after.to_string() == "96.00");
  const std::string text = budget_text(r);
  CHECK(has(text, "budget 100.00 USD: the cheapest plan spends 104.00 USD, 4.00 USD over (the budget covers 96.2% of it)"));
  CHECK(has(text, "What would fit: drop (or postpone to the next period) batch, saving 8.00 USD; the plan then spends 96.00 USD"));
  const auto j = budget_to_json(r);
  CHECK(j["what_would_fit"][0]["job"] == "batch");
  CHECK(j["what_would_fit"][0]["action"] == "drop");
  CHECK(j["spend_after"] == "96.00");
}

TEST_CASE("over by far: the dearest goes first, then what covers the rest; below every job, every job goes") {
  const checked c = check(l4_offers(false), three_jobs("10.00"));
  REQUIRE(c.over);
  REQUIRE(c.over->steps.size() == 2);
  CHECK(c.over->steps[0].job == "svc");  // nothing covers 94.00: the dearest
  CHECK(c.over->steps[0].saving.to_string() == "80.00");
  CHECK(c.over->steps[1].job == "train");  // 16.00 covers the remaining 14.00
  CHECK(c.over->spend_after.to_string() == "8.00");
  CHECK(has(budget_text(*c.over), "(the budget covers 9.6% of it)"));
  const checked none = check(l4_offers(false), three_jobs("5.00"));
  REQUIRE(none.over);
  CHECK(none.over->steps.size() == 3);
  CHECK(none.over->spend_after.to_string() == "0.00");
  CHECK(has(budget_text(*none.over), "every job would have to go"));
}

TEST_CASE("a move to spot comes before any drop: the work is kept") {
  const checked c = check(l4_offers(true), three_jobs("100.00"));
  REQUIRE(c.over);
  REQUIRE(c.over->steps.size() == 1);
  CHECK(c.over->steps[0].job == "svc");  // 80.00 on demand, 30.00 on spot: the largest saving
  CHECK(c.over->steps[0].action == budget_action::spot);
  CHECK(c.over->steps[0].saving.to_string() == "50.00");
  CHECK(c.over->spend_after.to_string() == "54.00");
  CHECK(has(budget_text(*c.over), "move svc to spot, saving 50.00 USD"));
}

TEST_CASE("a budget is a decimal, not negative") {
  const auto field_of = [](const auto& r) { return r ? std::string("(ok)") : r.error().field; };
  CHECK(field_of(read_workload_json(R"({"budget": "-1", "jobs": []})")) == "budget");
  CHECK(field_of(read_workload_json(R"({"budget": 100, "jobs": []})")) == "budget");
  CHECK(field_of(read_workload_json(R"({"budget": "0", "jobs": []})")) == "(ok)");
}

TEST_CASE("max_hourly_cost on demand: the cheaper but dearer-per-hour server is ruled out, and the reason says so") {
  // 80 GPU-hours: one 8-GPU server at 31.20/h (10 h, 312.00) or one GPU at 4.00/h (80 h, 320.00).
  const std::string offers = R"({"offers": [
    {"id": "srv", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "price": "31.20", "increment": "1s"},
    {"id": "one", "gpu": "H100-SXM5-80GB", "unit": "gpu", "price": "4.00", "increment": "1s"}]})";
  const auto job = [](const std::string& caps) {
    return R"({"jobs": [{"name": "t", "kind": "training", "gpu_hours": "80", "memory_gib": 60, "max_gpus": 8)" + caps + "}]}";
  };
  CHECK(find_job(check(offers, job("")).plan, "t").offer == "srv");
  const plan_result p = check(offers, job(R"(, "max_hourly_cost": {"on_demand": "30.00"})")).plan;
  const job_plan& t = find_job(p, "t");
  CHECK(t.offer == "one");
  CHECK(t.expected_cost.to_string() == "320.00");
  CHECK(t.rejected[static_cast<std::size_t>(offer_rejection::cap)] == 1);
  REQUIRE(t.why.ruled_out.size() == 1);
  CHECK(t.why.ruled_out[0].cause == ruled_out_cause::cap);
  CHECK(t.why.ruled_out[0].hourly->to_string() == "31.20");
  CHECK(has(to_string(t.why), "cheaper but ruled out: srv (on_demand, 1 unit(s)) at 312.00 USD: 31.20/h over the 30.00 max_hourly_cost"));
  const auto j = plan_to_json(p)["jobs"][0];
  CHECK(j["rejected_offers"]["cap"] == 1);
  CHECK(j["ruled_out"][0]["hourly_cost"] == "31.20");
  CHECK(j["ruled_out"][0]["cap"] == "30.00");
  // The spot cap does not bound on-demand offers: the server again.
  CHECK(find_job(check(offers, job(R"(, "max_hourly_cost": {"spot": "1.00"})")).plan, "t").offer == "srv");
  // Nothing within the cap: exit 3's error names the cheapest and the cap.
  auto cat = read_offers_json(offers);
  auto w = read_workload_json(job(R"(, "max_hourly_cost": {"on_demand": "3.00"})"));
  REQUIRE(cat);
  REQUIRE(w);
  auto none = plan(*w, *cat);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == error_code::not_found);
  CHECK(has(none.error().message, "within its max_hourly_cost: the cheapest, 1 unit(s) of srv (on_demand), costs 31.20/h over the 3.00 cap"));
}

TEST_CASE("max_hourly_cost on spot: the job waits for the window under the cap, or the cap rules spot out") {
  const std::string offers = R"({"offers": [
    {"id": "od", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "price": "20.00", "increment": "1s"},
    {"id": "sp", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "mode": "spot", "price": "12.40", "increment": "1s",
     "spot": {"notice": "2min", "interruptions_per_hour": "0"}, "price_changes": [{"from": "2026-11-03T00:00:00Z", "price": "11.00"}]}]})";
  const auto job = [](const char* cap) {
    return std::string(R"({"jobs": [{"name": "t", "kind": "training", "gpu_hours": "80", "memory_gib": 640, "max_gpus": 8, "checkpoint": "1min",
      "max_hourly_cost": {"spot": ")") +
           cap + R"("}}]})";
  };
  const job_plan w = find_job(check(offers, job("12.00")).plan, "t");
  CHECK(w.offer == "sp");
  CHECK(format_instant(w.start) == "2026-11-03T00:00:00Z");  // 12.40/h is over 12.00 until then
  CHECK(w.delay == delay_cause::price);
  CHECK(w.expected_cost.to_string() == "110.00");
  CHECK(w.price.unit_price == nano_price(11'000'000'000));
  const job_plan od = find_job(check(offers, job("10.00")).plan, "t");
  CHECK(od.offer == "od");
  REQUIRE_FALSE(od.why.ruled_out.empty());
  CHECK(od.why.ruled_out[0].offer == "sp");
  CHECK(od.why.ruled_out[0].cause == ruled_out_cause::cap);
  CHECK(od.why.ruled_out[0].hourly->to_string() == "11.00");  // its lowest price in the period
}

TEST_CASE("max_hourly_cost is an object of decimals") {
  const auto field_of = [](const auto& r) { return r ? std::string("(ok)") : r.error().field; };
  const auto w = [](const std::string& caps) {
    return read_workload_json(R"({"jobs": [{"name": "t", "kind": "training", "gpu_hours": "1", "max_hourly_cost": )" + caps + "}]}");
  };
  CHECK(field_of(w(R"({"on_demand": "30.00", "spot": "12.00"})")) == "(ok)");
  CHECK(field_of(w("{}")) == "jobs[0].max_hourly_cost");
  CHECK(field_of(w(R"({"reserved": "1"})")) == "jobs[0].max_hourly_cost.reserved");
  CHECK(field_of(w(R"({"on_demand": 30})")) == "jobs[0].max_hourly_cost.on_demand");
  CHECK(field_of(w(R"({"spot": "0"})")) == "jobs[0].max_hourly_cost.spot");
}

TEST_CASE("gpurent plan over its budget: exit 3, the message on stderr, the report as JSON on stdout") {
  const auto d = gpurent::test::scratch_dir("budget");
  gpurent::test::write_file(d / "w.json", three_jobs("100.00"));
  gpurent::test::write_file(d / "o.json", l4_offers(false));
  const std::string files = " --workload \"" + (d / "w.json").string() + "\" --offers \"" + (d / "o.json").string() + "\"";
  const auto t = gpurent::test::run_tool("plan --format table" + files);
  CHECK(t.status == 3);
  CHECK(t.out.empty());
  CHECK(has(t.err, "gpurent: budget 100.00 USD: the cheapest plan spends 104.00 USD, 4.00 USD over"));
  const auto j = gpurent::test::run_tool("plan" + files);
  CHECK(j.status == 3);
  const auto report = nlohmann::json::parse(j.out);
  CHECK(report["cheapest_spend"] == "104.00");
  CHECK(report["what_would_fit"][0]["job"] == "batch");
}

}  // namespace test_planning_budget
