// SPDX-License-Identifier: MIT
// Owned capacity: a private pool is used first where its marginal cost is lower, the plan
// bursts to rented offers for the peak, and on a small case its total is the optimum found
// by brute force over every assignment of jobs to offers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/plan_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/planner.hpp>

namespace test_planning_owned {
using namespace gpurent;

namespace {
// A 16-GPU private pool at 0.35 per GPU-hour of power (fixed 400.00 per GPU and month),
// on-demand A100s at 2.10 and a cheaper provider with only 4 GPUs at 1.90.
const char* offers = R"({"currency": "USD", "offers": [
  {"id": "lab/a100", "gpu": "A100-SXM4-80GB", "unit": "gpu", "mode": "owned", "max_units": 16, "price": "0.35", "owned": {"fixed_cost": "400.00"}},
  {"id": "cloud/a100", "gpu": "A100-SXM4-80GB", "unit": "gpu", "max_units": 100, "price": "2.10"},
  {"id": "small/a100", "gpu": "A100-SXM4-80GB", "unit": "gpu", "max_units": 4, "price": "1.90"}]})";

struct svc {
  const char* name;
  int replicas;
  int start_h;
  int hours;
};

std::string workload(const std::vector<svc>& jobs) {
  std::string s = R"({"period": "2026-11", "jobs": [)";
  for (std::size_t i = 0; i < jobs.size(); ++i)
    s += std::string(i ? "," : "") + R"({"name": ")" + jobs[i].name +
         R"(", "kind": "service", "reference_gpu": "A100-SXM4-80GB", "gpu_share": "1", "memory_gib": 40, "replicas": )" +
         std::to_string(jobs[i].replicas) + R"(, "start": ")" + std::to_string(jobs[i].start_h) + R"(h", "duration": ")" +
         std::to_string(jobs[i].hours) + R"(h"})";
  return s + "]}";
}

// The cheapest assignment of each job to one offer that never exceeds a capacity, in cents,
// by trying every one (prices per GPU-hour in cents; every duration is whole hours).
std::int64_t brute_force(const std::vector<svc>& jobs) {
  const std::int64_t cents[] = {35, 210, 190};
  const int capacity[] = {16, 100, 4};
  std::int64_t best = -1;
  std::vector<int> pick(jobs.size(), 0);
  for (;;) {
    bool ok = true;
    for (int o = 0; o < 3 && ok; ++o)
      for (int h = 0; h < 720 && ok; ++h) {
        int used = 0;
        for (std::size_t i = 0; i < jobs.size(); ++i)
          if (pick[i] == o && h >= jobs[i].start_h && h < jobs[i].start_h + jobs[i].hours) used += jobs[i].replicas;
        ok = used <= capacity[o];
      }
    if (ok) {
      std::int64_t c = 0;
      for (std::size_t i = 0; i < jobs.size(); ++i) c += cents[pick[i]] * jobs[i].replicas * jobs[i].hours;
      if (best < 0 || c < best) best = c;
    }
    std::size_t k = 0;
    while (k < pick.size() && ++pick[k] == 3) pick[k++] = 0;
    if (k == pick.size()) return best;
  }
}
}  // namespace

TEST_CASE("a private pool is used first and the peak bursts to rented offers, at the brute-force optimum") {
  // Bursty: a short 10-GPU job first, then a long 16-GPU one overlapping it. Taking the pool
  // for the first job in workload order would push the long one onto rented GPUs; the exact
  // search gives the pool to the long one.
  const std::vector<svc> jobs = {{"burst", 10, 0, 2}, {"steady", 16, 1, 19}, {"peak-a", 3, 5, 4}, {"peak-b", 6, 6, 3}, {"late", 8, 30, 10}};
  auto cat = read_offers_json(offers);
  REQUIRE_MESSAGE(cat, cat.error().describe());
  auto w = read_workload_json(workload(jobs));
  REQUIRE_MESSAGE(w, w.error().describe());
  auto p = plan(*w, *cat);
  REQUIRE_MESSAGE(p, p.error().describe());
  CHECK(p->jobs[1].offer == "lab/a100");  // steady on the pool
  CHECK(p->jobs[0].offer != "lab/a100");  // burst rented
  CHECK(p->jobs[4].offer == "lab/a100");  // late: the pool is free again
  CHECK(p->supply.method == supply_method::exact);
  CHECK(p->supply.displaced > 0);
  const std::int64_t optimum = brute_force(jobs);
  CHECK(p->total_cost.minor_units() == optimum);
  // The pool's report: 16 GPUs at 400.00 fixed; its metered hours at 0.35.
  REQUIRE(p->owned.size() == 1);
  const owned_pool_report& r = p->owned.front();
  CHECK(r.units == 16);
  CHECK(r.fixed_cost.to_string() == "6400.00");
  const std::int64_t pool_gpu_hours = 16 * 19 + 8 * 10;
  CHECK(r.gpu_hours == ratio<>(pool_gpu_hours, 1));
  CHECK(r.marginal_cost.minor_units() == 35 * pool_gpu_hours);
  CHECK(r.utilization == ratio<>(pool_gpu_hours, 16 * 720));
  REQUIRE(r.cost_per_gpu_hour);
  CHECK(r.cost_per_gpu_hour->minor_units() == (640000 + 35 * pool_gpu_hours + pool_gpu_hours / 2) / pool_gpu_hours);
  // In the JSON, with the fixed cost beside the metered total.
  const auto j = plan_to_json(*p);
  CHECK(j["owned"][0]["offer"] == "lab/a100");
  CHECK(j["owned_fixed_cost"] == "6400.00");
  CHECK(j["total_with_owned_fixed_cost"] == (p->total_cost + p->owned_fixed_cost).to_string());
}

TEST_CASE("random bursty profiles: the plan's total equals the brute-force optimum") {
  std::uint64_t s = 99;
  const auto next = [&](int lo, int hi) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + static_cast<int>((s >> 33) % static_cast<std::uint64_t>(hi - lo + 1));
  };
  auto cat = read_offers_json(offers);
  REQUIRE(cat);
  for (int round = 0; round < 12; ++round) {
    CAPTURE(round);
    std::vector<svc> jobs;
    const char* names[] = {"a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < 6; ++i) jobs.push_back({names[i], next(1, 16), next(0, 20), next(1, 20)});
    auto w = read_workload_json(workload(jobs));
    REQUIRE(w);
    auto p = plan(*w, *cat);
    REQUIRE_MESSAGE(p, p.error().describe());
    CHECK(p->total_cost.minor_units() == brute_force(jobs));
  }
}

}  // namespace test_planning_owned
