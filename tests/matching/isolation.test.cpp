// SPDX-License-Identifier: MIT
// Isolation levels and residency in the matcher (docs/isolation.md): none shares a GPU only
// with work that asked for none; gpu keeps other tenants off the GPU; node off the node;
// network keeps to the tenant's segment. Each rejection is counted under its own reason.
// And the decision observer: called once per decision, before it is applied.

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <vector>

#include <gpurent/matching/matching.hpp>

namespace test_matching_isolation {
using namespace gpurent;

node_spec node(std::string name, std::uint8_t gpus) {
  node_spec s;
  s.name = std::move(name);
  s.cpu_milli = milli_cpu(64000);
  s.memory_mib = mebibytes(262144);
  s.gpu_count = gpus;
  return s;
}

inventory cluster(std::size_t nodes, std::uint8_t gpus = 2) {
  inventory inv;
  inv.add_model({"A100", gib(80), tflops_milli(312000)});
  for (std::size_t i = 0; i < nodes; ++i) inv.add_node(node("n" + std::to_string(i), gpus));
  return inv;
}

placement_request ask(tenant_id t, std::int32_t milli, isolation_level level, std::int32_t gpus = 1) {
  placement_request r;
  r.num_gpu = gpus;
  r.gpu_milli = milli_gpu(milli);
  r.cpu_milli = milli_cpu(1000);
  r.tenant = t;
  r.isolation = level;
  return r;
}

TEST_CASE("isolation none: strangers share a GPU only when both asked for none") {
  inventory inv = cluster(1, 1);
  matcher<policy_best_fit> m(inv);
  REQUIRE(m.place(ask(1, 300, isolation_level::none)));
  CHECK(m.place(ask(2, 300, isolation_level::none)));       // both open: same GPU
  CHECK_FALSE(m.place(ask(3, 300, isolation_level::gpu)));  // isolated work never joins strangers
  CHECK(m.explain(ask(3, 300, isolation_level::gpu)).count("gpus") == 1);
}

TEST_CASE("isolation gpu (the default): no stranger on the GPU, one's own shares pack") {
  inventory inv = cluster(1, 1);
  matcher<policy_best_fit> m(inv);
  CHECK(placement_request{}.isolation == isolation_level::gpu);
  REQUIRE(m.place(ask(1, 300, isolation_level::gpu)));
  CHECK_FALSE(m.place(ask(2, 300, isolation_level::none)));  // the GPU's user asked for isolation
  CHECK(m.place(ask(1, 300, isolation_level::gpu)));
}

TEST_CASE("isolation node: no other tenant on the node, either way round") {
  inventory inv = cluster(2);
  matcher<policy_best_fit> m(inv);
  const auto other = m.place(ask(2, 500, isolation_level::gpu));  // best fit: n0
  REQUIRE(other);
  const auto mine = m.place(ask(1, 1000, isolation_level::node));
  REQUIRE(mine);
  CHECK(mine->node != other->node);
  const constraint_counts w = m.explain(ask(1, 1000, isolation_level::node));
  CHECK(w.count("isolation-node") == 1);
  // The node held in isolation takes no stranger's work, however little it asks.
  const constraint_counts s = m.explain(ask(3, 100, isolation_level::none));
  CHECK(s.count("isolated") == 1);
  CHECK(s.summary().find("1 are held in isolation by another tenant") != std::string::npos);
  // Its own tenant may still add work there.
  CHECK(m.explain(ask(1, 1000, isolation_level::gpu)).count("isolated") == 0);
  m.release(*mine);
  CHECK(m.explain(ask(3, 100, isolation_level::none)).count("isolated") == 0);
  CHECK(inv.isolating_placements() == 0);
}

TEST_CASE("isolation network: only nodes of the tenant's segment; a gang never leaves it") {
  inventory inv = cluster(0);
  const segment_id a = inv.segment("pkey-0x8001");
  const segment_id b = inv.segment("vlan-42");
  CHECK(inv.segment("pkey-0x8001") == a);
  CHECK(inv.segment_name(b) == "vlan-42");
  for (int i = 0; i < 4; ++i) {
    node_spec s = node("n" + std::to_string(i), 2);
    s.segment = i < 2 ? a : b;
    inv.add_node(s);
  }
  matcher<policy_best_fit> m(inv);
  placement_request r = ask(1, 1000, isolation_level::network, 2);
  r.segment = b;
  const auto p = m.place(r);
  REQUIRE(p);
  CHECK(inv.spec(p->node).segment == b);
  CHECK(m.explain(r).count("isolation-network") == 2);
  // A gang of three 2-GPU members in segment b: b has room for one more member only, so the
  // gang does not place at all, though segment a has room for two.
  const std::vector<placement_request> members(3, r);
  cluster_topology flat = *cluster_topology::make({}, inv.size());
  gang_placer<gang_policy_best_fit> gp(inv, flat);
  gang_request gang;
  gang.members = members;
  std::vector<placement> out;
  CHECK_FALSE(gp.place(gang, 1, out));
  CHECK(inv.gpu_allocated_milli() == 2000);
  // A request naming no segment gets no node under network isolation.
  placement_request lost = ask(1, 1000, isolation_level::network);
  CHECK_FALSE(m.place(lost));
}

TEST_CASE("residency: the node carries one of the allowed labels; rejections counted") {
  inventory inv;
  inv.add_model({"A100", gib(80), tflops_milli(312000)});
  const label_mask eu = inv.label("region=eu-west-1");
  const label_mask ch = inv.label("jurisdiction=CH");
  const label_mask us = inv.label("region=us-east-1");
  for (const label_mask l : {us, us, eu, ch}) {
    node_spec s = node("n", 1);
    s.labels = l;
    inv.add_node(s);
  }
  matcher<policy_best_fit> m(inv);
  placement_request r = ask(1, 1000, isolation_level::gpu);
  r.residency = eu | ch;
  const constraint_counts w = m.explain(r);
  CHECK(w.feasible == 2);
  CHECK(w.count("residency") == 2);
  CHECK(w.summary() == "2 of 4 nodes fit: 2 are outside the allowed regions, zones or jurisdictions");
  const auto p1 = m.place(r);
  const auto p2 = m.place(r);
  REQUIRE((p1 && p2));
  CHECK((inv.spec(p1->node).labels & (eu | ch)) != 0);
  CHECK((inv.spec(p2->node).labels & (eu | ch)) != 0);
  CHECK_FALSE(m.place(r));
}

TEST_CASE("node_tenancy: 'only this tenant' is never wrongly true (random place/release, 8 tenants)") {
  std::mt19937_64 rng(20261203);  // fixed seed
  node_tenancy t;
  std::vector<placement> live;
  std::map<tenant_id, int> truth;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 2 == 0) {
      placement p;
      p.tenant = static_cast<tenant_id>(rng() % 8);
      live.push_back(p);
      t.add(p);
      ++truth[p.tenant];
    } else {
      const std::size_t k = rng() % live.size();
      t.remove(live[k]);
      --truth[live[k].tenant];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    }
    for (tenant_id x = 0; x < 8; ++x) {
      bool alone = true;
      for (const auto& [y, n] : truth) alone = alone && (y == x || n == 0);
      if (!alone) REQUIRE_FALSE(t.only(x));
      if (live.empty()) REQUIRE(t.only(x));  // exact again once the node empties
    }
  }
}

TEST_CASE("the decision observer: once per decision, before it is applied; none changes nothing") {
  inventory a = cluster(3);
  inventory b = cluster(3);
  matcher<policy_best_fit> plain(a);
  matcher<policy_best_fit> seen(b);
  struct log {
    std::vector<std::size_t> feasible;
    std::vector<bool> placed;
    std::vector<std::int64_t> allocated_before;
    void operator()(const match_decision& d) {
      feasible.push_back(d.explain_fn(d.source, d.request).feasible);
      placed.push_back(d.result.has_value());
      allocated_before.push_back(d.inv.gpu_allocated_milli());
    }
  } l;
  seen.set_observer(decision_observer::of(l));
  for (int i = 0; i < 7; ++i) {
    const auto r = ask(static_cast<tenant_id>(i % 2), 1000, isolation_level::gpu);
    CHECK(plain.place(r) == seen.place(r));
  }
  CHECK(l.placed == std::vector<bool>{true, true, true, true, true, true, false});
  CHECK(l.feasible == std::vector<std::size_t>{3, 3, 2, 2, 1, 1, 0});
  CHECK(l.allocated_before == std::vector<std::int64_t>{0, 1000, 2000, 3000, 4000, 5000, 6000});
}

}  // namespace test_matching_isolation
