// SPDX-License-Identifier: MIT
#pragma once
// The counting half of the gang placer (gang/placer.hpp): per group (a base block, or a run of nodes
// outside the topology; gang/layout.hpp) and per domain, the units of a gang each can take
// (its views); the scope the policy chooses; the steps that take the units from it; and what
// the views say when a gang does not fit. The counts are exact (gang/request.hpp), so a
// scope is found exactly when one holds the gang; the policy (gang/policy.hpp) only ranks.
// Nothing allocates per decision once grown.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/matching/gang/capacity.hpp>
#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/policy.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/why_not.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

template <GangPolicy GP>
class gang_counts {
 public:
  static constexpr std::size_t root = max_levels;  // the scope of the whole cluster
  struct scope {
    std::size_t level = root;
    std::uint32_t domain = 0;
  };
  using step = std::pair<group_index, std::int64_t>;  // units of the gang from one group

  // Sized for layout's groups and domains.
  void reset(const gang_layout& layout) {
    group_view_.assign(layout.group_count(), gang_view{});
    level_view_.resize(layout.level_count());
    for (std::size_t l = 0; l < layout.level_count(); ++l) level_view_[l].assign(layout.domain_count(l), gang_view{});
    steps_.reserve(layout.group_count());
  }

  // Every group's and domain's view for a gang: capacity where usable(group) says it may go,
  // else nothing; the domains' views summed when `levels`.
  template <class Usable>
  void build(const gang_layout& layout, std::span<const gang_group_caps> caps, std::int64_t unit, bool levels, Usable&& usable) {
    root_units_ = 0;
    for (group_index gi = 0; gi < group_view_.size(); ++gi) {
      group_view_[gi] = view_of(layout, caps[gi], gi, unit, usable(gi));
      root_units_ += group_view_[gi].units;
    }
    if (!levels) return;
    for (std::size_t l = layout.level_count(); l-- > 0;) {
      const bool blocks = l + 1 == layout.level_count();
      for (std::uint32_t d = 0; d < level_view_[l].size(); ++d) {
        gang_view v = blocks ? group_view_[d] : gang_view{};
        if (!blocks)
          for (std::uint32_t k = layout.child_begin(l, d); k < layout.child_end(l, d); ++k) v.add(level_view_[l + 1][k]);
        level_view_[l][d] = v;
      }
    }
  }

  // Group gi's view for a gang: its counts c where `use` (the gang may go there), else none.
  [[nodiscard]] static gang_view view_of(const gang_layout& layout, const gang_group_caps& c, group_index gi, std::int64_t unit, bool use) noexcept {
    gang_view v;
    v.block = !layout.outside(gi);
    v.outside = layout.outside(gi);
    v.busy_nodes = layout.busy_nodes(gi);
    v.cap = use ? c.cap : 0;
    v.units = unit == 1 ? v.cap : v.cap / unit;  // most gangs: no division per group
    v.free_nodes = use ? c.free_nodes : 0;
    v.whole_nodes = use ? c.whole_nodes : 0;
    v.whole_cap = use ? c.whole_cap : 0;
    return v;
  }

  // Whether a decision for g reads the domains' views, or only the groups' and the whole
  // cluster's (most small gangs: their views per domain are not summed).
  [[nodiscard]] static bool reads_levels(const gang_request& g) noexcept {
    return GP::narrow || GP::descend || g.required != no_level || g.preferred != no_level;
  }

  // Whether some scope holds `need` units of g: a domain of the required level, or the whole
  // cluster (a domain of any level that holds it lies in one of those). What choose_scope
  // finds a scope for, without ranking any: a gang that does not fit costs no score.
  [[nodiscard]] bool any_holds(const gang_request& g, std::int64_t need) const noexcept {
    if (g.required == no_level) return root_units_ >= need;
    const auto& views = level_view_[g.required];
    return std::any_of(views.begin(), views.end(), [&](const gang_view& v) { return v.units >= need; });
  }

  // Where the gang goes: the required level's domain (or the whole cluster), narrowed to the
  // preferred level's when one holds it; a narrowing policy takes the smallest level that
  // holds the gang instead.
  [[nodiscard]] std::optional<scope> choose_scope(const gang_layout& layout, const gang_context& ctx, const gang_request& g, std::int64_t need,
                                                  std::int64_t unit) const noexcept {
    const std::size_t levels = layout.level_count();
    if (GP::narrow && levels > 0) {
      const std::size_t lo = g.required != no_level ? g.required : 0;
      for (std::size_t l = levels; l-- > lo;)
        if (auto d = best_domain(ctx, l, 0, static_cast<std::uint32_t>(layout.domain_count(l)), need, unit)) return scope{l, *d};
      if (g.required != no_level || root_units_ < need) return std::nullopt;
      return scope{};
    }
    scope s;
    if (g.required != no_level) {
      const auto d = best_domain(ctx, g.required, 0, static_cast<std::uint32_t>(layout.domain_count(g.required)), need, unit);
      if (!d) return std::nullopt;
      s = scope{g.required, *d};
    } else if (root_units_ < need) {
      return std::nullopt;
    }
    if (g.preferred != no_level && (s.level == root || g.preferred > s.level)) {
      const auto [first, end] = inside(layout, s, g.preferred);
      if (auto d = best_domain(ctx, g.preferred, first, end, need, unit)) s = scope{g.preferred, *d};
    }
    return s;
  }

