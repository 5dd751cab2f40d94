// SPDX-License-Identifier: MIT
#pragma once
// What each group of the gang layout (a base block, or a run of nodes in no domain) can take
// of one member shape, and the gang placer's cache of it: per shape, each group's counts
// kept with the group version they were counted at (gang_layout bumps it on any change of
// one of the group's nodes), recounted only when the group changed. A decision then reads
// one entry per block and recounts the few blocks that changed since the shape was last
// placed: O(blocks), not O(nodes). A change of a network segment's tenants, which can change
// what nodes that did not change admit, counts every group again (inventory::segment_changes).
// reference/full_scan_gang.hpp counts every node instead.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// What one group (base block or run of outside nodes) can take of one member shape.
struct gang_group_caps {
  std::int32_t cap = 0;          // members
  std::int32_t free_nodes = 0;   // nodes that take at least one
  std::int32_t whole_nodes = 0;  // of those, nodes with nothing placed
  std::int32_t whole_cap = 0;    // members the whole nodes take
};

// Members of r that node n takes (0 when a constraint of Cs rejects it), at most `per_node`.
template <ConstraintSet Cs>
[[nodiscard]] std::int32_t node_members(const inventory& inv, node_index n, const placement_request& r, std::int32_t per_node) noexcept {
  if (!Cs::admits(inv, n, r)) return 0;
  return members_fitting(inv.spec(n), inv.state(n), r, per_node > 0 ? per_node : detail::unbounded_members);
}

// Group g's counts for r: every node of the group (the one rule both capacity sources use).
template <ConstraintSet Cs>
[[nodiscard]] gang_group_caps group_caps_of(const gang_layout& l, const inventory& inv, group_index g, const placement_request& r,
                                            std::int32_t per_node) noexcept {
  gang_group_caps c;
  for (const node_index n : l.nodes_of(g)) {
    const std::int32_t k = node_members<Cs>(inv, n, r, per_node);
    if (k <= 0) continue;
    c.cap += k;
    ++c.free_nodes;
    if (inv.untouched(n)) {
      ++c.whole_nodes;
      c.whole_cap += k;
    }
  }
  return c;
}

// The placer's capacity source: per member shape, the groups' counts, each kept with the
// group version it was counted at, recounted only when the group changed.
template <ConstraintSet Cs>
class cached_gang_capacity {
 public:
  static constexpr std::size_t shapes = 32;

  void reset() noexcept {
    for (entry& e : entries_) e.used = 0;
  }

  [[nodiscard]] std::span<const gang_group_caps> caps(const gang_layout& l, const inventory& inv, const placement_request& r, std::int32_t per_node) {
    entry& e = entry_for(r, per_node, l.group_count());
    // A segment's tenants changed: a node may now answer r differently though it did not
    // change itself (isolation_constraints.hpp), so every group is counted again.
    if (const std::uint64_t seen = inv.segment_changes(r); e.segment_changes != seen) {
      std::fill(e.version.begin(), e.version.end(), 0U);
      e.segment_changes = seen;
    }
    for (group_index g = 0; g < e.caps.size(); ++g) {
      if (e.version[g] == l.version(g)) continue;
      e.caps[g] = group_caps_of<Cs>(l, inv, g, r, per_node);
      e.version[g] = l.version(g);
    }
    return e.caps;
  }

 private:
  struct entry {
    placement_request r;
    std::int32_t per_node = 0;
    std::uint64_t used = 0;             // 0: empty
    std::uint64_t segment_changes = 0;  // inv.segment_changes(r) when counted
    std::vector<std::uint32_t> version;
    std::vector<gang_group_caps> caps;
  };

  // The entry of (r, per_node); a new one replaces the least recently used.
  [[nodiscard]] entry& entry_for(const placement_request& r, std::int32_t per_node, std::size_t groups) {
    ++clock_;
    entry* victim = nullptr;
    for (entry& e : entries_) {
      if (e.used != 0 && e.per_node == per_node && e.r == r && e.caps.size() == groups) {
        e.used = clock_;
        return e;
      }
      if (victim == nullptr || e.used < victim->used) victim = &e;
    }
    if (entries_.size() < shapes) victim = &entries_.emplace_back();
    victim->r = r;
    victim->per_node = per_node;
    victim->used = clock_;
    victim->version.assign(groups, 0);  // group versions start at 1: all recounted
    victim->caps.assign(groups, gang_group_caps{});
    return *victim;
  }

  std::vector<entry> entries_;
  std::uint64_t clock_ = 0;
};

}  // namespace gpurent
