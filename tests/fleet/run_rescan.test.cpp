// SPDX-License-Identifier: MIT
// The loop's shortcuts (the retry log, freed-node scans, the matcher's candidate index) change
// no decision: on random workloads the naive loop (fleet/reference/rescan.hpp: every queued
// job at every instant, full-scan matcher) gives the same run, segment for segment, under
// every victim policy, with a minimum runtime and with nodes failing, draining and coming back.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/fleet/reference/rescan.hpp>
#include <gpurent/matching/policy_gpurent.hpp>

namespace test_fleet_run_rescan {

using namespace gpurent;

fleet_cluster cluster_of(std::mt19937_64& rng, int nodes) {
  std::vector<fleet_node> ns;
  for (int i = 0; i < nodes; ++i) {
    const std::int32_t gpus = std::uniform_int_distribution<std::int32_t>(1, 8)(rng);
    fleet_node n;
    n.name = "n" + std::to_string(i);
    n.cpu_milli = 32000 + 8000 * gpus;
    n.memory_mib = 65536 * gpus;
    n.gpus = gpus;
    n.model = i % 3 == 0 ? "V100" : "A100";
    ns.push_back(n);
  }
  auto c = fleet_cluster::make(ns);
  REQUIRE(c.has_value());
  return std::move(*c);
}

// Pods: shares of one GPU, 1-4 whole GPUs or CPU only; hp (priority 50 or 100) and spot.
std::vector<fleet_job> jobs_of(std::mt19937_64& rng, int count) {
  std::vector<fleet_job> jobs;
  std::int64_t t = 0;
  for (int i = 0; i < count; ++i) {
    fleet_job j;
    j.name = "j" + std::to_string(i);
    placement_request& r = j.gang.member;
    const int shape = std::uniform_int_distribution<int>(0, 9)(rng);
    r.num_gpu = shape == 0 ? 0 : shape < 5 ? 1 : std::uniform_int_distribution<std::int32_t>(1, 4)(rng);
    r.gpu_milli = milli_gpu{r.num_gpu == 1 && shape < 5 ? std::uniform_int_distribution<std::int32_t>(1, 9)(rng) * 100 : r.num_gpu > 0 ? 1000 : 0};
    r.cpu_milli = std::uniform_int_distribution<std::int64_t>(1, 16)(rng) * 1000;
    r.memory_mib = std::uniform_int_distribution<std::int64_t>(1, 64)(rng) * 1024;
    j.preemptible = std::uniform_int_distribution<int>(0, 2)(rng) == 0;
    j.priority = j.preemptible ? 0 : std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? 50 : 100;
    t += std::uniform_int_distribution<std::int64_t>(0, 40)(rng);
    j.arrival = t;
    j.duration = std::uniform_int_distribution<std::int64_t>(1, 4000)(rng);
    j.checkpoint_every = 600;
    jobs.push_back(std::move(j));
  }
  return jobs;
}

template <VictimPolicy VP, bool Preempt>
void same_run(const fleet_cluster& c, const std::vector<fleet_job>& jobs, const run_options& o) {
  fleet_cluster fast_c = c, naive_c = c;
  pod_backend<policy_gpurent> b(fast_c);
  const run_result fast = run_fleet<VP, Preempt>(b, jobs, o);
  const run_result naive = run_fleet_rescan<policy_gpurent, VP, Preempt>(naive_c, jobs, o);
  REQUIRE(fast.segments.size() == naive.segments.size());
  for (std::size_t i = 0; i < fast.segments.size(); ++i) {
    const run_segment &x = fast.segments[i], &y = naive.segments[i];
    CHECK(x.job == y.job);
    CHECK(x.start == y.start);
    CHECK(x.end == y.end);
    CHECK(x.preempted == y.preempted);
    CHECK(x.failed == y.failed);
    for (std::uint32_t m = 0; m < x.count && m < y.count; ++m) CHECK(fast.members[x.first + m].node == naive.members[y.first + m].node);
  }
  CHECK(fast.preemptions == naive.preemptions);
  CHECK(fast.end_time == naive.end_time);
}

TEST_CASE("fleet run: the naive loop gives the same run as the loop") {
  std::mt19937_64 rng(20261203);
  for (int round = 0; round < 6; ++round) {
    const fleet_cluster c = cluster_of(rng, 12);
    const std::vector<fleet_job> jobs = jobs_of(rng, 400);
    run_options o;
    o.min_runtime = round % 3 == 2 ? 300 : 0;
    std::vector<node_event> events;  // odd rounds: nodes fail, drain and come back
    for (int e = 0; round % 2 == 1 && e < 12; ++e)
      events.push_back(node_event{std::uniform_int_distribution<std::int64_t>(0, 12000)(rng), std::uniform_int_distribution<node_index>(0, 11)(rng),
                                  static_cast<node_condition>(std::uniform_int_distribution<int>(0, 2)(rng))});
    std::stable_sort(events.begin(), events.end(), [](const node_event& a, const node_event& b) { return a.time < b.time; });
    o.node_events = events;
    same_run<victim_policy_kube, false>(c, jobs, o);
    same_run<victim_policy_kube, true>(c, jobs, o);
    same_run<victim_policy_gpurent, true>(c, jobs, o);
  }
}

}  // namespace test_fleet_run_rescan
