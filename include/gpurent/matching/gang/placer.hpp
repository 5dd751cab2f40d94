// SPDX-License-Identifier: MIT
#pragma once
// Gangs on the network topology: place a gang all or nothing (docs/formats/fleet.md's rules: per-node
// cap, required and preferred levels, segments in base blocks, exclusive blocks, nodes in no
// domain only for gangs without topology rules, down and drained nodes take nothing new),
// release it, change a node's condition, and explain a gang that does not fit.
//
// How a homogeneous gang is decided (gang/request.hpp: members_fitting is exact and
// exchangeable): per base block (or run of outside nodes, a *group*, gang/layout.hpp) the
// members it can take; in units (members, or segments: floor(members / s) per block, since
// a segment must sit in one block); per domain the sum over its blocks. The gang fits a
// domain exactly when its units reach the gang's, so the placer cannot miss a placement.
// The policy (gang/policy.hpp) then only ranks: which domain, which blocks in what order,
// which nodes. Nothing touches the inventory until the whole gang is assigned. Gangs whose
// members differ go through the exact search (gang/search.hpp).
//
// Speed: a group's capacity for a member shape is cached with the group's version (bumped
// by any change of one of its nodes, through the inventory's journal), so a decision reads
// one cached entry per block and recounts only the blocks that changed since that shape
// was last placed: O(blocks) instead of O(nodes); a gang that fits nowhere (in the whole
// cluster, or in any block when it must fit in one) is refused by a running count of each
// shape's room (gang/room.hpp), brought up to date by the blocks changed since:
// O(changes); and a gang of one unit that reads no level takes the group from a running
// choice per shape (gang/best.hpp), not from a view of every group.
// reference/full_scan_gang.hpp is the same placer recounting every node for every decision
// (the baseline, same decisions).
// Nothing allocates per decision once the scratch space has grown.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/gang/assign.hpp>
#include <gpurent/matching/gang/best.hpp>
#include <gpurent/matching/gang/capacity.hpp>
#include <gpurent/matching/gang/counts.hpp>
#include <gpurent/matching/gang/holders.hpp>
#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/policy.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/gang/room.hpp>
#include <gpurent/matching/gang/search.hpp>
#include <gpurent/matching/gang/segments.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/node/policy.hpp>
#include <gpurent/matching/observer.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/why_not.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

// Where a placer counts capacity: cached_gang_capacity, or the full scan of every node
// (reference/full_scan_gang.hpp).
template <class C>
concept GangCapacity = requires(C& c, const gang_layout& l, const inventory& inv, const placement_request& r, std::int32_t k) {
  c.reset();
  { c.caps(l, inv, r, k) } -> std::convertible_to<std::span<const gang_group_caps>>;
};

template <GangPolicy GP, ConstraintSet Cs = default_constraints, GangCapacity Capacity = cached_gang_capacity<Cs>>
class gang_placer {
 public:
  using policy_type = GP;
  using constraints_type = Cs;

  // A placer over inv and topo (same nodes, same numbers); ctx feeds gpurent's policy.
  gang_placer(inventory& inv, const cluster_topology& topo, gang_context ctx = {}) : inv_(&inv), topo_(&topo), ctx_(std::move(ctx)) {
    GPURENT_ASSERT(topo.node_count() == inv.size());
    rebuild();
  }

  // Places gang g, all members or none, as gang `id` (unique among the live gangs); its
  // placements in member order into out (cleared first). nullopt when it does not fit: the
  // inventory is then untouched (explain says why). A gang under network isolation naming no
  // network segment goes into the first segment (in the nodes file's order of first
  // appearance) that no other tenant keeps and that holds it. An attached observer sees it.
  [[nodiscard]] std::optional<gang_outcome> place(const gang_request& g, gang_id id, std::vector<placement>& out) {
    out.clear();
    std::optional<gang_outcome> r = place_unobserved(g, id, out);
    if (observer_) [[unlikely]]
      observer_(gang_decision{*inv_, g, id, out, this, [](void* p, const gang_request& x) { return static_cast<gang_placer*>(p)->explain(x); }});
    return r;
  }

  // Whether job g (id) could put a member on node n now (n's constraints, its block's holder).
  [[nodiscard]] bool admits(node_index n, const gang_request& g, gang_id id) {
    sync();
    return Cs::admits(*inv_, n, g.member) && usable(layout_.group_of(n), g, id);
  }

