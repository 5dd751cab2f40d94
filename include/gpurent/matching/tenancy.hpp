// SPDX-License-Identifier: MIT
#pragma once
// Who holds work on a node, for the isolation levels beyond a GPU (sharing/isolation.hpp):
// which tenants have placements there (node and network isolation: no other tenant on the
// node), how many placements asked for a node to themselves, and per GPU how many users
// asked for no isolation (they may share a GPU with strangers who did the same). The
// inventory keeps one per node; place and release update it.

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
    if (p.isolation == isolation_level::none) {
      for (std::size_t i = 0; i < p.count; ++i) ++open_[p.gpus[i].gpu];
    }
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
    if (p.isolation == isolation_level::none) {
      for (std::size_t i = 0; i < p.count; ++i) --open_[p.gpus[i].gpu];
    }
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
  // Users of GPU g that asked for no isolation.
  [[nodiscard]] std::uint16_t open_users(std::size_t g) const noexcept { return open_[g]; }

  friend bool operator==(const node_tenancy&, const node_tenancy&) = default;

 private:
  std::array<tenant_id, tracked> tenant_{};
  std::array<std::uint32_t, tracked> count_{};
  std::uint32_t untracked_ = 0;
  std::uint32_t isolating_ = 0;
  std::array<std::uint16_t, max_gpus_per_node> open_{};
};

// Whether tenant `t`'s work at `level` may join a GPU with `users` placements, `open` of
// which asked for no isolation, held by `owner` (the tenant of its isolated users): an
// unused GPU; a GPU only t's isolated work uses; or, asking for no isolation itself, a GPU
// only work that asked for none uses.
[[nodiscard]] constexpr bool gpu_shareable(std::uint16_t users, std::uint16_t open, tenant_id owner, tenant_id t, isolation_level level) noexcept {
  return users == 0 || (open == 0 && owner == t) || (level == isolation_level::none && open == users);
}

}  // namespace gpurent
