// SPDX-License-Identifier: MIT
// Gangs on the network topology (gang.hpp, docs/formats/fleet.md): all or nothing
// (the inventory exactly as before on failure), segments, exclusive blocks, required and
// preferred levels, nodes outside the topology, down and drained nodes, the 2 + 4 gang,
// departures, explanations with counts, and, on random small clusters, the placer's answer
// against a brute-force search and its placements against this file's own rule check.

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gpurent/matching/matching.hpp>
#include <gpurent/matching/reference/full_scan_gang.hpp>

using namespace gpurent;

// Named, not anonymous, and around the test cases too: the layer's tests are also built as
// one unity translation unit, where every file's helpers would meet.
namespace test_matching_gang {

using gpurent::detail::uniform_below;

// A cluster of `spines` x `blocks_per_spine` x `per_block` nodes of `gpus` GPUs, then
// `outside` nodes in no domain. Levels: spine, block.
struct cluster {
  inventory inv;
  cluster_topology topo;
  cluster(int spines, int blocks_per_spine, int per_block, int gpus, int outside = 0) {
    inv.add_model({"GB200", gib(192), {}});
    const int inside = spines * blocks_per_spine * per_block;
    for (int i = 0; i < inside + outside; ++i) {
      node_spec s;
      s.name = "n" + std::to_string(i);
      s.cpu_milli = milli_cpu(144000);
      s.memory_mib = mebibytes(983040);
      s.gpu_count = static_cast<std::uint8_t>(gpus);
      inv.add_node(s);
    }
    topo = *cluster_topology::make({"spine", "block"}, inv.size());
    for (int i = 0; i < inside; ++i) {
      const int block = i / per_block;
      const std::string spine = "s" + std::to_string(block / blocks_per_spine);
      const std::string name = "b" + std::to_string(block);
      const std::array<std::string_view, 2> path{spine, name};
      REQUIRE(topo.assign(static_cast<std::size_t>(i), path));
    }
  }
};

placement_request whole(std::int32_t k) {
  placement_request r;
  r.num_gpu = k;
  r.gpu_milli = milli_gpu(1000);
  r.cpu_milli = milli_cpu(1000);
  return r;
}

gang_request gang(std::int32_t workers, std::int32_t gpus) {
  gang_request g;
  g.member = whole(gpus);
  g.workers = workers;
  return g;
}

// Everything a placement can change, per node: the inventory "exactly as before".
struct snapshot {
  std::vector<std::int64_t> cpu, memory;
  std::vector<std::array<std::int32_t, max_gpus_per_node>> idle;
  std::vector<std::uint32_t> placements;
  std::int64_t allocated = 0;
  friend bool operator==(const snapshot&, const snapshot&) = default;
};
snapshot snap(const inventory& inv) {
  snapshot s;
  for (node_index n = 0; n < inv.size(); ++n) {
    s.cpu.push_back(inv.state(n).cpu_free.count());
    s.memory.push_back(inv.state(n).memory_free.count());
    std::array<std::int32_t, max_gpus_per_node> idle{};
    for (std::size_t g = 0; g < max_gpus_per_node; ++g) idle[g] = inv.state(n).idle[g];
    s.idle.push_back(idle);
    s.placements.push_back(inv.state(n).placements);
  }
  s.allocated = inv.gpu_allocated_milli();
  return s;
}

// This file's own check of one placed gang (no code shared with the placer or gang_check):
// every member on an up node; per_node; topology rules; each GPU taken at most once.
struct own_check {
  const inventory& inv;
  const cluster_topology& topo;
  std::map<std::pair<node_index, std::size_t>, int> gpu_users;  // (node, gpu) -> members
  std::map<std::size_t, std::set<gang_id>> block_gangs;         // base block -> gangs there
  std::set<gang_id> exclusive;

