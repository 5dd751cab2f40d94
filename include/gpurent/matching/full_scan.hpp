// SPDX-License-Identifier: MIT
#pragma once
// The matcher's choice without its candidate index: every node in the scan order, every
// constraint checked, the policy's score, the earlier node on ties; MIG requests go to the
// node and slot that leave the most layouts open. This is the algorithm the matcher had
// before its index, and the index must not change a single choice of it.
//
// It is a reference, not a faster path: use it to check a matcher (with custom constraints
// or policies) choice for choice, as tests/matching/candidate_index.test.cpp does, and as
// the baseline its speed is measured against (bench/bench_matching.cpp). It reads the
// inventory and never changes it; placing is the caller's.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/policy.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

template <PlacementPolicy P, ConstraintSet Cs = default_constraints>
class full_scan_matcher {
 public:
  // `order` is the scan order (a permutation of the nodes, as matcher::set_node_order);
  // nodes added to the inventory later join its end. Empty: node index order.
  explicit full_scan_matcher(const inventory& inv, const policy_context& ctx = {}, std::vector<node_index> order = {})
      : state_(inv, ctx), order_(std::move(order)) {}

  // Where r would go on inv now: the matcher's answer, found the slow way.
  [[nodiscard]] std::optional<placement> find(const inventory& inv, const placement_request& r) {
    if (!r.ok()) return std::nullopt;
    while (order_.size() < inv.size()) order_.push_back(static_cast<node_index>(order_.size()));
    if (r.is_mig()) return find_mig(inv, r);
    P::prepare(state_, inv, r);
    std::int64_t best = 0;
    node_index winner = no_node;
    for (const node_index n : order_) {
      if (!Cs::admits(inv, n, r)) continue;
      const std::int64_t s = P::score(state_, inv, n, r);
      if (winner == no_node || s > best) {
        best = s;
        winner = n;
      }
    }
    if (winner == no_node) return std::nullopt;
    gpu_pick pick;
    P::choose_gpus(state_, inv, winner, r, pick);
    return inventory::make_placement(winner, r, pick);
  }

  [[nodiscard]] typename P::state& policy_state() noexcept { return state_; }

 private:
  [[nodiscard]] std::optional<placement> find_mig(const inventory& inv, const placement_request& r) const {
    node_index winner = no_node;
    mig_slot best;
    for (const node_index n : order_) {
      if (!Cs::admits(inv, n, r)) continue;
      const mig_slot m = best_mig_slot(inv, n, r);
      if (m.gpu >= 0 && (winner == no_node || m.options > best.options)) {
        winner = n;
        best = m;
      }
    }
    if (winner == no_node) return std::nullopt;
    return inventory::make_mig_placement(winner, r, best);
  }

  typename P::state state_;
  std::vector<node_index> order_;
};

}  // namespace gpurent
