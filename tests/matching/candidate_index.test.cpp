// SPDX-License-Identifier: MIT
// The matcher's candidate index (candidate_index.hpp) against a full scan: under random
// place / release / drain / undrain / direct inventory changes / long bursts (journal
// overrun) / inventory assignment / added nodes, every policy's choice equals the choice
// of the old algorithm (every node in order, full constraint check, first on ties), and
// the index never hides a node that could win. Seeds are printed on failure.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gpurent/io/fleet/trace_csv.hpp>
#include <gpurent/matching/matching.hpp>
#include <gpurent/matching/reference/full_scan.hpp>
#include <gpurent/matching/reference/replay.hpp>

using namespace gpurent;

// Named, not anonymous: the layer's tests are also built as one unity translation unit.
namespace candidate_index_test {

// A constraint that reads the node index: not NodeSymmetric, so no twin collapsing.
struct odd_nodes_only_for_tenant_3 {
  static constexpr std::string_view name = "odd";
  static bool admits(const inventory&, node_index n, const placement_request& r) noexcept { return r.tenant != 3 || n % 2 == 1; }
  static std::string describe(const placement_request&) { return "are even (tenant 3 only)"; }
};
using asymmetric_constraints = default_constraints::with<odd_nodes_only_for_tenant_3>;

struct world {
  std::mt19937_64 rng;
  label_mask eu = 0;
  label_mask gdpr = 0;
  model_index g2 = 0, t4 = 0, a100 = 0;

  explicit world(std::uint64_t seed) : rng(seed) {}

  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(detail::uniform_below(rng, n)); }

  void models(inventory& inv) {
    g2 = inv.add_model({"G2", gib(32), {}});
    t4 = inv.add_model({"T4", gib(16), {}});
    a100 = inv.add_model({"A100-SXM4-80GB", gib(80), {}, find_mig_geometry("A100-SXM4-80GB")});
    eu = inv.label("eu");
    gdpr = inv.label("gdpr");
  }

  // A few shapes, so that most nodes have twins.
  node_spec node(std::size_t i) {
    node_spec s;
    s.name = "n" + std::to_string(i);
    s.memory_mib = mebibytes(262144);
    switch (below(8)) {
      case 0:
      case 1:
      case 2:  // 8 x G2, two NVLink domains of four
        s.cpu_milli = milli_cpu(96000);
        s.gpu_count = 8;
        s.model = g2;
        for (std::size_t g = 0; g < 8; ++g) s.nvlink_domain[g] = static_cast<std::uint8_t>(g / 4);
        break;
      case 3:
      case 4:  // 2 x T4, one PCIe switch each
        s.cpu_milli = milli_cpu(64000);
        s.gpu_count = 2;
        s.model = t4;
        s.pcie_switch[1] = 1;
        break;
      case 5:  // CPU only
        s.cpu_milli = milli_cpu(32000);
        break;
      case 6:  // 2 x A100, GPU 0 in MIG mode, or neither
        s.cpu_milli = milli_cpu(64000);
        s.gpu_count = 2;
        s.model = a100;
        s.mig_gpus = below(2) == 0 ? 0b01 : 0;
        break;
      default:  // a G2 node with a twist
        s.cpu_milli = milli_cpu(96000);
        s.gpu_count = 8;
        s.model = g2;
        switch (below(4)) {
          case 0: s.spot = true; break;
          case 1: s.reserved_for = 7; break;
          case 2: s.labels = eu | gdpr; break;
          default: s.labels = eu; break;
        }
        break;
    }
    return s;
  }

  placement_request request() {
    placement_request r;
    r.cpu_milli = milli_cpu(1000 * static_cast<std::int64_t>(below(24)));
    r.memory_mib = mebibytes(1024 * static_cast<std::int64_t>(below(64)));
    const std::uint32_t kind = below(10);
    if (kind <= 2) {
      r.num_gpu = 1;
      static constexpr std::array<std::int32_t, 6> milli{100, 250, 470, 500, 810, 990};
      r.gpu_milli = milli_gpu(milli[below(milli.size())]);
    } else if (kind <= 6) {
      static constexpr std::array<std::int32_t, 5> k{1, 1, 2, 4, 8};
      r.num_gpu = k[below(k.size())];
      r.gpu_milli = whole_gpu;
      r.locality = static_cast<gpu_locality>(below(3));
    } else if (kind == 7) {
      r.num_gpu = 1;
      r.mig_profile = below(2) == 0 ? "1g.10gb" : "3g.40gb";
    }  // else CPU only
    if (below(4) == 0) r.tenant = static_cast<tenant_id>(below(10));
    if (below(8) == 0) r.required_labels = below(2) == 0 ? eu : eu | gdpr;
    r.accepts_spot = below(4) == 0;
    if (below(6) == 0) r.allowed_models = model_mask{1} << (below(2) == 0 ? g2 : t4);
    if (below(10) == 0) r.min_vram = gib(20);
    if (below(50) == 0) r.cpu_milli = milli_cpu(-1);  // invalid: never placed
    return r;
  }
};

