// SPDX-License-Identifier: MIT
// Finite supply: the capacity ledger, and plans that never rent more of an offer (or of a
// quota) than there is, checked by replaying the plan's own usage records independently of
// the ledger.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/ledger.hpp>
#include <gpurent/planning/planner.hpp>

#include "support/plan.hpp"

namespace test_planning_supply {
using namespace gpurent;

namespace {
using gpurent::test::find_job;
instant at(const char* s) { return *parse_instant(s); }

// The most units of offer `o` the plan's records hold at once (a fraction offer's records
// hold quantity / step units).
std::int64_t peak_units(const plan_result& p, const offer& o) {
  std::map<instant, std::int64_t> delta;
  const std::int64_t step_nano = o.unit == offer_unit::fraction ? o.fraction_step.raw().convert_to<std::int64_t>() * 1'000'000 : 1'000'000'000;
  for (const usage_record& r : p.usage) {
    if (r.resource != o.id || r.mode != to_string(o.mode)) continue;
    const std::int64_t units = r.quantity.raw() / step_nano;
    delta[r.start] += units;
    delta[r.end] -= units;
  }
  std::int64_t level = 0, peak = 0;
  for (const auto& [t, d] : delta) peak = std::max(peak, level += d);
  return peak;
}

}  // namespace

TEST_CASE("usage_profile: peaks, additions and the instants where use changes") {
  usage_profile u;
  const instant t0 = at("2026-11-01T00:00:00Z");
  u.add(t0 + seconds(10), t0 + seconds(20), 3);
  u.add(t0 + seconds(15), t0 + seconds(30), 2);
  CHECK(u.peak(t0, t0 + seconds(10)) == 0);
  CHECK(u.peak(t0, t0 + seconds(11)) == 3);
  CHECK(u.peak(t0 + seconds(12), t0 + seconds(16)) == 5);
  CHECK(u.peak(t0 + seconds(20), t0 + seconds(40)) == 2);
  CHECK(u.peak(t0 + seconds(30), t0 + seconds(40)) == 0);
  std::vector<instant> changes;
  u.for_each_change_after(t0 + seconds(12), [&](instant t) { changes.push_back(t); });
  CHECK(changes == std::vector<instant>{t0 + seconds(15), t0 + seconds(20), t0 + seconds(30)});
  u.add(t0 + seconds(10), t0 + seconds(30), -3);  // back out the first, extended
  CHECK(u.peak(t0, t0 + seconds(40)) == 2);
}

TEST_CASE("capacity_ledger: a claim fits only when every resource it touches has room; the earliest fit waits for an end") {
  capacity_ledger l;
  const std::size_t a = l.add_resource(8), q = l.add_resource(10);
  const instant t0 = at("2026-11-01T00:00:00Z");
  const capacity_ledger::claim six[] = {{a, 6}, {q, 6}};
  CHECK(l.fits(six, t0, t0 + seconds(100)));
  l.reserve(six, t0, t0 + seconds(100));
  const capacity_ledger::claim three[] = {{a, 3}, {q, 3}};
  CHECK_FALSE(l.fits(three, t0 + seconds(50), t0 + seconds(150)));
  CHECK(l.earliest_fit(three, t0, t0 + seconds(1000), seconds(60)) == t0 + seconds(100));
  CHECK_FALSE(l.earliest_fit(three, t0, t0 + seconds(99), seconds(60)));
  const capacity_ledger::claim quota_only[] = {{q, 5}};
  CHECK_FALSE(l.fits(quota_only, t0, t0 + seconds(1)));  // 6 + 5 > 10
}

TEST_CASE("two concurrent 4-day trainings on an offer of 8 servers: one waits or goes elsewhere, never 16 of 8") {
  // No hardware failures here (failures_per_gpu_hour 0): 64 GPUs for 96 h would otherwise be a
  // long run (planning/failures.hpp) with no room in a 4-day deadline; failures.test.cpp.
  auto cat = read_offers_json(R"({"offers": [
    {"id": "big", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "multi_node": true, "max_units": 8, "price": "20.00", "failures_per_gpu_hour": "0"},
    {"id": "dear", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "multi_node": true, "max_units": 8, "price": "30.00", "failures_per_gpu_hour": "0"}]})");
  REQUIRE(cat);
  auto w = read_workload_json(R"({"jobs": [
    {"name": "a", "kind": "training", "gpu_hours": "6144", "memory_gib": 2000, "max_gpus": 64, "deadline": "4d"},
    {"name": "b", "kind": "training", "gpu_hours": "6144", "memory_gib": 2000, "max_gpus": 64, "deadline": "4d"}]})");
  REQUIRE(w);
  auto p = plan(*w, *cat);
  REQUIRE_MESSAGE(p, p.error().describe());
  // Each needs 64 GPUs for 96 h: 8 servers. Only one fits "big" at a time; the deadline
  // (4 days) leaves no room to wait, so b rents the dearer offer.
  CHECK(find_job(*p, "a").offer == "big");
  CHECK(find_job(*p, "b").offer == "dear");
  for (const offer& o : cat->offers()) CHECK(peak_units(*p, o) <= o.max_units);
  // With a longer deadline b waits for a instead: cheaper, and later.
  auto w2 = read_workload_json(R"({"jobs": [
    {"name": "a", "kind": "training", "gpu_hours": "6144", "memory_gib": 2000, "max_gpus": 64, "deadline": "4d"},
    {"name": "b", "kind": "training", "gpu_hours": "6144", "memory_gib": 2000, "max_gpus": 64, "deadline": "9d"}]})");
  auto p2 = plan(*w2, *cat);
  REQUIRE(p2);
  const job_plan& b = find_job(*p2, "b");
  CHECK(b.offer == "big");
  CHECK(b.start == find_job(*p2, "a").end);
  CHECK(b.delay == delay_cause::capacity);
  CHECK(to_string(b.why).find("starts 4d after its requested start: every cheaper option is full until then") != std::string::npos);
  CHECK(peak_units(*p2, (*cat)[0]) == 8);
}

