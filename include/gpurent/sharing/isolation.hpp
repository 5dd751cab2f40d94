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

#include <gpurent/sharing/modes.hpp>

namespace gpurent {

struct isolation {
  bool compute = false;           // a share of the SMs that co-located work cannot take
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

}  // namespace gpurent
