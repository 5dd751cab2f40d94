// SPDX-License-Identifier: MIT
// The simulation is deterministic (the same seed gives the same digest, another seed another
// run) and a short run keeps every invariant; and its oracle is no rubber stamp: a run of
// the real loop passes it, and the same run broken on purpose (a member moved onto a full
// GPU, a start before the arrival, a victim that may not be preempted, a segment outliving
// its node, a job that stops short of its work, a placement on a drained node, two members
// of a one-per-node gang on one node, a gang short of a member, a loss the checkpoint model
// does not give, room held after the run, a job kept waiting while a node had room, a usage
// record lost before billing) fails it, each with its own sentence.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulation.hpp"

namespace test_sim {

using namespace gpurent;
using namespace gpurent::sim;

std::uint64_t digest_of(std::uint64_t seed, std::uint64_t steps) {
  const report r = simulate(options{seed, steps, 4});
  INFO("seed " << seed << ": " << (r.violation.empty() ? std::string("ok") : r.where + ": " + r.violation));
  CHECK(r.violation.empty());
  CHECK(r.runs == 6);
  return r.digest;
}

TEST_CASE("simulation: same seed, same digest") {
  CHECK(digest_of(3, 200) == digest_of(3, 200));
  CHECK(digest_of(5, 200) == digest_of(5, 200));
}

TEST_CASE("simulation: seeds differ") { CHECK(digest_of(3, 200) != digest_of(5, 200)); }

// One run of the real loop on a scenario: gang placer, kube's victims; the view the oracle reads.
struct sample_run {
  scenario s;
  std::vector<fleet_job> jobs;
  std::vector<node_event> events;
  run_result r;

