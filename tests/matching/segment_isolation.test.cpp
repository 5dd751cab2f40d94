// SPDX-License-Identifier: MIT
// Network isolation holds a segment (docs/isolation.md): a network segment in use by a
// placement under network isolation is its tenant's until that tenant's last network
// placement there leaves. No other tenant's work lands anywhere in it, at any level, and a
// network placement never joins a segment with another tenant's work. Checked in the node
// matcher and the gang placer (a gang naming no segment gets one of its own), with the
// explanations' counts, and by a randomized property test over place and release.

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/matching/matching.hpp>
#include <gpurent/matching/reference/full_scan_gang.hpp>

// Named, not anonymous: the layer's tests are also built as one unity translation unit.
namespace test_segment_isolation {
using namespace gpurent;

constexpr std::string_view segment_names[] = {"pkey-a", "pkey-b", "pkey-c"};

// `segments` network segments of `per_segment` nodes of 4 GPUs each (n0, n1 in pkey-a, ...).
inventory cluster(std::size_t segments, std::size_t per_segment) {
  inventory inv;
  inv.add_model({"H100", gib(80), {}});
  for (std::size_t s = 0; s < segments; ++s) {
    const segment_id id = inv.segment(segment_names[s]);
    for (std::size_t i = 0; i < per_segment; ++i) {
      node_spec n;
      n.name = "n" + std::to_string(s * per_segment + i);
      n.cpu_milli = milli_cpu(64000);
      n.memory_mib = mebibytes(262144);
      n.gpu_count = 4;
      n.segment = id;
      inv.add_node(n);
    }
  }
  return inv;
}

placement_request ask(tenant_id t, isolation_level level, std::int32_t gpus = 1, segment_id segment = no_segment) {
  placement_request r;
  r.num_gpu = gpus;
  r.gpu_milli = milli_gpu(1000);
  r.cpu_milli = milli_cpu(1000);
  r.tenant = t;
  r.isolation = level;
  r.segment = segment;
  return r;
}

gang_request gang_of(const placement_request& member, std::int32_t workers) {
  gang_request g;
  g.member = member;
  g.workers = workers;
  return g;
}

// The rule, from the live placements alone: per segment, its tenants and whether one of them
// is there under network isolation. Empty when it holds; else what broke it.
std::string broken_segment(const inventory& inv, const std::vector<placement>& live) {
  std::map<segment_id, std::set<tenant_id>> tenants;
  std::map<segment_id, bool> network;
  for (const placement& p : live) {
    const segment_id s = inv.spec(p.node).segment;
    if (s == no_segment) continue;
    tenants[s].insert(p.tenant);
    network[s] = network[s] || p.isolation == isolation_level::network;
  }
  for (const auto& [s, ts] : tenants)
    if (network[s] && ts.size() > 1)
      return "segment " + std::string(inv.segment_name(s)) + " holds " + std::to_string(ts.size()) + " tenants, one under network isolation";
  return {};
}

TEST_CASE("matcher: a network tenant holds its segment; another network tenant naming it is refused") {
  inventory inv = cluster(2, 3);
  const segment_id a = inv.spec(0).segment;
  matcher<policy_best_fit> m(inv);
  const auto x = m.place(ask(1, isolation_level::network, 1, a));
  REQUIRE(x);
  CHECK(inv.spec(x->node).segment == a);
  // Tenant 2 under network isolation names the same segment: its other nodes have room, but
  // the segment is tenant 1's.
  const placement_request y = ask(2, isolation_level::network, 1, a);
  CHECK_FALSE(m.place(y));
  const constraint_counts w = m.explain(y);
  CHECK(w.count("isolated") == 1);  // n0 itself: held by tenant 1's work
  CHECK(w.count("isolated-segment") == 2);
  CHECK(w.count("isolation-network") == 3);
  CHECK(w.summary().find("2 are in a network segment held in isolation by another tenant") != std::string::npos);
  // Tenant 1's own work still joins its segment.
  CHECK(m.place(ask(1, isolation_level::network, 1, a)));
}

TEST_CASE("matcher: a gpu-level tenant never lands in a segment a network tenant holds") {
  inventory inv = cluster(2, 2);
  const segment_id a = inv.spec(0).segment;
  matcher<policy_best_fit> m(inv);
  std::vector<placement> live;
  live.push_back(*m.place(ask(1, isolation_level::network, 1, a)));
  for (int i = 0; i < 8; ++i) {  // 8 GPUs of segment b, then nothing
    const auto p = m.place(ask(2, isolation_level::gpu));
    REQUIRE(p);
    CHECK(inv.spec(p->node).segment != a);
    live.push_back(*p);
  }
  CHECK(broken_segment(inv, live).empty());
  const placement_request more = ask(2, isolation_level::gpu);
  CHECK_FALSE(m.place(more));
  const constraint_counts w = m.explain(more);
  CHECK(w.count("isolated") == 1);          // n0, tenant 1's own node
  CHECK(w.count("isolated-segment") == 1);  // n1, idle but in tenant 1's segment
  CHECK(w.count("gpus") == 2);              // segment b is full
  // And the other way round: tenant 3 under network isolation does not join segment b,
  // where tenant 2 has work on both nodes.
  const placement_request net = ask(3, isolation_level::network, 1, inv.spec(2).segment);
  CHECK_FALSE(m.place(net));
  CHECK(m.explain(net).count("isolation-node") == 2);
}

TEST_CASE("matcher: the segment is free for others once the network tenant's last job leaves") {
  inventory inv = cluster(1, 3);
  const segment_id a = inv.spec(0).segment;
  matcher<policy_best_fit> m(inv);
  const auto p1 = m.place(ask(1, isolation_level::network, 4, a));
  const auto p2 = m.place(ask(1, isolation_level::network, 4, a));
  REQUIRE((p1 && p2));
  const placement_request other = ask(2, isolation_level::gpu);
  CHECK_FALSE(m.place(other));
  m.release(*p1);
  CHECK_FALSE(m.place(other));  // p2 still holds the segment
  // A preemption trial's release and restore leave the hold as it was.
  m.release(*p2);
  inv.place(*p2);
  CHECK_FALSE(m.place(other));
  m.release(*p2);
  const auto q = m.place(other);
  REQUIRE(q);
  CHECK(inv.spec(q->node).segment == a);
  // Now tenant 2 has work there: tenant 1 under network isolation waits for it to leave,
  // on q's node and on the two idle ones.
  const placement_request back = ask(1, isolation_level::network, 1, a);
  CHECK_FALSE(m.place(back));
  const constraint_counts w = m.explain(back);
  CHECK(w.count("isolation-node") == 1);
  CHECK(w.count("isolation-segment") == 2);
  CHECK(w.summary().find("2 are in a network segment with another tenant's work (network isolation)") != std::string::npos);
  m.release(*q);
  CHECK(m.place(ask(1, isolation_level::network, 1, a)));
}

TEST_CASE("gang placer: two network tenants naming no segment never share one; the explanation counts the held segments") {
  inventory inv = cluster(2, 2);
  auto topo = cluster_topology::make({}, inv.size());
  REQUIRE(topo);
  gang_placer<gang_policy_gpurent> placer(inv, *topo);
  std::vector<placement> out;
  REQUIRE(placer.place(gang_of(ask(1, isolation_level::network), 1), 0, out));
  const segment_id first = inv.spec(out[0].node).segment;
  REQUIRE(placer.place(gang_of(ask(2, isolation_level::network), 1), 1, out));
  CHECK(inv.spec(out[0].node).segment != first);
  // A third tenant finds both segments held, and is told so.
  const gang_request third = gang_of(ask(3, isolation_level::network), 1);
  CHECK_FALSE(placer.fits(third, 2));
  CHECK_FALSE(placer.place(third, 2, out));
  const why_not w = placer.explain(third);
  CHECK(w.candidates == "network segments");
  CHECK(w.holding == 0);
  REQUIRE(w.reasons.size() == 1);
  CHECK(w.reasons[0].count == 2);
  CHECK(w.summary().find("0 of 2 network segments can hold all 1 members: 2 are held in isolation by another tenant") != std::string::npos);
  // A gpu-level gang of a fourth tenant has nowhere to go either: every node is in a held segment.
  const gang_request plain = gang_of(ask(4, isolation_level::gpu), 1);
  CHECK_FALSE(placer.place(plain, 3, out));
  const constraint_counts nodes = placer.explain(plain).nodes;
  CHECK(nodes.count("isolated") == 2);
  CHECK(nodes.count("isolated-segment") == 2);
}

TEST_CASE("gang placer: a gang of several tenants keeps the rule among its own members") {
  inventory inv = cluster(1, 2);
  auto topo = cluster_topology::make({}, inv.size());
  REQUIRE(topo);
  gang_placer<gang_policy_gpurent> placer(inv, *topo);
  const std::vector<placement_request> members{ask(1, isolation_level::network, 1, inv.spec(0).segment), ask(2, isolation_level::gpu)};
  gang_request g;
  g.members = members;
  std::vector<placement> out;
  CHECK_FALSE(placer.fits(g, 0));  // two nodes with room, one segment: not for both tenants
  CHECK_FALSE(placer.place(g, 0, out));
  CHECK(inv.gpu_allocated_milli() == 0);
}

// Random place and release through the matcher or the gang placer: after every step no
// segment holds work of two tenants while one of them is there under network isolation,
// and the inventory's count of held segments agrees.
struct random_run {
  std::mt19937_64 rng;
  inventory inv = cluster(3, 3);
  std::vector<std::vector<placement>> live;  // per job

