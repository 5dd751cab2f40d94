// SPDX-License-Identifier: MIT
// Isolation levels and residency in `fleet pack` and `fleet run` (docs/isolation.md), read
// from the nodes and jobs files (their columns: tests/io/fleet_files.test.cpp): none shares a GPU between tenants that both asked for none,
// gpu keeps strangers off a GPU, node off a node, network keeps a gang inside one network
// segment (a gang that fits only across two does not place, and says so); residency keeps
// a job on nodes with one of its labels. The gang search keeps node isolation between
// members of different tenants; the full-scan reference places the same; the gang observer
// sees every decision; check_gangs knows the network rules, and `fleet run` keeps them through
// notice windows and retries.

#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/fleet/run/check.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/matching/node/policy_gpurent.hpp>
#include <gpurent/matching/reference/full_scan_gang.hpp>

#include "support/fleet_files.hpp"

namespace test_fleet_isolation {
using namespace gpurent;

const std::string& nodes_csv = gpurent::test::segmented_nodes_csv;

fleet_cluster cluster(const std::string& nodes = nodes_csv) { return gpurent::test::read_cluster(nodes); }
std::vector<fleet_job> jobs(const fleet_cluster& c, const std::string& csv) { return gpurent::test::read_jobs(c, csv); }

pack_result packed(fleet_cluster& c, const std::vector<fleet_job>& js) { return pack<gang_policy_gpurent>(c, js, pack_options{}, context_of(js, c)); }

TEST_CASE("fleet pack, isolation none: strangers share a GPU only when both asked for none") {
  fleet_cluster c = cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,1,H100\n");
  const auto open = jobs(c, "name,workers,num_gpu,gpu_milli,isolation,tenant\na,1,1,500,none,x\nb,1,1,500,none,y\n");
  CHECK(packed(c, open).placed == 2);
  fleet_cluster d = cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,1,H100\n");
  const auto closed = jobs(d, "name,workers,num_gpu,gpu_milli,isolation,tenant\na,1,1,500,none,x\nb,1,1,500,gpu,y\n");
  const pack_result r = packed(d, closed);
  CHECK(r.placed == 1);
  CHECK(r.placements[1].empty());
}

TEST_CASE("fleet pack, isolation gpu: strangers on other GPUs of the node, never on the same one") {
  fleet_cluster c = cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,H100\n");
  const auto js = jobs(c, "name,workers,num_gpu,gpu_milli,tenant\na,1,1,500,x\nb,1,1,500,y\nc,1,1,500,z\nd,1,1,500,x\n");
  const pack_result r = packed(c, js);
  REQUIRE(r.placements[0].size() == 1);
  REQUIRE(r.placements[1].size() == 1);
  CHECK(r.placements[0][0].gpus[0].gpu != r.placements[1][0].gpus[0].gpu);
  CHECK(r.placements[2].empty());      // both GPUs hold a stranger
  CHECK(r.placements[3].size() == 1);  // x's own share fits next to x's
}

TEST_CASE("fleet pack, isolation node: no other tenant on the node, either way round") {
  fleet_cluster c = cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,H100\nn1,64000,262144,4,H100\n");
  const auto js = jobs(c, "name,workers,num_gpu,isolation,tenant\na,1,1,node,x\nb,1,1,gpu,y\nc,1,1,node,z\nd,1,1,gpu,x\ne,1,1,gpu,z\n");
  const pack_result r = packed(c, js);
  REQUIRE(r.placed == 4);
  CHECK(r.placements[0][0].node != r.placements[1][0].node);
  CHECK(r.placements[2].empty());  // n0 held in isolation by x, n1 holds y
  CHECK(r.placements[3][0].node == r.placements[0][0].node);
  CHECK(r.placements[4][0].node == r.placements[1][0].node);  // gpu isolation: beside y, on another GPU
  CHECK(r.placements[4][0].gpus[0].gpu != r.placements[1][0].gpus[0].gpu);
}

TEST_CASE("fleet pack, isolation network: a gang inside one segment; across two it does not place") {
  fleet_cluster c = cluster();
  const auto js = jobs(c,
                       "name,workers,num_gpu,per_node,isolation,tenant\n"
                       "across,3,4,1,network,x\n"
                       "inside,2,4,1,network,x\n"
                       "other,2,4,1,network,y\n");
  gang_placer<gang_policy_gpurent> placer(c.inv, c.topology, context_of(js, c));
  const why_not w = placer.explain(js[0].gang);
  CHECK(w.candidates == "network segments");
  CHECK(w.total == 2);
  CHECK(w.holding == 0);
  CHECK(w.summary().find("network segment") != std::string::npos);
  CHECK(w.summary().find("0 of 2 network segments can hold all 3 members") != std::string::npos);
  std::vector<placement> out;
  CHECK_FALSE(placer.place(js[0].gang, 0, out));
  CHECK(c.inv.gpu_allocated_milli() == 0);
  REQUIRE(placer.place(js[1].gang, 1, out));
  const segment_id s = c.inv.spec(out[0].node).segment;
  CHECK(s == c.inv.spec(0).segment);  // the segments in order: pkey-a first
  CHECK(c.inv.spec(out[1].node).segment == s);
  REQUIRE(placer.place(js[2].gang, 2, out));
  CHECK(c.inv.spec(out[0].node).segment != s);  // y's gang: the other segment
  CHECK(c.inv.spec(out[1].node).segment == c.inv.spec(out[0].node).segment);
}

TEST_CASE("fleet pack, isolation network: a named segment is kept; without segments nothing places") {
  fleet_cluster c = cluster();
  const auto js = jobs(c, "name,workers,num_gpu,per_node,isolation,network_segment\nb,2,4,1,network,pkey-b\nb2,1,4,1,network,pkey-b\n");
  const pack_result r = packed(c, js);
  REQUIRE(r.placed == 1);
  for (const placement& p : r.placements[0]) CHECK(c.inv.segment_name(c.inv.spec(p.node).segment) == "pkey-b");
  fleet_cluster bare = cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,H100\n");
  const auto net = jobs(bare, "name,workers,num_gpu,isolation\na,1,1,network\n");
  gang_placer<gang_policy_gpurent> placer(bare.inv, bare.topology, context_of(net, bare));
  CHECK(placer.explain(net[0].gang).summary() == "no node is in a network segment (network isolation needs one)");
}

TEST_CASE("fleet pack, residency: only nodes with an allowed label; rejections counted") {
  fleet_cluster c = cluster();
  const auto js =
      jobs(c, "name,workers,num_gpu,per_node,residency\nde,1,4,1,jurisdiction=DE\nde2,1,4,1,jurisdiction=DE\nus,2,4,1,region=us-east-1\n");
  gang_placer<gang_policy_gpurent> placer(c.inv, c.topology, context_of(js, c));
  std::vector<placement> out;
  REQUIRE(placer.place(js[0].gang, 0, out));
  CHECK(c.inv.spec(out[0].node).name == "n0");
  CHECK_FALSE(placer.place(js[1].gang, 1, out));
  const why_not w = placer.explain(js[1].gang);
  CHECK(w.nodes.count("residency") == 3);
  CHECK(w.summary().find("3 are outside the allowed regions, zones or jurisdictions") != std::string::npos);
  REQUIRE(placer.place(js[2].gang, 2, out));
  for (const placement& p : out) CHECK((c.inv.spec(p.node).labels & c.labels.at("region=us-east-1")) != 0);
}

TEST_CASE("the gang search keeps node isolation between members of different tenants") {
  fleet_cluster one = cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,H100\n");
  placement_request a;
  a.num_gpu = 1;
  a.gpu_milli = milli_gpu(1000);
  a.tenant = 1;
  a.isolation = isolation_level::node;
  placement_request b = a;
  b.tenant = 2;
  b.isolation = isolation_level::gpu;
  const std::vector<placement_request> members{a, b};
  gang_request g;
  g.members = members;
  gang_placer<gang_policy_gpurent> p1(one.inv, one.topology);
  std::vector<placement> out;
  CHECK_FALSE(p1.place(g, 0, out));  // the node has room for both, but not for both tenants
  CHECK_FALSE(p1.fits(g, 0));
  fleet_cluster two = cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,H100\nn1,64000,262144,4,H100\n");
  gang_placer<gang_policy_gpurent> p2(two.inv, two.topology);
  REQUIRE(p2.place(g, 0, out));
  CHECK(out[0].node != out[1].node);
  // Both of one tenant share the node.
  b.tenant = 1;
  const std::vector<placement_request> same{a, b};
  g.members = same;
  fleet_cluster three = cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,H100\n");
  gang_placer<gang_policy_gpurent> p3(three.inv, three.topology);
  CHECK(p3.place(g, 0, out));
}

TEST_CASE("network gangs: the full-scan reference places the same, decision for decision") {
  std::string nodes = "sn,cpu_milli,memory_mib,gpu,model,segment\n";
  for (int i = 0; i < 12; ++i) nodes += "n" + std::to_string(i) + ",64000,262144,4,H100,seg-" + std::to_string(i % 3) + "\n";
  std::string csv = "name,workers,num_gpu,per_node,isolation,tenant\n";
  for (int i = 0; i < 20; ++i)
    csv += "j" + std::to_string(i) + "," + std::to_string(1 + i % 4) + "," + std::to_string(1 + i % 3) + ",2," + (i % 3 == 0 ? "gpu" : "network") +
           ",t" + std::to_string(i % 5) + "\n";
  fleet_cluster a = cluster(nodes);
  fleet_cluster b = cluster(nodes);
  const auto ja = jobs(a, csv);
  const pack_result ra = pack_with<gang_placer<gang_policy_gpurent>>(a, ja, pack_options{}, context_of(ja, a));
  const pack_result rb = pack_with<full_scan_gang_placer<gang_policy_gpurent>>(b, ja, pack_options{}, context_of(ja, b));
  CHECK(ra.placed > 0);
  CHECK(ra.placed < ra.jobs);
  CHECK(ra.placements == rb.placements);
  for (std::size_t j = 0; j < ja.size(); ++j) {
    if (ja[j].gang.member.isolation != isolation_level::network) continue;
    for (const placement& p : ra.placements[j]) CHECK(a.inv.spec(p.node).segment == a.inv.spec(ra.placements[j][0].node).segment);
  }
}

TEST_CASE("the gang observer: one decision per job, placements or an explanation; none changes nothing") {
  fleet_cluster a = cluster();
  fleet_cluster b = cluster();
  const auto js = jobs(a, "name,workers,num_gpu,per_node,isolation\nx,2,4,1,network\ny,3,4,1,network\nz,1,2,1,gpu\n");
  struct log {
    std::vector<std::size_t> placed;
    std::vector<std::string> why;
    void operator()(const gang_decision& d) {
      placed.push_back(d.placed.size());
      why.push_back(d.placed.empty() ? d.explain_fn(d.source, d.gang).candidates : "");
    }
  } l;
  pack_options seen;
  seen.observer = gang_observer::of(l);
  const pack_result plain = packed(a, js);
  const pack_result observed = pack<gang_policy_gpurent>(b, js, seen, context_of(js, b));
  CHECK(plain.placements == observed.placements);
  CHECK(l.placed == std::vector<std::size_t>{2, 0, 1});
  CHECK(l.why == std::vector<std::string>{"", "network segments", ""});
}

TEST_CASE("fleet run: network gangs wait for a whole segment; one that needs two never starts") {
  fleet_cluster c = cluster();
  const auto js = jobs(c,
                       "name,workers,num_gpu,per_node,isolation,tenant,duration\n"
                       "a,2,4,1,network,x,100\n"
                       "b,2,4,1,network,y,100\n"
                       "c,2,4,1,network,z,100\n"
                       "wide,3,4,1,network,w,100\n");
  gang_placer<gang_policy_gpurent> backend(c.inv, c.topology, context_of(js, c));
  const run_result r = run_fleet<victim_policy_kube, false>(backend, js, run_options{});
  CHECK(r.first_start[0] == fleet_time::at_second(0));
  CHECK(r.first_start[1] == fleet_time::at_second(0));
  CHECK(r.first_start[2] == fleet_time::at_second(100));  // a segment frees at 100
  CHECK(r.first_start[3] == not_started);
  for (const run_segment& s : r.segments)
    for (std::uint32_t m = 1; m < s.count; ++m) CHECK(c.inv.spec(r.members[s.first + m].node).segment == c.inv.spec(r.members[s.first].node).segment);
}

// Network isolation holds a segment (docs/isolation.md): no two tenants in a segment while
// one of them is there under network isolation. Checked on a run's segments: two run
// segments that overlap in time, of different tenants, one under network isolation, never
// have members in one network segment. Empty when the rule holds; else what broke it.
std::string mixed_segment(const fleet_cluster& c, const std::vector<fleet_job>& js, const run_result& r) {
  for (std::size_t i = 0; i < r.segments.size(); ++i)
    for (std::size_t k = i + 1; k < r.segments.size(); ++k) {
      const run_segment &a = r.segments[i], &b = r.segments[k];
      const placement_request &ra = js[a.job].gang.member, &rb = js[b.job].gang.member;
      if (a.start >= b.end || b.start >= a.end || ra.tenant == rb.tenant) continue;
      if (ra.isolation != isolation_level::network && rb.isolation != isolation_level::network) continue;
      for (std::uint32_t m = 0; m < a.count; ++m)
        for (std::uint32_t q = 0; q < b.count; ++q)
          if (c.inv.spec(r.members[a.first + m].node).segment == c.inv.spec(r.members[b.first + q].node).segment)
            return "jobs " + js[a.job].name + " [" + std::to_string(a.start.count()) + ", " + std::to_string(a.end.count()) + ") and " +
                   js[b.job].name + " [" + std::to_string(b.start.count()) + ", " + std::to_string(b.end.count()) + ") share a network segment";
    }
  return {};
}

TEST_CASE("fleet pack, isolation network: two tenants naming no segment never share one; a gpu tenant stays out") {
  fleet_cluster c = cluster();
  const auto js = jobs(c, "name,workers,num_gpu,isolation,tenant\nx,1,1,network,x\ny,1,1,network,y\nz,1,1,gpu,z\n");
  const pack_result r = packed(c, js);
  REQUIRE(r.placements[0].size() == 1);
  REQUIRE(r.placements[1].size() == 1);
  CHECK(c.inv.spec(r.placements[0][0].node).segment != c.inv.spec(r.placements[1][0].node).segment);
  CHECK(r.placements[2].empty());  // both segments held, by x and by y
  CHECK(check_gangs(c.inv, c.topology, r.gangs, r.placements).violations == 0);
}

TEST_CASE("check_gangs: no stranger in a segment a network tenant uses; network members in one segment, the one they name") {
  const fleet_cluster c = cluster();  // pkey-a: n0, n1; pkey-b: n2, n3
  const auto js = jobs(c,
                       "name,workers,num_gpu,per_node,isolation,tenant,network_segment\n"
                       "x,1,1,1,network,x,\n"
                       "y,1,1,1,gpu,y,\n"
                       "xb,1,1,1,network,x,pkey-b\n"
                       "pair,2,1,1,network,z,\n");
  // Gang j's members on `nodes`, GPU 0 each.
  const auto on = [&](std::size_t j, std::initializer_list<node_index> nodes) {
    std::vector<placement> ps;
    for (const node_index n : nodes) {
      placement p = inventory::placement_base(n, js[j].gang.at(0));
      p.gpus[p.count++] = gpu_take{0, 1000, -1, 0};
      ps.push_back(p);
    }
    return ps;
  };
  const auto check = [&](std::vector<std::vector<placement>> placed) {
    std::vector<gang_request> gangs;
    for (std::size_t j = 0; j < placed.size(); ++j) gangs.push_back(js[j].gang);
    return check_gangs(c.inv, c.topology, gangs, placed);
  };
  CHECK(check({on(0, {0}), on(1, {2})}).violations == 0);
  const gang_check_result mixed = check({on(0, {0}), on(1, {1})});  // y beside x's node, in x's segment
  CHECK(mixed.violations == 2);
  REQUIRE_FALSE(mixed.messages.empty());
  CHECK(mixed.messages.front().find("network segment pkey-a holds two tenants, one of them in network isolation") != std::string::npos);
  const gang_check_result outside = check({{}, {}, on(2, {0})});  // xb names pkey-b, placed in pkey-a
  CHECK(outside.violations == 1);
  REQUIRE_FALSE(outside.messages.empty());
  CHECK(outside.messages.front().find("outside its network segment") != std::string::npos);
  CHECK(check({{}, {}, {}, on(3, {0, 1})}).violations == 0);
  const gang_check_result split = check({{}, {}, {}, on(3, {1, 2})});  // one member in each segment
  CHECK(split.violations == 2);
  REQUIRE_FALSE(split.messages.empty());
  CHECK(split.messages.front().find("two network segments") != std::string::npos);
}

TEST_CASE("fleet run: a gpu gang waits until the network tenant's last job leaves its segment") {
  fleet_cluster c = cluster();
  const auto js = jobs(c,
                       "name,workers,num_gpu,per_node,isolation,tenant,arrival,duration\n"
                       "x,1,4,1,network,x,0,100\n"
                       "big,3,4,1,gpu,y,1,100\n");
  gang_placer<gang_policy_gpurent> backend(c.inv, c.topology, context_of(js, c));
  const run_result r = run_fleet<victim_policy_kube, false>(backend, js, run_options{});
  CHECK(r.first_start[0] == fleet_time::at_second(0));
  CHECK(r.first_start[1] == fleet_time::at_second(100));  // n1 is free at 1, but in x's segment
  CHECK(mixed_segment(c, js, r).empty());
  CHECK(c.inv.held_segments() == 0);
}

// The jobs through the single-node matcher (best fit), as `fleet run --pods` runs them.
run_result run_on_matcher(fleet_cluster& c, const std::vector<fleet_job>& js) {
  matcher<policy_best_fit> backend(c.inv);
  return run_fleet<victim_policy_kube, false>(backend, js, run_options{});
}

TEST_CASE("fleet run --pods path: the single-node matcher keeps strangers out of a held segment") {
  fleet_cluster c = cluster();
  const auto js = jobs(c,
                       "name,workers,num_gpu,isolation,tenant,network_segment,duration\n"
                       "x,1,1,network,x,pkey-a,100\n"
                       "y1,1,4,gpu,y,,50\n"
                       "y2,1,4,gpu,y,,50\n"
                       "y3,1,4,gpu,y,,50\n");
  const run_result r = run_on_matcher(c, js);
  CHECK(r.first_start[1] == fleet_time::at_second(0));
  CHECK(r.first_start[2] == fleet_time::at_second(0));
  CHECK(r.first_start[3] == fleet_time::at_second(50));  // n1 (pkey-a) is x's until 100; pkey-b frees at 50
  CHECK(mixed_segment(c, js, r).empty());
}

TEST_CASE("fleet run --pods path: a release that opens a segment retries a waiting job on the segment's other nodes") {
  fleet_cluster c = cluster();
  const auto js = jobs(c,
                       "name,workers,num_gpu,isolation,tenant,network_segment,arrival,duration\n"
                       "x,1,1,network,x,pkey-a,0,100\n"
                       "x2,1,3,gpu,x,,1,1000\n"
                       "b1,1,4,gpu,z,,2,1000\n"
                       "b2,1,4,gpu,z,,2,1000\n"
                       "y,1,4,gpu,y,,3,50\n");
  const run_result r = run_on_matcher(c, js);
  // x and x2 share n0; b1 and b2 take pkey-b; n1 is free but x's. When x leaves at 100, only
  // n0 is released, and n0 still has x2: y fits on n1, which the release opened.
  CHECK(r.first_start[4] == fleet_time::at_second(100));
  CHECK(mixed_segment(c, js, r).empty());
}

TEST_CASE("fleet run, preemption: the trial's release and restore keep the hold; an evicted holder frees it") {
  fleet_cluster c = cluster();
  const auto js = jobs(c,
                       "name,workers,num_gpu,per_node,isolation,tenant,priority,preemptible,arrival,duration\n"
                       "x,1,4,1,network,x,0,true,0,1000\n"
                       "x2,1,4,1,network,x,0,false,0,1000\n"
                       "big,3,4,1,gpu,y,100,false,1,100\n");
  gang_placer<gang_policy_gpurent> backend(c.inv, c.topology, context_of(js, c));
  const run_result r = run_fleet<victim_policy_gpurent, true>(backend, js, run_options{});
  // x and x2 hold pkey-a (n0, n1); big needs three nodes: evicting x alone leaves the segment
  // held by x2, so no preemption helps, and big waits until both are done.
  CHECK(r.preemptions == 0);
  CHECK(r.first_start[2] == fleet_time::at_second(1000));
  CHECK(mixed_segment(c, js, r).empty());
  CHECK(c.inv.held_segments() == 0);
  for (node_index n = 0; n < c.inv.size(); ++n) {  // every segment empty again
    const segment_tenancy& t = c.inv.segment_tenants(c.inv.spec(n).segment);
    CHECK((t.only(no_tenant) && t.only(1) && !t.isolating()));
  }
  // Without x2, evicting x frees the segment: big preempts it.
  fleet_cluster d = cluster();
  const auto one = jobs(d,
                        "name,workers,num_gpu,per_node,isolation,tenant,priority,preemptible,arrival,duration\n"
                        "x,1,4,1,network,x,0,true,0,1000\n"
                        "big,3,4,1,gpu,y,100,false,1,100\n");
  gang_placer<gang_policy_gpurent> b2(d.inv, d.topology, context_of(one, d));
  const run_result r2 = run_fleet<victim_policy_gpurent, true>(b2, one, run_options{});
  CHECK(r2.preemptions == 1);
  CHECK(mixed_segment(d, one, r2).empty());
  CHECK(d.inv.held_segments() == 0);
}

TEST_CASE("fleet run, random gangs with preemption: no run mixes a held segment with a stranger") {
  std::string nodes = "sn,cpu_milli,memory_mib,gpu,model,segment\n";
  for (int i = 0; i < 9; ++i) nodes += "n" + std::to_string(i) + ",64000,262144,4,H100,seg-" + std::to_string(i % 3) + "\n";
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    std::string csv = "name,workers,num_gpu,per_node,isolation,tenant,priority,preemptible,arrival,duration\n";
    for (int j = 0; j < 40; ++j) {
      const bool spot = pick(2) == 0;
      csv += "j" + std::to_string(j) + "," + std::to_string(1 + pick(3)) + "," + std::to_string(1 + pick(4)) + ",1," +
             (pick(2) == 0   ? "network"
              : pick(2) == 0 ? "node"
                             : "gpu") +
             ",t" + std::to_string(pick(4)) + "," + (spot ? "0,true," : "100,false,") + std::to_string(pick(400)) + "," +
             std::to_string(50 + pick(400)) + "\n";
    }
    // Victims stop at once, or run a notice window of 30 s (or 300 s) in which their tenancy
    // still holds their nodes and segments.
    for (const std::int64_t notice : {0, 30, 300}) {
      INFO("notice " << notice);
      fleet_cluster c = cluster(nodes);
      const auto js = jobs(c, csv);
      gang_placer<gang_policy_gpurent> backend(c.inv, c.topology, context_of(js, c));
      run_options o;
      o.checkpoints.notice = decltype(o.checkpoints.notice){notice};
      const run_result r = run_fleet<victim_policy_gpurent, true>(backend, js, o);
      CHECK(r.preemptions > 0);
      const std::string mixed = mixed_segment(c, js, r);
      CHECK_MESSAGE(mixed.empty(), mixed);
      CHECK(c.inv.held_segments() == 0);
      const gang_check_result checked = check_run(c, js, r);  // every rule, segment tenancy included, at every start
      CHECK_MESSAGE(checked.violations == 0, (checked.messages.empty() ? std::string() : checked.messages.front()));
    }
  }
}

