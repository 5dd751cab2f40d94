// SPDX-License-Identifier: MIT
#pragma once
// What each sharing mode keeps apart between the workloads on one GPU, after NVIDIA's
// comparison of time-slicing, MPS and MIG ("Improving GPU Utilization in Kubernetes",
// NVIDIA technical blog, 2022, the table of GPU concurrency mechanisms; MIG user guide,
// "Introduction"; MPS documentation, "Volta MPS"):
//
//                     SM performance   memory protection   memory bandwidth QoS   error isolation
//   time-sliced share       no                no                    no                    no
//   MPS client        yes (by percentage)    yes                    no                    no
//   MIG slice              yes               yes                   yes                   yes
//
// An exclusive GPU is alone on it, and so is preemptible (spot) capacity while it is held:
// being taken back after the notice window is a matter of tenure, not of sharing.

#include <cstdint>

#include <gpurent/core/enum.hpp>
#include <gpurent/sharing/modes.hpp>

namespace gpurent {

struct isolation {
  bool compute = false;            // a share of the SMs that co-located work cannot take
  bool memory_protection = false;  // co-located work cannot read or corrupt its memory
  bool memory_bandwidth = false;   // its own memory bandwidth (and L2): no noisy neighbour
  bool errors = false;             // a fault in co-located work does not stop it
  friend constexpr bool operator==(isolation, isolation) = default;

  // Everything kept apart: a co-located tenant cannot see or disturb it.
  [[nodiscard]] constexpr bool complete() const noexcept { return compute && memory_protection && memory_bandwidth && errors; }
};

[[nodiscard]] constexpr isolation isolation_of(sharing_kind k) noexcept {
  switch (k) {
    case sharing_kind::exclusive:
    case sharing_kind::preemptible:
    case sharing_kind::mig: return {true, true, true, true};
    case sharing_kind::mps: return {true, true, false, false};
    case sharing_kind::share: break;
  }
  return {};
}

[[nodiscard]] constexpr isolation isolation_of(const sharing_mode& m) noexcept { return isolation_of(kind_of(m)); }

// How far a request or a job is kept from other tenants, each level including the ones
// before it (docs/isolation.md):
//   none     may share a GPU with other tenants' work that asked for no isolation either
//   gpu      no other tenant on the same physical GPU (the matcher's default)
//   node     no other tenant on the node
//   network  node, and only nodes of the tenant's network segment (InfiniBand partition
//            key or VLAN, given per node in the inventory)
enum class isolation_level : std::uint8_t { none, gpu, node, network };

template <>
struct enum_names<isolation_level> {
  static constexpr enum_entry<isolation_level> entries[] = {
      {isolation_level::none, "none"}, {isolation_level::gpu, "gpu"}, {isolation_level::node, "node"}, {isolation_level::network, "network"}};
};

// The level a GPU handed out in mode k keeps from strangers who hold the rest of it: a MIG
// slice counts as a GPU of its own (its memory, bandwidth and faults are its own), a
// time-sliced share or an MPS client does not (a co-located tenant can read or corrupt the
// memory of a time-sliced share, and take down or slow an MPS client).
[[nodiscard]] constexpr isolation_level level_of(sharing_kind k) noexcept {
  const isolation i = isolation_of(k);
  return i.memory_protection && i.memory_bandwidth && i.errors ? isolation_level::gpu : isolation_level::none;
}
static_assert(level_of(sharing_kind::mig) == isolation_level::gpu && level_of(sharing_kind::share) == isolation_level::none &&
              level_of(sharing_kind::mps) == isolation_level::none && level_of(sharing_kind::exclusive) == isolation_level::gpu);

}  // namespace gpurent
