// SPDX-License-Identifier: MIT
#pragma once
// The assigning half of the gang placer (gang/placer.hpp): the members of each step (gang/counts.hpp)
// onto the nodes of its group in the policy's node order, then into the inventory member by
// member. Nothing allocates per decision once grown.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/policy.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/node/policy.hpp>

namespace gpurent {

template <GangPolicy GP, ConstraintSet Cs>
class gang_assigner {
 public:
  // Sized for `nodes` nodes.
  void reset(std::size_t nodes) {
    node_left_.assign(nodes, 0);
    node_stamp_.assign(nodes, 0);
  }

  // Each step's members onto the nodes of its group, in the policy's node order (steps from
  // gang_counts::fill, which promised the room).
  [[nodiscard]] bool assign(const gang_layout& layout, const inventory& inv, const gang_request& g,
                            std::span<const std::pair<group_index, std::int64_t>> steps, std::int64_t unit) {
    if (++stamp_ == 0) {
      std::fill(node_stamp_.begin(), node_stamp_.end(), 0U);
      stamp_ = 1;
    }
    assign_.clear();
    for (const auto& [gi, units] : steps) {
      for (std::int64_t want = units * unit; want > 0;) {
        std::optional<node_index> best;
        std::int64_t best_score = 0;
        for (const node_index n : layout.nodes_of(gi)) {
          const std::int32_t left = left_of(inv, n, g);
          if (left <= 0) continue;
          const std::int64_t sc = GP::node_score(inv, n, g.member, gang_node_view{left, want, inv.untouched(n)});
          if (!best || sc > best_score) {
            best = n;
            best_score = sc;
          }
        }
        GPURENT_ASSERT(best.has_value());  // the counts promised room
        const std::int32_t t = static_cast<std::int32_t>(std::min<std::int64_t>(left_of(inv, *best, g), want));
        assign_.emplace_back(*best, t);
        left_of(inv, *best, g) -= t;
        want -= t;
      }
    }
    return true;
  }

  // The assignment into the inventory, member by member, each member's GPUs picked on the
  // node as it is then (a share: the tightest GPU; whole GPUs: the first idle ones).
  void apply(inventory& inv, const placement_request& r, std::vector<placement>& out) {
    for (const auto& [n, count] : assign_) {
      for (std::int32_t k = 0; k < count; ++k) {
        gpu_pick pick;
        detail::choose_tightest(inv, n, r, pick);
        GPURENT_ASSERT(pick.count == static_cast<std::size_t>(r.num_gpu));
        const placement p = inventory::make_placement(n, r, pick);
        inv.place(p);
        out.push_back(p);
      }
    }
  }

 private:
  // Members node n can still take in this decision.
  [[nodiscard]] std::int32_t& left_of(const inventory& inv, node_index n, const gang_request& g) noexcept {
    if (node_stamp_[n] != stamp_) {
      node_stamp_[n] = stamp_;
      node_left_[n] = node_members<Cs>(inv, n, g.member, g.per_node);
    }
    return node_left_[n];
  }

  std::vector<std::pair<node_index, std::int32_t>> assign_;
  std::vector<std::int32_t> node_left_;
  std::vector<std::uint32_t> node_stamp_;
  std::uint32_t stamp_ = 0;
};

}  // namespace gpurent