  // Whether g would be placed now as gang `id` (what place answers); nothing changes.
  [[nodiscard]] bool fits(const gang_request& g, gang_id id) {
    if (!check_gang(g, *topo_)) return false;
    sync();
    if (!g.picks_segment()) return fits_decided(g, id);
    return segments_.first(*inv_, g, [&](const gang_request& gs) { return fits_decided(gs, id); });
  }

  // Units of g (members, or segments; like members, no network segment) the domain of level l
  // holding node n takes now as gang `id`, counted there alone (no_level: the whole cluster).
  [[nodiscard]] std::int64_t units(const gang_request& g, gang_id id, level_index l, node_index n) {
    GPURENT_ASSERT(g.counted_by_domain());
    if (!check_gang(g, *topo_)) return 0;
    sync();
    const std::int64_t unit = g.unit();
    if (l == no_level) {
      if (const auto r = room(g, id, unit)) return r->units;
      build_views(g, id, unit, false);
      return counts_.root_units();
    }
    const group_index gi = layout_.group_of(n);
    if (layout_.outside(gi) || l >= layout_.level_count()) return 0;
    const std::uint32_t d = layout_.domain_of_group(l, gi);
    std::int64_t units = 0;
    for (group_index k = layout_.first_group(l, d); k < layout_.end_group(l, d); ++k)
      if (usable(k, g, id)) units += group_caps_of<Cs>(layout_, *inv_, k, g.member, g.per_node).cap / unit;
    return units;
  }

  // Calls o with every decision of place (none: nothing is called, nothing is computed).
  void set_observer(gang_observer o) noexcept { observer_ = o; }

  // Puts gang `id` back exactly as placed (members, exclusive blocks): the undo of release.
  void restore(const gang_request& g, gang_id id, std::span<const placement> members) noexcept {
    for (const placement& p : members) {
      inv_->place(p);
      if (g.exclusive) set_holder(p.node, id);
    }
  }

  // The workload gpurent's policy plans for (fleet run: the jobs change over time).
  void set_context(gang_context ctx) {
    ctx_ = std::move(ctx);
    ++context_version_;
  }

  // Gang `id` leaves: every member released, its exclusive blocks free again.
  void release(gang_id id, std::span<const placement> members) noexcept {
    for (const placement& p : members) {
      inv_->release(p);
      if (id != no_gang && held_.of_node(*topo_, p.node) == id) set_holder(p.node, no_gang);
    }
  }

  // Gang `id` was released but still runs (a victim in its notice window): the base blocks of
  // `members` no gang holds are held for it until unhold_blocks (the preemptor's stay its own).
  void hold_blocks(gang_id id, std::span<const placement> members) noexcept {
    for (const placement& p : members)
      if (topo_->block_of(p.node) != outside_topology && held_.of_node(*topo_, p.node) == no_gang) set_holder(p.node, id);
  }
  // Room that is no gang's (a victim's leftovers in its notice window) taken and given back.
  void hold(const placement& h) noexcept { inv_->place(h); }
  void unhold(const placement& h) noexcept { inv_->release(h); }
  // The end of hold_blocks: the blocks `id` still holds are free again.
  void unhold_blocks(gang_id id, std::span<const placement> members) noexcept {
    for (const placement& p : members)
      if (id != no_gang && held_.of_node(*topo_, p.node) == id) set_holder(p.node, no_gang);
  }

  // A node goes down, drains or comes back up: down and drained nodes take nothing new.
  void set_condition(node_index n, node_condition c) noexcept { inv_->set_condition(n, c); }

  // The gang holding base block b exclusively (no_gang: none).
  [[nodiscard]] gang_id holder(domain_index b) const noexcept { return held_.of_block(b); }
  [[nodiscard]] const inventory& inv() const noexcept { return *inv_; }
  [[nodiscard]] const cluster_topology& topology() const noexcept { return *topo_; }

