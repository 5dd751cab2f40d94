// SPDX-License-Identifier: MIT
#pragma once
// The matcher: for a request, scan the nodes in a fixed order, keep those every constraint
// admits, let the policy score them, take the best (the earlier node on ties) and let the
// policy pick its GPUs. Also: why-not explanations per constraint, batches by priority, and
// the Placer operations for one-member jobs (placer.hpp; gangs: gang/placer.hpp).
//
// The scan goes through a candidate_index (node/candidate_index.hpp): only nodes that pass the
// cheap necessary conditions of the set's built-in constraints are looked at, in order, and
// of identical untouched nodes only the first when constraints and policy are
// NodeSymmetric. The choice is the full scan's, tie for tie.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/node/candidate_index.hpp>
#include <gpurent/matching/node/choice.hpp>
#include <gpurent/matching/node/failure_memo.hpp>
#include <gpurent/matching/node/policy.hpp>
#include <gpurent/matching/observer.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/matching/why_not.hpp>

namespace gpurent {

template <PlacementPolicy P, ConstraintSet Cs = default_constraints>
class matcher : public one_member_placer<matcher<P, Cs>> {
  friend one_member_placer<matcher>;

 public:
  using policy_type = P;
  using one_member_placer<matcher>::place;
  using one_member_placer<matcher>::release;
  using one_member_placer<matcher>::explain;
  using constraints_type = Cs;

  // Untouched twins are collapsed only when every constraint and the policy say their
  // answers depend on a node's spec and state alone.
  static constexpr bool collapses_twins = Cs::node_symmetric && NodeSymmetric<P>;

  // A policy that plans for the workload (WorkloadAware: fgd, gpurent) needs the context
  // that names it: without one the constructor does not exist, rather than a policy that
  // silently scores every node alike.
  explicit matcher(inventory& inv) requires(!WorkloadAware<P>) : matcher(inv, policy_context{}) {}
  explicit matcher(inventory& inv, const policy_context& ctx) : inv_(&inv), state_(inv, ctx) {
    order_.resize(inv.size());
    std::iota(order_.begin(), order_.end(), node_index{0});
    rebuild_index();
  }

  // The order nodes are scanned in; ties go to the earlier node. Must be a permutation.
  void set_node_order(std::vector<node_index> order) {
    GPURENT_ASSERT(order.size() == inv_->size());
    order_ = std::move(order);
    rebuild_index();
  }
  [[nodiscard]] std::span<const node_index> node_order() const noexcept { return order_; }
  [[nodiscard]] const inventory& inv() const noexcept { return *inv_; }
  [[nodiscard]] typename P::state& policy_state() noexcept { return state_; }

  // Where r would go now, without placing it.
  [[nodiscard]] std::optional<placement> find(const placement_request& r) {
    if (!r.ok()) return std::nullopt;
    sync_order();
    const inventory& inv = *inv_;
    if (!index_.sync(inv, bound_fn())) rebuild_index();
    if (failed_.known(inv, r)) return std::nullopt;
    auto p = r.is_mig() ? find_mig(r) : find_scored(r);
    if (!p) failed_.note(r);
    return p;
  }

  // What the index asks of a node before the constraints see it: the necessary conditions
  // of the built-in constraints the set contains.
  [[nodiscard]] static candidate_query query_of(const placement_request& r) noexcept {
    candidate_query q;
    if constexpr (Cs::template has<constraint::cpu_fits>) q.cpu = r.cpu_milli.count();
    if constexpr (Cs::template has<constraint::memory_fits>) q.memory = r.memory_mib.count();
    if constexpr (Cs::template has<constraint::gpus_fit>) q.level = gpu_level_needed(r);
    if constexpr (Cs::template has<constraint::model_allowed>) {
      if (r.num_gpu > 0) q.models = r.allowed_models;
    }
    return q;
  }
  [[nodiscard]] const candidate_index& index() const noexcept { return index_; }

  // Places r where the policy says; nothing when it fits nowhere (see explain).
  std::optional<placement> place(const placement_request& r) {
    auto p = find(r);
    if (observer_) [[unlikely]]
      observer_(
          match_decision{*inv_, r, p, this, [](const void* m, const placement_request& q) { return static_cast<const matcher*>(m)->explain(q); }});
    if (p) inv_->place(*p);
    return p;
  }

  // Called for every decision place() makes, before it is applied (observer.hpp); none by default.
  void set_observer(decision_observer o) noexcept { observer_ = o; }

  void release(const placement& p) noexcept { inv_->release(p); }

  // Per constraint, how many nodes it was the first to reject.
  [[nodiscard]] constraint_counts explain(const placement_request& r) const {
    return explain_nodes<Cs>(*inv_, r, [](node_index) { return true; });
  }

  // Places requests one by one, higher priority first (stable: equal priorities keep their
  // order). Result i belongs to request i. No preemption.
  std::vector<std::optional<placement>> place_batch(std::span<const placement_request> rs) {
    std::vector<std::size_t> idx(rs.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return rs[a].priority > rs[b].priority; });
    std::vector<std::optional<placement>> out(rs.size());
    for (const std::size_t i : idx) out[i] = place(rs[i]);
    return out;
  }

 private:
  void rebuild_index() {
    sync_order();
    index_.build(*inv_, order_, collapses_twins, Cs::template has<constraint::not_drained>, bound_fn());
  }

  // The policy's score bound per node for the index (node/candidate_index.hpp), when it has one.
  [[nodiscard]] auto bound_fn() noexcept {
    if constexpr (ScoreBounded<P>) {
      return [this](node_index n) { return P::score_bound(state_, *inv_, n); };
    } else {
      return no_score_bound{};
    }
  }

  [[nodiscard]] std::optional<placement> find_scored(const placement_request& r) {
    const inventory& inv = *inv_;
    P::prepare(state_, inv, r);
    scored_choice c;
    const auto visit = [&](node_index n) {
      if (Cs::admits(inv, n, r)) c.consider(n, P::score(state_, inv, n, r));
    };
    if constexpr (ScoreBounded<P>) {
      bool found = false;
      index_.for_each_above(query_of(r), found, c.score, [&](node_index n) {
        visit(n);
        found = c.node != no_node;
      });
    } else {
      index_.for_each(query_of(r), visit);
    }
    if (c.node == no_node) return std::nullopt;
    gpu_pick pick;
    P::choose_gpus(state_, inv, c.node, r, pick);
    GPURENT_ASSERT(pick.count == static_cast<std::size_t>(r.num_gpu));
    return inventory::make_placement(c.node, r, pick);
  }

  // MIG slot placement (mig_choice): the node, GPU and start slice that keep the most MIG
  // layouts open.
  [[nodiscard]] std::optional<placement> find_mig(const placement_request& r) const {
    mig_choice c;
    index_.for_each(query_of(r), [&](node_index n) {
      if (Cs::admits(*inv_, n, r)) c.consider(*inv_, n, r);
    });
    return c.placement_of(r);
  }

  // Nodes added to the inventory after construction join the end of the order.
  void sync_order() {
    while (order_.size() < inv_->size()) order_.push_back(static_cast<node_index>(order_.size()));
  }

  [[nodiscard]] inventory& placer_inventory() noexcept { return *inv_; }

  inventory* inv_;
  typename P::state state_;
  std::vector<node_index> order_;
  candidate_index index_;
  failure_memo failed_;
  decision_observer observer_;
};

}  // namespace gpurent
