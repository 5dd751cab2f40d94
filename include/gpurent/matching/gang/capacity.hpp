// SPDX-License-Identifier: MIT
#pragma once
// What each group of the gang layout (a base block, or a run of nodes in no domain) can take
// of one member shape, and the gang placer's cache of it: per shape, each group's counts
// kept with the group version they were counted at (gang_layout bumps it on any change of
// one of the group's nodes), recounted only when the group changed. A decision then reads
// one entry per block and recounts the few blocks that changed since the shape was last
// read, found in the layout's change log (bringing a shape up to date costs the changes,
// not a pass over the blocks): O(blocks), not O(nodes). A change of a network segment's tenants, which can change
// what nodes that did not change admit, counts every group again (inventory::segment_changes).
// reference/full_scan_gang.hpp counts every node instead.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
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

// The slot of `entries` (each with a `used` stamp; 0: empty) that `match` accepts, stamped
// now; else a fresh one for the caller to fill (true): a new slot while fewer than `limit`,
// then the least recently used. The placer's per-shape caches keep their entries so.
template <class Entry, class Match>
[[nodiscard]] std::pair<Entry*, bool> lru_slot(std::vector<Entry>& entries, std::size_t limit, std::uint64_t& clock, Match&& match) {
  ++clock;
  Entry* victim = nullptr;
  for (Entry& e : entries) {
    if (e.used != 0 && match(e)) {
      e.used = clock;
      return {&e, false};
    }
    if (victim == nullptr || e.used < victim->used) victim = &e;
  }
  if (entries.size() < limit) victim = &entries.emplace_back();
  victim->used = clock;
  return {victim, true};
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
      e.seen = 0;  // every group
    }
    const auto recount = [&](group_index g) {
      if (e.version[g] == l.version(g)) return;
      e.caps[g] = group_caps_of<Cs>(l, inv, g, r, per_node);
      e.version[g] = l.version(g);
    };
    // Only the groups logged since this shape was last read can have changed (a group's
    // version moves only with a logged change), unless the log no longer reaches back.
    const auto changed = l.changed_since(e.seen);
    if (changed && changed->size() < e.caps.size()) {
      for (const group_index g : *changed) recount(g);
    } else {
      for (group_index g = 0; g < e.caps.size(); ++g) recount(g);
    }
    e.seen = l.changes();
    return e.caps;
  }

 private:
  struct entry {
    placement_request r;
    std::int32_t per_node = 0;
    std::uint64_t used = 0;             // 0: empty
    std::uint64_t segment_changes = 0;  // inv.segment_changes(r) when counted
    std::uint64_t seen = 0;             // the layout's change log position when counted
    std::vector<std::uint32_t> version;
    std::vector<gang_group_caps> caps;
  };

  // The entry of (r, per_node); a new one replaces the least recently used.
  [[nodiscard]] entry& entry_for(const placement_request& r, std::int32_t per_node, std::size_t groups) {
    const auto [e, fresh] =
        lru_slot(entries_, shapes, clock_, [&](const entry& x) { return x.per_node == per_node && x.r == r && x.caps.size() == groups; });
    if (fresh) {
      e->r = r;
      e->per_node = per_node;
      e->seen = 0;
      e->version.assign(groups, 0);  // group versions start at 1: all recounted
      e->caps.assign(groups, gang_group_caps{});
    }
    return *e;
  }

  std::vector<entry> entries_;
  std::uint64_t clock_ = 0;
};

}  // namespace gpurent