  [[nodiscard]] std::string check(const gang_request& g, gang_id id, const std::vector<placement>& ps) {
    if (ps.size() != g.size()) return "not all members";
    std::map<node_index, int> per_node;
    for (std::size_t m = 0; m < ps.size(); ++m) {
      const placement& p = ps[m];
      if (inv.condition(p.node) != node_condition::up) return "on a node not up";
      if (g.topology_bound() && !topo.in_topology(p.node)) return "outside the topology";
      if (g.per_node > 0 && ++per_node[p.node] > g.per_node) return "per_node";
      if (g.required != no_level && topo.domain_of(p.node, g.required) != topo.domain_of(ps[0].node, g.required)) return "required";
      if (g.segment > 0) {
        const std::size_t first = m / static_cast<std::size_t>(g.segment) * static_cast<std::size_t>(g.segment);
        if (topo.block_of(p.node) != topo.block_of(ps[first].node)) return "segment";
      }
      if (p.count != static_cast<std::size_t>(g.at(m).num_gpu)) return "GPU count";
      for (std::size_t i = 0; i < p.count; ++i)
        if (++gpu_users[{p.node, p.gpus[i].gpu}] > 1) return "a GPU taken twice";
      if (topo.in_topology(p.node)) block_gangs[topo.block_of(p.node)].insert(id);
    }
    if (g.exclusive) exclusive.insert(id);
    for (const auto& [b, ids] : block_gangs)
      if (ids.size() > 1 && std::any_of(ids.begin(), ids.end(), [&](gang_id x) { return exclusive.count(x) > 0; }))
        return "an exclusive block shared";
    return {};
  }
  void forget(gang_id id, const std::vector<placement>& ps) {
    for (const placement& p : ps) {
      for (std::size_t i = 0; i < p.count; ++i) --gpu_users[{p.node, p.gpus[i].gpu}];
      if (topo.in_topology(p.node)) block_gangs[topo.block_of(p.node)].erase(id);
    }
    exclusive.erase(id);
  }
};

TEST_CASE("gangs: the 2 + 4 gang fits in either order (exact search)") {
  for (const bool four_first : {false, true}) {
    inventory inv;
    inv.add_model({"H100", gib(80), {}});
    node_spec a;
    a.name = "four";
    a.cpu_milli = milli_cpu(64000);
    a.memory_mib = mebibytes(262144);
    a.gpu_count = 4;
    node_spec b = a;
    b.name = "two";
    b.gpu_count = 2;
    inv.add_node(a);
    inv.add_node(b);
    const std::array<placement_request, 2> members = four_first ? std::array{whole(4), whole(2)} : std::array{whole(2), whole(4)};
    cluster_topology topo = *cluster_topology::make({}, inv.size());
    gang_placer<gang_policy_best_fit> gp(inv, topo);
    gang_request g;
    g.members = members;
    std::vector<placement> out;
    REQUIRE(gp.place(g, 7, out));
    CHECK(out.size() == 2);
    CHECK(out[four_first ? 0 : 1].node == 0);
    CHECK(inv.gpu_allocated_milli() == 6000);
  }
}

TEST_CASE("gangs: a failed gang leaves the inventory exactly as before") {
  cluster c(1, 2, 3, 4);  // 2 blocks of 3 nodes
  gang_placer<gang_policy_gpurent> gp(c.inv, c.topo);
  std::vector<placement> out;
  gang_request small = gang(2, 3);
  REQUIRE(gp.place(small, 0, out));
  const snapshot before = snap(c.inv);
  SUBCASE("too many members") {
    gang_request g = gang(7, 4);
    CHECK_FALSE(gp.place(g, 1, out));
  }
  SUBCASE("a segment no block holds") {
    gang_request g = gang(4, 4);
    g.segment = 4;  // 3 nodes per block
    g.per_node = 1;
    CHECK_FALSE(gp.place(g, 1, out));
  }
  SUBCASE("members that differ, no arrangement") {
    const std::array<placement_request, 4> ms{whole(2), whole(4), whole(4), whole(4)};
    gang_request g;
    g.members = ms;
    g.required = 1;  // 4 whole nodes in all, at most 3 in one block
    CHECK_FALSE(gp.place(g, 1, out));
  }
  CHECK(out.empty());
  CHECK(snap(c.inv) == before);
}

TEST_CASE("gangs: segments sit in one base block each, and fail when no block holds one") {
  cluster c(1, 3, 4, 4);  // 3 blocks of 4 nodes
  gang_placer<gang_policy_slurm_block> gp(c.inv, c.topo);
  std::vector<placement> first;
  REQUIRE(gp.place(gang(3, 4), 0, first));  // 3 whole nodes somewhere
  gang_request g = gang(8, 4);
  g.segment = 4;
  g.per_node = 1;
  std::vector<placement> out;
  REQUIRE(gp.place(g, 1, out));
  own_check oc{c.inv, c.topo, {}, {}, {}};
  CHECK(oc.check(gang(3, 4), 0, first).empty());
  CHECK(oc.check(g, 1, out).empty());
  for (std::size_t s = 0; s < 2; ++s)
    for (std::size_t m = 1; m < 4; ++m) CHECK(c.topo.block_of(out[s * 4 + m].node) == c.topo.block_of(out[s * 4].node));
  CHECK(c.topo.block_of(out[0].node) != c.topo.block_of(out[4].node));
  // One node is free in total: a segment of 2 has nowhere to go, a plain member does.
  gang_request pair = gang(2, 4);
  pair.segment = 2;
  CHECK_FALSE(gp.place(pair, 2, out));
  CHECK(gp.place(gang(1, 4), 3, out));
}

TEST_CASE("gangs: an exclusive gang takes an empty block and keeps it to itself until it leaves") {
  cluster c(1, 3, 2, 4);  // 3 blocks of 2 nodes of 4 GPUs
  gang_placer<gang_policy_gpurent> gp(c.inv, c.topo);
  std::vector<placement> a, ex;
  REQUIRE(gp.place(gang(1, 1), 0, a));  // one GPU: its block is no longer empty
  gang_request e = gang(2, 2);
  e.exclusive = true;
  e.per_node = 1;
  REQUIRE(gp.place(e, 1, ex));
  const domain_index held = c.topo.block_of(ex[0].node);
  CHECK(c.topo.block_of(ex[1].node) == held);
  CHECK(held != c.topo.block_of(a[0].node));
  CHECK(gp.holder(held) == 1);
  // Outside the held block there is room for 3 + 4 members of 2 GPUs; the held block has 4
  // more, which nobody else may use.
  std::vector<std::vector<placement>> twos;
  for (gang_id id = 2; id < 9; ++id) {
    std::vector<placement> p;
    REQUIRE(gp.place(gang(1, 2), id, p));
    CHECK(c.topo.block_of(p[0].node) != held);
    twos.push_back(p);
  }
  std::vector<placement> none;
  CHECK_FALSE(gp.place(gang(1, 2), 9, none));
  gang_request again = gang(1, 2);
  again.exclusive = true;
  CHECK_FALSE(gp.place(again, 10, none));
  const why_not w = gp.explain(again);
  CHECK(w.summary().rfind(
            "member 0 of 1 does not fit: 0 of 3 blocks can hold a member: 1 are held exclusively by another gang, 2 have other jobs' members "
            "(an exclusive gang needs empty blocks) (nodes for one member: 2 of 6 nodes fit: 4 lack 2 idle GPUs)",
            0) == 0);
  gp.release(1, ex);
  CHECK(gp.holder(held) == no_gang);
  REQUIRE(gp.place(gang(1, 2), 9, none));
  CHECK(c.topo.block_of(none[0].node) == held);
}

TEST_CASE("gangs: a required level keeps every member in one domain, or the gang does not place") {
  cluster c(2, 2, 2, 4);  // spine s0: nodes 0-3, spine s1: nodes 4-7
  gang_placer<gang_policy_kueue_best_fit> gp(c.inv, c.topo);
  gp.set_condition(0, node_condition::down);
  gp.set_condition(4, node_condition::down);  // 3 nodes up per spine
  std::vector<placement> out;
  gang_request g = gang(4, 4);
  g.required = 0;
  CHECK_FALSE(gp.place(g, 0, out));
  const why_not w = gp.explain(g);
  CHECK(w.summary().find("0 of 2 spine domains can hold 4 members: 2 have room for fewer than 4 members") != std::string::npos);
  CHECK(gp.place(gang(4, 4), 1, out));  // without the rule the 4 fit
  gp.release(1, out);
  g.workers = 3;
  REQUIRE(gp.place(g, 2, out));
  for (const placement& p : out) CHECK(c.topo.domain_of(p.node, 0) == c.topo.domain_of(out[0].node, 0));
}

TEST_CASE("gangs: nodes outside the topology serve only gangs without topology rules") {
  cluster c(1, 1, 2, 4, 2);  // one block of 2 nodes, 2 nodes in no domain
  gang_placer<gang_policy_best_fit> gp(c.inv, c.topo);
  std::vector<placement> out;
  gang_request seg = gang(3, 4);
  seg.preferred = 1;  // a rule: only the block's 2 nodes
  CHECK_FALSE(gp.place(seg, 0, out));
  const gang_request plain = gang(4, 4);
  REQUIRE(gp.place(plain, 1, out));
  CHECK(std::count_if(out.begin(), out.end(), [&](const placement& p) { return !c.topo.in_topology(p.node); }) == 2);
}

TEST_CASE("gangs: down and drained nodes take nothing new; drained nodes keep what runs") {
  cluster c(1, 1, 4, 4);  // one block of 4 nodes
  gang_placer<gang_policy_gpurent> gp(c.inv, c.topo);
  std::vector<placement> running, out;
  REQUIRE(gp.place(gang(1, 2), 0, running));
  const node_index busy = running[0].node;
  const node_index other = busy == 0 ? 1 : 0;
  gp.set_condition(busy, node_condition::drain);
  gp.set_condition(other, node_condition::down);
  CHECK(c.inv.condition(other) == node_condition::down);
  CHECK(c.inv.state(busy).placements == 1);  // still running
  gang_request g = gang(3, 2);
  g.per_node = 1;
  CHECK_FALSE(gp.place(g, 1, out));  // 2 nodes up
  g.workers = 2;
  REQUIRE(gp.place(g, 1, out));
  for (const placement& p : out) CHECK((p.node != busy && p.node != other));
  gp.release(1, out);
  gp.set_condition(other, node_condition::up);
  g.workers = 3;
  CHECK(gp.place(g, 1, out));
}

TEST_CASE("gangs: the preferred level is met when some domain holds the gang, else the gang spreads") {
  cluster c(2, 1, 3, 4);  // spine s0: nodes 0-2, spine s1: nodes 3-5
  gang_placer<gang_policy_gpurent> gp(c.inv, c.topo);
  std::vector<placement> out;
  gang_request g = gang(3, 4);
  g.preferred = 0;
  const auto met = gp.place(g, 0, out);
  REQUIRE(met);
  CHECK(met->preferred_met);
  for (const placement& p : out) CHECK(c.topo.domain_of(p.node, 0) == c.topo.domain_of(out[0].node, 0));
  gp.release(0, out);
  gp.set_condition(0, node_condition::drain);
  gp.set_condition(3, node_condition::drain);  // 2 nodes up per spine
  g.workers = 2;
  const auto met2 = gp.place(g, 1, out);
  REQUIRE(met2);
  CHECK(met2->preferred_met);
  gp.release(1, out);
  g.workers = 4;  // no spine holds 4: the gang spreads
  const auto met3 = gp.place(g, 2, out);
  REQUIRE(met3);
  CHECK_FALSE(met3->preferred_met);
  CHECK(out.size() == 4);
}

TEST_CASE("gangs: explanations count blocks per reason and name the member that did not fit") {
  cluster c(1, 4, 4, 4);  // 4 blocks of 4 nodes
  gang_placer<gang_policy_gpurent> gp(c.inv, c.topo);
  std::vector<placement> ex, small;
  gang_request e = gang(4, 4);
  e.exclusive = true;
  e.per_node = 1;
  REQUIRE(gp.place(e, 0, ex));  // holds one block
  for (gang_id id = 1; id <= 3; ++id) {
    std::vector<placement> p;
    gang_request one = gang(1, 4);
    one.required = 1;
    REQUIRE(gp.place(one, id, p));  // one node of another block each (gpurent: the broken block first)
  }
  gang_request g = gang(12, 4);
  g.segment = 4;
  g.per_node = 1;
  std::vector<placement> out;
  CHECK_FALSE(gp.place(g, 9, out));
  const why_not w = gp.explain(g);
  CHECK(w.members == 12);
  CHECK(w.total == 4);
  CHECK(w.candidates == "blocks");
  std::size_t counted = w.holding;
  for (const auto& r : w.reasons) counted += r.count;
  CHECK(counted == 4);  // every block holds a segment or has one reason
  // gpurent's policy put the three single nodes into one broken block, keeping two whole.
  CHECK(w.summary().rfind("member 8 of 12 does not fit: 2 of 4 blocks can hold a segment of 4: 1 have room for fewer than 4 members, 1 are held "
                          "exclusively by another gang (nodes for one member: ",
                          0) == 0);
}

// ---- random small clusters: the placer against a brute-force search ----

// Whether gang g can be placed at all, by trying every assignment of members to nodes
// (this file's own search): node capacity by idle whole GPUs, the gang's rules, blocks
// held by live exclusive gangs, busy blocks for an exclusive gang.
struct brute {
  const inventory& inv;
  const cluster_topology& topo;
  const std::set<domain_index>& held;  // blocks of live exclusive gangs
  const gang_request& g;
  std::vector<int> left;  // idle whole GPUs per usable node
  std::vector<node_index> at;
  std::map<node_index, int> count;

