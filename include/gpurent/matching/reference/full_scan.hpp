// SPDX-License-Identifier: MIT
#pragma once
// A reference, not part of the matcher: the matcher's choice without its candidate index.
// Every node in the scan order, every constraint checked, the policy's score, the earlier
// node on ties; MIG requests go to the node and slot that leave the most layouts open. This
// is the algorithm the matcher had before its index (its failure memo included, which is
// exact), and the index must not change a single choice of it.
//
// Use it to check a matcher (with custom constraints or policies) choice for choice, as
// tests/matching/candidate_index.test.cpp does, and as the baseline the matcher's speed is
// measured against (bench/bench_matching.cpp). Its interface is the matcher's (find, place,
// release, set_node_order), so the replay protocol (reference/replay.hpp) drives either.

#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/node/choice.hpp>
#include <gpurent/matching/node/failure_memo.hpp>
#include <gpurent/matching/node/policy.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/matching/why_not.hpp>

namespace gpurent {

template <PlacementPolicy P, ConstraintSet Cs = default_constraints>
class full_scan_matcher : public one_member_placer<full_scan_matcher<P, Cs>> {
  friend one_member_placer<full_scan_matcher>;

 public:
  using policy_type = P;
  using one_member_placer<full_scan_matcher>::place;
  using one_member_placer<full_scan_matcher>::release;
  using one_member_placer<full_scan_matcher>::explain;
  using constraints_type = Cs;

  explicit full_scan_matcher(inventory& inv, const policy_context& ctx = {}) : inv_(&inv), state_(inv, ctx) {}

  // The scan order (a permutation of the nodes, as matcher::set_node_order); nodes added to
  // the inventory later join its end. Until set: node index order.
  void set_node_order(std::vector<node_index> order) {
    GPURENT_ASSERT(order.size() == inv_->size());
    order_ = std::move(order);
  }

  // Where r would go now: the matcher's answer, found the slow way.
  [[nodiscard]] std::optional<placement> find(const placement_request& r) {
    if (!r.ok()) return std::nullopt;
    while (order_.size() < inv_->size()) order_.push_back(static_cast<node_index>(order_.size()));
    if (failed_.known(*inv_, r)) return std::nullopt;
    auto p = r.is_mig() ? find_mig(r) : find_scored(r);
    if (!p) failed_.note(r);
    return p;
  }

  std::optional<placement> place(const placement_request& r) {
    auto p = find(r);
    if (p) inv_->place(*p);
    return p;
  }
  void release(const placement& p) noexcept { inv_->release(p); }
  // Per constraint, how many nodes it was the first to reject (the matcher's explanation).
  [[nodiscard]] constraint_counts explain(const placement_request& r) const {
    return explain_nodes<Cs>(*inv_, r, [](node_index) { return true; });
  }

  [[nodiscard]] const inventory& inv() const noexcept { return *inv_; }
  [[nodiscard]] typename P::state& policy_state() noexcept { return state_; }

 private:
  [[nodiscard]] inventory& placer_inventory() noexcept { return *inv_; }

  [[nodiscard]] std::optional<placement> find_scored(const placement_request& r) {
    const inventory& inv = *inv_;
    P::prepare(state_, inv, r);
    scored_choice c;
    for (const node_index n : order_) {
      if (Cs::admits(inv, n, r)) c.consider(n, P::score(state_, inv, n, r));
    }
    if (c.node == no_node) return std::nullopt;
    gpu_pick pick;
    P::choose_gpus(state_, inv, c.node, r, pick);
    return inventory::make_placement(c.node, r, pick);
  }

  [[nodiscard]] std::optional<placement> find_mig(const placement_request& r) const {
    mig_choice c;
    for (const node_index n : order_) {
      if (Cs::admits(*inv_, n, r)) c.consider(*inv_, n, r);
    }
    return c.placement_of(r);
  }

  inventory* inv_;
  typename P::state state_;
  std::vector<node_index> order_;
  failure_memo failed_;
};

}  // namespace gpurent