TEST_CASE("two 60-GPU services on a 64-GPU offer: 120 GPUs are never rented from 64") {
  auto cat = read_offers_json(R"({"offers": [
    {"id": "cheap", "gpu": "A100-SXM4-80GB", "unit": "gpu", "max_units": 64, "price": "1.00"},
    {"id": "other", "gpu": "A100-SXM4-80GB", "unit": "gpu", "max_units": 100, "price": "1.50"}]})");
  REQUIRE(cat);
  auto w = read_workload_json(R"({"jobs": [
    {"name": "s1", "kind": "service", "reference_gpu": "A100-SXM4-80GB", "duration": "100h", "replicas": 60, "gpu_share": "1", "memory_gib": 40},
    {"name": "s2", "kind": "service", "reference_gpu": "A100-SXM4-80GB", "duration": "100h", "replicas": 60, "gpu_share": "1", "memory_gib": 40}]})");
  REQUIRE(w);
  auto p = plan(*w, *cat);
  REQUIRE(p);
  CHECK(find_job(*p, "s1").offer == "cheap");
  CHECK(find_job(*p, "s2").offer == "other");
  CHECK(find_job(*p, "s2").start == find_job(*p, "s1").start);  // a service does not wait without slack
  for (const offer& o : cat->offers()) CHECK(peak_units(*p, o) <= o.max_units);
  // With only the 64-GPU offer there is no room: the job is named, not silently overbooked.
  auto small = read_offers_json(R"({"offers": [{"id": "cheap", "gpu": "A100-SXM4-80GB", "unit": "gpu", "max_units": 64, "price": "1.00"}]})");
  auto none = plan(*w, *small);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == error_code::not_found);
  CHECK(none.error().field == "jobs[1]");
}