// Every node the constraints admit is visited by the index query, or hidden as a later
// untouched twin of a visited node; visits come in rank order.
template <class P, class Cs>
void check_index_covers(const matcher<P, Cs>& m, const inventory& inv, const placement_request& r) {
  if (!r.ok()) return;  // never looked up
  const candidate_index& ix = m.index();
  std::vector<std::uint32_t> rank(inv.size());
  for (std::size_t i = 0; i < ix.order().size(); ++i) rank[ix.order()[i]] = static_cast<std::uint32_t>(i);
  std::vector<char> visited(inv.size(), 0);
  std::int64_t last = -1;
  bool ordered = true;
  ix.for_each(m.query_of(r), [&](node_index n) {
    visited[n] = 1;
    ordered = ordered && static_cast<std::int64_t>(rank[n]) > last;
    last = rank[n];
  });
  CHECK(ordered);
  for (node_index n = 0; n < inv.size(); ++n) {
    if (visited[n] != 0 || !Cs::admits(inv, n, r)) continue;
    // Hidden: only an untouched node with an earlier visible untouched twin may be.
    CAPTURE(n);
    REQUIRE(matcher<P, Cs>::collapses_twins);
    REQUIRE(inv.untouched(n));
    bool twin = false;
    for (node_index t = 0; t < inv.size() && !twin; ++t) {
      node_spec a = inv.spec(t);
      a.name = inv.spec(n).name;
      twin = t != n && visited[t] != 0 && inv.untouched(t) && rank[t] < rank[n] && a == inv.spec(n);
    }
    CHECK(twin);
  }
}

struct live {
  placement p;
};

template <class P, class Cs = default_constraints>
void run_random(std::uint64_t seed) {
  CAPTURE(seed);
  CAPTURE(P::name);
  world w(seed);
  inventory inv;
  w.models(inv);
  const std::size_t nodes = 8 + w.below(40);
  for (std::size_t i = 0; i < nodes; ++i) inv.add_node(w.node(i));
  std::vector<placement_request> sample;
  for (int i = 0; i < 200; ++i) {
    placement_request r = w.request();
    if (r.ok() && !r.is_mig()) sample.push_back(r);
  }
  const shape_distribution shapes = shape_distribution::of(sample);
  const policy_context ctx{&shapes, seed};
  matcher<P, Cs> m(inv, ctx);
  std::vector<node_index> order(inv.size());
  std::iota(order.begin(), order.end(), node_index{0});
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[w.below(static_cast<std::uint32_t>(i))]);
  m.set_node_order(order);
  full_scan_matcher<P, Cs> ref(inv, ctx);
  ref.set_node_order(order);
  std::vector<live> held;
  inventory saved = inv;
  std::vector<live> saved_held;

  for (int step = 0; step < 300; ++step) {
    CAPTURE(step);
    const std::uint32_t op = w.below(100);
    if (op < 55) {  // place through the matcher
      const placement_request r = w.request();
      const auto want = ref.find(r);
      const auto got = m.place(r);
      REQUIRE(got == want);
      if (got) held.push_back({*got});
    } else if (op < 70) {  // release through the matcher
      if (!held.empty()) {
        const std::size_t k = w.below(static_cast<std::uint32_t>(held.size()));
        m.release(held[k].p);
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
      }
    } else if (op < 78) {  // drain or undrain directly on the inventory
      inv.set_condition(static_cast<node_index>(w.below(static_cast<std::uint32_t>(inv.size()))),
                        w.below(2) == 0 ? node_condition::drain : node_condition::up);
    } else if (op < 86) {  // place and release directly on the inventory
      const placement_request r = w.request();
      if (const auto p = ref.find(r)) {
        inv.place(*p);
        held.push_back({*p});
      }
      if (!held.empty() && w.below(2) == 0) {
        inv.release(held.front().p);
        held.erase(held.begin());
      }
    } else if (op < 89) {  // a burst longer than the journal: release all, place again, and a drain toggled past it
      for (const live& l : held) inv.release(l.p);
      held.clear();
      for (int i = 0; i < 80; ++i) {
        if (const auto p = ref.find(w.request())) {
          inv.place(*p);
          held.push_back({*p});
        }
      }
      const auto n = static_cast<node_index>(w.below(static_cast<std::uint32_t>(inv.size())));
      const node_condition was = inv.condition(n), other = was == node_condition::up ? node_condition::drain : node_condition::up;
      for (std::size_t i = 0; i < inventory::journal_capacity + 2; ++i) inv.set_condition(n, i % 2 == 0 ? other : was);
    } else if (op < 92) {  // a node joins
      inv.add_node(w.node(inv.size()));
    } else if (op < 95) {  // roll back by assignment (what-if undone)
      if (w.below(2) == 0) {
        saved = inv;
        saved_held = held;
      } else if (saved.size() == inv.size()) {
        inv = saved;
        held = saved_held;
      }
    }
    // A few requests that do not change anything: the same answer, and full coverage.
    for (int k = 0; k < 3; ++k) {
      const placement_request r = w.request();
      REQUIRE(m.find(r) == ref.find(r));
      check_index_covers(m, inv, r);
    }
  }
}

}  // namespace candidate_index_test

