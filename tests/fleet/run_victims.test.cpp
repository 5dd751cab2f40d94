// SPDX-License-Identifier: MIT
// Victim selection (matching/preempt/victims.hpp) and the checkpoint model (fleet/run/checkpoint.hpp),
// on hand-computed scenarios: kube's order tie by tie, gpurent's lost work, minimality.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <gpurent/fleet/run/checkpoint.hpp>
#include <gpurent/matching/preempt/victims.hpp>

namespace test_fleet_run_victims {
using namespace gpurent;

victim v(std::uint32_t job, std::int32_t prio, std::int64_t start, std::int64_t gpus, std::int64_t lost = 0) {
  victim x;
  x.job = job;
  x.priority = prio;
  x.start = fleet_time::at_second(start);
  x.gpu_milli = gpus * 1000;
  x.lost = seconds(lost);
  x.since_checkpoint = seconds(lost);
  return x;
}

// One domain: `free` GPUs idle, the job needs `need`; removing a candidate frees its GPUs.
struct gpu_domain {
  std::int64_t free = 0;
  std::int64_t need = 0;
  std::vector<victim> c;
  [[nodiscard]] bool fits(victim_mask m) const {
    std::int64_t f = free * 1000;
    for (std::size_t i = 0; i < c.size(); ++i) f += m[i] != 0 ? c[i].gpu_milli : 0;
    return f >= need * 1000;
  }
};

template <VictimPolicy VP>
std::vector<std::uint32_t> choose(const std::vector<gpu_domain>& ds, victim_selector<VP>& s) {
  s.reset();
  for (std::uint32_t d = 0; d < ds.size(); ++d) s.consider(d, ds[d].c, [&](victim_mask m) { return ds[d].fits(m); });
  std::vector<std::uint32_t> jobs;
  for (const victim& x : s.victims()) jobs.push_back(x.job);
  return jobs;
}

std::string name_of(std::uint32_t j) { return "spot-" + std::to_string(j); }

TEST_CASE("kube: remove every candidate, re-admit the most important first while the job fits") {
  // 0 free, need 4. B (prio 50) is re-admitted first (4 free left), then A (prio 0, earlier
  // start) does not fit back, nor C: victims A and C.
  victim_selector<victim_policy_kube> s;
  const std::vector<gpu_domain> ds{{0, 4, {v(1, 0, 10, 2), v(2, 50, 5, 2), v(3, 0, 20, 2)}}};
  CHECK(choose(ds, s) == std::vector<std::uint32_t>{1, 3});
  // Nothing that makes it fit: nothing chosen.
  const std::vector<gpu_domain> none{{0, 8, {v(1, 0, 10, 2), v(2, 0, 5, 2)}}};
  CHECK(choose(none, s).empty());
  CHECK_FALSE(s.found());
  CHECK(s.explain(name_of) == "no set of victims makes it fit");
}

TEST_CASE("kube: among domains, lowest highest-victim priority, then sum, then count, then latest start, then first") {
  victim_selector<victim_policy_kube> s;
  // 1. highest victim priority: domain 1's victim has priority 0, domain 0's 10.
  CHECK(choose({{0, 2, {v(1, 10, 0, 2)}}, {0, 2, {v(2, 0, 0, 2)}}}, s) == std::vector<std::uint32_t>{2});
  CHECK(s.domain() == 1);
  // 2. same highest (5), smaller sum: domain 1 (5 + 0 + 0 = 5) beats domain 0 (5 + 5 = 10)
  //    although it evicts more jobs.
  CHECK(choose({{0, 4, {v(1, 5, 0, 2), v(2, 5, 0, 2)}}, {0, 4, {v(3, 5, 0, 2), v(4, 0, 0, 1), v(5, 0, 0, 1)}}}, s) ==
        std::vector<std::uint32_t>{3, 4, 5});
  // 3. same highest and sum (0): fewer victims.
  CHECK(choose({{0, 3, {v(1, 0, 0, 1), v(2, 0, 0, 1), v(3, 0, 0, 1)}}, {0, 3, {v(4, 0, 0, 2), v(5, 0, 0, 1)}}}, s) ==
        std::vector<std::uint32_t>{4, 5});
  // 4. same highest, sum, count: the latest start of the highest-priority victims, taking
  //    each domain's earliest (domain 0: min(300, 50) = 50; domain 1: 100).
  CHECK(choose({{0, 4, {v(1, 0, 300, 2), v(2, 0, 50, 2)}}, {0, 4, {v(3, 0, 100, 2), v(4, 0, 100, 2)}}}, s) == std::vector<std::uint32_t>{3, 4});
  // 5. a full tie: the first domain.
  CHECK(choose({{0, 2, {v(1, 0, 7, 2)}}, {0, 2, {v(2, 0, 7, 2)}}}, s) == std::vector<std::uint32_t>{1});
  CHECK(s.domain() == 0);
}

TEST_CASE("gpurent: the fewest lost GPU-seconds plus restart, and the explanation") {
  victim_selector<victim_policy_gpurent> s;
  // Two spot jobs of 4 GPUs on one node: 28 min and 3 min since their checkpoints.
  CHECK(choose({{0, 4, {v(9, 0, 0, 4, 28 * 60), v(17, 0, 0, 4, 3 * 60)}}}, s) == std::vector<std::uint32_t>{17});
  // The same jobs on two nodes: the node of the cheaper victim, the other named.
  CHECK(choose({{0, 4, {v(9, 0, 0, 4, 28 * 60)}}, {0, 4, {v(17, 0, 0, 4, 3 * 60)}}}, s) == std::vector<std::uint32_t>{17});
  CHECK(s.explain(name_of) == "evicts spot-17 (4 GPUs, 3 min since checkpoint) instead of spot-9 (4 GPUs, 28 min since checkpoint)");
  // Two small cheap victims (2 x 150 s and 2 x 10 s: 320 GPU-s) beat one large one (4 x 100 s).
  CHECK(choose({{0, 4, {v(1, 0, 0, 2, 150), v(2, 0, 0, 2, 10), v(3, 0, 0, 4, 100)}}}, s) == std::vector<std::uint32_t>{1, 2});
  // kube there: remove all, re-admit 1 and 2 (equal priority and start: candidate order),
  // then 3 does not fit back: it evicts the 400 GPU-s job.
  victim_selector<victim_policy_kube> k;
  CHECK(choose({{0, 4, {v(1, 0, 0, 2, 150), v(2, 0, 0, 2, 10), v(3, 0, 0, 4, 100)}}}, k) == std::vector<std::uint32_t>{3});
}

TEST_CASE("both policies: the set makes the job fit and is minimal; gpurent's costs no more than kube's") {
  std::mt19937 rng(1717);
  for (int round = 0; round < 400; ++round) {
    gpu_domain d;
    d.free = std::uniform_int_distribution<int>(0, 3)(rng);
    d.need = std::uniform_int_distribution<int>(1, 12)(rng);
    const int k = std::uniform_int_distribution<int>(0, 9)(rng);
    for (int i = 0; i < k; ++i)
      d.c.push_back(v(static_cast<std::uint32_t>(i), std::uniform_int_distribution<int>(0, 3)(rng), std::uniform_int_distribution<int>(0, 50)(rng),
                      std::uniform_int_distribution<int>(1, 4)(rng), std::uniform_int_distribution<int>(0, 3000)(rng)));
    if (d.fits(std::vector<std::uint8_t>(d.c.size(), 0))) continue;  // preemption is for a job that does not fit
    victim_selector<victim_policy_kube> ks;
    victim_selector<victim_policy_gpurent> gs;
    const auto kv = choose({d}, ks);
    const auto gv = choose({d}, gs);
    const bool possible = d.fits(std::vector<std::uint8_t>(d.c.size(), 1));
    INFO("seed 1717 round " << round);
    REQUIRE(ks.found() == possible);
    REQUIRE(gs.found() == possible);
    if (!possible) continue;
    std::int64_t kcost = 0, gcost = 0;
    for (const auto& [ids, cost] : {std::pair{&kv, &kcost}, std::pair{&gv, &gcost}}) {
      std::vector<std::uint8_t> m(d.c.size(), 0);
      for (const std::uint32_t j : *ids) {
        m[j] = 1;
        *cost += d.c[j].cost();
      }
      CHECK(d.fits(m));
      for (const std::uint32_t j : *ids) {  // minimal: every victim is needed
        m[j] = 0;
        CHECK_FALSE(d.fits(m));
        m[j] = 1;
      }
    }
    CHECK(gcost <= kcost);
  }
}

TEST_CASE("guards: only preemptible jobs of lower priority, past the minimum runtime") {
  using namespace std::chrono_literals;
  const auto at = fleet_time::at_second;
  CHECK(eligible_victim(true, 0, at(0), 100, at(10)));
  CHECK_FALSE(eligible_victim(false, 0, at(0), 100, at(10)));   // not preemptible
  CHECK_FALSE(eligible_victim(true, 100, at(0), 100, at(10)));  // same priority
  CHECK_FALSE(eligible_victim(true, 0, at(5), 100, at(10), 600s));
  CHECK(eligible_victim(true, 0, at(5), 100, at(605), 600s));
}

TEST_CASE("checkpoint model: lost work since the last checkpoint, none with notice for the write") {
  using namespace std::chrono_literals;
  const checkpoint_model m{30s, 60s, 120s};
  // Started at 100 with 10000 s of work, checkpoints every 1800 s; told at 4000 to stop at 4030:
  // ran 3930, saved 3600 (2 checkpoints), lost 330, next run 10000 - 3600 + 120.
  const auto at = fleet_time::at_second;
  const stop_outcome o = stop_segment(m, at(100), 10000s, 1800s, at(4000));
  CHECK(o.stop == at(4030));
  CHECK_FALSE(o.completes);
  CHECK(o.ran == 3930s);
  CHECK(o.saved == 3600s);
  CHECK(o.lost == 330s);
  CHECK(o.work_left == 6520s);
  // Notice of 60 s >= the write time: the final checkpoint keeps all 3960 s.
  const stop_outcome w = stop_segment(checkpoint_model{60s, 60s, 120s}, at(100), 10000s, 1800s, at(4000));
  CHECK(w.lost == 0s);
  CHECK(w.work_left == 10000s - 3960s + 120s);
  // A job that finishes inside the notice window completes: no loss, no restart.
  const stop_outcome c = stop_segment(m, at(100), 3910s, 1800s, at(4000));
  CHECK(c.completes);
  CHECK(c.stop == at(4010));
  CHECK(c.lost == 0s);
  // As a victim: 4 GPUs x (330 lost + 120 restart); 100 s since the last checkpoint at t.
  const victim x = victim_of(m, 7, 0, 4000, at(100), 10000s, 1800s, at(4000));
  CHECK(x.cost() == 4000 * 450);
  CHECK(x.since_checkpoint == 300s);
  CHECK(victim_of(m, 7, 0, 4000, at(100), 3910s, 1800s, at(4000)).cost() == 0);
}

}  // namespace test_fleet_run_victims

