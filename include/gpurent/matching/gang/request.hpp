// SPDX-License-Identifier: MIT
#pragma once
// A gang: N members, each a placement request, placed all or nothing across nodes, with the
// topology rules of docs/formats/fleet.md: at most `per_node` members on one node,
// all members inside one domain of the `required` level, inside one of the `preferred`
// level when possible, members taken in order in groups of `segment` each inside one base
// block, and `exclusive` (no other job in any base block the gang uses). Level numbers are
// a cluster_topology's (spec/cluster_topology.hpp).
//
// members_fitting counts how many copies of one request a node can take, by its resources.
// For identical members that count is exact and exchangeable: placing one member on a node
// lowers the node's count by exactly one (every term of the minimum below drops by one: the
// CPU and memory quotients, the idle GPUs (or, for a share, floor(idle / share) of the GPU
// it takes, and for whole GPUs with a locality, the count of its group), the per-node cap).
// So a homogeneous gang fits a set of nodes exactly when the counts add up to its size, and
// any assignment that respects the counts succeeds: gang/placer.hpp decides by counting, without
// search, and cannot miss a placement.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

// Which gang holds a placement (exclusive blocks are held by one).
using gang_id = std::uint32_t;
inline constexpr gang_id no_gang = std::numeric_limits<gang_id>::max();

struct gang_request {
  placement_request member;                      // every member's request (a homogeneous gang) ...
  std::int32_t workers = 1;                      // ... and how many members
  std::span<const placement_request> members{};  // or one request per member (heterogeneous); must outlive the call
  std::int32_t per_node = 0;                     // at most this many members on one node; 0: no limit
  level_index required = no_level;               // all members inside one domain of this level
  level_index preferred = no_level;              // inside one domain of this level when possible
  std::int32_t segment = 0;                      // groups of this many members, each inside one base block
  bool exclusive = false;                        // no other job in the base blocks the gang uses

  [[nodiscard]] std::size_t size() const noexcept { return members.empty() ? static_cast<std::size_t>(workers) : members.size(); }
  [[nodiscard]] bool homogeneous() const noexcept { return members.empty(); }
  // What the placer counts a like-membered gang in: a segment (members that share a base
  // block) or, without segments, one member; and how many of them the gang is.
  [[nodiscard]] std::int64_t unit() const noexcept { return segment > 0 ? segment : 1; }
  [[nodiscard]] std::int64_t units() const noexcept { return static_cast<std::int64_t>(size()) / unit(); }
  // One member and no rule that only the topology can keep, no network segment to pick: it
  // goes on one node, which alone decides (placed, retried and preempted node by node).
  [[nodiscard]] bool node_local() const noexcept { return size() == 1 && !topology_bound() && !picks_segment(); }
  // Like members and no network segment to pick: its room in a domain is a count of units
  // over the domain's blocks (DomainPlacer::units), which preemption and retries read.
  [[nodiscard]] bool counted_by_domain() const noexcept { return homogeneous() && !picks_segment(); }
  [[nodiscard]] const placement_request& at(std::size_t i) const noexcept { return members.empty() ? member : members[i]; }
  // Whether the gang has a topology rule: then it may use only nodes inside the topology.
  [[nodiscard]] bool topology_bound() const noexcept { return required != no_level || preferred != no_level || segment > 0 || exclusive; }
  // The network segment the gang's network-isolated members name (all name the same one,
  // check_gang), no_segment when none does.
  [[nodiscard]] segment_id network_segment() const noexcept {
    for (std::size_t i = 0; i < (homogeneous() ? 1 : size()); ++i)
      if (at(i).isolation == isolation_level::network && at(i).segment != no_segment) return at(i).segment;
    return no_segment;
  }
  // Whether some member asks for network isolation and no member names a segment: the placer
  // then chooses one segment for the whole gang (gang/placer.hpp), so that it never crosses two.
  [[nodiscard]] bool picks_segment() const noexcept { return network_segment() == no_segment && network_isolated(); }
  // Whether some member asks for network isolation.
  [[nodiscard]] bool network_isolated() const noexcept {
    for (std::size_t i = 0; i < (homogeneous() ? 1 : size()); ++i)
      if (at(i).isolation == isolation_level::network) return true;
    return false;
  }
  // The gang with every network-isolated member in segment s; a heterogeneous gang's members
  // are copied into `scratch` (which the result refers to).
  [[nodiscard]] gang_request in_segment(segment_id s, std::vector<placement_request>& scratch) const {
    gang_request g = *this;
    const auto put = [s](placement_request& r) {
      if (r.isolation == isolation_level::network) r.segment = s;
    };
    if (homogeneous()) {
      put(g.member);
      return g;
    }
    scratch.assign(members.begin(), members.end());
    for (placement_request& r : scratch) put(r);
    g.members = scratch;
    return g;
  }
  // The gang without its topology rules (fleet pack's --ignore-topology); per_node stays.
  [[nodiscard]] gang_request without_topology() const noexcept {
    gang_request g = *this;
    g.required = g.preferred = no_level;
    g.segment = 0;
    g.exclusive = false;
    return g;
  }
};