// Not isolation, but the same run path (the node matcher as the run's Placer): a
// WorkloadAware policy (fgd, gpurent) is given the jobs as its workload, so it does not act
// as first fit.
TEST_CASE("the node matcher with the jobs: gpurent plans for their shapes, unlike an empty workload") {
  const std::string nodes = "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,H100\nn1,64000,262144,1,H100\n";
  std::string csv = "name,workers,num_gpu,arrival,duration\none,1,1,0,100\n";
  for (int i = 0; i < 9; ++i) csv += "two" + std::to_string(i) + ",1,2,1000,100\n";  // the workload: mostly 2-GPU jobs
  fleet_cluster a = cluster(nodes);
  fleet_cluster b = cluster(nodes);
  const auto js = jobs(a, csv);
  const shape_distribution shapes = shapes_of(js);
  CHECK_FALSE(shapes.shapes.empty());
  matcher<policy_gpurent> planned(a.inv, policy_context{&shapes, 0});
  matcher<policy_first_fit> empty(b.inv);
  static_assert(!std::constructible_from<matcher<policy_gpurent>, inventory&>, "gpurent without its workload would be first fit");
  std::vector<placement> pa, pb;
  REQUIRE(planned.place(js[0].gang, 0, pa));
  REQUIRE(empty.place(js[0].gang, 0, pb));
  CHECK(a.inv.spec(pa[0].node).name == "n1");  // keeps the 2-GPU node whole for the 2-GPU jobs
  CHECK(b.inv.spec(pb[0].node).name == "n0");  // first fit, what gpurent without its workload was
}

}  // namespace test_fleet_isolation