namespace test_fleet_run_victims {
TEST_CASE("gpurent: a domain where removing every candidate is not enough costs one fit test") {
  // 8 candidates of 1 GPU, the job needs 10: without the up-front test all 256 subsets
  // would be tried (the cost that made gpurent's victims 5x kube's under contention).
  victim_selector<victim_policy_gpurent> s;
  gpu_domain d{1, 10, {}};
  for (std::uint32_t j = 0; j < 8; ++j) d.c.push_back(v(j, 0, j, 1, 10 * j));
  int calls = 0;
  s.reset();
  s.consider(0, d.c, [&](victim_mask m) {
    ++calls;
    return d.fits(m);
  });
  CHECK_FALSE(s.found());
  CHECK(calls == 1);
  // With 8 free it needs two victims: the two cheapest (jobs 0 and 1).
  d.free = 8;
  CHECK(choose(std::vector<gpu_domain>{d}, s) == std::vector<std::uint32_t>{0, 1});
}
}  // namespace test_fleet_run_victims

namespace test_fleet_run_victims {
// A node of 4 GPUs and some CPU: each candidate holds a share of one GPU and some cores; the
// job needs one GPU with `need_milli` free and `need_cpu` cores. Fitting is monotone.
struct shared_node {
  std::array<std::int64_t, 4> free_milli{};
  std::int64_t free_cpu = 0;
  std::int64_t need_milli = 0, need_cpu = 0;
  std::vector<victim> c;
  std::vector<std::size_t> gpu;  // per candidate
  std::vector<std::int64_t> cpu;
  [[nodiscard]] bool fits(victim_mask m) const {
    std::array<std::int64_t, 4> f = free_milli;
    std::int64_t cores = free_cpu;
    for (std::size_t i = 0; i < c.size(); ++i)
      if (m[i] != 0) {
        f[gpu[i]] += c[i].gpu_milli;
        cores += cpu[i];
      }
    return cores >= need_cpu && std::any_of(f.begin(), f.end(), [&](std::int64_t x) { return x >= need_milli; });
  }
};

shared_node random_node(std::mt19937& rng, int k) {
  shared_node d;
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  d.need_milli = 250 * pick(1, 4);
  d.need_cpu = pick(0, 16);
  d.free_cpu = pick(0, 8);
  for (auto& f : d.free_milli) f = 250 * pick(0, 2);
  for (int i = 0; i < k; ++i) {
    const auto start = pick(0, 5);  // drawn one by one: the order of a call's arguments is unspecified
    const auto lost = 30 * pick(0, 4);
    victim x = v(static_cast<std::uint32_t>(i), 0, start, 0, lost);  // few distinct costs: ties
    x.gpu_milli = 250 * pick(0, 2);                                  // CPU-only candidates cost 0
    x.restart = seconds(120);
    d.c.push_back(x);
    d.gpu.push_back(static_cast<std::size_t>(pick(0, 3)));
    d.cpu.push_back(pick(0, 6));
  }
  return d;
}

// The tie rule's order: candidates from the most costly down, equal costs the later first.
std::vector<std::uint32_t> tie_order(const shared_node& d) {
  std::vector<std::uint32_t> o(d.c.size());
  for (std::uint32_t i = 0; i < o.size(); ++i) o[i] = i;
  std::sort(o.begin(), o.end(),
            [&](std::uint32_t a, std::uint32_t b) { return d.c[a].cost() != d.c[b].cost() ? d.c[a].cost() > d.c[b].cost() : a > b; });
  return o;
}

TEST_CASE("gpurent: the branch and bound finds the subset an exhaustive scan finds, tie rule included") {
  std::mt19937 rng(4242);
  int compared = 0, beyond_ten = 0;
  for (int round = 0; round < 3000; ++round) {
    const shared_node d = random_node(rng, std::uniform_int_distribution<int>(1, 14)(rng));
    if (d.fits(std::vector<std::uint8_t>(d.c.size(), 0))) continue;
    // The reference: every subset; the least (cost, victims, then the set that leaves out the
    // first candidate in tie order where two differ) among those that fit.
    const std::vector<std::uint32_t> order = tie_order(d);
    std::tuple<std::int64_t, int, std::vector<std::uint8_t>> best{-1, 0, {}};
    std::vector<std::uint8_t> m(d.c.size());
    for (std::uint32_t s = 0; s < (std::uint32_t{1} << d.c.size()); ++s) {
      std::int64_t cost = 0;
      std::vector<std::uint8_t> in_order;
      for (std::size_t i = 0; i < d.c.size(); ++i) {
        m[i] = static_cast<std::uint8_t>(s >> i & 1U);
        cost += m[i] != 0 ? d.c[i].cost() : 0;
      }
      for (const std::uint32_t i : order) in_order.push_back(m[i]);
      std::tuple<std::int64_t, int, std::vector<std::uint8_t>> key{cost, std::popcount(s), in_order};
      if (d.fits(m) && (std::get<0>(best) < 0 || key < best)) best = std::move(key);
    }
    victim_selector<victim_policy_gpurent> s;
    s.reset();
    s.consider(0, d.c, [&](victim_mask x) { return d.fits(x); });
    INFO("seed 4242 round " << round << ", " << d.c.size() << " candidates");
    REQUIRE(s.found() == (std::get<0>(best) >= 0));
    if (!s.found()) continue;
    std::vector<std::uint8_t> got(d.c.size(), 0), got_in_order;
    for (const victim& x : s.victims()) got[x.job] = 1;
    for (const std::uint32_t i : order) got_in_order.push_back(got[i]);
    CHECK(got_in_order == std::get<2>(best));
    ++compared;
    beyond_ten += d.c.size() > 10 ? 1 : 0;
  }
  CHECK(compared > 1000);
  CHECK(beyond_ten > 200);  // past the old exhaustive limit of 10 candidates
}

TEST_CASE("gpurent: past its test budget the search still returns a set that fits, minimal, no dearer than its start") {
  std::mt19937 rng(77);
  for (int round = 0; round < 200; ++round) {
    const shared_node d = random_node(rng, 60);
    if (d.fits(std::vector<std::uint8_t>(d.c.size(), 0)) || !d.fits(std::vector<std::uint8_t>(d.c.size(), 1))) continue;
    victim_selector<victim_policy_gpurent> s;
    std::size_t tests = 0;
    s.reset();
    s.consider(0, d.c, [&](victim_mask x) {
      ++tests;
      return d.fits(x);
    });
    INFO("seed 77 round " << round);
    REQUIRE(s.found());
    CHECK(tests <= 2 * d.c.size() + 2 + victim_policy_gpurent::test_budget);
    std::vector<std::uint8_t> m(d.c.size(), 0);
    std::int64_t cost = 0;
    for (const victim& x : s.victims()) {
      m[x.job] = 1;
      cost += x.cost();
    }
    CHECK(d.fits(m));
    for (const victim& x : s.victims()) {  // minimal
      m[x.job] = 0;
      CHECK_FALSE(d.fits(m));
      m[x.job] = 1;
    }
    // The starting set: remove all, re-admit the most costly first.
    std::vector<std::uint32_t> order;
    std::vector<std::uint8_t> start;
    detail::iota_order(d.c.size(), order);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return d.c[a].cost() > d.c[b].cost(); });
    REQUIRE(detail::remove_and_readmit(
        order, [&](victim_mask x) { return d.fits(x); }, start));
    std::int64_t start_cost = 0;
    for (std::size_t i = 0; i < d.c.size(); ++i) start_cost += start[i] != 0 ? d.c[i].cost() : 0;
    CHECK(cost <= start_cost);
  }
}
}  // namespace test_fleet_run_victims
