// SPDX-License-Identifier: MIT
#pragma once
// How a choice among candidate nodes is made, shown the nodes in scan order: the tie rules
// the matcher and the full-scan reference share, so that they differ only in which nodes
// they look at. Both are small values updated per candidate: no allocation.

#include <cstdint>
#include <optional>

#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// The policy's choice: the highest score, the earlier node on ties.
struct scored_choice {
  node_index node = no_node;
  std::int64_t score = 0;

  constexpr void consider(node_index n, std::int64_t s) noexcept {
    if (node == no_node || s > score) {
      node = n;
      score = s;
    }
  }
};

// A MIG request's choice: the node whose best slot (best_mig_slot) leaves the most MIG
// layouts open, the earlier node on ties. Policy-independent: milli-GPU scores do not
// describe slices.
struct mig_choice {
  node_index node = no_node;
  mig_slot slot{};

  void consider(const inventory& inv, node_index n, const placement_request& r) noexcept {
    const mig_slot m = best_mig_slot(inv, n, r);
    if (m.gpu >= 0 && (node == no_node || m.options > slot.options)) {
      node = n;
      slot = m;
    }
  }
  [[nodiscard]] std::optional<placement> placement_of(const placement_request& r) const noexcept {
    if (node == no_node) return std::nullopt;
    return inventory::make_mig_placement(node, r, slot);
  }
};

}  // namespace gpurent