TEST_CASE("node symmetry: declared by the built-in constraints and policies, not by random") {
  using namespace candidate_index_test;
  static_assert(NodeSymmetric<policy_best_fit> && NodeSymmetric<policy_fgd> && NodeSymmetric<policy_gpurent>);
  static_assert(NodeSymmetric<policy_first_fit> && NodeSymmetric<policy_worst_fit> && NodeSymmetric<policy_dot_product>);
  static_assert(!NodeSymmetric<policy_random>);  // one draw per node: twins are not interchangeable
  static_assert(default_constraints::node_symmetric && !asymmetric_constraints::node_symmetric);
  static_assert(matcher<policy_best_fit>::collapses_twins && !matcher<policy_random>::collapses_twins);
  static_assert(!matcher<policy_best_fit, asymmetric_constraints>::collapses_twins);
  static_assert(default_constraints::has<constraint::cpu_fits> && !default_constraints::has<odd_nodes_only_for_tenant_3>);
}

TEST_CASE("untouched twins: only the first in the order is shown, and the next takes over") {
  inventory inv;
  inv.add_model({"G2", {}, {}});
  for (int i = 0; i < 4; ++i) {
    node_spec s;
    s.name = "t" + std::to_string(i);
    s.cpu_milli = milli_cpu(96000);
    s.memory_mib = mebibytes(65536);
    s.gpu_count = 8;
    inv.add_node(s);
  }
  matcher<policy_best_fit> m(inv);
  m.set_node_order({2, 0, 3, 1});
  const candidate_index& ix = m.index();
  CHECK(ix.shown(2));
  CHECK_FALSE(ix.shown(0));
  CHECK_FALSE(ix.shown(3));
  placement_request r;
  r.num_gpu = 1;
  r.gpu_milli = whole_gpu;
  r.cpu_milli = milli_cpu(4000);
  const auto a = m.place(r);
  REQUIRE(a);
  CHECK(a->node == 2);
  placement_request big = r;
  big.num_gpu = 8;  // does not fit on node 2 any more: the next twin in the order
  const auto b = m.place(big);
  REQUIRE(b);
  CHECK(b->node == 0);
  (void)m.find(r);  // the index catches up on a query
  CHECK(m.index().shown(3));
  CHECK_FALSE(m.index().shown(1));
  m.release(*a);
  CHECK(m.find(big)->node == 2);  // untouched again, and first again
  CHECK(m.index().shown(2));
  CHECK_FALSE(m.index().shown(3));
  inv.set_condition(2, node_condition::drain);
  CHECK(m.find(big)->node == 3);  // a drained node is not untouched
  CHECK_FALSE(m.index().shown(2));
  CHECK(m.index().shown(3));
}

