// SPDX-License-Identifier: MIT
#pragma once
// The matcher's incremental index over the nodes, so that a placement looks only at nodes
// that can take it instead of scanning the whole cluster.
//
// Three mechanisms, all exact (the matcher's choice is the one a full scan makes):
//
// 1. A max-segment tree over the matcher's node order. Each node's entry holds what the
//    cheap constraints read (free CPU, free memory, the model bit, and a GPU level: 1000 +
//    fully idle GPUs when one is fully idle, else the largest idle share); the tree's
//    leaves are blocks of 16 consecutive entries (scanned flat), each inner node holds the
//    maxima below it. A query walks the tree left to right and skips a subtree whose maxima
//    already fail the request, so it visits the nodes that pass those necessary conditions,
//    in order. The full constraint set still decides each of them.
// 2. Untouched twins. Nodes with the same spec (the name aside) and nothing placed, not
//    drained, are in the same state, so every NodeSymmetric constraint and policy
//    (constraints.hpp) answers the same for all of them; only the first of them in the
//    order (which wins ties anyway) is shown to the query. Most of a filling cluster is
//    untouched nodes of a few shapes, so this is what makes early placements cheap.
//
// 3. Score bounds (optional). A policy that can bound from above the score any request
//    gets on a node, from the node's state alone (PlacementPolicy's score_bound: FGD's
//    score cannot exceed the sigmoid of the node's fragmentation now, since fragmentation
//    after a placement is >= 0), has it kept per entry and as the subtree maximum;
//    for_each_above then skips the subtrees and nodes whose bound is at most the best
//    score found so far. A node visited later in the order wins only with a higher score,
//    so nothing skipped could have been chosen.
//
// The index follows the inventory through its change journal (place, release, drain):
// sync() applies the nodes changed since the last call, O(log n) each, or refills from
// scratch (O(n)) when the journal has moved on further than it keeps. Nothing allocates
// after build.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <span>
#include <tuple>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// Necessary conditions on a node's summary, from the constraints a set contains (the
// matcher fills it; a field whose constraint is absent imposes nothing).
struct candidate_query {
  std::int64_t cpu = std::numeric_limits<std::int64_t>::min();     // cpu_free >= cpu
  std::int64_t memory = std::numeric_limits<std::int64_t>::min();  // memory_free >= memory
  std::int32_t level = 0;                                          // gpu_level(node) >= level
  model_mask models = 0;                                           // 0: any node; else its model bit in the mask
};

// The GPU level a request needs: 1000 + k for k whole GPUs, the share's milli for a share,
// 0 for CPU-only and MIG requests (MIG-mode GPUs show no idle milli).
[[nodiscard]] constexpr std::int32_t gpu_level_needed(const placement_request& r) noexcept {
  if (r.num_gpu <= 0 || r.is_mig()) return 0;
  if (r.gpu_milli.count() >= 1000) return 1000 + r.num_gpu;
  return r.gpu_milli.count();
}

// The score bound of a node with none: never skips (a policy's scores may use all 64 bits).
inline constexpr std::int32_t unbounded_score = std::numeric_limits<std::int32_t>::max();
struct no_score_bound {
  constexpr std::int32_t operator()(node_index) const noexcept { return unbounded_score; }
};

class candidate_index {
 public:
  // Ranks per leaf block: the tree's leaves are blocks of this many consecutive ranks,
  // scanned flat (cheaper than descending to single nodes, and a quarter of the memory).
  static constexpr std::size_t block = 16;

