// SPDX-License-Identifier: MIT
// `fleet run --check` counts incrementally (fleet/run/check.hpp: own rules once per segment,
// shared rules only in the blocks and nodes that changed): on real runs and on runs broken at
// random (members moved, duplicated, sent to no node, segments stretched at either end, a job
// run twice beside itself in its blocks, gangs made exclusive, requests and tenants changed),
// it counts what the reference counts by checking every running segment at every instant
// (fleet/reference/check.hpp), violation for violation, network segments across blocks
// included. With node events, both read the conditions the run went through
// (fleet/run/check_conditions.hpp), checked here on a run built by hand.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/fleet/reference/check.hpp>
#include <gpurent/fleet/run/check.hpp>
#include <gpurent/matching/node/policy_gpurent.hpp>

#include "support/fleet_files.hpp"
#include "support/fleet_random.hpp"

namespace test_fleet_run_check {

using namespace gpurent;

// Both counts, equal, and messages exactly when something broke a rule.
std::size_t same_count(const fleet_cluster& c, const std::vector<fleet_job>& jobs, const run_result& r, const node_history& h = {}) {
  const gang_check_result fast = check_run(c, jobs, r, h);
  const gang_check_result full = check_run_full(c, jobs, r, h);
  CHECK(fast.violations == full.violations);
  CHECK(fast.messages.empty() == (fast.violations == 0));
  CHECK(full.messages.empty() == (full.violations == 0));
  return fast.violations;
}

// Another node of n's base block (any node when n is in none), picked at random.
node_index block_mate(std::mt19937_64& rng, const fleet_cluster& c, node_index n) {
  const auto any = [&] { return std::uniform_int_distribution<node_index>(0, static_cast<node_index>(c.inv.size() - 1))(rng); };
  if (n >= c.inv.size()) return n;  // no such node: stays nowhere
  if (!c.topology.in_topology(n)) return any();
  for (int tries = 0; tries < 64; ++tries)
    if (const node_index x = any(); x != n && c.topology.in_topology(x) && c.topology.block_of(x) == c.topology.block_of(n)) return x;
  return n;
}

// Run segment `seg` again at the same time, each member on another node of its block, the
// job made exclusive: the two runs share blocks, which only the exclusive rule forbids.
void run_twice_beside(std::mt19937_64& rng, const fleet_cluster& c, std::vector<fleet_job>& jobs, run_result& r, std::size_t seg) {
  run_segment copy = r.segments[seg];
  copy.first = static_cast<std::uint32_t>(r.members.size());
  for (std::uint32_t k = 0; k < copy.count; ++k) {
    placement p = r.members[r.segments[seg].first + k];
    p.node = block_mate(rng, c, p.node);
    r.members.push_back(p);
  }
  r.segments.push_back(copy);
  jobs[copy.job].gang.exclusive = true;
}

// One random breakage of run r (and of the jobs' requests).
void break_once(std::mt19937_64& rng, const fleet_cluster& c, std::vector<fleet_job>& jobs, run_result& r) {
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  const std::size_t seg = pick(r.segments.size());
  run_segment& s = r.segments[seg];
  placement* m = s.count == 0 ? nullptr : &r.members[s.first + pick(s.count)];
  switch (pick(10)) {
    case 0: r.segments.push_back(s); break;  // the same members twice over
    case 1:
      if (m != nullptr) m->node = static_cast<node_index>(pick(c.inv.size()));
      break;
    case 2:
      if (m != nullptr) m->node = static_cast<node_index>(c.inv.size() + pick(3));
      break;
    case 3: s.end = s.end + seconds(static_cast<std::int64_t>(pick(20000))); break;
    case 4: jobs[s.job].gang.exclusive = true; break;
    case 5:
      if (m != nullptr) m->cpu_milli = m->cpu_milli + milli_cpu(1);
      break;
    case 7: run_twice_beside(rng, c, jobs, r, seg); break;
    case 8: s.start = fleet_time::at_second(std::max<std::int64_t>(0, s.start.count() - static_cast<std::int64_t>(pick(20000)))); break;
    case 9:
      if (m != nullptr) m->tenant = static_cast<tenant_id>(1 + pick(2));  // the GPUs it shares now have two tenants
      break;
    default: s.start = s.end; break;  // zero length: holds nothing
  }
}

// The run as it is, then broken 1 to 20 times over, a few times.
void same_when_broken(std::mt19937_64& rng, const fleet_cluster& c, const std::vector<fleet_job>& jobs, const run_result& r,
                      const node_history& h = {}) {
  REQUIRE_FALSE(r.segments.empty());
  CHECK(same_count(c, jobs, r, h) == 0);
  std::size_t broken = 0;
  for (int round = 0; round < 12; ++round) {
    std::vector<fleet_job> js = jobs;
    run_result b = r;
    const int n = std::uniform_int_distribution<int>(1, 20)(rng);
    for (int i = 0; i < n; ++i) break_once(rng, c, js, b);
    if (same_count(c, js, b, h) > 0) ++broken;
  }
  CHECK(broken >= 6);  // the breakages are seen, not only agreed on
}

TEST_CASE("fleet run --check: the incremental count is the reference's, pods on nodes in, outside and without a topology") {
  std::mt19937_64 rng(20261207);
  for (int round = 0; round < 4; ++round) {
    fleet_cluster c = test::random_cluster(rng, 12);
    if (round % 2 == 1) {  // two blocks of 4 nodes; nodes 8 to 11 outside the topology
      auto t = cluster_topology::make({"block"}, c.inv.size());
      REQUIRE(t);
      c.topology = std::move(*t);
      for (std::size_t n = 0; n < 8; ++n) {
        const std::string name = n < 4 ? "b0" : "b1";
        const std::string_view path[] = {name};
        REQUIRE(c.topology.assign(n, path));
      }
    }
    const std::vector<fleet_job> jobs = test::random_pods(rng, 300);
    const shape_distribution shapes = shapes_of(jobs);
    fleet_cluster run_c = c;
    matcher<policy_gpurent> b(run_c.inv, policy_context{&shapes, 0});
    const run_result r = run_fleet<victim_policy_gpurent, true>(b, jobs, run_options{});
    same_when_broken(rng, c, jobs, r);
  }
}

TEST_CASE("fleet run --check: the incremental count is the reference's, gangs on a generated fleet with preemption") {
  std::mt19937_64 rng(7);
  generate_options g;
  g.blocks = 12;
  g.down = 0.02;
  g.load_pct = 120;
  g.horizon = seconds(3 * 86400);
  g.checkpoint_every = seconds(1200);
  const auto f = generate_fleet(g);
  REQUIRE(f);
  fleet_cluster run_c = f->cluster;
  gang_placer<gang_policy_gpurent> b(run_c.inv, run_c.topology, context_of(f->jobs, run_c));
  const run_result r = run_fleet<victim_policy_gpurent, true>(b, f->jobs, run_options{});
  CHECK(r.preemptions > 0);
  same_when_broken(rng, f->cluster, f->jobs, r);
}

// 16 nodes in 4 blocks of 4; network segment seg-a holds n2-n5 (blocks b0 and b1), seg-b
// n10-n13 (b2 and b3): a segment's tenancy is checked across two blocks.
fleet_cluster segments_across_blocks() {
  std::string nodes = "sn,cpu_milli,memory_mib,gpu,model,segment\n";
  for (int i = 0; i < 16; ++i)
    nodes += "n" + std::to_string(i) + ",64000,262144,4,H100," + (i >= 2 && i < 6 ? "seg-a" : i >= 10 && i < 14 ? "seg-b" : "") + "\n";
  fleet_cluster c = test::read_cluster(nodes);
  auto t = cluster_topology::make({"block"}, c.inv.size());
  REQUIRE(t);
  c.topology = std::move(*t);
  for (node_index n = 0; n < 16; ++n) {
    const std::string name = "b" + std::to_string(n / 4);
    const std::string_view path[] = {name};
    REQUIRE(c.topology.assign(n, path));
  }
  return c;
}

TEST_CASE("fleet run --check: the incremental count is the reference's, network-isolated gangs in segments across blocks") {
  std::mt19937_64 rng(11);
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  const fleet_cluster c = segments_across_blocks();
  for (int round = 0; round < 3; ++round) {
    std::string csv = "name,workers,num_gpu,per_node,isolation,tenant,priority,preemptible,arrival,duration\n";
    for (int j = 0; j < 60; ++j) {
      const char* iso[] = {"network", "network", "node", "gpu", "none"};
      const bool spot = pick(2) == 0;
      csv += "j" + std::to_string(j) + "," + std::to_string(1 + pick(3)) + "," + std::to_string(1 + pick(4)) + ",1," + iso[pick(5)] + ",t" +
             std::to_string(pick(3)) + "," + (spot ? "0,true," : "100,false,") + std::to_string(pick(600)) + "," + std::to_string(50 + pick(400)) +
             "\n";
    }
    const std::vector<fleet_job> jobs = test::read_jobs(c, csv);
    fleet_cluster run_c = c;
    gang_placer<gang_policy_gpurent> b(run_c.inv, run_c.topology, context_of(jobs, run_c));
    const run_result r = run_fleet<victim_policy_gpurent, true>(b, jobs, run_options{});
    same_when_broken(rng, c, jobs, r);
  }
  // By hand: x holds seg-a under network isolation on n2 (block b0) while y, another tenant,
  // runs on n4 (seg-a, block b1): both are against the rule, in the incremental count too.
  const std::vector<fleet_job> jobs = test::read_jobs(c,
                                                      "name,workers,num_gpu,isolation,tenant,duration\n"
                                                      "x,1,1,network,x,100\n"
                                                      "y,1,1,gpu,y,100\n");
  run_result r;
  for (std::uint32_t j = 0; j < 2; ++j) {
    placement p = inventory::placement_base(j == 0 ? 2 : 4, jobs[j].gang.at(0));
    p.gpus[p.count++] = gpu_take{0, 1000, -1, 0};
    r.members.push_back(p);
    r.segments.push_back(run_segment{j, 0, fleet_time::at_second(10 * j), fleet_time::at_second(100), false, false, j, 1, 1000});
  }
  CHECK(same_count(c, jobs, r) == 2);
  const gang_check_result found = check_run(c, jobs, r);
  REQUIRE_FALSE(found.messages.empty());
  CHECK(found.messages.front().find("network segment seg-a holds two tenants") != std::string::npos);
  r.members[1].node = 6;  // n6: in no segment
  CHECK(same_count(c, jobs, r) == 0);
}

TEST_CASE("fleet run --node-events: an exclusive victim keeps its block through its notice when its preemptor's node goes down") {
  // A probe's case: big (exclusive) evicts spot (exclusive, on n1) at 300 and is placed on n0;
  // n0 goes down at 310, before big starts (330). Until 2026-12-07 big's release freed block
  // b0, which spot's hold had left to big, and the gang `wait` started beside spot at 310.
  fleet_cluster c = test::read_cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1000,8,L4\nn1,1000,1000,8,L4\n");
  auto t = cluster_topology::make({"block"}, c.inv.size());
  REQUIRE(t);
  c.topology = std::move(*t);
  for (node_index n = 0; n < 2; ++n) {
    const std::string_view path[] = {"b0"};
    REQUIRE(c.topology.assign(n, path));
  }
  const std::vector<fleet_job> jobs = test::read_jobs(c,
                                                      "name,workers,num_gpu,priority,preemptible,arrival,duration,exclusive\n"
                                                      "spot,1,1,0,true,0,1000,topo\n"
                                                      "wait,2,1,0,false,0,300,\n"
                                                      "big,3,2,100,false,300,100,topo\n");
  const std::vector<node_event> events = {{fleet_time::at_second(0), 0, node_condition::drain},
                                          {fleet_time::at_second(20), 0, node_condition::up},
                                          {fleet_time::at_second(310), 0, node_condition::down}};
  run_options o;
  o.node_events = events;
  fleet_cluster run_c = c;
  gang_placer<gang_policy_gpurent> b(run_c.inv, run_c.topology, context_of(jobs, run_c));
  const run_result r = run_fleet<victim_policy_gpurent, true>(b, jobs, o);
  CHECK(r.preemptions == 1);
  CHECK(r.first_start[1] >= fleet_time::at_second(330));  // wait: not before spot stops
  const gang_check_result checked = check_run(c, jobs, r, node_history{events, o.checkpoints.notice});
  CHECK_MESSAGE(checked.violations == 0, (checked.messages.empty() ? std::string() : checked.messages.front()));
}

// `count` events of nodes failing, draining and coming back at random over [0, horizon] s.
std::vector<node_event> random_events(std::mt19937_64& rng, std::size_t nodes, int count = 16, std::int64_t horizon = 12000) {
  std::vector<node_event> events;
  for (int e = 0; e < count; ++e)
    events.push_back(node_event{fleet_time::at_second(std::uniform_int_distribution<std::int64_t>(0, horizon)(rng)),
                                std::uniform_int_distribution<node_index>(0, static_cast<node_index>(nodes - 1))(rng),
                                static_cast<node_condition>(std::uniform_int_distribution<int>(0, 2)(rng))});
  std::stable_sort(events.begin(), events.end(), [](const node_event& a, const node_event& b) { return a.time < b.time; });
  return events;
}

TEST_CASE("fleet run --check --node-events: runs through failures and drains check clean, and both counts agree when broken") {
  std::mt19937_64 rng(20261208);
  for (int round = 0; round < 4; ++round) {
    const fleet_cluster c = test::random_cluster(rng, 12);
    const std::vector<fleet_job> jobs = test::random_pods(rng, 300);
    const std::vector<node_event> events = random_events(rng, c.inv.size());
    run_options o;
    o.node_events = events;
    const shape_distribution shapes = shapes_of(jobs);
    fleet_cluster run_c = c;
    matcher<policy_gpurent> b(run_c.inv, policy_context{&shapes, 0});
    const run_result r = run_fleet<victim_policy_gpurent, true>(b, jobs, o);
    CHECK(r.failures > 0);
    const node_history h{events, o.checkpoints.notice};
    same_when_broken(rng, c, jobs, r, h);
    // Read with every event a second early, a run a failure stopped ran past its node going down.
    std::vector<node_event> early = events;
    for (node_event& e : early) e.time = fleet_time::at_second(std::max<std::int64_t>(0, e.time.count() - 1));
    CHECK(same_count(c, jobs, r, node_history{early, o.checkpoints.notice}) > 0);
  }
}

TEST_CASE("fleet run --check --node-events: generated gangs, exclusive ones among them, through failures and preemptions check clean") {
  std::mt19937_64 rng(20261207);
  std::size_t preemptions = 0, failures = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    generate_options g;
    g.blocks = 4;
    g.seed = seed;
    g.load_pct = 150;
    g.exclusive = 1.0;
    g.spot = 0.5;
    g.horizon = seconds(2 * 86400);
    g.checkpoint_every = seconds(1200);
    const auto f = generate_fleet(g);
    REQUIRE(f);
    const std::vector<node_event> events = random_events(rng, f->cluster.inv.size(), 600, 2 * 86400);
    run_options o;
    o.node_events = events;
    o.checkpoints.notice = seconds(900);  // long notices: preemptors and victims often meet a failure inside them
    fleet_cluster run_c = f->cluster;
    gang_placer<gang_policy_gpurent> b(run_c.inv, run_c.topology, context_of(f->jobs, run_c));
    const run_result r = run_fleet<victim_policy_gpurent, true>(b, f->jobs, o);
    preemptions += r.preemptions;
    failures += r.failures;
    const gang_check_result checked = check_run(f->cluster, f->jobs, r, node_history{events, o.checkpoints.notice});
    CHECK_MESSAGE(checked.violations == 0, (checked.messages.empty() ? std::string() : checked.messages.front()));
  }
  CHECK(preemptions > 20);
  CHECK(failures > 100);
}