  [[nodiscard]] bool usable(node_index n) const {
    if (inv.condition(n) != node_condition::up) return false;
    if (!topo.in_topology(n)) return !g.topology_bound();
    const domain_index b = topo.block_of(n);
    if (held.count(b) > 0) return false;
    if (!g.exclusive) return true;
    for (node_index k = 0; k < inv.size(); ++k)
      if (topo.in_topology(k) && topo.block_of(k) == b && inv.state(k).placements > 0) return false;
    return true;
  }
  [[nodiscard]] bool run() {
    left.assign(inv.size(), 0);
    for (node_index n = 0; n < inv.size(); ++n) {
      if (!usable(n)) continue;
      int idle = 0;
      for (std::size_t k = 0; k < inv.spec(n).gpu_count; ++k) idle += inv.state(n).idle[k] == 1000 ? 1 : 0;
      left[n] = idle;
    }
    return next(0);
  }
  [[nodiscard]] bool next(std::size_t m) {
    if (m == g.size()) return true;
    for (node_index n = 0; n < inv.size(); ++n) {
      const int need = g.at(m).num_gpu;
      if (left[n] < need || (g.per_node > 0 && count[n] >= g.per_node)) continue;
      if (m > 0 && g.required != no_level && topo.domain_of(n, g.required) != topo.domain_of(at[0], g.required)) continue;
      if (g.segment > 0 && m % static_cast<std::size_t>(g.segment) != 0 &&
          topo.block_of(n) != topo.block_of(at[m / static_cast<std::size_t>(g.segment) * static_cast<std::size_t>(g.segment)]))
        continue;
      left[n] -= need;
      ++count[n];
      at.push_back(n);
      const bool ok = next(m + 1);
      at.pop_back();
      --count[n];
      left[n] += need;
      if (ok) return true;
    }
    return false;
  }
};

gang_request random_gang(std::mt19937_64& rng) {
  gang_request g = gang(static_cast<std::int32_t>(1 + uniform_below(rng, 5)), static_cast<std::int32_t>(1 + uniform_below(rng, 4)));
  g.per_node = static_cast<std::int32_t>(uniform_below(rng, 3));
  const std::uint64_t rule = uniform_below(rng, 6);
  if (rule == 1) g.required = 0;
  if (rule == 2) g.required = 1;
  if (rule == 3) g.preferred = static_cast<level_index>(uniform_below(rng, 2));
  if (rule == 4 && g.workers % 2 == 0) g.segment = 2;
  if (rule == 5) g.segment = g.workers;
  g.exclusive = uniform_below(rng, 8) == 0;
  return g;
}

template <class Placer>
void random_run(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  cluster c(2, 2, 2, 4, 1);  // 8 nodes in 4 blocks of 2 over 2 spines, 1 outside
  Placer gp(c.inv, c.topo);
  std::map<gang_id, std::pair<gang_request, std::vector<placement>>> live;
  own_check oc{c.inv, c.topo, {}, {}, {}};
  std::deque<std::vector<placement_request>> storage;  // heterogeneous gangs' members
  for (gang_id id = 0; id < 60; ++id) {
    if (uniform_below(rng, 10) == 0) {
      const auto n = static_cast<node_index>(uniform_below(rng, c.inv.size()));
      const bool busy = c.inv.state(n).placements > 0;
      gp.set_condition(n, busy ? node_condition::drain : static_cast<node_condition>(uniform_below(rng, 3)));
    }
    if (uniform_below(rng, 15) == 0) {  // a burst past the inventory's journal: the layout reads every node again
      const auto n = static_cast<node_index>(uniform_below(rng, c.inv.size()));
      const node_condition was = c.inv.condition(n), other = was == node_condition::up ? node_condition::drain : node_condition::up;
      for (std::size_t i = 0; i < inventory::journal_capacity + 2; ++i) gp.set_condition(n, i % 2 == 0 ? other : was);
    }
    if (!live.empty() && uniform_below(rng, 4) == 0) {  // a trial release and its undo
      const auto& [k, v] = *std::next(live.begin(), static_cast<std::ptrdiff_t>(uniform_below(rng, live.size())));
      const snapshot kept = snap(c.inv);
      gp.release(k, v.second);
      gp.restore(v.first, k, v.second);
      REQUIRE(snap(c.inv) == kept);
      if (v.first.exclusive) CHECK(gp.holder(c.topo.block_of(v.second[0].node)) == k);
    }
    if (!live.empty() && uniform_below(rng, 3) == 0) {  // a departure
      auto it = std::next(live.begin(), static_cast<std::ptrdiff_t>(uniform_below(rng, live.size())));
      gp.release(it->first, it->second.second);
      oc.forget(it->first, it->second.second);
      live.erase(it);
    }
    gang_request g = random_gang(rng);
    if (uniform_below(rng, 4) == 0) {  // members that differ: the exact search
      auto& ms = storage.emplace_back();
      for (std::int32_t m = 0; m < g.workers; ++m) ms.push_back(whole(static_cast<std::int32_t>(1 + uniform_below(rng, 4))));
      g.members = ms;
    }
    std::set<domain_index> held;
    for (const auto& [k, v] : live)
      if (v.first.exclusive)
        for (const placement& p : v.second) held.insert(c.topo.block_of(p.node));
    brute b{c.inv, c.topo, held, g, {}, {}, {}};
    const bool possible = b.run();
    const snapshot before = snap(c.inv);
    REQUIRE(gp.fits(g, id) == possible);
    REQUIRE(snap(c.inv) == before);  // fits changes nothing
    std::vector<placement> out;
    const bool placed = gp.place(g, id, out).has_value();
    INFO("seed " << seed << " gang " << id << " workers " << g.size() << " homogeneous " << g.homogeneous() << " gpus " << g.member.num_gpu
                 << " per_node " << g.per_node << " segment " << g.segment << " required " << int(g.required) << " exclusive " << g.exclusive);
    REQUIRE(placed == possible);
    if (!placed) {
      CHECK(snap(c.inv) == before);
      continue;
    }
    REQUIRE(oc.check(g, id, out) == "");
    live[id] = {g, out};
  }
}

TEST_CASE("gangs: on random small clusters every policy places exactly the gangs that fit, by the rules; fits and restore") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    random_run<gang_placer<gang_policy_gpurent>>(seed);
    random_run<gang_placer<gang_policy_slurm_block>>(seed);
    random_run<gang_placer<gang_policy_kueue_best_fit>>(seed);
    random_run<gang_placer<gang_policy_best_fit>>(seed);
  }
}