  // Why g does not fit now (see why_not). A gang that picks a network segment: the segments
  // are the candidates, and the failing segment in which most members fit says the rest.
  [[nodiscard]] why_not explain(const gang_request& g) {
    why_not w;
    w.members = g.size();
    if (auto c = check_gang(g, *topo_); !c) {
      w.note = "invalid gang: " + c.error().describe();
      return w;
    }
    sync();
    if (!g.picks_segment()) return explain_decided(g);
    return segments_.explain(
        *inv_, g, [&](const gang_request& gs) { return fits_decided(gs, no_gang); }, [&](const gang_request& gs) { return explain_decided(gs); });
  }

 private:
  using counts = gang_counts<GP>;
  using scope = typename counts::scope;

  [[nodiscard]] std::optional<gang_outcome> place_unobserved(const gang_request& g, gang_id id, std::vector<placement>& out) {
    if (!check_gang(g, *topo_)) return std::nullopt;
    sync();
    if (!(g.picks_segment() ? place_in_a_segment(g, id, out) : place_decided(g, id, out))) {
      out.clear();
      return std::nullopt;
    }
    if (g.exclusive)
      for (const placement& p : out) set_holder(p.node, id);
    return gang_outcome{preferred_met(g, out)};
  }

  [[nodiscard]] bool place_decided(const gang_request& g, gang_id id, std::vector<placement>& out) {
    return g.homogeneous() ? place_counted(g, id, out) : place_searched(g, id, out);
  }

  // The job-level choice of a network segment (gang/segments.hpp): the first that holds it.
  [[nodiscard]] bool place_in_a_segment(const gang_request& g, gang_id id, std::vector<placement>& out) {
    return segments_.first(*inv_, g, [&](const gang_request& gs) {
      if (place_decided(gs, id, out)) return true;
      out.clear();
      return false;
    });
  }

  [[nodiscard]] bool fits_decided(const gang_request& g, gang_id id) {
    if (!g.homogeneous()) return find_searched(g, id, trial_);
    const std::int64_t unit = g.unit();
    const auto need = g.units();
    const auto r = room(g, id, unit);
    if (r && r->short_for(g, need, topo_->block_level())) return false;  // short of room everywhere
    if (r && !counts::reads_levels(g)) return true;                      // the whole cluster's count is the answer
    build_views(g, id, unit, counts::reads_levels(g));
    return counts_.any_holds(g, need);
  }

  // explain for a gang whose every member's constraints are set.
  [[nodiscard]] why_not explain_decided(const gang_request& g) {
    why_not w;
    w.members = g.size();
    w.nodes = explain_nodes<Cs>(*inv_, g.at(0), [&](node_index n) { return !g.topology_bound() || topo_->in_topology(n); });
    if (!g.homogeneous()) {
      w.note = "no arrangement of the " + std::to_string(g.size()) + " members fits (exact search" +
               (search_.exhausted() ? ", which ran out of steps" : "") + "); nodes for member 0: " + w.nodes.summary();
      return w;
    }
    const std::int64_t unit = g.unit();
    build_views(g, no_gang, unit, true);
    counts_.explain_scope(layout_, *topo_, g, unit, w);
    counts_.explain_blocks(layout_, held_.blocks(), g, unit, w);
    return w;
  }

  void rebuild() {
    layout_.build(*inv_, *topo_);
    capacity_.reset();
    room_.reset();
    best_.reset();
    counts_.reset(layout_);
    assigner_.reset(inv_->size());
    held_.resize(topo_->level_count() == 0 ? 0 : topo_->domain_count(topo_->block_level()));
    segments_.rebuild(*inv_);
  }
  void sync() {
    if (!layout_.sync(*inv_)) rebuild();
  }

  [[nodiscard]] bool usable(group_index gi, const gang_request& g, gang_id id) const noexcept {
    if (layout_.outside(gi)) return !g.topology_bound();
    const gang_id h = held_.of_block(layout_.topology_domain(layout_.level_count() - 1, gi));
    if (h != no_gang && h != id) return false;
    return !g.exclusive || layout_.busy_nodes(gi) == 0;
  }

  // Every group's and domain's view for gang g (id): its capacity where it may go.
  void build_views(const gang_request& g, gang_id id, std::int64_t unit, bool levels) {
    counts_.build(layout_, capacity_.caps(layout_, *inv_, g.member, g.per_node), unit, levels, [&](group_index gi) { return usable(gi, g, id); });
    if (const auto r = room(g, id, unit))  // the running counts are the counts
      GPURENT_ASSERT(r->units == counts_.root_units() &&
                     (!levels || topo_->level_count() == 0 || r->block_most == counts_.most_units(topo_->block_level())));
  }