TEST_CASE("fleet run --check --node-events: placed on a node up then, ended by its going down; a preemptor placed at its decision") {
  fleet_node n;
  n.name = "n0";
  n.cpu_milli = milli_cpu(64000);
  n.memory_mib = mebibytes(262144);
  n.gpus = 4;
  n.model = "A100";
  const std::vector<fleet_node> nodes{n};
  auto made = fleet_cluster::make(nodes);
  REQUIRE(made);
  const fleet_cluster c = std::move(*made);
  const auto at = fleet_time::at_second;
  const std::vector<node_event> events{
      {at(100), 0, node_condition::down}, {at(200), 0, node_condition::up}, {at(300), 0, node_condition::drain}, {at(400), 0, node_condition::up}};
  std::vector<fleet_job> jobs(6);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    jobs[j].name = "j" + std::to_string(j);
    jobs[j].gang.member.cpu_milli = milli_cpu(1000);
  }
  struct seg {
    std::int64_t start, end;
    bool against;
  };
  const seg segs[] = {
      {0, 100, false},    // ends as its node goes down
      {50, 150, true},    // runs on past it
      {150, 180, true},   // placed on the down node
      {350, 360, true},   // placed on the drained node
      {320, 500, false},  // the preemptor decided at 290, when the node was up; it starts drained
      {400, 450, false},  // placed when the node is up again
  };
  run_result r;
  for (std::uint32_t j = 0; j < std::size(segs); ++j) {
    run_segment s;
    s.job = j;
    s.start = at(segs[j].start);
    s.end = at(segs[j].end);
    s.first = j;
    s.count = 1;
    r.segments.push_back(s);
    r.members.push_back(inventory::make_placement(0, jobs[j].gang.member, gpu_pick{}));
  }
  r.preemption_log.push_back(run_preemption{at(290), 4, 0, 0, 0, 0});
  const node_history h{events, seconds(30)};
  const condition_flags f = check_run_conditions(c, h, r);
  for (std::uint32_t j = 0; j < std::size(segs); ++j) {
    CAPTURE(j);
    CHECK(f.flagged(j) == segs[j].against);
  }
  CHECK(f.why(1) == "ran until 150 s on node n0, which went down at 100 s");
  CHECK(f.why(2) == "placed at 150 s on node n0, which was down");
  CHECK(f.why(3) == "placed at 350 s on node n0, which was drained");
  const gang_check_result g = check_run(c, jobs, r, h);
  CHECK(g.violations == 3);  // each at the one instant a segment starts while it runs
  CHECK(g.violations == check_run_full(c, jobs, r, h).violations);
  REQUIRE_FALSE(g.messages.empty());
  CHECK(g.messages.front() == "at 50 s: job j1 run 0 member 0: ran until 150 s on node n0, which went down at 100 s");
  // Without the notice the preemptor reads as placed at its start, on the drained node.
  CHECK(check_run_conditions(c, node_history{events, seconds(0)}, r).flagged(4));
}

}  // namespace test_fleet_run_check