// The cached placer and the full-scan baseline over two equal clusters, driven alike (the
// cached one's running counts and choices, gang/room.hpp and gang/best.hpp, against views
// of every group).
template <GangPolicy GP>
struct twins {
  cluster a{2, 4, 4, 4, 3};
  cluster b{2, 4, 4, 4, 3};
  gang_placer<GP> fast{a.inv, a.topo};
  full_scan_gang_placer<GP> slow{b.inv, b.topo};

  // Both count g's room in the whole cluster alike (the running count of gang/room.hpp
  // against the full count), and both place it, or neither, on the same nodes.
  bool place(const gang_request& g, gang_id id, std::vector<placement>& x) {
    if (g.counted_by_domain()) REQUIRE(fast.units(g, id, no_level, 0) == slow.units(g, id, no_level, 0));
    REQUIRE(fast.fits(g, id) == slow.fits(g, id));
    std::vector<placement> y;
    const bool px = fast.place(g, id, x).has_value();
    REQUIRE(px == slow.place(g, id, y).has_value());
    REQUIRE(x == y);
    return px;
  }
  template <class F>
  void both(F f) {
    f(fast);
    f(slow);
  }
};

template <GangPolicy GP>
void twins_place(std::uint64_t seed) {
  INFO(GP::name);
  std::mt19937_64 rng(seed);
  twins<GP> t;
  std::vector<gang_request> gangs;
  std::vector<std::vector<placement>> placed;
  for (gang_id id = 0; id < 80; ++id) {
    const gang_request g = random_gang(rng);
    std::vector<placement> x;
    (void)t.place(g, id, x);
    gangs.push_back(g);
    placed.push_back(x);
  }
  const gang_check_result r = check_gangs(t.a.inv, t.a.topo, gangs, placed);
  CHECK(r.violations == 0);
}