  explicit random_run(std::uint64_t seed) : rng(seed) {}

  [[nodiscard]] int pick(int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }

  // Any tenant of 4, any level; whole GPUs or a share; under network half name a segment.
  [[nodiscard]] placement_request random_request() {
    constexpr isolation_level levels[] = {isolation_level::none, isolation_level::gpu, isolation_level::node, isolation_level::network};
    placement_request r = ask(static_cast<tenant_id>(pick(4)), levels[pick(4)], 1 + pick(3));
    if (pick(3) == 0) {
      r.num_gpu = 1;
      r.gpu_milli = milli_gpu(250 * (1 + pick(3)));
    }
    if (r.isolation == isolation_level::network && pick(2) == 0) r.segment = static_cast<segment_id>(1 + pick(3));
    return r;
  }

  // Job k leaves (release: each of its placements) and is forgotten.
  template <class Release>
  void release_one(std::size_t k, Release&& release) {
    release(live[k]);
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
  }

  void check() const {
    std::vector<placement> all;
    for (const auto& j : live) all.insert(all.end(), j.begin(), j.end());
    const std::string why = broken_segment(inv, all);
    REQUIRE_MESSAGE(why.empty(), why);
  }
};

TEST_CASE("property: the matcher never mixes a network tenant's segment with another tenant (random place/release)") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    random_run run(seed);
    matcher<policy_best_fit> m(run.inv);
    for (int step = 0; step < 300; ++step) {
      INFO("seed " << seed << ", step " << step);
      if (!run.live.empty() && run.pick(3) == 0) {
        run.release_one(static_cast<std::size_t>(run.pick(static_cast<int>(run.live.size()))), [&](const std::vector<placement>& ps) {
          for (const placement& p : ps) m.release(p);
        });
      } else if (const auto p = m.place(run.random_request())) {
        run.live.push_back({*p});
      }
      run.check();
    }
  }
}

