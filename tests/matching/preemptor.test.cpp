// SPDX-License-Identifier: MIT
// The preemption search on a Placer (matching/preempt/): candidate domains, trial release
// and restore, placing the preemptor in the victims' room, and the holds of the notice
// window. fleet run's tests cover it inside the loop; these drive it alone.

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/matching/matching.hpp>
#include <gpurent/matching/preempt/plan.hpp>
#include <gpurent/matching/preempt/preemptor.hpp>

using namespace gpurent;

namespace preemptor_test {

node_spec node(std::string name, std::uint8_t gpus) {
  node_spec s;
  s.name = std::move(name);
  s.cpu_milli = milli_cpu(64000);
  s.memory_mib = mebibytes(262144);
  s.gpu_count = gpus;
  return s;
}

gang_request job(std::int32_t gpus) {
  gang_request g;
  g.member.num_gpu = gpus;
  g.member.gpu_milli = milli_gpu(1000);
  g.member.cpu_milli = milli_cpu(1000);
  return g;
}

// A share of one GPU for tenant t.
gang_request share(std::int32_t milli, tenant_id t) {
  gang_request g;
  g.member.num_gpu = 1;
  g.member.gpu_milli = milli_gpu(milli);
  g.member.tenant = t;
  return g;
}

// One node of `gpus` H100s, a best-fit matcher on it, and room for three running jobs.
struct one_node {
  inventory inv;
  matcher<policy_best_fit> m;
  running_jobs running{3};
  explicit one_node(std::uint8_t gpus) : inv(with_node(gpus)), m(inv) {}
  static inventory with_node(std::uint8_t gpus) {
    inventory i;
    i.add_model({"H100", gib(80), {}});
    i.add_node(node("n0", gpus));
    return i;
  }
};

// Two 4-GPU nodes, each running one low-priority 4-GPU job (ids 0 on n0, 1 on n1); the
// victim of job v costs cost[v].
struct scene {
  inventory inv;
  running_jobs running{2};
  std::vector<gang_request> gangs{job(4), job(4)};
  std::vector<std::vector<placement>> members{2};
  std::vector<std::int64_t> cost{50, 10};
  scene() {
    inv.add_model({"H100", gib(80), {}});
    inv.add_node(node("n0", 4));
    inv.add_node(node("n1", 4));
  }
  template <class Pl>
  void start(Pl& pl) {
    for (std::uint32_t v = 0; v < 2; ++v) {
      REQUIRE(pl.place(gangs[v], v, members[v]));
      running.add(v, members[v]);
    }
  }
  [[nodiscard]] std::optional<victim> candidate(std::uint32_t v) const {
    victim c;
    c.job = v;
    c.gpu_milli = 4000;
    c.lost = seconds(cost[v]);
    return c;
  }
};

TEST_CASE("running jobs: per node, the GPUs each job and the preemptible jobs hold, through starts and stops") {
  // Job 0 (preemptible) has two members on node 0 and one on node 1; job 1 (not preemptible)
  // shares node 1; job 2 (preemptible) holds a MIG slice, which counts no milli-GPU.
  const auto on = [](node_index n, std::initializer_list<std::int16_t> milli) {
    placement p;
    p.node = n;
    for (const std::int16_t m : milli) {
      p.gpus[p.count] = gpu_take{p.count, m, -1, 0};
      ++p.count;
    }
    return p;
  };
  running_jobs running(3);
  const std::vector<placement> a{on(0, {1000, 1000}), on(0, {500}), on(1, {1000})}, b{on(1, {1000, 1000})};
  std::vector<placement> c{on(2, {})};
  c[0].gpus[0] = gpu_take{0, 0, 0, 0};
  c[0].count = 1;
  running.add(0, a, true);
  running.add(1, b, false);
  running.add(2, c, true);
  CHECK(running.preemptible_milli(0) == 2500);
  CHECK(running.preemptible_milli(1) == 1000);
  CHECK(running.preemptible_milli(2) == 0);
  CHECK(running.on(0).size() == 1);  // once per node
  const auto held = [&](node_index n) { return std::vector<std::int64_t>(running.held_on(n).begin(), running.held_on(n).end()); };
  CHECK(held(0) == std::vector<std::int64_t>{2500});        // job 0's two placements there, summed
  CHECK(held(1) == std::vector<std::int64_t>{1000, 2000});  // in the order of on(1): jobs 0 and 1
  running.remove(0, a);
  CHECK(running.preemptible_milli(0) == 0);
  CHECK(running.preemptible_milli(1) == 0);
  CHECK(held(0).empty());
  CHECK(held(1) == std::vector<std::int64_t>{2000});  // job 1's entry moved with its id
  running.remove(1, b);
  running.add(1, b, true);  // the same id may run again, preemptible this time
  CHECK(running.preemptible_milli(1) == 2000);
  CHECK(running.all().size() == 2);
}

TEST_CASE("preemptor: the cheaper victim's node, trials leave the inventory as it was") {
  scene s;
  matcher<policy_best_fit> m(s.inv);
  s.start(m);
  REQUIRE(s.members[0][0].node == 0);
  REQUIRE(s.members[1][0].node == 1);
  static_assert(Placer<matcher<policy_best_fit>>);
  preemptor<matcher<policy_best_fit>, victim_policy_gpurent> pre(m, s.running);
  const gang_request big = job(4);
  std::vector<placement> out;
  REQUIRE_FALSE(m.place(big, 9, out));
  const auto candidate = [&](std::uint32_t v) { return s.candidate(v); };
  const auto members = [&](std::uint32_t v) { return std::span<const placement>(s.members[v]); };
  const auto gang = [&](std::uint32_t v) -> const gang_request& { return s.gangs[v]; };
  REQUIRE(pre.choose(big, 9, nullptr, candidate, members, gang));
  CHECK(s.inv.gpu_allocated_milli() == 8000);  // every trial restored
  CHECK(pre.selection().domain() == 1);        // job 1 loses less
  REQUIRE(pre.selection().victims().size() == 1);
  CHECK(pre.selection().victims()[0].job == 1);
  REQUIRE(pre.selection().runner_up().size() == 1);
  CHECK(pre.selection().runner_up()[0].job == 0);

  // Limited to node 0: the only domain offered.
  const std::vector<node_index> only_zero{0};
  const std::span<const node_index> limited(only_zero);
  REQUIRE(pre.choose(big, 9, &limited, candidate, members, gang));
  CHECK(pre.selection().domain() == 0);

  // The caller stops job 1; the preemptor goes to its node; the victim runs out a notice of
  // 30 s, holding its tenancy till it stops at 130, the preemptor starting at 130.
  REQUIRE(pre.choose(big, 9, nullptr, candidate, members, gang));
  m.release(1, s.members[1]);
  s.running.remove(1, s.members[1]);
  REQUIRE(pre.place(big, 9, out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].node == 1);
  const auto at = fleet_time::at_second;
  const std::vector<stopped_victim> stopped{{1, s.members[1], at(130), false}};
  pre.hold_for(at(100), at(130), out, stopped);
  CHECK(pre.next_expiry() == at(130));
  std::vector<node_index> freed;
  pre.expire(
      at(129), [&](const placement& h) { freed.push_back(h.node); }, [&](node_index n) { freed.push_back(n); });
  CHECK(freed.empty());
  pre.expire(
      at(130), [&](const placement& h) { freed.push_back(h.node); }, [&](node_index n) { freed.push_back(n); });
  CHECK(freed == std::vector<node_index>{1});  // the tenancy hold ends on node 1
  CHECK(pre.next_expiry() == pre.never_ends);
  CHECK(s.inv.gpu_allocated_milli() == 8000);  // job 0 and the preemptor
}

TEST_CASE("preemptor: leftovers beyond the preemptor are held until the notice ends") {
  scene s;
  matcher<policy_best_fit> m(s.inv);
  s.start(m);
  preemptor<matcher<policy_best_fit>, victim_policy_kube> pre(m, s.running);
  const gang_request small = job(2);  // needs 2 GPUs; the victim held 4
  const auto candidate = [&](std::uint32_t v) { return s.candidate(v); };
  const auto members = [&](std::uint32_t v) { return std::span<const placement>(s.members[v]); };
  const auto gang = [&](std::uint32_t v) -> const gang_request& { return s.gangs[v]; };
  REQUIRE(pre.choose(small, 9, nullptr, candidate, members, gang));
  const std::uint32_t v = pre.selection().victims()[0].job;
  m.release(v, s.members[v]);
  s.running.remove(v, s.members[v]);
  std::vector<placement> out;
  REQUIRE(pre.place(small, 9, out));
  CHECK(s.inv.gpu_allocated_milli() == 6000);
  const auto at = fleet_time::at_second;
  const std::vector<stopped_victim> stopped{{v, s.members[v], at(200), false}};
  pre.hold_for(at(100), at(130), out, stopped);
  CHECK(s.inv.gpu_allocated_milli() == 8000);  // the victim's other 2 GPUs, held
  std::vector<placement> room;
  pre.expire(
      at(130), [&](const placement& h) { room.push_back(h); }, [](node_index) {});
  REQUIRE(room.size() == 1);
  CHECK(room[0].gpu_milli_total() == 2000);
  CHECK(s.inv.gpu_allocated_milli() == 6000);
  pre.expire(
      at(200), [&](const placement& h) { room.push_back(h); }, [](node_index) {});
  CHECK(room.size() == 2);  // the tenancy hold, no resources
  CHECK(s.inv.gpu_allocated_milli() == 6000);
}

TEST_CASE("preemptor: a victim's leftover is held for its tenant, beside that tenant's other work on the GPU") {
  // One node, 2 GPUs. On GPU 0: victim v (tenant 1, 0.5 GPU) and w (tenant 1, 0.3 GPU),
  // which stays. The preemptor (tenant 2) takes GPU 1; v's half of GPU 0 stays held for
  // tenant 1 through v's notice, so no stranger joins the GPU v still runs on.
  one_node s(2);
  inventory& inv = s.inv;
  matcher<policy_best_fit>& m = s.m;
  running_jobs& running = s.running;
  std::vector<placement> v, w, p;
  REQUIRE(m.place(share(500, tenant_id{1}), 0, v));
  REQUIRE(m.place(share(300, tenant_id{1}), 1, w));
  REQUIRE(v[0].gpus[0].gpu == w[0].gpus[0].gpu);  // one GPU, one tenant
  const std::uint8_t g = v[0].gpus[0].gpu;
  running.add(0, v);
  running.add(1, w);
  preemptor<matcher<policy_best_fit>, victim_policy_kube> pre(m, running);
  m.release(0, v);
  running.remove(0, v);
  REQUIRE(m.place(job(1), 2, p));  // the preemptor, whole GPU: the other one
  REQUIRE(p[0].gpus[0].gpu != g);
  const auto at = fleet_time::at_second;
  const std::vector<stopped_victim> stopped{{0, v, at(130), false}};
  pre.hold_for(at(100), at(130), p, stopped);
  CHECK(inv.state(0).idle[g] == 200);  // v's half held beside w
  CHECK(inv.state(0).owner[g] == tenant_id{1});
  std::vector<placement> stranger;
  CHECK_FALSE(m.place(share(100, no_tenant), 3, stranger));  // neither GPU takes a stranger now
  std::vector<placement> freed;
  pre.expire(
      at(130), [&](const placement& h) { freed.push_back(h); }, [](node_index) {});
  REQUIRE_FALSE(freed.empty());
  CHECK(freed[0].tenant == tenant_id{1});
  CHECK(inv.state(0).idle[g] == 700);
  CHECK_FALSE(m.place(share(100, no_tenant), 3, stranger));  // w is tenant 1's: still closed to strangers
}

TEST_CASE("preemptor: a GPU the preemptor of another tenant shares with its victim takes nobody until the notice ends") {
  // One node, 1 GPU: victim v (tenant 1, GPU isolation) on it. The preemptor (tenant 2)
  // takes part of the same GPU and starts when v stops. The inventory then says the GPU is
  // tenant 2's, but v still runs there: no job, not even tenant 2's, joins before v stops.
  // Until 2026-12-07 tenant 2's next job joined (the simulation, seeds 45 and 67).
  for (const std::int32_t taken : {125, 375, 500}) {
    CAPTURE(taken);
    one_node s(1);
    std::vector<placement> v, p, joiner;
    REQUIRE(s.m.place(share(375, tenant_id{1}), 0, v));
    s.running.add(0, v);
    preemptor<matcher<policy_best_fit>, victim_policy_kube> pre(s.m, s.running);
    s.m.release(0, v);
    s.running.remove(0, v);
    REQUIRE(s.m.place(share(taken, tenant_id{2}), 1, p));
    const auto at = fleet_time::at_second;
    const std::vector<stopped_victim> stopped{{0, v, at(130), false}};
    pre.hold_for(at(100), at(130), p, stopped);
    CHECK(s.inv.state(0).idle[0] == 0);
    CHECK_FALSE(s.m.place(share(100, tenant_id{2}), 2, joiner));
    CHECK_FALSE(s.m.place(share(100, tenant_id{1}), 2, joiner));
    pre.expire(
        at(130), [](const placement&) {}, [](node_index) {});
    CHECK(s.inv.state(0).idle[0] == 1000 - taken);
    CHECK(s.m.place(share(100, tenant_id{2}), 2, joiner));
  }
}

TEST_CASE("preemptor: node by node, a node in a block another gang holds exclusively is no candidate") {
  // n0 in block b0, n1 in b1. Job 0 (1 GPU, exclusive) holds b0 and may not be preempted; job
  // 1 fills n1. A 2-GPU job fits n0's free GPUs by the node's constraints, but the gang
  // placer keeps b0 to job 0: only job 1's node is a candidate (choosing n0 with no victim
  // left the preemptor nowhere to go, and fleet run stopped on it).
  inventory inv;
  inv.add_model({"H100", gib(80), {}});
  inv.add_node(node("n0", 4));
  inv.add_node(node("n1", 4));
  auto topo = cluster_topology::make({"block"}, 2);
  REQUIRE(topo);
  for (node_index n = 0; n < 2; ++n) {
    const std::array<std::string_view, 1> path{n == 0 ? "b0" : "b1"};
    REQUIRE(topo->assign(n, path));
  }
  gang_placer<gang_policy_best_fit> gp(inv, *topo);
  running_jobs running(2);
  std::vector<gang_request> gangs{job(1), job(4)};
  gangs[0].exclusive = true;
  std::vector<std::vector<placement>> members(2);
  for (std::uint32_t v = 0; v < 2; ++v) {
    REQUIRE(gp.place(gangs[v], v, members[v]));
    running.add(v, members[v]);
  }
  REQUIRE(members[0][0].node == 0);
  REQUIRE(members[1][0].node == 1);
  const gang_request two = job(2);
  std::vector<placement> out;
  REQUIRE_FALSE(gp.place(two, 9, out));
  CHECK_FALSE(gp.admits(0, two, 9));  // b0 is job 0's
  CHECK(gp.admits(0, job(1), 0));     // to job 0's own members it is open
  static_assert(Placer<gang_placer<gang_policy_best_fit>>);
  preemptor<gang_placer<gang_policy_best_fit>, victim_policy_kube> pre(gp, running);
  const auto candidate = [&](std::uint32_t v) -> std::optional<victim> {
    if (v == 0) return std::nullopt;  // job 0 may not be preempted
    victim c;
    c.job = v;
    c.gpu_milli = 4000;
    return c;
  };
  const auto mem = [&](std::uint32_t v) { return std::span<const placement>(members[v]); };
  const auto gang = [&](std::uint32_t v) -> const gang_request& { return gangs[v]; };
  REQUIRE(pre.choose(two, 9, nullptr, candidate, mem, gang));
  CHECK(pre.selection().domain() == 1);
  REQUIRE(pre.selection().victims().size() == 1);
  CHECK(pre.selection().victims()[0].job == 1);
  gp.release(1, members[1]);
  running.remove(1, members[1]);
  REQUIRE(pre.place(two, 9, out));  // what fleet run asserts
  CHECK(out[0].node == 1);
}

TEST_CASE("preemptor: a gang required inside one block searches each block's jobs") {
  inventory inv;
  inv.add_model({"H100", gib(80), {}});
  for (int i = 0; i < 4; ++i) inv.add_node(node("n" + std::to_string(i), 4));
  auto topo = cluster_topology::make({"block"}, 4);
  REQUIRE(topo);
  for (node_index n = 0; n < 4; ++n) {
    const std::array<std::string_view, 1> path{n < 2 ? "b0" : "b1"};
    REQUIRE(topo->assign(n, path));
  }
  gang_placer<gang_policy_best_fit> gp(inv, *topo);
  running_jobs running(4);
  std::vector<gang_request> gangs(4, job(4));
  std::vector<std::vector<placement>> members(4);
  for (std::uint32_t v = 0; v < 4; ++v) {
    REQUIRE(gp.place(gangs[v], v, members[v]));
    running.add(v, members[v]);
  }
  gang_request pair = job(4);
  pair.workers = 2;
  pair.required = 0;  // both members inside one block
  preemptor<gang_placer<gang_policy_best_fit>, victim_policy_gpurent> pre(gp, running);
  const auto candidate = [&](std::uint32_t v) -> std::optional<victim> {
    victim c;
    c.job = v;
    c.gpu_milli = 4000;
    c.lost = seconds(v == 1 ? 1000 : 10);  // block b0 holds an expensive victim
    return c;
  };
  const auto mem = [&](std::uint32_t v) { return std::span<const placement>(members[v]); };
  const auto gang = [&](std::uint32_t v) -> const gang_request& { return gangs[v]; };
  REQUIRE(pre.choose(pair, 9, nullptr, candidate, mem, gang));
  CHECK(inv.gpu_allocated_milli() == 16000);
  CHECK(pre.selection().domain() == 1);  // block b1: jobs 2 and 3, cheaper together
  REQUIRE(pre.selection().victims().size() == 2);
}

// A gang of two segments of two nodes, no required level, on three blocks of two nodes each
// running two one-node jobs: its victims compose block by block, the two cheapest blocks'
// sets joined, whether the plan orders and bounds the blocks or visits them all in order.
TEST_CASE("preemptor: a gang of segments composes its victims block by block") {
  inventory inv;
  inv.add_model({"H100", gib(80), {}});
  for (int i = 0; i < 6; ++i) inv.add_node(node("n" + std::to_string(i), 4));
  auto topo = cluster_topology::make({"block"}, 6);
  REQUIRE(topo);
  for (node_index n = 0; n < 6; ++n) {
    const std::string b = "b" + std::to_string(n / 2);
    const std::array<std::string_view, 1> path{b};
    REQUIRE(topo->assign(n, path));
  }
  gang_placer<gang_policy_best_fit> gp(inv, *topo);
  running_jobs running(6);
  std::vector<gang_request> gangs(6, job(4));
  std::vector<std::vector<placement>> members(6);
  for (std::uint32_t v = 0; v < 6; ++v) {
    REQUIRE(gp.place(gangs[v], v, members[v]));
    running.add(v, members[v]);
  }
  gang_request train = job(4);
  train.workers = 4;
  train.per_node = 1;
  train.segment = 2;
  const std::array<std::int64_t, 6> lost{100, 100, 900, 900, 10, 10};  // block b1 is dear
  const auto candidate = [&](std::uint32_t v) -> std::optional<victim> {
    victim c;
    c.job = v;
    c.gpu_milli = 4000;
    c.lost = seconds(lost[v]);
    return c;
  };
  const auto mem = [&](std::uint32_t v) { return std::span<const placement>(members[v]); };
  const auto gang = [&](std::uint32_t v) -> const gang_request& { return gangs[v]; };
  for (const bool exhaustive : {false, true}) {
    preemptor<gang_placer<gang_policy_best_fit>, victim_policy_gpurent> pre(gp, running);
    pre.set_exhaustive(exhaustive);
    REQUIRE(pre.choose(train, 9, nullptr, candidate, mem, gang));
    CHECK(inv.gpu_allocated_milli() == 24000);  // every trial restored
    std::vector<std::uint32_t> chosen;
    for (const victim& v : pre.selection().victims()) chosen.push_back(v.job);
    std::sort(chosen.begin(), chosen.end());
    CHECK(chosen == std::vector<std::uint32_t>{0, 1, 4, 5});  // blocks b0 and b2
  }
}

victim costing(std::uint32_t job, std::int64_t lost_s, std::int64_t restart_s) {
  victim v;
  v.job = job;
  v.gpu_milli = 4000;
  v.lost = seconds(lost_s);
  v.restart = seconds(restart_s);
  return v;
}

TEST_CASE("preemption plan: domains that cannot hold the job are left out; the rest from the lowest bound") {
  domain_plan plan;
  plan.clear();
  // Domain 3: two candidates at 120 and 50 seconds per milli-GPU; 3,000 milli-GPUs needed:
  // 2,000 at 50 then 1,000 at 120.
  plan.begin(3);
  plan.add(costing(7, 100, 20), 4000);
  plan.add(costing(8, 30, 20), 2000);
  plan.end(3000, true, true);
  // Domain 1: one candidate holding 2,000 inside, 3,000 needed: no set, left out.
  plan.begin(1);
  plan.add(costing(9, 0, 0), 2000);
  plan.end(3000, true, true);
  // Domain 2: nothing needed beyond its idle GPUs (it failed for another reason): bound 0.
  plan.begin(2);
  plan.add(costing(10, 500, 20), 1000);
  plan.end(-500, true, true);
  // Domain 0: no candidate at all.
  plan.begin(0);
  plan.end(0, true, true);
  plan.order();
  REQUIRE(plan.entries().size() == 2);
  CHECK(plan.entries()[0].domain == 2);
  CHECK(plan.entries()[0].bound == 0);
  CHECK(plan.entries()[1].domain == 3);
  CHECK(plan.entries()[1].bound == 2000 * 50 + 1000 * 120);
  REQUIRE(plan.victims(plan.entries()[1]).size() == 2);
  CHECK(plan.victims(plan.entries()[1])[1].job == 8);
  // Visiting every domain (the slow twin): domain 1 stays, nothing bounded, input order.
  plan.clear();
  plan.begin(1);
  plan.add(costing(9, 0, 0), 2000);
  plan.end(3000, false, false);
  REQUIRE(plan.entries().size() == 1);
  CHECK(plan.entries()[0].bound == 0);
}

TEST_CASE("preemption plan: a bound never exceeds the cost of a set that frees what is needed") {
  // Exhaustively over the subsets of 6 random candidates: every subset freeing at least
  // `needed` inside costs at least the bound (a victim pays for all its GPUs).
  std::uint64_t x = 88172645463325252ULL;
  const auto next = [&](std::int64_t n) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return static_cast<std::int64_t>(x % static_cast<std::uint64_t>(n));
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<victim> vs;
    std::vector<std::int64_t> inside;
    domain_plan plan;
    plan.begin(0);
    for (std::uint32_t i = 0; i < 6; ++i) {
      victim v = costing(i, next(4000), next(300));
      v.gpu_milli = 1000 * (1 + next(8));
      inside.push_back(std::min<std::int64_t>(v.gpu_milli, 1000 * next(9)));
      vs.push_back(v);
      plan.add(v, inside.back());
    }
    const std::int64_t needed = 1000 * (1 + next(20));
    plan.end(needed, true, true);
    for (std::uint32_t mask = 0; mask < 64; ++mask) {
      std::int64_t freed = 0, cost = 0;
      for (std::uint32_t i = 0; i < 6; ++i)
        if ((mask >> i & 1U) != 0) {
          freed += inside[i];
          cost += vs[i].cost();
        }
      if (freed < needed) continue;
      REQUIRE(plan.entries().size() == 1);
      CHECK(plan.entries()[0].bound <= cost);
    }
  }
}

}  // namespace preemptor_test