TEST_CASE("gangs: the full-scan baseline makes the cached placer's decisions, and check_gangs finds no violation") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    twins_place<gang_policy_gpurent>(seed);
    twins_place<gang_policy_best_fit>(seed);
    twins_place<gang_policy_slurm_block>(seed);
  }
}

template <GangPolicy GP>
void twins_churn(std::uint64_t seed) {
  INFO(GP::name);
  std::mt19937_64 rng(seed);
  twins<GP> t;
  std::map<gang_id, std::pair<gang_request, std::vector<placement>>> live;
  for (gang_id id = 0; id < 300; ++id) {
    INFO("seed " << seed << " gang " << id);
    if (!live.empty() && uniform_below(rng, 3) == 0) {  // a departure, an exclusive one's blocks held a while
      auto it = std::next(live.begin(), static_cast<std::ptrdiff_t>(uniform_below(rng, live.size())));
      const gang_id k = it->first;  // not a structured binding: clang 14 does not capture those
      const auto& v = it->second;
      t.both([&](auto& p) { p.release(k, v.second); });
      if (v.first.exclusive && uniform_below(rng, 2) == 0) {
        t.both([&](auto& p) { p.hold_blocks(k, v.second); });
        std::vector<placement> x;
        if (t.place(v.first, id, x)) t.both([&](auto& p) { p.release(id, x); });  // the held blocks closed to it
        t.both([&](auto& p) { p.unhold_blocks(k, v.second); });
      }
      live.erase(it);
    }
    if (uniform_below(rng, 15) == 0) {  // a burst past the inventory's journal: each layout reads every node again
      const auto n = static_cast<node_index>(uniform_below(rng, t.a.inv.size()));
      const node_condition was = t.a.inv.condition(n), other = was == node_condition::up ? node_condition::drain : node_condition::up;
      for (std::size_t i = 0; i < inventory::journal_capacity + 2; ++i) t.both([&](auto& p) { p.set_condition(n, i % 2 == 0 ? other : was); });
    }
    if (!live.empty() && uniform_below(rng, 4) == 0) {  // a trial release and its undo
      const auto at = std::next(live.begin(), static_cast<std::ptrdiff_t>(uniform_below(rng, live.size())));
      const gang_id k = at->first;
      const auto& v = at->second;
      // Half of them release only the members in one base block, as a preemption's fit
      // test inside that block does (preempt/preemptor.hpp, trial_parts).
      std::vector<placement> part;
      const domain_index b = v.second.empty() ? outside_topology : t.a.topo.block_of(v.second.front().node);
      for (const placement& p : v.second)
        if (uniform_below(rng, 2) == 0 || t.a.topo.block_of(p.node) == b) part.push_back(p);
      const std::span<const placement> released = uniform_below(rng, 2) == 0 ? std::span<const placement>(v.second) : part;
      t.both([&](auto& p) { p.release(k, released); });
      if (v.first.counted_by_domain()) REQUIRE(t.fast.units(v.first, k, no_level, 0) == t.slow.units(v.first, k, no_level, 0));
      if (v.first.counted_by_domain() && b != outside_topology) {
        const level_index bl = t.a.topo.block_level();
        REQUIRE(t.fast.units(v.first, k, bl, v.second.front().node) == t.slow.units(v.first, k, bl, v.second.front().node));
      }
      t.both([&](auto& p) { p.restore(v.first, k, released); });
    }
    const gang_request g = random_gang(rng);
    std::vector<placement> x;
    if (t.place(g, id, x)) live[id] = {g, x};
  }
}

