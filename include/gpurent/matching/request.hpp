// SPDX-License-Identifier: MIT
#pragma once
// What a job asks for: GPUs (whole or a milli-GPU share), per-GPU minimums, allowed models,
// CPU and memory, topology, tenant, labels, sharing modes, priority.

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>

#include <gpurent/core/quantity.hpp>

namespace gpurent {

inline constexpr std::size_t max_gpus_per_node = 16;

using node_index = std::uint32_t;
inline constexpr node_index no_node = std::numeric_limits<node_index>::max();

// GPU models and labels are interned by the inventory into small ids, so a request's
// "allowed models" and "required labels" are bit masks checked in one instruction.
using model_mask = std::uint64_t;
using label_mask = std::uint64_t;
inline constexpr model_mask any_model = ~model_mask{0};
inline constexpr std::size_t max_models = 64;
inline constexpr std::size_t max_labels = 64;

using tenant_id = std::uint32_t;
inline constexpr tenant_id no_tenant = 0;  // the anonymous tenant; shares GPUs only with itself

// Where the GPUs of a multi-GPU request must sit relative to each other.
enum class gpu_locality : std::uint8_t {
  same_node,           // any GPUs of one node (the default; a request never spans nodes)
  same_pcie_switch,    // all under one PCIe switch
  same_nvlink_domain,  // all in one NVLink domain
};

// Sharing modes a request accepts (bit flags). A fractional request (gpu_milli < 1000) is
// placed as a time-sliced share; a spot node is used only by requests that accept spot.
enum class accept_mode : std::uint8_t { exclusive = 1, fractional = 2, mig = 4, spot = 8 };
[[nodiscard]] constexpr std::uint8_t operator|(accept_mode a, accept_mode b) noexcept {
  return static_cast<std::uint8_t>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}

struct placement_request {
  std::int32_t num_gpu = 0;         // 0: CPU-only; 1 with gpu_milli < 1000: a share of one GPU
  milli_gpu gpu_milli{0};           // per GPU; 1000 (whole) when num_gpu > 1
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  model_mask allowed_models = any_model;
  bytes min_vram{0};                // per GPU, of the model (0: no minimum)
  gflops min_compute{0};            // per GPU, of the model (0: no minimum)
  gpu_locality locality = gpu_locality::same_node;
  tenant_id tenant = no_tenant;
  label_mask required_labels = 0;   // the node must carry all of them
  std::uint8_t accepts = accept_mode::exclusive | accept_mode::fractional;
  std::int32_t priority = 0;        // higher goes first in batch placement (no preemption)
  // A MIG instance ("3g.40gb") on a GPU in MIG mode instead of milli-GPU: then num_gpu = 1
  // and gpu_milli = 0. The view must outlive the request (a literal, or the catalog's name).
  std::string_view mig_profile{};

  [[nodiscard]] constexpr bool is_mig() const noexcept { return !mig_profile.empty(); }
  [[nodiscard]] constexpr bool is_share() const noexcept { return num_gpu == 1 && gpu_milli.count() < 1000 && !is_mig(); }
  [[nodiscard]] constexpr std::int64_t gpu_request_milli() const noexcept {
    return static_cast<std::int64_t>(num_gpu) * gpu_milli.count();
  }
  // A request that can be placed at all: non-negative amounts, whole GPUs when several.
  [[nodiscard]] constexpr bool ok() const noexcept {
    if (num_gpu < 0 || cpu_milli < 0 || memory_mib < 0 || gpu_milli.count() < 0 || gpu_milli.count() > 1000) return false;
    if (num_gpu > static_cast<std::int32_t>(max_gpus_per_node)) return false;
    if (is_mig()) return num_gpu == 1 && gpu_milli.count() == 0;
    if (num_gpu == 0) return gpu_milli.count() == 0;
    if (gpu_milli.count() == 0) return false;
    return num_gpu == 1 || gpu_milli.count() == 1000;
  }
  friend constexpr bool operator==(const placement_request&, const placement_request&) = default;
};

// The GPUs a placement takes on its node: index and milli-GPU for each.
struct gpu_take {
  std::uint8_t gpu = 0;
  std::int16_t milli = 0;
  std::int8_t mig_start = -1;     // a MIG instance's start memory slice; -1: not MIG
  std::uint8_t mig_profile = 0;   // its profile index in the GPU model's MIG geometry
  friend constexpr bool operator==(gpu_take, gpu_take) = default;
};

// Which GPUs of a node a policy picked for a request (no allocation: fixed capacity).
struct gpu_pick {
  std::array<std::uint8_t, max_gpus_per_node> gpu{};
  std::uint8_t count = 0;
  constexpr void clear() noexcept { count = 0; }
  constexpr void push(std::size_t g) noexcept { gpu[count++] = static_cast<std::uint8_t>(g); }
};

// Where a MIG request goes on a node (best_mig_slot finds it): a MIG-mode GPU, the start
// memory slice and profile of the instance, and how many layouts the GPU admits afterwards.
struct mig_slot {
  int gpu = -1;  // -1: none fits
  std::uint8_t start = 0;
  std::uint8_t profile = 0;  // index in the GPU model's MIG geometry
  std::uint16_t options = 0;
  friend constexpr bool operator==(const mig_slot&, const mig_slot&) = default;
};

// A placed request: where it went and what it holds, enough to release it later.
struct placement {
  node_index node = no_node;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  tenant_id tenant = no_tenant;
  std::uint8_t count = 0;
  std::array<gpu_take, max_gpus_per_node> gpus{};
  [[nodiscard]] constexpr std::int64_t gpu_milli_total() const noexcept {
    std::int64_t s = 0;
    for (std::size_t i = 0; i < count; ++i) s += gpus[i].milli;
    return s;
  }
  friend constexpr bool operator==(const placement&, const placement&) = default;
};

}  // namespace gpurent