  // The units g could take in the whole cluster as `id` (the views' root count) and in the
  // roomiest base block, from the running count of gang/room.hpp: nullopt when id holds
  // blocks (the count leaves out every held block) or on the reference placer, which counts
  // every node.
  [[nodiscard]] std::optional<gang_room::count> room(const gang_request& g, gang_id id, std::int64_t unit) {
    if constexpr (!std::is_same_v<Capacity, cached_gang_capacity<Cs>>) {
      return std::nullopt;
    } else {
      if (id != no_gang && held_.holds_any(id)) return std::nullopt;
      return room_.of_gang(layout_, capacity_, *inv_, g, unit, [&](group_index gi) { return usable(gi, g, no_gang); });
    }
  }

  // For a gang of one unit that reads no level, where the room count answers (`id` holds no
  // block), the group its only step takes: the running choice of gang/best.hpp.
  [[nodiscard]] std::optional<group_index> one_unit_group(const gang_request& g, std::int64_t unit) {
    return best_.of_gang<GP>(layout_, capacity_, *inv_, ctx_, context_version_, g, unit, [&](group_index gi) { return usable(gi, g, no_gang); });
  }

  void set_holder(node_index n, gang_id id) noexcept { held_.set(layout_, *topo_, n, id); }

  [[nodiscard]] bool place_counted(const gang_request& g, gang_id id, std::vector<placement>& out) {
    const std::int64_t unit = g.unit();
    const auto need = g.units();
    const auto r = room(g, id, unit);
    if (r && r->short_for(g, need, topo_->block_level())) return false;  // short of room everywhere
    if (const auto b = r && need == 1 && !counts::reads_levels(g) ? one_unit_group(g, unit) : std::nullopt) {
      const std::array<typename counts::step, 1> one{{{*b, 1}}};  // the group filling every view would choose
      if (!assigner_.assign(layout_, *inv_, g, one, unit)) return false;
      assigner_.apply(*inv_, g.member, out);
      return true;
    }
    build_views(g, id, unit, counts::reads_levels(g));
    if (!counts_.any_holds(g, need)) return false;
    const std::optional<scope> s = counts_.choose_scope(layout_, ctx_, g, need, unit);
    if (!s) return false;
    counts_.fill(layout_, ctx_, *s, need, unit);
    if (!assigner_.assign(layout_, *inv_, g, counts_.steps(), unit)) return false;
    assigner_.apply(*inv_, g.member, out);
    return true;
  }

  // A gang of different members: the exact search over the groups open to it (gang/search.hpp).
  [[nodiscard]] bool find_searched(const gang_request& g, gang_id id, std::vector<placement>& out) {
    return search_layout<Cs>(
        search_, layout_, *inv_, *topo_, g, [&](group_index gi) { return usable(gi, g, id); }, search_nodes_, out);
  }

  [[nodiscard]] bool place_searched(const gang_request& g, gang_id id, std::vector<placement>& out) {
    if (!find_searched(g, id, out)) return false;
    for (const placement& p : out) inv_->place(p);
    return true;
  }

  [[nodiscard]] bool preferred_met(const gang_request& g, std::span<const placement> out) const noexcept {
    if (g.preferred == no_level || out.empty()) return false;
    const domain_index d = topo_->domain_of(out.front().node, g.preferred);
    return d != outside_topology &&
           std::all_of(out.begin(), out.end(), [&](const placement& p) { return topo_->domain_of(p.node, g.preferred) == d; });
  }

  inventory* inv_;
  const cluster_topology* topo_;
  gang_context ctx_;
  gang_layout layout_;
  Capacity capacity_;
  counts counts_;
  gang_assigner<GP, Cs> assigner_;
  block_holders held_;  // the exclusive holder of each base block
  gang_room room_;
  gang_best best_;
  std::uint64_t context_version_ = 0;  // set_context's count
  gang_search search_;
  std::vector<node_index> search_nodes_;
  std::vector<placement> trial_;  // fits' scratch answer for a search
  gang_segments segments_;        // the choice of a network segment
  gang_observer observer_;
};

}  // namespace gpurent