  // Builds the index over inv in `order` (rank -> node; a permutation of the nodes).
  // collapse: show only the first untouched node of each spec (needs NodeSymmetric
  // constraints and policy). mask_drained: drained nodes never pass (the set rejects them).
  // bound(node): the node's score bound (no_score_bound: none); sync must be given the same.
  template <class Bound = no_score_bound>
  void build(const inventory& inv, std::span<const node_index> order, bool collapse, bool mask_drained, Bound&& bound = {}) {
    GPURENT_ASSERT(order.size() == inv.size());
    collapse_ = collapse;
    mask_drained_ = mask_drained;
    order_.assign(order.begin(), order.end());
    const std::size_t n = order_.size();
    rank_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) rank_[order_[i]] = static_cast<std::uint32_t>(i);
    untouched_.assign(n, 0);
    in_heap_.assign(n, 0);
    group_twins(inv);
    const std::size_t blocks = std::max<std::size_t>((n + block - 1) / block, 1);
    ranks_.assign(blocks * block, masked);
    leaves_ = std::bit_ceil(blocks);
    tree_.assign(2 * leaves_, masked);
    built_ = true;
    refill(inv, bound);
  }

  [[nodiscard]] bool built_for(const inventory& inv) const noexcept { return built_ && order_.size() == inv.size(); }

  // Catches up with the inventory's changes: the journal's nodes one by one, or all nodes
  // again (O(n)) when the journal has moved on further than it keeps. False when the
  // inventory changed size: the caller then builds again.
  template <class Bound = no_score_bound>
  [[nodiscard]] bool sync(const inventory& inv, Bound&& bound = {}) {
    if (!built_for(inv)) return false;
    const std::uint64_t now = inv.change_count();
    if (now < seen_ || now - seen_ > inventory::journal_capacity) {
      refill(inv, bound);
    } else {
      for (; seen_ < now; ++seen_) update(inv, inv.changed_node(seen_), bound);
    }
    return true;
  }

  // Calls f(node) for every shown node that passes q, in the order's rank order.
  template <class F>
  void for_each(const candidate_query& q, F&& f) const {
    walk(
        q, [](std::int32_t) { return false; }, f);
  }

  // The same, skipping the nodes whose score bound is at most *best while *found (the
  // caller updates both as it goes: a later node must score higher to be chosen).
  template <class F>
  void for_each_above(const candidate_query& q, const bool& found, const std::int64_t& best, F&& f) const {
    walk(
        q, [&](std::int32_t b) { return found && b != unbounded_score && b <= best; }, f);
  }

  // Whether node n is shown to queries (for tests: untouched twins after the first are not).
  [[nodiscard]] bool shown(node_index n) const noexcept { return ranks_[rank_[n]].level >= 0; }
  [[nodiscard]] std::span<const node_index> order() const noexcept { return order_; }
  // The score bound kept for node n (unbounded_score without one; for tests).
  [[nodiscard]] std::int32_t bound(node_index n) const noexcept { return ranks_[rank_[n]].bound; }

 private:
  template <class Skip, class F>
  void walk(const candidate_query& q, Skip&& skip, F&& f) const {
    if (order_.empty()) return;
    const query32 q32 = narrow(q);
    std::size_t v = 1;
    for (;;) {
      if (passes(tree_[v], q32) && !skip(tree_[v].bound)) {
        if (v < leaves_) {
          v = 2 * v;
          continue;
        }
        const std::size_t base = (v - leaves_) * block;
        std::uint32_t hits = 0;
        for (std::size_t j = 0; j < block; ++j) hits |= (passes(ranks_[base + j], q32) ? 1U : 0U) << j;
        while (hits != 0) {
          const auto j = static_cast<std::size_t>(std::countr_zero(hits));
          hits &= hits - 1;
          if (!skip(ranks_[base + j].bound)) std::invoke(f, order_[base + j]);
        }
      }
      // Next subtree to the right: climb while v is a right child, then step to the sibling.
      while ((v & 1U) != 0) v >>= 1;
      if (v == 0) return;
      ++v;
    }
  }

  // A node's (or a subtree's maximal) free CPU and memory, saturated to 32 bits (the
  // comparison with a request saturated the same way stays a necessary condition), GPU
  // level, and model bits.
  struct agg {
    std::int32_t cpu;
    std::int32_t memory;
    std::int32_t level;  // -1: not shown
    std::int32_t bound;  // the policy's score bound (unbounded_score: none)
    model_mask models;
    friend constexpr bool operator==(const agg&, const agg&) = default;
  };
  struct query32 {
    std::int32_t cpu;
    std::int32_t memory;
    std::int32_t level;
    model_mask models;
  };
  static constexpr agg masked{std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::min(), -1,
                              std::numeric_limits<std::int32_t>::min(), 0};
  static constexpr std::uint32_t no_rank = std::numeric_limits<std::uint32_t>::max();

  [[nodiscard]] static constexpr std::int32_t saturate(std::int64_t x) noexcept {
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(x, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
  }
  [[nodiscard]] static constexpr query32 narrow(const candidate_query& q) noexcept {
    return query32{saturate(q.cpu), saturate(q.memory), q.level, q.models};
  }
  [[nodiscard]] static constexpr agg combine(const agg& a, const agg& b) noexcept {
    return agg{std::max(a.cpu, b.cpu), std::max(a.memory, b.memory), std::max(a.level, b.level), std::max(a.bound, b.bound), a.models | b.models};
  }
  [[nodiscard]] static bool passes(const agg& a, const query32& q) noexcept {
    return (a.level >= q.level) & (a.cpu >= q.cpu) & (a.memory >= q.memory) & ((q.models == 0) | ((a.models & q.models) != 0));
  }
  [[nodiscard]] agg block_max(std::size_t b) const noexcept {
    agg m = masked;
    for (std::size_t j = 0; j < block; ++j) m = combine(m, ranks_[b * block + j]);
    return m;
  }

  template <class Bound>
  [[nodiscard]] agg leaf(const inventory& inv, node_index n, Bound& bound) const {
    const node_hot& h = inv.hot(n);
    if (mask_drained_ && h.drained) return masked;
    if (collapse_ && untouched_[n] != 0 && twins_[twin_of_[n]].first != rank_[n]) return masked;
    const std::int32_t level = h.full_idle > 0 ? 1000 + h.full_idle : h.max_idle;
    return agg{saturate(h.cpu_free.count()), saturate(h.memory_free.count()), level, bound(n), h.gpu_count > 0 ? model_mask{1} << h.model : 0};
  }

  template <class Bound>
  void set_leaf(const inventory& inv, node_index n, Bound& bound) {
    const std::uint32_t r = rank_[n];
    const agg a = leaf(inv, n, bound);
    if (ranks_[r] == a) return;
    ranks_[r] = a;
    std::size_t v = leaves_ + r / block;
    const agg m = block_max(r / block);
    if (tree_[v] == m) return;
    tree_[v] = m;
    for (v >>= 1; v >= 1; v >>= 1) {
      const agg c = combine(tree_[2 * v], tree_[2 * v + 1]);
      if (tree_[v] == c) break;
      tree_[v] = c;
    }
  }

  template <class Bound>
  void update(const inventory& inv, node_index n, Bound& bound) {
    const bool now = inv.untouched(n);
    const bool was = untouched_[n] != 0;
    untouched_[n] = now ? 1 : 0;
    if (collapse_ && now != was) {
      twin_set& t = twins_[twin_of_[n]];
      const std::uint32_t before = t.first;
      if (now && in_heap_[n] == 0) {
        in_heap_[n] = 1;
        t.heap.push_back(rank_[n]);
        std::push_heap(t.heap.begin(), t.heap.end(), std::greater<>{});
      }
      // Lazy deletion: drop ranks of nodes touched since they were pushed.
      while (!t.heap.empty() && untouched_[order_[t.heap.front()]] == 0) {
        in_heap_[order_[t.heap.front()]] = 0;
        std::pop_heap(t.heap.begin(), t.heap.end(), std::greater<>{});
        t.heap.pop_back();
      }
      t.first = t.heap.empty() ? no_rank : t.heap.front();
      if (t.first != before) {
        if (before != no_rank) set_leaf(inv, order_[before], bound);
        if (t.first != no_rank) set_leaf(inv, order_[t.first], bound);
      }
    }
    set_leaf(inv, n, bound);
  }

  // Groups the nodes by spec (the name aside); specs never change, so this is done once.
  void group_twins(const inventory& inv) {
    twins_.clear();
    twin_of_.assign(order_.size(), 0);
    if (!collapse_) return;
    std::vector<node_index> by_spec(order_.size());
    std::iota(by_spec.begin(), by_spec.end(), node_index{0});
    const auto key = [&](node_index n) {
      const node_spec& s = inv.spec(n);
      return std::tie(s.cpu_milli, s.memory_mib, s.gpu_count, s.model, s.nvlink_domain, s.pcie_switch, s.labels, s.reserved_for, s.spot, s.mig_gpus,
                      s.segment);
    };
    std::sort(by_spec.begin(), by_spec.end(), [&](node_index a, node_index b) { return key(a) < key(b); });
    std::vector<std::size_t> sizes;
    for (std::size_t i = 0; i < by_spec.size(); ++i) {
      if (i == 0 || key(by_spec[i - 1]) != key(by_spec[i])) sizes.push_back(0);
      twin_of_[by_spec[i]] = static_cast<std::uint32_t>(sizes.size() - 1);
      ++sizes.back();
    }
    // Room for every member, so that pushes on the hot path never allocate.
    twins_.resize(sizes.size());
    for (std::size_t c = 0; c < sizes.size(); ++c) twins_[c].heap.reserve(sizes[c]);
  }

  // Everything that depends on the nodes' state, from scratch: untouched flags, each twin
  // group's heap (built in rank order, so already a heap), leaves and tree.
  template <class Bound>
  void refill(const inventory& inv, Bound& bound) {
    const std::size_t n = order_.size();
    std::fill(in_heap_.begin(), in_heap_.end(), std::uint8_t{0});
    for (std::size_t i = 0; i < n; ++i) untouched_[i] = inv.untouched(static_cast<node_index>(i)) ? 1 : 0;
    for (twin_set& t : twins_) t.heap.clear();
    if (collapse_) {
      for (std::size_t i = 0; i < n; ++i) {
        const node_index m = order_[i];
        if (untouched_[m] == 0) continue;
        twins_[twin_of_[m]].heap.push_back(static_cast<std::uint32_t>(i));
        in_heap_[m] = 1;
      }
    }
    for (twin_set& t : twins_) t.first = t.heap.empty() ? no_rank : t.heap.front();
    for (std::size_t i = 0; i < n; ++i) ranks_[i] = leaf(inv, order_[i], bound);
    for (std::size_t b = 0; b < ranks_.size() / block; ++b) tree_[leaves_ + b] = block_max(b);
    for (std::size_t i = leaves_ - 1; i >= 1; --i) tree_[i] = combine(tree_[2 * i], tree_[2 * i + 1]);
    seen_ = inv.change_count();
  }

  struct twin_set {
    std::vector<std::uint32_t> heap;  // ranks, min-heap, may hold touched nodes (lazy)
    std::uint32_t first = no_rank;    // the shown one: lowest rank of an untouched twin
  };

  std::vector<node_index> order_;    // rank -> node
  std::vector<std::uint32_t> rank_;  // node -> rank
  std::vector<std::uint8_t> untouched_;
  std::vector<std::uint8_t> in_heap_;
  std::vector<std::uint32_t> twin_of_;
  std::vector<twin_set> twins_;
  std::vector<agg> ranks_;  // per rank, padded to whole blocks with masked entries
  std::vector<agg> tree_;   // 1-based implicit tree over blocks; block b at leaves_ + b
  std::size_t leaves_ = 1;
  std::uint64_t seen_ = 0;
  bool collapse_ = false;
  bool mask_drained_ = false;
  bool built_ = false;
};

}  // namespace gpurent
