// SPDX-License-Identifier: MIT
// The loop's shortcuts (the retry log, freed-node scans, the matcher's candidate index) change
// no decision: on random workloads the naive loop (fleet/reference/rescan.hpp: every queued
// job at every instant, full-scan matcher) gives the same run, segment for segment, under
// every victim policy, with a minimum runtime and with nodes failing, draining and coming back;
// gangs on generated fleets the same, preemption plan included.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/fleet/reference/rescan.hpp>
#include <gpurent/matching/node/policy_gpurent.hpp>

#include "support/fleet_random.hpp"

namespace test_fleet_run_rescan {

using namespace gpurent;
using gpurent::test::random_cluster;
using gpurent::test::random_pods;

template <VictimPolicy VP, bool Preempt>
void same_run(const fleet_cluster& c, const std::vector<fleet_job>& jobs, const run_options& o) {
  fleet_cluster fast_c = c, naive_c = c;
  const shape_distribution shapes = shapes_of(jobs);
  matcher<policy_gpurent> b(fast_c.inv, policy_context{&shapes, 0});
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
    const fleet_cluster c = random_cluster(rng, 12);
    const std::vector<fleet_job> jobs = random_pods(rng, 400);
    run_options o;
    o.min_runtime = seconds(round % 3 == 2 ? 300 : 0);
    std::vector<node_event> events;  // odd rounds: nodes fail, drain and come back
    for (int e = 0; round % 2 == 1 && e < 12; ++e)
      events.push_back(node_event{fleet_time::at_second(std::uniform_int_distribution<std::int64_t>(0, 12000)(rng)),
                                  std::uniform_int_distribution<node_index>(0, 11)(rng),
                                  static_cast<node_condition>(std::uniform_int_distribution<int>(0, 2)(rng))});
    std::stable_sort(events.begin(), events.end(), [](const node_event& a, const node_event& b) { return a.time < b.time; });
    o.node_events = events;
    same_run<victim_policy_kube, false>(c, jobs, o);
    same_run<victim_policy_kube, true>(c, jobs, o);
    same_run<victim_policy_gpurent, true>(c, jobs, o);
  }
}

// The same for gangs on generated NVL72-like fleets with preemption (issue 34): the loop with
// the gang placer's capacity cache and the preemption plan (matching/preempt/plan.hpp: domains
// left out, bounds, visiting order) against every job at every instant, every node counted,
// every candidate domain searched in order.
template <VictimPolicy VP>
void same_gang_run(const fleet_cluster& c, const std::vector<fleet_job>& jobs, const run_options& o) {
  fleet_cluster fast_c = c, naive_c = c;
  gang_placer<gang_policy_gpurent> b(fast_c.inv, fast_c.topology, context_of(jobs, fast_c));
  const run_result fast = run_fleet<VP, true>(b, jobs, o);
  const run_result naive = run_fleet_rescan_gangs<gang_policy_gpurent, VP, true>(naive_c, jobs, o);
  REQUIRE(fast.segments.size() == naive.segments.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < fast.segments.size(); ++i) {
    const run_segment &x = fast.segments[i], &y = naive.segments[i];
    differ += x.job != y.job || x.start != y.start || x.end != y.end || x.preempted != y.preempted || x.count != y.count ? 1U : 0U;
    for (std::uint32_t m = 0; m < x.count && m < y.count; ++m) differ += fast.members[x.first + m].node != naive.members[y.first + m].node ? 1U : 0U;
  }
  CHECK(differ == 0);
  CHECK(fast.preemptions == naive.preemptions);
  CHECK(fast.preemptions > 0);  // the plan was exercised
  for (std::size_t k = 0; k < fast.preemption_log.size() && k < naive.preemption_log.size(); ++k) {
    const run_preemption &x = fast.preemption_log[k], &y = naive.preemption_log[k];
    REQUIRE(x.count == y.count);
    for (std::uint32_t v = 0; v < x.count; ++v) CHECK(fast.victims[x.first + v].job == naive.victims[y.first + v].job);
  }
  CHECK(fast.end_time == naive.end_time);
}

TEST_CASE("fleet run: the naive loop gives the same run as the loop, gangs on generated fleets with preemption") {
  // 24 blocks of 18 nodes, 5 days at 120%: 357 and 389 jobs, 7 to 23 preemptions a run.
  for (const std::uint64_t seed : {1U, 2U}) {
    generate_options g;
    g.blocks = 24;
    g.down = 0.02;
    g.seed = seed;
    g.load_pct = 120;
    g.horizon = seconds(5 * 86400);
    g.checkpoint_every = seconds(1200);
    const auto f = generate_fleet(g);
    REQUIRE(f);
    run_options o;
    o.min_runtime = seconds(seed == 2 ? 600 : 0);
    same_gang_run<victim_policy_gpurent>(f->cluster, f->jobs, o);
    same_gang_run<victim_policy_kube>(f->cluster, f->jobs, o);
  }
}

TEST_CASE("fleet run's queue: with nothing freed since the last pass only the jobs queued since are tried, until one frees room") {
  const std::vector<std::uint32_t> rank{5, 0, 4, 1, 3, 7, 2};  // queue order: 1, 3, 6, 4, 2, 0, 5
  run_queue q(rank);
  std::size_t position = 7;
  std::vector<std::uint32_t> tried;
  const auto pass = [&](bool full, auto&& start) {
    tried.clear();
    q.pass(
        position, full,
        [&](std::uint32_t j) {
          tried.push_back(j);
          return start(j);
        },
        [&] { return position; });
  };
  const auto none = [](std::uint32_t) { return false; };
  for (const std::uint32_t j : {0U, 1U, 2U}) q.enqueue(j);
  pass(false, none);  // the first pass is full
  CHECK(tried == std::vector<std::uint32_t>{1, 2, 0});
  q.enqueue(3);
  q.enqueue(4);
  pass(false, none);  // nothing freed: only 3 and 4, in queue order
  CHECK(tried == std::vector<std::uint32_t>{3, 4});
  pass(true, none);  // full (the naive twin, a minimum runtime): every job
  CHECK(tried == std::vector<std::uint32_t>{1, 3, 4, 2, 0});
  q.enqueue(5);
  pass(false, [](std::uint32_t j) { return j == 5; });  // 5 starts, nothing freed
  CHECK(tried == std::vector<std::uint32_t>{5});
  CHECK(q.size() == 5);
  q.enqueue(6);
  pass(false, [&](std::uint32_t j) {  // 6 starts by preemption: room freed, the jobs after it are tried
    if (j != 6) return false;
    ++position;
    return true;
  });
  CHECK(tried == std::vector<std::uint32_t>{6, 4, 2, 0});
  CHECK(q.size() == 5);
  ++position;  // a release: the next pass is full
  pass(false, none);
  CHECK(tried == std::vector<std::uint32_t>{1, 3, 4, 2, 0});
}

}  // namespace test_fleet_run_rescan
