// SPDX-License-Identifier: MIT
#pragma once
// Who holds work on a node or in a network segment, for the isolation levels beyond a GPU
// (sharing/isolation.hpp): which tenants have placements there and how many placements asked
// for the place to themselves (node isolation on a node, network isolation in a segment: no
// other tenant's work there while they run). The inventory keeps one per node and one per
// segment, apart from the node states the hot path reads; place and release update them.
// Which GPUs strangers may share (isolation none) is a bit per GPU in the node state instead
// (node_state::open_gpus, gpu_shareable below).

#include <array>
#include <cstddef>
#include <cstdint>

#include <gpurent/core/assert.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// What one add or remove changed of what `admits` reads: the tenants present (a tenant came
// or went, or the overflow count moved) and whether the place is held in isolation.
struct tenancy_change {
  bool tenants = false;
  bool hold = false;
};

// The tenants of one place (a node, a network segment). Placements that asked for `Holds` or
// more hold it: no other tenant's work may join while one of them is there.
template <isolation_level Holds>
class basic_tenancy {
 public:
  // Tenants followed by name; placements of more tenants at once are only counted, and
  // then the place counts as shared by strangers (never wrongly as one tenant's).
  static constexpr std::size_t tracked = 4;

  tenancy_change add(const placement& p) noexcept {
    std::size_t free = tracked;
    bool counted = false;
    for (std::size_t i = 0; i < tracked && !counted; ++i) {
      if (count_[i] > 0 && tenant_[i] == p.tenant) counted = (++count_[i], true);
      if (count_[i] == 0 && free == tracked) free = i;
    }
    if (!counted && free < tracked) {
      tenant_[free] = p.tenant;
      count_[free] = 1;
    } else if (!counted) {
      ++untracked_;
    }
    const bool holds = p.isolation >= Holds;
    if (holds) ++isolating_;
    return {!counted, holds && isolating_ == 1};
  }

  tenancy_change remove(const placement& p) noexcept {
    bool counted = false;
    bool gone = false;
    for (std::size_t i = 0; i < tracked && !counted; ++i) {
      if (count_[i] == 0 || tenant_[i] != p.tenant) continue;
      counted = true;
      gone = --count_[i] == 0;
    }
    if (!counted) {
      GPURENT_ASSERT(untracked_ > 0);
      --untracked_;
    }
    const bool holds = p.isolation >= Holds;
    if (holds) --isolating_;
    return {gone || !counted, holds && isolating_ == 0};
  }

  // No tenant but t has work here (true when empty). Exact while at most `tracked` tenants
  // share the place; beyond, false until the place empties of the overflow.
  [[nodiscard]] bool only(tenant_id t) const noexcept {
    if (untracked_ > 0) return false;
    for (std::size_t i = 0; i < tracked; ++i) {
      if (count_[i] > 0 && tenant_[i] != t) return false;
    }
    return true;
  }
  // Some placement here holds the place (so its tenant is the only one).
  [[nodiscard]] bool isolating() const noexcept { return isolating_ > 0; }
  // Tenant t's work may join: no other tenant holds the place.
  [[nodiscard]] bool open_to(tenant_id t) const noexcept { return !isolating() || only(t); }
  // Work of tenant t at `level` may join: open to t, and at `Holds` or above no other tenant
  // has work here (the constraints of isolation_constraints.hpp on one place's tenants).
  [[nodiscard]] bool admits(tenant_id t, isolation_level level) const noexcept { return open_to(t) && (level < Holds || only(t)); }

  friend bool operator==(const basic_tenancy&, const basic_tenancy&) = default;

 private:
  std::array<tenant_id, tracked> tenant_{};
  std::array<std::uint32_t, tracked> count_{};
  std::uint32_t untracked_ = 0;
  std::uint32_t isolating_ = 0;
};

// A node's tenants: node (and network) isolation keeps strangers off the node.
using node_tenancy = basic_tenancy<isolation_level::node>;
// A network segment's tenants: network isolation keeps strangers off every node of the
// segment, until the holder's last network placement there leaves.
using segment_tenancy = basic_tenancy<isolation_level::network>;

// Whether tenant `t`'s work at `level` may join a GPU with `users` placements held by
// `owner`: an unused GPU; a GPU open to strangers (every user asked for no isolation) when t
// asks for none too; else a GPU only t's work uses (owner: one tenant's users only).
[[nodiscard]] constexpr bool gpu_shareable(std::uint16_t users, bool open, tenant_id owner, tenant_id t, isolation_level level) noexcept {
  return users == 0 || (open ? level == isolation_level::none : owner == t);
}

// node_state::open_gpus once a placement at `level` joins GPU g's `users_before` users: g
// stays open while every user asked for none. A GPU that held isolated work opens again only
// once it is empty (release clears the bit then): no per-GPU counts, never wrongly open.
[[nodiscard]] constexpr std::uint16_t open_after_join(std::uint16_t open, std::size_t g, std::uint16_t users_before, isolation_level level) noexcept {
  const auto bit = static_cast<std::uint16_t>(1U << g);
  const bool stays = ((open & bit) != 0 || users_before == 0) && level == isolation_level::none;
  return static_cast<std::uint16_t>(stays ? open | bit : open & ~bit);
}

}  // namespace gpurent
