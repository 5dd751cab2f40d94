// SPDX-License-Identifier: MIT
#pragma once
// The gang placer's running choice for a gang of one unit (one member, or one segment) that
// reads no level: the group its policy scores highest, the first in group order on ties,
// which is what filling the whole cluster's views would choose (gang/counts.hpp). For such a
// gang every group is asked the same need (one unit, one remaining), so a group's score
// depends on the group alone; per gang shape the scores sit in a tournament tree over the
// groups, brought up to date by the groups changed since that shape was last asked (the
// layout's change log), as gang/room.hpp keeps its sums: a decision costs the changes times
// log(groups), not a view of every group. Most jobs of a fleet are such gangs (a single node
// or a share of one). The placer asks it only where room.hpp answers (the gang holds no
// block); reference/full_scan_gang.hpp builds every view instead, and the tests compare them.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <gpurent/matching/gang/capacity.hpp>
#include <gpurent/matching/gang/counts.hpp>
#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/policy.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/gang/room.hpp>
#include <gpurent/matching/inventory.hpp>

namespace gpurent {

class gang_best {
 public:
  using shape = gang_room::shape;  // what a group's score depends on besides the group
  static constexpr std::size_t shapes = 32;

  void reset() noexcept {
    for (entry& e : entries_) e.used = 0;
  }

  // best for gang g (one unit of `unit` members) under policy GP with context ctx (version
  // `context`): a group `open` opens to g scored by its view, as the whole cluster's fill
  // scores it for its only step (gang_need{1, 1, unit}).
  template <GangPolicy GP, class Capacity, class Open>
  [[nodiscard]] std::optional<group_index> of_gang(const gang_layout& l, Capacity& capacity, const inventory& inv, const gang_context& ctx,
                                                   std::uint64_t context, const gang_request& g, std::int64_t unit, Open&& open) {
    const std::span<const gang_group_caps> caps = capacity.caps(l, inv, g.member, g.per_node);
    return best(l, shape::of(g, unit), inv.segment_changes(g.member), context, [&](group_index gi) -> std::optional<std::int64_t> {
      const gang_view v = gang_counts<GP>::view_of(l, caps[gi], gi, unit, open(gi));
      if (v.units <= 0) return std::nullopt;
      return GP::score(ctx, v, gang_need{1, 1, unit});
    });
  }

  // The best group for shape s now, nullopt when no group takes a unit. score_of(g): group
  // g's score, nullopt where it takes none; `segment_changes` as the capacity cache reads it
  // and `context` the placer's context version (a change of either scores every group again).
  template <class ScoreOf>
  [[nodiscard]] std::optional<group_index> best(const gang_layout& l, const shape& s, std::uint64_t segment_changes, std::uint64_t context,
                                                ScoreOf&& score_of) {
    entry& e = entry_for(s, l.group_count());
    const auto changed = l.changed_since(e.seen);
    if (e.segment_changes != segment_changes || e.context != context || !changed || changed->size() >= l.group_count()) {
      for (group_index g = 0; g < l.group_count(); ++g) e.tree[e.leaves + g] = leaf(g, score_of(g));
      settle_all(e);
    } else {
      // Each changed group scored once (the log repeats a group changed again); then the
      // paths above them, or every node when that is cheaper.
      dirty_.clear();
      for (const group_index g : *changed) {
        node& x = e.tree[e.leaves + g];
        if (x.dirty) continue;
        x = leaf(g, score_of(g));
        x.dirty = true;
        dirty_.push_back(g);
      }
      const auto depth = static_cast<std::size_t>(std::bit_width(e.leaves));
      if (dirty_.size() * depth >= e.leaves) {
        for (const group_index g : dirty_) e.tree[e.leaves + g].dirty = false;
        settle_all(e);
      } else {
        for (const group_index g : dirty_) {
          std::size_t i = e.leaves + g;
          e.tree[i].dirty = false;
          for (i /= 2; i >= 1; i /= 2) e.tree[i] = better(e.tree[2 * i], e.tree[2 * i + 1]);
        }
      }
    }
    e.seen = l.changes();
    e.segment_changes = segment_changes;
    e.context = context;
    const node& top = e.tree[1];
    return top.valid ? std::optional<group_index>(top.group) : std::nullopt;
  }

 private:
  struct node {
    std::int64_t score = 0;
    group_index group = 0;
    bool valid = false;  // the group takes a unit
    bool dirty = false;  // a leaf scored again in this update
  };
  struct entry;
  // Every inner node from its children, bottom up.
  static void settle_all(entry& e) noexcept {
    for (std::size_t i = e.leaves; i-- > 1;) e.tree[i] = better(e.tree[2 * i], e.tree[2 * i + 1]);
  }
  // The higher score; on a tie the left one, which holds the lower groups.
  [[nodiscard]] static node better(const node& a, const node& b) noexcept {
    if (!b.valid) return a;
    if (!a.valid) return b;
    return b.score > a.score ? b : a;
  }
  [[nodiscard]] static node leaf(group_index g, const std::optional<std::int64_t>& score) noexcept {
    return score ? node{*score, g, true} : node{0, g, false};
  }

  struct entry : gang_room::entry_stamp {
    std::uint64_t context = 0;
    std::size_t leaves = 1;  // the first leaf: groups rounded up to a power of two
    std::vector<node> tree;  // [1, leaves): the better child; [leaves, 2 leaves): the groups
  };

  // The entry of s; a new one replaces the least recently used.
  [[nodiscard]] entry& entry_for(const shape& s, std::size_t groups) {
    const auto [e, fresh] =
        lru_slot(entries_, shapes, clock_, [&](const entry& x) { return x.s == s && x.tree.size() == 2 * std::bit_ceil(groups); });
    if (fresh) {
      e->s = s;
      e->seen = 0;  // the log starts past 0: every group is scored
      e->leaves = std::bit_ceil(groups);
      e->tree.assign(2 * e->leaves, node{});
    }
    return *e;
  }

  std::vector<entry> entries_;
  std::uint64_t clock_ = 0;
  std::vector<group_index> dirty_;  // the groups scored again in this update
};

}  // namespace gpurent
