// SPDX-License-Identifier: MIT
#pragma once
// The constraints of isolation beyond a GPU and of residency (docs/isolation.md), one per
// reason so that explanations count rejections per reason. The GPU level itself is in
// gpu_eligible (constraints.hpp), where a GPU's tenants are checked. Each answers from the
// request first, so a request that asks for nothing of it costs one comparison per node.

#include <string>
#include <string_view>

#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent::constraint {

// A node that holds work which asked for the node to itself takes no other tenant's work.
struct isolated_node {
  static constexpr std::string_view name = "isolated";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return inv.isolating_placements() == 0 || inv.tenancy(n).open_to(r.tenant);
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "are held in isolation by another tenant"; }
};

// Node (and network) isolation: no other tenant's work on the node.
struct node_isolation {
  static constexpr std::string_view name = "isolation-node";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return r.isolation < isolation_level::node || inv.tenancy(n).only(r.tenant);
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "hold another tenant's work (node isolation)"; }
};

// Network isolation: only nodes of the request's network segment.
struct network_segment {
  static constexpr std::string_view name = "isolation-network";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return r.isolation != isolation_level::network || (r.segment != no_segment && inv.spec(n).segment == r.segment);
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "are outside the tenant's network segment"; }
};

// Network isolation holds a segment: a node in a network segment that another tenant's
// network placement holds takes no other tenant's work, whatever its level, until the
// holder's last network placement in the segment leaves (segment_tenancy).
struct isolated_segment {
  static constexpr std::string_view name = "isolated-segment";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return inv.held_segments() == 0 || inv.segment_tenants(inv.spec(n).segment).open_to(r.tenant);
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "are in a network segment held in isolation by another tenant"; }
};

// Network isolation, the other way round: no other tenant's work anywhere in the segment.
struct segment_isolation {
  static constexpr std::string_view name = "isolation-segment";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return r.isolation != isolation_level::network || inv.segment_tenants(inv.spec(n).segment).only(r.tenant);
  }
  [[nodiscard]] static std::string describe(const placement_request&) {
    return "are in a network segment with another tenant's work (network isolation)";
  }
};

// Residency: the node carries one of the allowed region, zone or jurisdiction labels.
struct residency {
  static constexpr std::string_view name = "residency";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return r.residency == 0 || (inv.state(n).labels & r.residency) != 0;
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "are outside the allowed regions, zones or jurisdictions"; }
};

}  // namespace gpurent::constraint