TEST_CASE("the inventory's change journal") {
  inventory inv;
  inv.add_model({"T4", {}, {}});
  node_spec s;
  s.name = "a";
  s.cpu_milli = milli_cpu(8000);
  s.memory_mib = mebibytes(1024);
  s.gpu_count = 1;
  inv.add_node(s);
  const std::uint64_t c0 = inv.change_count();
  CHECK(inv.changed_node(c0 - 1) == 0);
  inv.set_condition(0, node_condition::drain);
  CHECK(inv.change_count() == c0 + 1);
  CHECK_FALSE(inv.untouched(0));
  inv.set_condition(0, node_condition::up);
  CHECK(inv.untouched(0));
  inventory other = inv;
  CHECK(other.change_count() == inv.change_count());  // a copy: a new observer builds anyway
  other = inv;                                        // assignment: observers of `other` must not replay inv's journal
  CHECK(other.change_count() > inv.change_count() + inventory::journal_capacity);
}

TEST_CASE("assigning over the inventory: caches keyed on node versions start over") {
  // Node versions repeat after `inv = saved`; FGD's cache and the failure memo must not
  // take the new state for the one they saw.
  inventory inv;
  inv.add_model({"T4", {}, {}});
  for (const char* name : {"a", "b"}) {
    node_spec s;
    s.name = name;
    s.cpu_milli = milli_cpu(8000);
    s.memory_mib = mebibytes(8192);
    s.gpu_count = 1;
    inv.add_node(s);
  }
  const inventory saved = inv;
  placement_request half;
  half.num_gpu = 1;
  half.gpu_milli = milli_gpu(500);
  half.cpu_milli = milli_cpu(1000);
  const std::array<placement_request, 1> tasks{half};
  const shape_distribution m_shapes = shape_distribution::of(tasks);
  matcher<policy_fgd> m(inv, policy_context{&m_shapes, 1});
  REQUIRE(m.place(half)->node == 0);
  REQUIRE(m.find(half)->node == 0);  // a and b both score 50 now; a is first
  inv = saved;
  placement_request fifth = half;
  fifth.gpu_milli = milli_gpu(200);
  inv.place(inventory::make_placement(0, fifth, gpu_pick{{0}, 1}));  // a: same version, other state
  // On a, 500 of the 800 idle would strand 300 (score 42); b keeps its 500 usable (50).
  CHECK(m.find(half)->node == 1);
  placement_request whole_a = half;
  whole_a.gpu_milli = whole_gpu;
  inv.place(inventory::make_placement(1, half, gpu_pick{{0}, 1}));
  CHECK_FALSE(m.find(whole_a));  // remembered as failing...
  inv = saved;
  CHECK(m.find(whole_a));  // ...until the inventory is assigned over
}

TEST_CASE("the index chooses what a full scan chooses, under random changes (property)") {
  using namespace candidate_index_test;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    run_random<policy_best_fit>(seed);
    run_random<policy_first_fit>(seed);
    run_random<policy_worst_fit>(seed);
    run_random<policy_dot_product>(seed);
    run_random<policy_fgd>(seed);
    run_random<policy_gpurent>(seed);
    run_random<policy_best_fit, asymmetric_constraints>(seed);
  }
}

TEST_CASE("random policy: same draws, because the index shows every admitted node in order") {
  using namespace candidate_index_test;
  // The reference draws one number per admitted node, like the matcher; requests answered
  // from the matcher's failure memo draw nothing there, so compare placements only.
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    world w(seed);
    inventory inv;
    w.models(inv);
    for (std::size_t i = 0; i < 30; ++i) inv.add_node(w.node(i));
    matcher<policy_random> m(inv, policy_context{nullptr, seed});
    std::vector<placement> held;
    for (int step = 0; step < 300; ++step) {
      const placement_request r = w.request();
      (void)m.find(r);
      check_index_covers(m, inv, r);
      if (const auto p = m.place(r)) held.push_back(*p);
      if (!held.empty() && w.below(3) == 0) {
        m.release(held.back());
        held.pop_back();
      }
    }
  }
}