TEST_CASE("property: the gang placer never mixes a network tenant's segment with another tenant, and its counts match the full scan") {
  const std::vector<std::string_view> blocks{"b0", "b1"};
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    random_run run(seed);
    inventory twin = run.inv;
    auto topo = cluster_topology::make({"block"}, run.inv.size());
    REQUIRE(topo);
    for (node_index n = 0; n < run.inv.size(); ++n) {  // blocks cut across the segments
      const std::array<std::string_view, 1> path{blocks[n % 2]};
      REQUIRE(topo->assign(n, path));
    }
    cluster_topology twin_topo = *topo;
    gang_placer<gang_policy_gpurent> placer(run.inv, *topo);
    full_scan_gang_placer<gang_policy_gpurent> slow(twin, twin_topo);
    std::vector<gang_id> ids;
    std::vector<std::vector<placement_request>> member_lists;
    member_lists.reserve(300);
    for (int step = 0; step < 300; ++step) {
      INFO("seed " << seed << ", step " << step);
      if (!run.live.empty() && run.pick(3) == 0) {
        const auto k = static_cast<std::size_t>(run.pick(static_cast<int>(run.live.size())));
        run.release_one(k, [&](const std::vector<placement>& ps) {
          placer.release(ids[k], ps);
          slow.release(ids[k], ps);
        });
        ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        gang_request g = gang_of(run.random_request(), 1 + run.pick(3));
        if (run.pick(4) == 0) {  // members of two tenants (the exact search)
          member_lists.push_back({g.member, run.random_request()});
          g.members = member_lists.back();
        }
        std::vector<placement> out, slow_out;
        const bool fits = placer.fits(g, static_cast<gang_id>(step));
        const bool placed = placer.place(g, static_cast<gang_id>(step), out).has_value();
        CHECK(fits == placed);
        REQUIRE(placed == slow.place(g, static_cast<gang_id>(step), slow_out).has_value());
        REQUIRE(out == slow_out);
        if (placed) {
          run.live.push_back(out);
          ids.push_back(static_cast<gang_id>(step));
        }
      }
      run.check();
    }
  }
}

}  // namespace test_segment_isolation