// Whether g can be placed at all on topology t: valid members (whole GPUs or shares, not
// MIG), a size, levels t has, a segment that divides the size. The error names the field.
[[nodiscard]] inline expected<void> check_gang(const gang_request& g, const cluster_topology& t) {
  if (g.size() == 0) return make_error(error_code::invalid_argument, "workers", "a gang needs at least one member");
  for (std::size_t i = 0; i < (g.homogeneous() ? 1 : g.size()); ++i) {
    const placement_request& r = g.at(i);
    if (!r.ok()) return make_error(error_code::invalid_argument, "num_gpu", "member " + std::to_string(i) + " is not a valid placement request");
    if (r.is_mig()) return make_error(error_code::unsupported, "num_gpu", "gang members take whole GPUs or shares, not MIG slices");
  }
  for (std::size_t i = 0; i < (g.homogeneous() ? 1 : g.size()); ++i) {
    const placement_request& r = g.at(i);
    if (r.isolation == isolation_level::network && r.segment != no_segment && r.segment != g.network_segment())
      return make_error(error_code::invalid_argument, "network_segment",
                        "member " + std::to_string(i) + " names another network segment (a gang never crosses two)");
  }
  if (g.per_node < 0) return make_error(error_code::invalid_argument, "per_node", "must be >= 0");
  if (g.required != no_level && g.required >= t.level_count())
    return make_error(error_code::invalid_argument, "required", "the topology has no such level");
  if (g.preferred != no_level && g.preferred >= t.level_count())
    return make_error(error_code::invalid_argument, "preferred", "the topology has no such level");
  if (g.segment < 0 || (g.segment > 0 && g.size() % static_cast<std::size_t>(g.segment) != 0))
    return make_error(error_code::invalid_argument, "segment", "must divide the number of members");
  return {};
}

namespace detail {
inline constexpr std::int32_t unbounded_members = std::int32_t{1} << 24;

[[nodiscard]] constexpr std::int32_t quotient_cap(std::int64_t free, std::int64_t need) noexcept {
  if (need <= 0) return unbounded_members;
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(free / need, 0, unbounded_members));
}

// GPUs of the node: how many copies of r's GPU part fit (see the header comment).
[[nodiscard]] inline std::int32_t gpu_copies(const node_spec& spec, const node_state& s, const placement_request& r) noexcept {
  if (r.num_gpu == 0) return unbounded_members;
  std::int32_t n = 0;
  if (r.is_share()) {
    for (std::size_t g = 0; g < spec.gpu_count; ++g)
      if (gpu_eligible(s, g, r)) n += s.idle[g] / r.gpu_milli.count();
    return n;
  }
  if (r.locality == gpu_locality::same_node || r.num_gpu == 1) {
    for (std::size_t g = 0; g < spec.gpu_count; ++g) n += gpu_eligible(s, g, r) ? 1 : 0;
    return n / r.num_gpu;
  }
  std::array<std::uint8_t, 256> per_group{};
  for (std::size_t g = 0; g < spec.gpu_count; ++g)
    if (gpu_eligible(s, g, r)) ++per_group[locality_group(spec, g, r.locality)];
  for (const std::uint8_t c : per_group) n += c / r.num_gpu;
  return n;
}
}  // namespace detail

// How many copies of r a node with this spec and state can take by its resources, at most
// `most` (a per-node cap; exact and exchangeable, see the header comment). The node's other
// constraints (drain, model, labels...) are the caller's.
[[nodiscard]] inline std::int32_t members_fitting(const node_spec& spec, const node_state& s, const placement_request& r,
                                                  std::int32_t most = detail::unbounded_members) noexcept {
  std::int32_t n = std::min(most, detail::gpu_copies(spec, s, r));
  n = std::min(n, detail::quotient_cap(s.cpu_free.count(), r.cpu_milli.count()));
  return std::min(n, detail::quotient_cap(s.memory_free.count(), r.memory_mib.count()));
}

}  // namespace gpurent