TEST_CASE("a provider quota bounds GPUs across the provider's offers") {
  auto cat = read_offers_json(R"({"offers": [
    {"id": "p/a", "provider": "p", "gpu": "L4", "unit": "gpu", "max_units": 64, "price": "0.50"},
    {"id": "p/b", "provider": "p", "gpu": "L4", "unit": "gpu", "max_units": 64, "price": "0.60"},
    {"id": "q/a", "provider": "q", "gpu": "L4", "unit": "gpu", "max_units": 64, "price": "0.90"}],
    "quotas": [{"provider": "p", "max_gpus": 40}]})");
  REQUIRE_MESSAGE(cat, cat.error().describe());
  auto w = read_workload_json(R"({"jobs": [
    {"name": "s1", "kind": "service", "reference_gpu": "L4", "duration": "10h", "replicas": 30, "gpu_share": "1", "memory_gib": 10},
    {"name": "s2", "kind": "service", "reference_gpu": "L4", "duration": "10h", "replicas": 30, "gpu_share": "1", "memory_gib": 10}]})");
  auto p = plan(*w, *cat);
  REQUIRE(p);
  CHECK(find_job(*p, "s1").offer == "p/a");
  CHECK(find_job(*p, "s2").offer == "q/a");  // p has 10 GPUs left of its 40, in any of its offers
}

TEST_CASE("property: random workloads never exceed any offer's capacity, start before asked or end after their deadline") {
  int planned = 0, delayed = 0;
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    std::mt19937 rng(seed);
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::string offers = R"({"offers": [)";
    for (int i = 0; i < 4; ++i)
      offers += std::string(i ? "," : "") + R"({"id": "o)" + std::to_string(i) + R"(", "gpu": "A100-SXM4-80GB", "gpu_count": 8, "unit": ")" +
                (i % 2 ? "server" : "gpu") + R"(", "multi_node": true, "max_units": )" + std::to_string(pick(2, 12)) + R"(, "price": ")" +
                std::to_string(pick(1, 9)) + R"(.00"})";
    auto cat = read_offers_json(offers + "]}");
    REQUIRE(cat);
    std::string jobs = R"({"jobs": [)";
    for (int i = 0; i < 12; ++i) {
      const std::string name =
          R"("name": "j)" + std::to_string(i) + R"(", "reference_gpu": "A100-SXM4-80GB", "start": ")" + std::to_string(pick(0, 200)) + R"(h")";
      jobs += std::string(i ? "," : "") +
              (i % 2 ? "{" + name + R"(, "kind": "training", "gpu_hours": ")" + std::to_string(pick(8, 400)) + R"(", "max_gpus": 16, "deadline": ")" +
                           std::to_string(pick(100, 400)) + R"(h"})"
                     : "{" + name + R"(, "kind": "service", "duration": ")" + std::to_string(pick(5, 100)) + R"(h", "replicas": )" +
                           std::to_string(pick(1, 6)) + R"(, "gpu_share": "1", "memory_gib": 20, "start_slack": ")" + std::to_string(pick(0, 50)) +
                           R"(h"})");
    }
    auto w = read_workload_json(jobs + "]}");
    REQUIRE_MESSAGE(w, w.error().describe());
    auto p = plan(*w, *cat);
    if (!p) {
      CHECK(p.error().code == error_code::not_found);  // no room is a clear answer, never an overbooking
      continue;
    }
    ++planned;
    for (const offer& o : cat->offers()) CHECK(peak_units(*p, o) <= o.max_units);
    for (std::size_t i = 0; i < p->jobs.size(); ++i) {
      const job& j = w->jobs[i];
      const job_plan& jp = p->jobs[i];
      CHECK(jp.start >= p->window.begin() + j.start);
      CHECK(jp.end <= p->window.end());
      if (j.deadline) CHECK(jp.end <= p->window.begin() + j.start + *j.deadline);
      if (j.kind == job_kind::service) CHECK(jp.start <= p->window.begin() + j.start + j.start_slack);
      if (jp.delay != delay_cause::none) ++delayed;
    }
  }
  // The inputs are tight enough that supply matters: most plan, and some jobs wait.
  CHECK(planned >= 20);
  CHECK(delayed > 0);
  MESSAGE(planned << " of 40 random workloads planned, " << delayed << " jobs delayed by supply or price");
}

}  // namespace test_planning_supply
