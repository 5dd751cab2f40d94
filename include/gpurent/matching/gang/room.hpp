// SPDX-License-Identifier: MIT
#pragma once
// The gang placer's running count of a gang shape's room in the whole cluster: the units
// (members, or segments) the groups no gang holds can take, per shape a sum kept up to date
// by the groups changed since that shape was last counted (the layout's change log), not by
// a pass over every group. For a gang that holds no block it equals the root count of the
// placer's views (gang_counts::root_units), so a gang short of it fits nowhere: a queued
// gang retried after every release learns that from the changes alone. The placer checks
// the two counts agree whenever it builds the views; reference/full_scan_gang.hpp does not
// use this count at all. Beside the sum it keeps how many base blocks take each number of
// units, so the most that one block takes is known too: a gang required inside one block
// that no block holds is refused from the changes alone as well.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/matching/gang/capacity.hpp>
#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

class gang_room {
 public:
  // What the count depends on besides the groups: the member, the per-node cap, the unit,
  // whether nodes in no domain are closed to it (topology rules) and whether it needs
  // blocks with nothing placed (exclusive).
  struct shape {
    placement_request member;
    std::int32_t per_node = 0;
    std::int64_t unit = 1;
    bool topology_bound = false;
    bool exclusive = false;
    friend bool operator==(const shape&, const shape&) = default;
    [[nodiscard]] static shape of(const gang_request& g, std::int64_t unit) noexcept {
      return {g.member, g.per_node, unit, g.topology_bound(), g.exclusive};
    }
  };
  // What a per-shape entry of a running count records besides its sums (room here, the
  // choice of gang/best.hpp): its shape, when last used (0: empty, lru_slot), and the change
  // log position and the segment changes it was brought up to date at.
  struct entry_stamp {
    shape s;
    std::uint64_t used = 0;
    std::uint64_t seen = 0;  // 0: never (the log starts past 0: every group is read)
    std::uint64_t segment_changes = 0;
  };
  static constexpr std::size_t shapes = 32;

  void reset() noexcept {
    for (entry& e : entries_) e.used = 0;
  }

  // A shape's room: the units of the whole cluster, and the most units one base block takes.
  struct count {
    std::int64_t units = 0;
    std::int64_t block_most = 0;
    // Whether gang g of `need` units fits nowhere: short of room in the whole cluster, or,
    // required inside one base block (`block`: the block level), in every block.
    [[nodiscard]] bool short_for(const gang_request& g, std::int64_t need, level_index block) const noexcept {
      return units < need || (g.required != no_level && g.required == block && block_most < need);
    }
  };

  // Shape s's room now: `units_of(g)` is group g's contribution (0 where s may not go);
  // `segment_changes` as the capacity cache reads it (a change re-reads every group).
  template <class UnitsOf>
  [[nodiscard]] count units(const gang_layout& l, const shape& s, std::uint64_t segment_changes, UnitsOf&& units_of) {
    entry& e = entry_for(s, l.group_count());
    const auto changed = l.changed_since(e.seen);
    if (e.segment_changes != segment_changes || !changed || changed->size() >= e.units.size()) {
      e.sum = 0;
      e.blocks.assign(1, static_cast<std::int64_t>(l.block_count()));  // every block at 0 units, then moved
      e.most = 0;
      std::fill(e.units.begin(), e.units.end(), 0);
      for (group_index g = 0; g < e.units.size(); ++g) set(e, l, g, units_of(g));
    } else {
      for (const group_index g : *changed) set(e, l, g, units_of(g));
    }
    e.seen = l.changes();
    e.segment_changes = segment_changes;
    return {e.sum, e.most};
  }

  // units for gang g in `unit`s, from the capacity source's counts: a group `open` opens to
  // g takes what its free room holds of g's member, in whole units.
  template <class Capacity, class Open>
  [[nodiscard]] count of_gang(const gang_layout& l, Capacity& capacity, const inventory& inv, const gang_request& g, std::int64_t unit, Open&& open) {
    const std::span<const gang_group_caps> caps = capacity.caps(l, inv, g.member, g.per_node);
    return units(l, shape::of(g, unit), inv.segment_changes(g.member),
                 [&](group_index gi) -> std::int64_t { return open(gi) ? caps[gi].cap / unit : 0; });
  }

 private:
  struct entry : entry_stamp {
    std::int64_t sum = 0;
    std::vector<std::int64_t> units;   // per group
    std::vector<std::int64_t> blocks;  // per number of units: the base blocks that take that many
    std::int64_t most = 0;             // the largest number of units a base block takes
  };

  // Group g takes u units now.
  static void set(entry& e, const gang_layout& l, group_index g, std::int64_t u) {
    const std::int64_t was = e.units[g];
    e.sum += u - was;
    e.units[g] = u;
    if (l.outside(g) || u == was) return;
    if (static_cast<std::size_t>(u) >= e.blocks.size()) e.blocks.resize(static_cast<std::size_t>(u) + 1, 0);
    --e.blocks[static_cast<std::size_t>(was)];
    ++e.blocks[static_cast<std::size_t>(u)];
    e.most = std::max(e.most, u);
    while (e.most > 0 && e.blocks[static_cast<std::size_t>(e.most)] == 0) --e.most;
  }

  // The entry of s; a new one replaces the least recently used.
  [[nodiscard]] entry& entry_for(const shape& s, std::size_t groups) {
    const auto [e, fresh] = lru_slot(entries_, shapes, clock_, [&](const entry& x) { return x.s == s && x.units.size() == groups; });
    if (fresh) {
      e->s = s;
      e->seen = 0;  // the log starts past 0: every group is read
      e->units.assign(groups, 0);
      e->blocks.clear();  // seen = 0: the first read counts every group
      e->most = 0;
    }
    return *e;
  }

  std::vector<entry> entries_;
  std::uint64_t clock_ = 0;
};

}  // namespace gpurent