  explicit sample_run(std::uint64_t seed, std::uint64_t steps) : s(make_scenario(seed, steps)), jobs(s.jobs), events(s.events) {
    fleet_cluster c = s.cluster;
    gang_placer<gang_policy_gpurent> g(c.inv, c.topology, context_of(s.jobs, c));
    r = run_fleet<victim_policy_kube, true>(g, s.jobs, s.options());
  }
  [[nodiscard]] run_view view() const { return run_view{&s.cluster, jobs, events, s.checkpoints, s.min_runtime, true, &r}; }
  [[nodiscard]] std::string check() const { return oracle_check_run(view()); }
};

// A scenario rich enough for every mutation: preemptions, failures, whole GPUs shared in time.
sample_run& sample() {
  static sample_run run(6, 400);
  return run;
}

// Two segments overlapping in time, each with a member of whole GPUs: (moved, onto).
std::optional<std::pair<std::uint32_t, std::uint32_t>> overlapping_whole(const run_result& r) {
  for (std::uint32_t a = 0; a < r.segments.size(); ++a)
    for (std::uint32_t b = 0; b < r.segments.size(); ++b) {
      const run_segment &x = r.segments[a], &y = r.segments[b];
      if (a == b || x.end <= x.start || y.end <= y.start || x.start < y.start || x.start >= y.end) continue;
      if (r.members[x.first].count > 0 && r.members[x.first].gpus[0].milli == 1000 && r.members[y.first].count > 0 &&
          r.members[y.first].gpus[0].milli == 1000 && r.members[x.first].node != r.members[y.first].node)
        return std::pair{a, b};
    }
  return std::nullopt;
}

TEST_CASE("simulation oracle: the real loop's run passes") {
  const sample_run& run = sample();
  CHECK(run.check().empty());
  CHECK(run.r.preemptions > 0);
  CHECK(run.r.failures > 0);
}

TEST_CASE("simulation oracle: a member moved onto a GPU in use is caught") {
  sample_run run = sample();
  const auto pick = overlapping_whole(run.r);
  REQUIRE(pick.has_value());
  placement& moved = run.r.members[run.r.segments[pick->first].first];
  const placement& onto = run.r.members[run.r.segments[pick->second].first];
  moved.node = onto.node;
  moved.gpus[0].gpu = onto.gpus[0].gpu;    // the GPU the other segment holds whole at that instant
  CHECK(!check_room(run.view()).empty());  // a GPU over 1000 milli, or the node over its CPU or memory
  CHECK(!run.check().empty());
}

TEST_CASE("simulation oracle: a start before the arrival is caught") {
  sample_run run = sample();
  const run_segment& s = run.r.segments.front();
  run.jobs[s.job].arrival = s.start + seconds(1);
  CHECK(run.check().find("starts before it arrives") != std::string::npos);
}

TEST_CASE("simulation oracle: a victim that may not be preempted is caught") {
  sample_run run = sample();
  REQUIRE(!run.r.preemption_log.empty());
  const run_preemption& p = run.r.preemption_log.front();
  run.jobs[run.r.victims[p.first].job].preemptible = false;
  CHECK(run.check().find("is not preemptible or not of lower priority") != std::string::npos);
}

TEST_CASE("simulation oracle: a segment outliving its node is caught") {
  sample_run run = sample();
  const auto it = std::find_if(run.r.segments.begin(), run.r.segments.end(), [](const run_segment& s) { return s.failed && s.end > s.start; });
  REQUIRE(it != run.r.segments.end());
  it->end += seconds(1);  // runs on one second after its node went down
  run.r.end_time = std::max(run.r.end_time, it->end);
  CHECK(check_conditions(run.view(), placed_at(run.view(), segments_by_job(run.view()))).find("past its node going down") != std::string::npos);
  CHECK(!run.check().empty());
}

TEST_CASE("simulation oracle: a job completed short of its work is caught") {
  sample_run run = sample();
  const auto it = std::find_if(run.r.segments.begin(), run.r.segments.end(), [](const run_segment& s) { return !s.preempted && !s.failed; });
  REQUIRE(it != run.r.segments.end());
  it->end -= seconds(1);
  CHECK(run.check().find("completed after") != std::string::npos);
}

TEST_CASE("simulation oracle: a placement on a drained node is caught") {
  sample_run run = sample();
  const run_segment& s = run.r.segments.back();
  const node_index n = run.r.members[s.first].node;
  run.events.insert(run.events.begin(), node_event{fleet_time{}, n, node_condition::drain});  // drained from the start, never up again
  std::erase_if(run.events, [&](const node_event& e) { return e.node == n && e.condition == node_condition::up; });
  CHECK(run.check().find("was placed at") != std::string::npos);
}

TEST_CASE("simulation oracle: a usage record lost before billing is caught") {
  const sample_run& run = sample();
  fleet_cluster c = run.s.cluster;
  auto usage = usage_of_run(run.jobs, run.r, c.inv, run.s.epoch);
  REQUIRE(usage.has_value());
  REQUIRE(usage->size() > 1);
  billing whole(1, 4), short_one(1, 4);
  const month_truth truth = usage_truth(run.view(), run.s.epoch, whole.tariff_used());
  digest d;
  sim_rng rng1(1), rng2(1);
  CHECK(whole.run(*usage, truth, rng1, d).empty());
  usage->pop_back();
  const std::string bad = short_one.run(*usage, truth, rng2, d);
  INFO(bad);
  CHECK((bad.find("the segments ran") != std::string::npos || bad.find("lacks a line") != std::string::npos));
}

// A segment of a gang of at least two members at most one per node that ran.
std::vector<run_segment>::iterator spread_gang(sample_run& run) {
  return std::find_if(run.r.segments.begin(), run.r.segments.end(),
                      [&](const run_segment& x) { return x.count >= 2 && x.end > x.start && run.jobs[x.job].gang.per_node == 1; });
}

TEST_CASE("simulation oracle: two members of a one-per-node gang on one node are caught") {
  sample_run run = sample();
  const auto it = spread_gang(run);
  REQUIRE(it != run.r.segments.end());
  run.r.members[it->first + 1].node = run.r.members[it->first].node;
  CHECK(check_gang_rules(run.view()).find("a gang rule") != std::string::npos);
}

TEST_CASE("simulation oracle: a gang segment short of a member is caught") {
  sample_run run = sample();
  const auto it = spread_gang(run);
  REQUIRE(it != run.r.segments.end());
  --it->count;
  CHECK(run.check().find(" members of ") != std::string::npos);
}

TEST_CASE("simulation oracle: a loss the checkpoint model does not give is caught") {
  sample_run run = sample();
  const auto it = std::find_if(run.r.segments.begin(), run.r.segments.end(), [](const run_segment& x) { return x.preempted; });
  REQUIRE(it != run.r.segments.end());
  run.r.lost_milli_s[it->job] += 1;
  CHECK(run.check().find("the model says") != std::string::npos);
}

TEST_CASE("simulation oracle: room still held once the run is over is caught") {
  const sample_run& run = sample();
  fleet_cluster c = run.s.cluster;
  CHECK(check_released(c.inv).empty());
  c.inv.place(run.r.members.front());
  CHECK(check_released(c.inv).find("still holds something") != std::string::npos);
}

// The node matcher's run without victims, for the wait check (it checks runs of one-member jobs).
TEST_CASE("simulation oracle: a job kept waiting while a node had room is caught") {
  const scenario s = make_scenario(6, 400);
  const std::vector<fleet_job> jobs = one_member_jobs(s.jobs);
  fleet_cluster c = s.cluster;
  const shape_distribution shapes = shapes_of(jobs);
  matcher<policy_gpurent> m(c.inv, policy_context{&shapes, s.seed});
  run_result r = run_fleet<victim_policy_kube, false>(m, jobs, s.options());
  const run_view v{&s.cluster, jobs, s.events, s.checkpoints, s.min_runtime, false, &r};
  CHECK(oracle_check_run(v).empty());
  const auto it = std::find_if(r.segments.begin(), r.segments.end(), [&](const run_segment& x) {
    return x.run == 0 && x.start == jobs[x.job].arrival && x.end > x.start && !x.preempted && !x.failed;
  });
  REQUIRE(it != r.segments.end());
  it->start += seconds(1);  // placed a second after it arrived, though the room it got was free then
  it->end += seconds(1);
  const auto by_job = segments_by_job(v);
  CHECK(check_waits(v, by_job, placed_at(v, by_job)).find("has room for it") != std::string::npos);
}

}  // namespace test_sim
