// SPDX-License-Identifier: MIT
#pragma once
// The one way to place a job: the Placer concept. A job is a gang_request (one member or
// many) with an id unique among the live jobs. A Placer places it all or nothing, says
// whether it would fit (nothing changes), releases it, restores it exactly (the undo of a
// preemption trial), holds room that is no job's (a victim in its notice window), changes a
// node's condition, and explains a job that does not fit (why_not.hpp).
//
// Two models: the node matcher (node/matcher.hpp) for one-member jobs, through
// one_member_placer below, and the gang placer (gang/placer.hpp) for every job. Fleet run
// (fleet/run/run.hpp) and preemption (preempt/) take any Placer.

#include <concepts>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/why_not.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

// What a placed job got besides its placements.
struct gang_outcome {
  bool preferred_met = false;  // inside one domain of the preferred level (false when none is set)
};

template <class P>
concept Placer = requires(P& p, const P& cp, const gang_request& g, gang_id id, std::vector<placement>& out, std::span<const placement> ps,
                          const placement& h, node_index n, node_condition c) {
  { p.place(g, id, out) } -> std::same_as<std::optional<gang_outcome>>;  // all members into out, or none
  { p.fits(g, id) } -> std::same_as<bool>;                               // what place would answer
  { p.admits(n, g, id) } -> std::same_as<bool>;                          // could job g put a member on node n now (node by node preemption)
  p.release(id, ps);                                                     // the job leaves
  p.restore(g, id, ps);                                                  // put back exactly as placed
  p.hold(h);                                                             // room taken that is no job's
  p.unhold(h);                                                           // the end of hold
  p.hold_blocks(id, ps);                                                 // a released exclusive job still runs: its blocks stay its own
  p.unhold_blocks(id, ps);
  p.set_condition(n, c);  // down and drained nodes take nothing new
  { p.explain(g) } -> std::same_as<why_not>;
  { cp.inv() } -> std::same_as<const inventory&>;
};

// A Placer that counts, for a gang of like members, the units it could take now (members,
// or segments for a gang of segments) inside the domain of level l holding node n, or in the
// whole cluster (l = no_level): a preemption search then looks for room domain by domain
// (preempt/preemptor.hpp). The gang placer.
template <class P>
concept DomainPlacer = Placer<P> && requires(P& p, const P& cp, const gang_request& g, gang_id id, level_index l, node_index n) {
  { p.units(g, id, l, n) } -> std::same_as<std::int64_t>;
  { cp.topology() } -> std::same_as<const cluster_topology&>;
};

// The Placer operations of a node matcher (matcher, full_scan_matcher): a job of one member
// is that member's request, placed by the matcher's own policy. A larger job is not the
// node matcher's: it fits nowhere and explain says to use the gang placer. Derived gives
// this base its inventory (placer_inventory) and find/place of a request.
template <class Derived>
class one_member_placer {
 public:
  [[nodiscard]] std::optional<gang_outcome> place(const gang_request& g, gang_id, std::vector<placement>& out) {
    out.clear();
    if (!one_member(g)) return std::nullopt;
    auto p = self().place(g.member);
    if (!p) return std::nullopt;
    out.push_back(*p);
    return gang_outcome{};
  }
  [[nodiscard]] bool fits(const gang_request& g, gang_id) { return one_member(g) && self().find(g.member).has_value(); }
  [[nodiscard]] bool admits(node_index n, const gang_request& g, gang_id) { return Derived::constraints_type::admits(stock(), n, g.member); }
  void release(gang_id, std::span<const placement> ps) noexcept {
    for (const placement& p : ps) stock().release(p);
  }
  void restore(const gang_request&, gang_id, std::span<const placement> ps) noexcept {
    for (const placement& p : ps) stock().place(p);
  }
  void hold(const placement& h) noexcept { stock().place(h); }
  void unhold(const placement& h) noexcept { stock().release(h); }
  // Exclusive blocks are the gang placer's: a node matcher has none to hold.
  void hold_blocks(gang_id, std::span<const placement>) noexcept {}
  void unhold_blocks(gang_id, std::span<const placement>) noexcept {}
  void set_condition(node_index n, node_condition c) noexcept { stock().set_condition(n, c); }
  [[nodiscard]] why_not explain(const gang_request& g) const {
    why_not w;
    w.members = g.size();
    if (!one_member(g)) {
      w.note = "a job of " + std::to_string(g.size()) + " members (or with topology rules) is the gang placer's, not the node matcher's";
      return w;
    }
    w.nodes = static_cast<const Derived&>(*this).explain(g.member);
    return w;
  }

 private:
  // One member and no rule that only the topology can keep (one member never crosses two
  // network segments: the segment constraint keeps it in one).
  [[nodiscard]] static bool one_member(const gang_request& g) noexcept { return g.size() == 1 && !g.topology_bound(); }
  [[nodiscard]] Derived& self() noexcept { return static_cast<Derived&>(*this); }
  [[nodiscard]] inventory& stock() noexcept { return self().placer_inventory(); }
};

}  // namespace gpurent