TEST_CASE("gangs: with departures, trial releases and held blocks the cached placer still decides as the full scan") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    twins_churn<gang_policy_gpurent>(seed);
    twins_churn<gang_policy_best_fit>(seed);
    twins_churn<gang_policy_slurm_block>(seed);
  }
}

TEST_CASE("gangs: check_gangs counts members placed against a rule") {
  cluster c(1, 2, 2, 4);
  std::vector<gang_request> gangs{gang(2, 4), gang(1, 4)};
  gangs[0].segment = 2;
  gangs[0].exclusive = true;
  std::vector<std::vector<placement>> placed(2);
  const auto at = [&](node_index n) {
    placement p = inventory::make_placement(n, gangs[0].member, gpu_pick{});
    p.count = 4;
    for (std::size_t i = 0; i < 4; ++i) p.gpus[i] = gpu_take{static_cast<std::uint8_t>(i), 1000, -1, 0};
    return p;
  };
  placed[0] = {at(0), at(2)};  // a segment of 2 split over blocks b0 and b1
  placed[1] = {at(1)};         // in b0 with the exclusive gang
  const gang_check_result r = check_gangs(c.inv, c.topo, gangs, placed);
  CHECK(r.violations == 3);
  CHECK_FALSE(r.messages.empty());
}

