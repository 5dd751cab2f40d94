// SPDX-License-Identifier: MIT
#pragma once
// A reference, not part of the placer: the gang placer (gang/placer.hpp) counting every node of the
// cluster for every decision, without its per-shape cache of block capacities. Same
// layout, same policy, same choices, decision for decision (tests/matching/gang.test.cpp
// checks that); the baseline the placer's speed is measured against
// (bench/bench_gangs.cpp).

#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/gang/capacity.hpp>
#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/placer.hpp>
#include <gpurent/matching/gang/policy.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

template <ConstraintSet Cs>
class full_scan_gang_capacity {
 public:
  void reset() noexcept {}
  [[nodiscard]] std::span<const gang_group_caps> caps(const gang_layout& l, const inventory& inv, const placement_request& r, std::int32_t per_node) {
    caps_.resize(l.group_count());
    for (group_index g = 0; g < caps_.size(); ++g) caps_[g] = group_caps_of<Cs>(l, inv, g, r, per_node);
    return caps_;
  }

 private:
  std::vector<gang_group_caps> caps_;
};

template <GangPolicy GP, ConstraintSet Cs = default_constraints>
using full_scan_gang_placer = gang_placer<GP, Cs, full_scan_gang_capacity<Cs>>;

}  // namespace gpurent
