// SPDX-License-Identifier: MIT
#pragma once
// Who holds work on a node, for the isolation levels beyond a GPU (sharing/isolation.hpp):
// which tenants have placements there (node and network isolation: no other tenant on the
// node) and how many placements asked for a node to themselves. The inventory keeps one per
// node, apart from the node states the hot path reads; place and release update it. Which
// GPUs strangers may share (isolation none) is a bit per GPU in the node state instead
// (node_state::open_gpus, gpu_shareable below).

#include <array>
#include <cstddef>
#include <cstdint>

#include <gpurent/core/assert.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

class node_tenancy {
 public:
  // Tenants followed by name; placements of more tenants at once are only counted, and
  // then the node counts as shared by strangers (never wrongly as one tenant's).
  static constexpr std::size_t tracked = 4;

  void add(const placement& p) noexcept {
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
    if (p.isolation >= isolation_level::node) ++isolating_;
  }

  void remove(const placement& p) noexcept {
    bool counted = false;
    for (std::size_t i = 0; i < tracked && !counted; ++i) {
      if (count_[i] > 0 && tenant_[i] == p.tenant) counted = (--count_[i], true);
    }
    if (!counted) {
      GPURENT_ASSERT(untracked_ > 0);
      --untracked_;
    }
    if (p.isolation >= isolation_level::node) --isolating_;
  }

  // No tenant but t has work here (true on an empty node). Exact while at most `tracked`
  // tenants share the node; beyond, false until the node empties of the overflow.
  [[nodiscard]] bool only(tenant_id t) const noexcept {
    if (untracked_ > 0) return false;
    for (std::size_t i = 0; i < tracked; ++i) {
      if (count_[i] > 0 && tenant_[i] != t) return false;
    }
    return true;
  }
  // Some placement here asked for the node to itself (so its tenant is the only one).
  [[nodiscard]] bool isolating() const noexcept { return isolating_ > 0; }
  // Tenant t's work may join: no other tenant holds the node in isolation.
  [[nodiscard]] bool open_to(tenant_id t) const noexcept { return !isolating() || only(t); }
  // Work of tenant t at `level` may join: open to t, and at node isolation or above no other
  // tenant has work here (the constraints of isolation_constraints.hpp on one node's tenants).
  [[nodiscard]] bool admits(tenant_id t, isolation_level level) const noexcept { return open_to(t) && (level < isolation_level::node || only(t)); }

  friend bool operator==(const node_tenancy&, const node_tenancy&) = default;

 private:
  std::array<tenant_id, tracked> tenant_{};
  std::array<std::uint32_t, tracked> count_{};
  std::uint32_t untracked_ = 0;
  std::uint32_t isolating_ = 0;
};

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
