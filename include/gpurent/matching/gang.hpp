// SPDX-License-Identifier: MIT
#pragma once
// Gangs on the network topology: place a gang all or nothing (fleet.md's rules: per-node
// cap, required and preferred levels, segments in base blocks, exclusive blocks, nodes in no
// domain only for gangs without topology rules, down and drained nodes take nothing new),
// release it, change a node's condition, and explain a gang that does not fit.
//
// How a homogeneous gang is decided (gang_request.hpp: members_fitting is exact and
// exchangeable): per base block (or run of outside nodes, a *group*, gang_layout.hpp) the
// members it can take; in units (members, or segments: floor(members / s) per block, since
// a segment must sit in one block); per domain the sum over its blocks. The gang fits a
// domain exactly when its units reach the gang's, so the placer cannot miss a placement.
// The policy (gang_policy.hpp) then only ranks: which domain, which blocks in what order,
// which nodes. Nothing touches the inventory until the whole gang is assigned. Gangs whose
// members differ go through the exact search (gang_search.hpp).
//
// Speed: a group's capacity for a member shape is cached with the group's version (bumped
// by any change of one of its nodes, through the inventory's journal), so a decision reads
// one cached entry per block and recounts only the blocks that changed since that shape
// was last placed: O(blocks) instead of O(nodes). reference/full_scan_gang.hpp is the same
// placer recounting every node for every decision (the baseline, same decisions).
// Nothing allocates per decision once the scratch space has grown.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/gang_capacity.hpp>
#include <gpurent/matching/gang_layout.hpp>
#include <gpurent/matching/gang_policy.hpp>
#include <gpurent/matching/gang_request.hpp>
#include <gpurent/matching/gang_search.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/observer.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/policy.hpp>
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
  gang_placer(inventory& inv, cluster_topology& topo, gang_context ctx = {}) : inv_(&inv), topo_(&topo), ctx_(std::move(ctx)) {
    GPURENT_ASSERT(topo.node_count() == inv.size());
    rebuild();
  }

  // Places gang g, all members or none, as gang `id` (unique among the live gangs); its
  // placements in member order into out (cleared first). nullopt when it does not fit:
  // the inventory is then untouched (explain says why).
  // A gang under network isolation that names no network segment goes into one segment
  // chosen for the whole gang: the segments in the order the inventory interned them (the
  // nodes file's order of first appearance), the first that no other tenant keeps (held in
  // network isolation, or with its work) and that holds it.
  // The observer, when one is attached, sees the decision once it is made.
  [[nodiscard]] std::optional<gang_outcome> place(const gang_request& g, gang_id id, std::vector<placement>& out) {
    out.clear();
    std::optional<gang_outcome> r = place_unobserved(g, id, out);
    if (observer_) [[unlikely]]
      observer_(gang_decision{*inv_, g, id, out, this, [](void* p, const gang_request& x) { return static_cast<gang_placer*>(p)->explain(x); }});
    return r;
  }

  // Whether g would be placed now as gang `id` (what place would answer); nothing changes.
  // For a preemption search: release candidate victims, ask, restore them.
  [[nodiscard]] bool fits(const gang_request& g, gang_id id) {
    if (!check_gang(g, *topo_)) return false;
    sync();
    if (!g.picks_segment()) return fits_decided(g, id);
    return std::any_of(segments_.begin(), segments_.end(), [&](segment_id s) {
      return segment_refusal_of(g, s) == segment_refusal::open && fits_decided(g.in_segment(s, segment_members_), id);
    });
  }

  // Calls o with every decision of place (none: nothing is called, nothing is computed).
  void set_observer(gang_observer o) noexcept { observer_ = o; }

  // Puts gang `id` back exactly as place placed it (its members, its exclusive blocks): the
  // undo of release, e.g. when a trial release found no room for a preemptor.
  void restore(const gang_request& g, gang_id id, std::span<const placement> members) noexcept {
    for (const placement& p : members) {
      inv_->place(p);
      if (g.exclusive) held_[topo_->block_of(p.node)] = id;
    }
  }

  // The workload gpurent's policy plans for (fleet run: the jobs change over time).
  void set_context(gang_context ctx) { ctx_ = std::move(ctx); }

  // Gang `id` leaves: every member released, its exclusive blocks free again.
  void release(gang_id id, std::span<const placement> members) noexcept {
    for (const placement& p : members) {
      inv_->release(p);
      const domain_index b = topo_->block_of(p.node);
      if (b != outside_topology && held_[b] == id) held_[b] = no_gang;
    }
  }

  // Gang `id` was released but still runs (a preemption victim in its notice window): the
  // base blocks of `members` that no gang holds now are held for it, so no other gang lands
  // there, until unhold_blocks. Blocks the preemptor took exclusively stay the preemptor's.
  void hold_blocks(gang_id id, std::span<const placement> members) noexcept {
    for (const placement& p : members)
      if (const domain_index b = topo_->block_of(p.node); b != outside_topology && held_[b] == no_gang) held_[b] = id;
  }
  // Room that is no gang's (a victim's leftovers in its notice window) taken and given back.
  void hold(const placement& h) noexcept { inv_->place(h); }
  void unhold(const placement& h) noexcept { inv_->release(h); }
  // The end of hold_blocks: the blocks `id` still holds are free again.
  void unhold_blocks(gang_id id, std::span<const placement> members) noexcept {
    for (const placement& p : members)
      if (const domain_index b = topo_->block_of(p.node); b != outside_topology && held_[b] == id) held_[b] = no_gang;
  }

  // A node goes down, drains or comes back up: down and drained nodes take nothing new
  // (what runs there is the caller's to stop or keep).
  void set_condition(node_index n, node_condition c) noexcept {
    topo_->set_condition(n, c);
    inv_->drain(n, c != node_condition::up);
  }

  // The gang holding base block b exclusively (no_gang: none).
  [[nodiscard]] gang_id holder(domain_index b) const noexcept { return held_[b]; }
  [[nodiscard]] const inventory& inv() const noexcept { return *inv_; }
  [[nodiscard]] const cluster_topology& topology() const noexcept { return *topo_; }

  // Why g does not fit now (see why_not). A gang that picks a network segment: the
  // segments are the candidates, and the failing segment in which most members fit says
  // the rest.
  [[nodiscard]] why_not explain(const gang_request& g) {
    why_not w;
    w.members = g.size();
    if (auto c = check_gang(g, *topo_); !c) {
      w.note = "invalid gang: " + c.error().describe();
      return w;
    }
    sync();
    return g.picks_segment() ? explain_segments(g) : explain_decided(g);
  }

 private:
  static constexpr std::size_t root = max_levels;  // the scope of the whole cluster
  struct scope {
    std::size_t level = root;
    std::uint32_t domain = 0;
  };

  [[nodiscard]] std::optional<gang_outcome> place_unobserved(const gang_request& g, gang_id id, std::vector<placement>& out) {
    if (!check_gang(g, *topo_)) return std::nullopt;
    sync();
    if (!(g.picks_segment() ? place_in_a_segment(g, id, out) : place_decided(g, id, out))) {
      out.clear();
      return std::nullopt;
    }
    if (g.exclusive)
      for (const placement& p : out) held_[topo_->block_of(p.node)] = id;
    return gang_outcome{preferred_met(g, out)};
  }

  [[nodiscard]] bool place_decided(const gang_request& g, gang_id id, std::vector<placement>& out) {
    return g.homogeneous() ? place_counted(g, id, out) : place_searched(g, id, out);
  }

  // The job-level choice of a network segment: each segment in turn, the first that holds it.
  [[nodiscard]] bool place_in_a_segment(const gang_request& g, gang_id id, std::vector<placement>& out) {
    for (const segment_id s : segments_) {
      if (segment_refusal_of(g, s) != segment_refusal::open) continue;
      if (place_decided(g.in_segment(s, segment_members_), id, out)) return true;
      out.clear();
    }
    return false;
  }

  // Whether another tenant keeps g's network members out of segment s (segment_tenancy):
  // it holds the segment in network isolation, or has work there.
  enum class segment_refusal : std::uint8_t { open, held, busy };
  [[nodiscard]] segment_refusal segment_refusal_of(const gang_request& g, segment_id s) const noexcept {
    const segment_tenancy& t = inv_->segment_tenants(s);
    segment_refusal why = segment_refusal::open;
    for (std::size_t i = 0; i < (g.homogeneous() ? 1 : g.size()); ++i) {
      const placement_request& r = g.at(i);
      if (r.isolation != isolation_level::network) continue;
      if (!t.open_to(r.tenant)) return segment_refusal::held;
      if (!t.only(r.tenant)) why = segment_refusal::busy;
    }
    return why;
  }

  [[nodiscard]] bool fits_decided(const gang_request& g, gang_id id) {
    if (!g.homogeneous()) return find_searched(g, id, trial_);
    const std::int64_t unit = g.segment > 0 ? g.segment : 1;
    build_views(g, id, capacity_.caps(layout_, *inv_, g.member, g.per_node), unit, reads_levels(g));
    return choose_scope(g, static_cast<std::int64_t>(g.size()) / unit, unit).has_value();
  }

  // explain for a gang that picks a segment: per segment, whether it holds the gang.
  [[nodiscard]] why_not explain_segments(const gang_request& g) {
    why_not w;
    std::size_t holding = 0;
    std::array<std::size_t, 3> refused{};  // per segment_refusal
    bool failed = false;
    for (const segment_id s : segments_) {
      ++refused[static_cast<std::size_t>(segment_refusal_of(g, s))];
      const gang_request gs = g.in_segment(s, segment_members_);
      if (fits_decided(gs, no_gang)) {
        ++holding;
        continue;
      }
      why_not ws = explain_decided(gs);
      if (!failed || ws.fit > w.fit) w = std::move(ws);
      failed = true;
    }
    w.members = g.size();
    if (segments_.empty()) w.note = "no node is in a network segment (network isolation needs one)";
    w.candidates = "network segments";
    w.total = segments_.size();
    w.holding = holding;
    w.holds = "all " + std::to_string(g.size()) + " members";
    explain_segment_reasons(refused, segments_.size() - holding, w);
    if (!w.note.empty() && !segments_.empty())
      w.note = "no network segment holds all " + std::to_string(g.size()) + " members (network segment): " + w.note;
    return w;
  }

  // The reasons of explain_segments: the segments other tenants keep (network isolation),
  // and of the rest those without room (of `failing` segments that do not hold the gang).
  static void explain_segment_reasons(const std::array<std::size_t, 3>& refused, std::size_t failing, why_not& w) {
    const std::size_t held = refused[static_cast<std::size_t>(segment_refusal::held)];
    const std::size_t busy = refused[static_cast<std::size_t>(segment_refusal::busy)];
    w.reasons.clear();
    if (held > 0) w.reasons.push_back({"are held in isolation by another tenant (network segment)", held});
    if (busy > 0) w.reasons.push_back({"hold another tenant's work (network segment)", busy});
    if (failing > held + busy || held + busy == 0) w.reasons.push_back({"have room for fewer (network segment)", failing - held - busy});
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
    const std::int64_t unit = g.segment > 0 ? g.segment : 1;
    build_views(g, no_gang, capacity_.caps(layout_, *inv_, g.member, g.per_node), unit, true);
    explain_scope(g, unit, w);
    explain_blocks(g, unit, w);
    return w;
  }

  void rebuild() {
    layout_.build(*inv_, *topo_);
    capacity_.reset();
    group_view_.assign(layout_.group_count(), gang_view{});
    level_view_.resize(layout_.level_count());
    for (std::size_t l = 0; l < layout_.level_count(); ++l) level_view_[l].assign(layout_.domain_count(l), gang_view{});
    node_left_.assign(inv_->size(), 0);
    node_stamp_.assign(inv_->size(), 0);
    held_.resize(topo_->level_count() == 0 ? 0 : topo_->domain_count(topo_->block_level()), no_gang);
    steps_.reserve(layout_.group_count());
    segments_.clear();
    for (node_index n = 0; n < inv_->size(); ++n)
      if (const segment_id s = inv_->spec(n).segment; s != no_segment) segments_.push_back(s);
    std::sort(segments_.begin(), segments_.end());
    segments_.erase(std::unique(segments_.begin(), segments_.end()), segments_.end());
  }
  void sync() {
    if (!layout_.sync(*inv_)) rebuild();
  }

  [[nodiscard]] bool usable(group_index gi, const gang_request& g, gang_id id) const noexcept {
    if (layout_.outside(gi)) return !g.topology_bound();
    const gang_id h = held_[layout_.topology_domain(layout_.level_count() - 1, gi)];
    if (h != no_gang && h != id) return false;
    return !g.exclusive || layout_.busy_nodes(gi) == 0;
  }

  // Every group's and domain's view for this gang: capacity where it may go, else nothing.
  void build_views(const gang_request& g, gang_id id, std::span<const gang_group_caps> caps, std::int64_t unit, bool levels) {
    root_units_ = 0;
    for (group_index gi = 0; gi < group_view_.size(); ++gi) {
      gang_view& v = group_view_[gi];
      const bool use = usable(gi, g, id);
      const gang_group_caps& c = caps[gi];
      v.block = !layout_.outside(gi);
      v.outside = layout_.outside(gi);
      v.busy_nodes = layout_.busy_nodes(gi);
      v.cap = use ? c.cap : 0;
      v.units = unit == 1 ? v.cap : v.cap / unit;  // most gangs: no division per group
      v.free_nodes = use ? c.free_nodes : 0;
      v.whole_nodes = use ? c.whole_nodes : 0;
      v.whole_cap = use ? c.whole_cap : 0;
      root_units_ += v.units;
    }
    if (!levels) return;
    for (std::size_t l = layout_.level_count(); l-- > 0;) {
      const bool blocks = l + 1 == layout_.level_count();
      for (std::uint32_t d = 0; d < level_view_[l].size(); ++d) {
        gang_view v = blocks ? group_view_[d] : gang_view{};
        if (!blocks)
          for (std::uint32_t k = layout_.child_begin(l, d); k < layout_.child_end(l, d); ++k) v.add(level_view_[l + 1][k]);
        level_view_[l][d] = v;
      }
    }
  }

  // Whether a decision for g reads the domains' views, or only the groups' and the whole
  // cluster's (most small gangs: their views per domain are not summed).
  [[nodiscard]] static bool reads_levels(const gang_request& g) noexcept {
    return GP::narrow || GP::descend || g.required != no_level || g.preferred != no_level;
  }

  [[nodiscard]] bool place_counted(const gang_request& g, gang_id id, std::vector<placement>& out) {
    const std::int64_t unit = g.segment > 0 ? g.segment : 1;
    const auto need = static_cast<std::int64_t>(g.size()) / unit;
    build_views(g, id, capacity_.caps(layout_, *inv_, g.member, g.per_node), unit, reads_levels(g));
    const std::optional<scope> s = choose_scope(g, need, unit);
    if (!s) return false;
    steps_.clear();
    fill(*s, need, unit);
    if (!assign_nodes(g, unit)) return false;
    apply(g.member, out);
    return true;
  }

  // The best domain of level l among [first, end) that holds `need` units.
  [[nodiscard]] std::optional<std::uint32_t> best_domain(std::size_t l, std::uint32_t first, std::uint32_t end, std::int64_t need,
                                                         std::int64_t unit) const noexcept {
    std::optional<std::uint32_t> best;
    std::int64_t best_score = 0;
    for (std::uint32_t d = first; d < end; ++d) {
      const gang_view& v = level_view_[l][d];
      if (v.units < need) continue;
      const std::int64_t s = GP::score(ctx_, v, gang_need{need, need, unit});
      if (!best || s > best_score) {
        best = d;
        best_score = s;
      }
    }
    return best;
  }

  // The domains of level l inside scope s: [first, end).
  [[nodiscard]] std::pair<std::uint32_t, std::uint32_t> inside(const scope& s, std::size_t l) const noexcept {
    if (s.level == root) return {0, static_cast<std::uint32_t>(layout_.domain_count(l))};
    std::uint32_t first = s.domain;
    std::uint32_t end = s.domain + 1;
    for (std::size_t k = s.level; k < l; ++k) {
      first = layout_.child_begin(k, first);
      end = layout_.child_begin(k, end);
    }
    return {first, end};
  }

  // Where the gang goes: the required level's domain (or the whole cluster), narrowed to the
  // preferred level's when one holds it; a narrowing policy takes the smallest level that
  // holds the gang instead.
  [[nodiscard]] std::optional<scope> choose_scope(const gang_request& g, std::int64_t need, std::int64_t unit) const noexcept {
    const std::size_t levels = layout_.level_count();
    if (GP::narrow && levels > 0) {
      const std::size_t lo = g.required != no_level ? g.required : 0;
      for (std::size_t l = levels; l-- > lo;)
        if (auto d = best_domain(l, 0, static_cast<std::uint32_t>(layout_.domain_count(l)), need, unit)) return scope{l, *d};
      if (g.required != no_level || root_units_ < need) return std::nullopt;
      return scope{};
    }
    scope s;
    if (g.required != no_level) {
      const auto d = best_domain(g.required, 0, static_cast<std::uint32_t>(layout_.domain_count(g.required)), need, unit);
      if (!d) return std::nullopt;
      s = scope{g.required, *d};
    } else if (root_units_ < need) {
      return std::nullopt;
    }
    if (g.preferred != no_level && (s.level == root || g.preferred > s.level)) {
      const auto [first, end] = inside(s, g.preferred);
      if (auto d = best_domain(g.preferred, first, end, need, unit)) s = scope{g.preferred, *d};
    }
    return s;
  }

  // What one step takes from a candidate: one segment at a time, else all it can.
  [[nodiscard]] static std::int64_t step_units(const gang_view& v, std::int64_t remaining, std::int64_t unit) noexcept {
    return unit > 1 ? 1 : std::min(v.units, remaining);
  }

  // `units` of the gang go to group gi (a step); its view shrinks by what they take.
  void take_from_group(group_index gi, std::int64_t units, std::int64_t unit) {
    steps_.emplace_back(gi, units);
    gang_view& v = group_view_[gi];
    const std::int64_t members = units * unit;
    const std::int64_t whole = detail::whole_nodes_taken(v, members);
    const std::int64_t per_whole = v.whole_nodes > 0 ? v.whole_cap / v.whole_nodes : 0;
    v.whole_cap = std::max<std::int64_t>(0, v.whole_cap - whole * per_whole);
    v.whole_nodes -= whole;
    v.busy_nodes += whole;
    v.free_nodes = std::max<std::int64_t>(0, v.free_nodes - whole);
    v.cap -= members;
    v.units -= units;
  }

  void fill(const scope& s, std::int64_t need, std::int64_t unit) {
    if (GP::descend) {
      fill_descend(s, need, unit);
      return;
    }
    const group_index first = s.level == root ? 0 : layout_.first_group(s.level, s.domain);
    const auto end = static_cast<group_index>(s.level == root ? layout_.group_count() : layout_.end_group(s.level, s.domain));
    for (std::int64_t remaining = need; remaining > 0;) {
      std::optional<group_index> best;
      std::int64_t best_score = 0;
      for (group_index gi = first; gi < end; ++gi) {
        const gang_view& v = group_view_[gi];
        if (v.units <= 0) continue;
        const std::int64_t sc = GP::score(ctx_, v, gang_need{step_units(v, remaining, unit), remaining, unit});
        if (!best || sc > best_score) {
          best = gi;
          best_score = sc;
        }
      }
      GPURENT_ASSERT(best.has_value());
      const std::int64_t take = step_units(group_view_[*best], remaining, unit);
      take_from_group(*best, take, unit);
      remaining -= take;
    }
  }

  // Level by level: the scope's children in the policy's order, each filled in turn.
  void fill_descend(const scope& s, std::int64_t need, std::int64_t unit) {
    const std::size_t blocks = layout_.level_count();
    if (s.level + 1 == blocks) {
      take_from_group(s.domain, need, unit);
      return;
    }
    const std::size_t c = s.level == root ? 0 : s.level + 1;
    const auto [first, end] = blocks == 0 ? std::pair<std::uint32_t, std::uint32_t>{0, 0} : inside(s, c);
    const auto outside_first = static_cast<std::uint32_t>(s.level == root ? layout_.block_count() : 0);
    const auto outside_end = static_cast<std::uint32_t>(s.level == root ? layout_.group_count() : 0);
    for (std::int64_t remaining = need; remaining > 0;) {
      std::optional<std::pair<bool, std::uint32_t>> best;  // (outside group?, index)
      std::int64_t best_score = 0;
      const auto consider = [&](const gang_view& v, bool out, std::uint32_t k) {
        if (v.units <= 0) return;
        const std::int64_t sc = GP::score(ctx_, v, gang_need{std::min(v.units, remaining), remaining, unit});
        if (!best || sc > best_score) {
          best = std::pair{out, k};
          best_score = sc;
        }
      };
      for (std::uint32_t k = first; k < end; ++k) consider(level_view_[c][k], false, k);
      for (std::uint32_t k = outside_first; k < outside_end; ++k) consider(group_view_[k], true, k);
      GPURENT_ASSERT(best.has_value());
      gang_view& v = best->first ? group_view_[best->second] : level_view_[c][best->second];
      const std::int64_t take = std::min(v.units, remaining);
      if (best->first) {
        take_from_group(best->second, take, unit);
      } else {
        v.units -= take;
        fill_descend(scope{c, best->second}, take, unit);
      }
      remaining -= take;
    }
  }

  // Members node n can still take in this decision.
  [[nodiscard]] std::int32_t& left_of(node_index n, const gang_request& g) noexcept {
    if (node_stamp_[n] != stamp_) {
      node_stamp_[n] = stamp_;
      node_left_[n] = node_members<Cs>(*inv_, n, g.member, g.per_node);
    }
    return node_left_[n];
  }

  // Each step's members onto the nodes of its group, in the policy's node order.
  [[nodiscard]] bool assign_nodes(const gang_request& g, std::int64_t unit) {
    if (++stamp_ == 0) {
      std::fill(node_stamp_.begin(), node_stamp_.end(), 0U);
      stamp_ = 1;
    }
    assign_.clear();
    for (const auto& [gi, units] : steps_) {
      for (std::int64_t want = units * unit; want > 0;) {
        std::optional<node_index> best;
        std::int64_t best_score = 0;
        for (const node_index n : layout_.nodes_of(gi)) {
          const std::int32_t left = left_of(n, g);
          if (left <= 0) continue;
          const std::int64_t sc = GP::node_score(*inv_, n, g.member, gang_node_view{left, want, inv_->untouched(n)});
          if (!best || sc > best_score) {
            best = n;
            best_score = sc;
          }
        }
        GPURENT_ASSERT(best.has_value());  // the counts promised room
        const std::int32_t t = static_cast<std::int32_t>(std::min<std::int64_t>(left_of(*best, g), want));
        assign_.emplace_back(*best, t);
        left_of(*best, g) -= t;
        want -= t;
      }
    }
    return true;
  }

  // The assignment into the inventory, member by member, each member's GPUs picked on the
  // node as it is then (a share: the tightest GPU; whole GPUs: the first idle ones).
  void apply(const placement_request& r, std::vector<placement>& out) {
    for (const auto& [n, count] : assign_) {
      for (std::int32_t k = 0; k < count; ++k) {
        gpu_pick pick;
        detail::choose_tightest(*inv_, n, r, pick);
        GPURENT_ASSERT(pick.count == static_cast<std::size_t>(r.num_gpu));
        const placement p = inventory::make_placement(n, r, pick);
        inv_->place(p);
        out.push_back(p);
      }
    }
  }

  // A gang of different members: the exact search, in the preferred level's domains first,
  // then the required level's (or the whole cluster).
  [[nodiscard]] bool find_searched(const gang_request& g, gang_id id, std::vector<placement>& out) {
    const auto try_scope = [&](const scope& s) {
      search_nodes_.clear();
      const group_index first = s.level == root ? 0 : layout_.first_group(s.level, s.domain);
      const auto end = static_cast<group_index>(s.level == root ? layout_.group_count() : layout_.end_group(s.level, s.domain));
      for (group_index gi = first; gi < end; ++gi)
        if (usable(gi, g, id)) search_nodes_.insert(search_nodes_.end(), layout_.nodes_of(gi).begin(), layout_.nodes_of(gi).end());
      const gang_search::input in{g.members, g.per_node, g.segment, search_nodes_, Cs::node_symmetric};
      const auto admits = [this](node_index n, const placement_request& r) { return Cs::admits(*inv_, n, r); };
      return search_.run(
          *inv_, in, admits, [this](node_index n) { return topo_->block_of(n); }, out);
    };
    const auto try_level = [&](std::size_t l) {
      for (std::uint32_t d = 0; d < layout_.domain_count(l); ++d)
        if (try_scope(scope{l, d})) return true;
      return false;
    };
    bool found = false;
    if (g.preferred != no_level && (g.required == no_level || g.preferred > g.required)) found = try_level(g.preferred);
    if (!found) found = g.required != no_level ? try_level(g.required) : try_scope(scope{});
    return found;
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

  // explain: how many members found room, and the domains of the required level.
  void explain_scope(const gang_request& g, std::int64_t unit, why_not& w) const {
    const std::int64_t need = static_cast<std::int64_t>(g.size()) / unit;
    std::int64_t best = root_units_;
    if (g.required != no_level) {
      best = 0;
      w.candidates = std::string(topo_->level_name(g.required)) + " domains";
      w.total = layout_.domain_count(g.required);
      for (const gang_view& v : level_view_[g.required]) {
        best = std::max(best, v.units);
        w.holding += v.units >= need ? 1 : 0;
      }
      w.holds = unit > 1 ? std::to_string(need) + " segments of " + std::to_string(unit) : std::to_string(g.size()) + " members";
      w.reasons.push_back({"have room for fewer than " + w.holds, w.total - w.holding});
    } else if (unit == 1 && !g.exclusive) {
      w.candidates = "nodes";
      w.total = w.nodes.nodes;
      w.holding = w.nodes.feasible;
      w.holds = "a member";
      for (const constraint_counts::entry& e : w.nodes.rejected) w.reasons.push_back({e.reason, e.nodes});
    }
    w.fit = static_cast<std::size_t>(std::min<std::int64_t>(best * unit, static_cast<std::int64_t>(g.size())));
  }

  // explain: the base blocks, for a segmented or exclusive gang.
  void explain_blocks(const gang_request& g, std::int64_t unit, why_not& w) const {
    if (unit == 1 && !g.exclusive) return;
    const bool main = w.candidates.empty();
    if (main) {
      w.candidates = "blocks";
      w.total = layout_.block_count();
      w.holds = unit > 1 ? "a segment of " + std::to_string(unit) : "a member";
    }
    const std::string prefix = main ? "" : "blocks ";
    std::size_t held = 0, busy = 0, small = 0;
    for (group_index gi = 0; gi < layout_.block_count(); ++gi) {
      const gang_id h = held_[layout_.topology_domain(layout_.level_count() - 1, gi)];
      if (h != no_gang)
        ++held;
      else if (g.exclusive && layout_.busy_nodes(gi) > 0)
        ++busy;
      else if (group_view_[gi].units == 0)
        ++small;
      else if (main)
        ++w.holding;
    }
    if (small > 0) w.reasons.push_back({prefix + "have room for fewer than " + std::to_string(unit) + (unit > 1 ? " members" : " member"), small});
    if (held > 0) w.reasons.push_back({prefix + "are held exclusively by another gang", held});
    if (busy > 0) w.reasons.push_back({prefix + "have other jobs' members (an exclusive gang needs empty blocks)", busy});
  }

  inventory* inv_;
  cluster_topology* topo_;
  gang_context ctx_;
  gang_layout layout_;
  Capacity capacity_;
  std::vector<gang_view> group_view_;
  std::vector<std::vector<gang_view>> level_view_;
  std::int64_t root_units_ = 0;  // units of the whole cluster
  std::vector<std::pair<group_index, std::int64_t>> steps_;
  std::vector<std::pair<node_index, std::int32_t>> assign_;
  std::vector<std::int32_t> node_left_;
  std::vector<std::uint32_t> node_stamp_;
  std::uint32_t stamp_ = 0;
  std::vector<gang_id> held_;  // per base block (the topology's number): the exclusive holder
  gang_search search_;
  std::vector<node_index> search_nodes_;
  std::vector<placement> trial_;                    // fits' scratch answer for a search
  std::vector<segment_id> segments_;                // the nodes' network segments, ascending
  std::vector<placement_request> segment_members_;  // a heterogeneous gang's members in one segment
  gang_observer observer_;
};

}  // namespace gpurent