  // The steps that take `need` units from scope s, the policy choosing each group (or,
  // descending, each domain level by level).
  void fill(const gang_layout& layout, const gang_context& ctx, const scope& s, std::int64_t need, std::int64_t unit) {
    steps_.clear();
    if (GP::descend) {
      fill_descend(layout, ctx, s, need, unit);
      return;
    }
    const group_index first = s.level == root ? 0 : layout.first_group(s.level, s.domain);
    const auto end = static_cast<group_index>(s.level == root ? layout.group_count() : layout.end_group(s.level, s.domain));
    for (std::int64_t remaining = need; remaining > 0;) {
      std::optional<group_index> best;
      std::int64_t best_score = 0;
      for (group_index gi = first; gi < end; ++gi) {
        const gang_view& v = group_view_[gi];
        if (v.units <= 0) continue;
        const std::int64_t sc = GP::score(ctx, v, gang_need{step_units(v, remaining, unit), remaining, unit});
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

  // explain: how many members found room, and the domains of the required level.
  void explain_scope(const gang_layout& layout, const cluster_topology& topo, const gang_request& g, std::int64_t unit, why_not& w) const {
    const std::int64_t need = static_cast<std::int64_t>(g.size()) / unit;
    std::int64_t best = root_units_;
    if (g.required != no_level) {
      best = 0;
      w.candidates = std::string(topo.level_name(g.required)) + " domains";
      w.total = layout.domain_count(g.required);
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
  void explain_blocks(const gang_layout& layout, std::span<const gang_id> holder, const gang_request& g, std::int64_t unit, why_not& w) const {
    if (unit == 1 && !g.exclusive) return;
    const bool main = w.candidates.empty();
    if (main) {
      w.candidates = "blocks";
      w.total = layout.block_count();
      w.holds = unit > 1 ? "a segment of " + std::to_string(unit) : "a member";
    }
    const std::string prefix = main ? "" : "blocks ";
    std::size_t held = 0, busy = 0, small = 0;
    for (group_index gi = 0; gi < layout.block_count(); ++gi) {
      const gang_id h = holder[layout.topology_domain(layout.level_count() - 1, gi)];
      if (h != no_gang)
        ++held;
      else if (g.exclusive && layout.busy_nodes(gi) > 0)
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

  [[nodiscard]] std::span<const step> steps() const noexcept { return steps_; }

  // The units of the whole cluster, as the last build counted them.
  [[nodiscard]] std::int64_t root_units() const noexcept { return root_units_; }
  // The most units one domain of level l takes, as the last build with levels counted them.
  [[nodiscard]] std::int64_t most_units(std::size_t l) const noexcept {
    std::int64_t most = 0;
    for (const gang_view& v : level_view_[l]) most = std::max(most, v.units);
    return most;
  }

 private:
  // The best domain of level l among [first, end) that holds `need` units.
  [[nodiscard]] std::optional<std::uint32_t> best_domain(const gang_context& ctx, std::size_t l, std::uint32_t first, std::uint32_t end,
                                                         std::int64_t need, std::int64_t unit) const noexcept {
    std::optional<std::uint32_t> best;
    std::int64_t best_score = 0;
    for (std::uint32_t d = first; d < end; ++d) {
      const gang_view& v = level_view_[l][d];
      if (v.units < need) continue;
      const std::int64_t s = GP::score(ctx, v, gang_need{need, need, unit});
      if (!best || s > best_score) {
        best = d;
        best_score = s;
      }
    }
    return best;
  }

  // The domains of level l inside scope s: [first, end).
  [[nodiscard]] std::pair<std::uint32_t, std::uint32_t> inside(const gang_layout& layout, const scope& s, std::size_t l) const noexcept {
    if (s.level == root) return {0, static_cast<std::uint32_t>(layout.domain_count(l))};
    std::uint32_t first = s.domain;
    std::uint32_t end = s.domain + 1;
    for (std::size_t k = s.level; k < l; ++k) {
      first = layout.child_begin(k, first);
      end = layout.child_begin(k, end);
    }
    return {first, end};
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

  // Level by level: the scope's children in the policy's order, each filled in turn.
  void fill_descend(const gang_layout& layout, const gang_context& ctx, const scope& s, std::int64_t need, std::int64_t unit) {
    const std::size_t blocks = layout.level_count();
    if (s.level + 1 == blocks) {
      take_from_group(s.domain, need, unit);
      return;
    }
    const std::size_t c = s.level == root ? 0 : s.level + 1;
    const auto [first, end] = blocks == 0 ? std::pair<std::uint32_t, std::uint32_t>{0, 0} : inside(layout, s, c);
    const auto outside_first = static_cast<std::uint32_t>(s.level == root ? layout.block_count() : 0);
    const auto outside_end = static_cast<std::uint32_t>(s.level == root ? layout.group_count() : 0);
    for (std::int64_t remaining = need; remaining > 0;) {
      std::optional<std::pair<bool, std::uint32_t>> best;  // (outside group?, index)
      std::int64_t best_score = 0;
      const auto consider = [&](const gang_view& v, bool out, std::uint32_t k) {
        if (v.units <= 0) return;
        const std::int64_t sc = GP::score(ctx, v, gang_need{std::min(v.units, remaining), remaining, unit});
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
        fill_descend(layout, ctx, scope{c, best->second}, take, unit);
      }
      remaining -= take;
    }
  }

  std::vector<gang_view> group_view_;
  std::vector<std::vector<gang_view>> level_view_;
  std::int64_t root_units_ = 0;  // units of the whole cluster
  std::vector<step> steps_;
};

}  // namespace gpurent