TEST_CASE("FGD trace replay: the index changes no placement") {
  using namespace candidate_index_test;
  const std::string d = std::string(GPURENT_DATA_DIR) + "/alibaba-gpu-v2023/";
  if (!std::filesystem::exists(d + "openb_node_list_gpu_node.csv")) {
    MESSAGE("skipped: no trace at " << d);
    return;
  }
  auto nodes = read_trace_nodes_file(d + "openb_node_list_gpu_node.csv");
  auto pods = read_trace_pods_file(d + "openb_pod_list_multigpu50.csv");
  REQUIRE(nodes);
  REQUIRE(pods);
  auto wl = make_replay_workload(*nodes, "nodes", *pods, "pods");
  REQUIRE(wl);
  const auto same_as_full_scan = [&]<class P>() {
    CAPTURE(P::name);
    replay_options o;
    o.seed = 43;
    o.keep_placements = true;
    const replay_result got = replay<P>(*wl, o);
    const replay_result want = replay_with<full_scan_matcher<P>>(*wl, o);
    REQUIRE(got.placements.size() == got.arrivals.size());
    REQUIRE(want.arrivals == got.arrivals);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < got.arrivals.size(); ++i) differ += want.placements[i] != got.placements[i] ? 1U : 0U;
    CHECK(differ == 0);
    CHECK(want.alloc_pct == got.alloc_pct);
  };
  same_as_full_scan.operator()<policy_best_fit>();
  same_as_full_scan.operator()<policy_fgd>();
  same_as_full_scan.operator()<policy_gpurent>();
}

namespace candidate_index_test {
// The matcher's choice for r made two ways over m's index: visiting every candidate, and
// skipping by score bounds; adds the nodes each visited.
template <class P>
std::pair<node_index, node_index> choose_both(matcher<P>& m, const inventory& inv, const placement_request& r, std::size_t& all,
                                              std::size_t& bounded) {
  typename P::state& st = m.policy_state();
  P::prepare(st, inv, r);
  scored_choice a;
  m.index().for_each(m.query_of(r), [&](node_index n) {
    ++all;
    if (default_constraints::admits(inv, n, r)) a.consider(n, P::score(st, inv, n, r));
  });
  scored_choice b;
  bool found = false;
  m.index().for_each_above(m.query_of(r), found, b.score, [&](node_index n) {
    ++bounded;
    if (default_constraints::admits(inv, n, r)) b.consider(n, P::score(st, inv, n, r));
    found = b.node != no_node;
  });
  return {a.node, b.node};
}

template <class P>
void check_bounds(std::uint64_t seed, std::size_t& all, std::size_t& bounded) {
  CAPTURE(seed);
  CAPTURE(P::name);
  world w(seed);
  inventory inv;
  w.models(inv);
  for (std::size_t i = 0; i < 40; ++i) inv.add_node(w.node(i));
  std::vector<placement_request> sample;
  for (int i = 0; i < 200; ++i) {
    const placement_request r = w.request();
    if (r.ok() && !r.is_mig()) sample.push_back(r);
  }
  const shape_distribution shapes = shape_distribution::of(sample);
  matcher<P> m(inv, policy_context{&shapes, seed});
  for (int step = 0; step < 150; ++step) {
    (void)m.place(w.request());
    const placement_request r = w.request();
    if (!r.ok() || r.is_mig()) continue;
    (void)m.find(r);  // the index caught up with the inventory
    typename P::state& st = m.policy_state();
    P::prepare(st, inv, r);
    for (node_index n = 0; n < inv.size(); ++n) {
      if (!default_constraints::admits(inv, n, r)) continue;
      CAPTURE(n);
      CHECK(P::score(st, inv, n, r) <= P::score_bound(st, inv, n));
      if (m.index().shown(n)) CHECK(m.index().bound(n) == P::score_bound(st, inv, n));  // kept up to date
    }
    const auto [a, b] = choose_both(m, inv, r, all, bounded);
    CHECK(a == b);
  }
}
}  // namespace candidate_index_test

TEST_CASE("score bounds: no request scores above a node's bound, and skipping by them changes no choice") {
  using namespace candidate_index_test;
  static_assert(ScoreBounded<policy_fgd> && ScoreBounded<policy_gpurent> && !ScoreBounded<policy_best_fit>);
  std::size_t all = 0, bounded = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    check_bounds<policy_fgd>(seed, all, bounded);
    check_bounds<policy_gpurent>(seed, all, bounded);
  }
  MESSAGE("visited " << all << " candidates without bounds, " << bounded << " with");
  CHECK(bounded < all);  // the bounds skip something on these filling clusters
}