TEST_CASE("gangs: check_gangs lets strangers share a GPU only when all asked for no isolation, a node unless one asked for node isolation") {
  // Two one-member gangs of tenants 1 and 2 on node n0, half a GPU each. Until 2026-12-07 a
  // GPU with two tenants was a violation whatever they asked (fleet pack said "violations":
  // 2 on a legal placement), and node isolation was not checked.
  cluster c(1, 1, 1, 2);
  struct scene {
    isolation_level a, b;
    std::uint8_t gpu_b;  // b's GPU (a takes GPU 0)
    std::size_t violations;
  };
  const scene cases[] = {
      {isolation_level::none, isolation_level::none, 0, 0},   {isolation_level::none, isolation_level::gpu, 0, 2},
      {isolation_level::gpu, isolation_level::gpu, 1, 0},     {isolation_level::node, isolation_level::gpu, 1, 2},
      {isolation_level::gpu, isolation_level::network, 1, 2},
  };
  for (const scene& k : cases) {
    CAPTURE(static_cast<int>(k.a));
    CAPTURE(static_cast<int>(k.b));
    std::vector<gang_request> gangs(2);
    std::vector<std::vector<placement>> placed(2);
    for (std::size_t j = 0; j < 2; ++j) {
      gangs[j].member.num_gpu = 1;
      gangs[j].member.gpu_milli = milli_gpu(500);
      gangs[j].member.tenant = static_cast<tenant_id>(j + 1);
      gangs[j].member.isolation = j == 0 ? k.a : k.b;
      placement p = inventory::make_placement(0, gangs[j].member, gpu_pick{});
      p.count = 1;
      p.gpus[0] = gpu_take{j == 0 ? std::uint8_t{0} : k.gpu_b, 500, -1, 0};
      placed[j] = {p};
    }
    CHECK(check_gangs(c.inv, c.topo, gangs, placed).violations == k.violations);
    if (k.b == isolation_level::none) continue;
    placed[1][0].isolation = isolation_level::none;  // a placement that claims less than its request asked
    const gang_check_result r = check_gangs(c.inv, c.topo, gangs, placed);
    CHECK(r.violations >= 1);
    CHECK(std::any_of(r.messages.begin(), r.messages.end(), [](const std::string& m) { return m.find("isolation differ") != std::string::npos; }));
  }
}

TEST_CASE("gangs: invalid gangs are refused with the field named") {
  cluster c(1, 1, 2, 4);
  gang_request g = gang(3, 1);
  g.segment = 2;
  CHECK(check_gang(g, c.topo).error().field == "segment");
  g.segment = 0;
  g.required = 5;
  CHECK(check_gang(g, c.topo).error().field == "required");
  gang_placer<gang_policy_gpurent> gp(c.inv, c.topo);
  std::vector<placement> out;
  CHECK_FALSE(gp.place(g, 0, out));
  CHECK(gp.explain(g).summary().find("invalid gang") != std::string::npos);
}

}  // namespace test_matching_gang
