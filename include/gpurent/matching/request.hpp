// SPDX-License-Identifier: MIT
#pragma once
// What a job asks for: GPUs (whole or a milli-GPU share), per-GPU minimums, allowed models,
// CPU and memory, topology, tenant, labels, whether spot capacity will do, priority. The
// sharing vocabulary (modes) is the sharing layer's; a request's GPU part can be made from a
// `sharing_mode` and described as one. Its shape says the mode: whole GPUs, a share of one,
// or a MIG slice.

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <variant>

#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/sharing/isolation.hpp>
#include <gpurent/sharing/modes.hpp>

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

// A network segment (InfiniBand partition key or VLAN), interned by the inventory.
using segment_id = std::uint32_t;
inline constexpr segment_id no_segment = 0;  // a node in no segment; a request naming none

// Where the GPUs of a multi-GPU request must sit relative to each other.
enum class gpu_locality : std::uint8_t {
  same_node,           // any GPUs of one node (the default; a request never spans nodes)
  same_pcie_switch,    // all under one PCIe switch
  same_nvlink_domain,  // all in one NVLink domain
};

template <>
struct enum_names<gpu_locality> {
  static constexpr enum_entry<gpu_locality> entries[] = {{gpu_locality::same_node, "same_node"},
                                                         {gpu_locality::same_pcie_switch, "same_pcie_switch"},
                                                         {gpu_locality::same_nvlink_domain, "same_nvlink_domain"}};
};

struct placement_request {
  std::int32_t num_gpu = 0;  // 0: CPU-only; 1 with gpu_milli < 1000: a share of one GPU
  milli_gpu gpu_milli{0};    // per GPU; 1000 (whole) when num_gpu > 1
  milli_cpu cpu_milli{0};
  mebibytes memory_mib{0};
  model_mask allowed_models = any_model;
  bytes min_vram{0};      // per GPU, of the model (0: no minimum)
  gflops min_compute{0};  // per GPU, of the model (0: no minimum)
  gpu_locality locality = gpu_locality::same_node;
  tenant_id tenant = no_tenant;
  label_mask required_labels = 0;  // the node must carry all of them
  bool accepts_spot = false;       // may go on preemptible (spot) capacity; spot nodes take only such requests
  std::int32_t priority = 0;       // higher goes first in batch placement (no preemption)
  // A MIG instance ("3g.40gb") on a GPU in MIG mode instead of milli-GPU: then num_gpu = 1
  // and gpu_milli = 0. The view must outlive the request (a literal, or the catalog's name).
  std::string_view mig_profile{};
  // Isolation from other tenants (sharing/isolation.hpp); network: only nodes of `segment`.
  isolation_level isolation = isolation_level::gpu;
  segment_id segment = no_segment;
  label_mask residency = 0;  // the node must carry one of them (regions, zones, jurisdictions); 0: anywhere

  [[nodiscard]] constexpr bool is_mig() const noexcept { return !mig_profile.empty(); }
  [[nodiscard]] constexpr bool is_share() const noexcept { return num_gpu == 1 && gpu_milli.count() < 1000 && !is_mig(); }
  // How the request's GPUs are handed out: a MIG slice, a time-sliced share of one GPU, or
  // whole GPUs (exclusive; a CPU-only request holds none).
  [[nodiscard]] constexpr sharing_kind sharing() const noexcept {
    if (is_mig()) return sharing_kind::mig;
    return is_share() ? sharing_kind::share : sharing_kind::exclusive;
  }
  [[nodiscard]] constexpr std::int64_t gpu_request_milli() const noexcept { return static_cast<std::int64_t>(num_gpu) * gpu_milli.count(); }
  // A request that can be placed at all: non-negative amounts, whole GPUs when several.
  [[nodiscard]] constexpr bool ok() const noexcept {
    if (num_gpu < 0 || cpu_milli.count() < 0 || memory_mib.count() < 0 || gpu_milli.count() < 0 || gpu_milli.count() > 1000) return false;
    if (num_gpu > static_cast<std::int32_t>(max_gpus_per_node)) return false;
    if (is_mig()) return num_gpu == 1 && gpu_milli.count() == 0;
    if (num_gpu == 0) return gpu_milli.count() == 0;
    if (gpu_milli.count() == 0) return false;
    return num_gpu == 1 || gpu_milli.count() == 1000;
  }
  friend constexpr bool operator==(const placement_request&, const placement_request&) = default;
};

// The request's GPU part as a sharing mode: a MIG slice of its profile, a fractional share
// of one GPU, or exclusive (whole GPUs); an error for a request that is not ok().
[[nodiscard]] inline expected<sharing_mode> sharing_mode_of(const placement_request& r) {
  if (!r.ok()) return make_error(error_code::invalid_argument, "request", "not a valid placement request");
  switch (r.sharing()) {
    case sharing_kind::mig: return detail::as_sharing_mode(mig_slice::make(r.mig_profile));
    case sharing_kind::share: return detail::as_sharing_mode(fractional_share::make(r.gpu_milli));
    default: return sharing_mode(exclusive{});
  }
}

// A request for `gpus` GPUs handed out in mode m (CPU, memory and the rest left to the
// caller): exclusive: whole GPUs; a share: that share of one GPU (gpus must be 1); a MIG
// slice: one instance of its profile (the request views the slice's profile name, so the
// slice must outlive the request); preemptible: whole GPUs, and the request accepts spot
// capacity. MPS is unsupported: the matcher places no MPS clients.
[[nodiscard]] inline expected<placement_request> gpu_request(const sharing_mode& m, std::int32_t gpus = 1) {
  placement_request r;
  r.num_gpu = gpus;
  r.gpu_milli = whole_gpu;
  const sharing_kind k = kind_of(m);
  if ((k == sharing_kind::share || k == sharing_kind::mig) && gpus != 1)
    return make_error(error_code::invalid_argument, "gpus", "a " + std::string(to_string(k)) + " is one GPU's, got " + std::to_string(gpus));
  if (const auto* s = std::get_if<fractional_share>(&m)) r.gpu_milli = s->share();
  if (const auto* s = std::get_if<mig_slice>(&m)) {
    r.gpu_milli = milli_gpu(0);
    r.mig_profile = s->profile();
  }
  r.accepts_spot = k == sharing_kind::preemptible;
  if (k == sharing_kind::mps) return make_error(error_code::unsupported, "sharing_mode", "the matcher places no MPS clients");
  if (!r.ok())
    return make_error(error_code::invalid_argument, "gpus",
                      "at most " + std::to_string(max_gpus_per_node) + " GPUs on one node, got " + std::to_string(gpus));
  return r;
}

// The GPUs a placement takes on its node: index and milli-GPU for each.
struct gpu_take {
  std::uint8_t gpu = 0;
  std::int16_t milli = 0;
  std::int8_t mig_start = -1;    // a MIG instance's start memory slice; -1: not MIG
  std::uint8_t mig_profile = 0;  // its profile index in the GPU model's MIG geometry
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
  milli_cpu cpu_milli{0};
  mebibytes memory_mib{0};
  tenant_id tenant = no_tenant;
  std::uint8_t count = 0;
  isolation_level isolation = isolation_level::gpu;  // the request's: released with it
  std::array<gpu_take, max_gpus_per_node> gpus{};
  [[nodiscard]] constexpr std::int64_t gpu_milli_total() const noexcept {
    std::int64_t s = 0;
    for (std::size_t i = 0; i < count; ++i) s += gpus[i].milli;
    return s;
  }
  friend constexpr bool operator==(const placement&, const placement&) = default;
};

// "0:1000;3:500": each GPU the placement holds and its milli-GPU share, as every output
// prints a placement's GPUs (placement CSVs, fmt's formatter, audit lines).
[[nodiscard]] inline std::string gpu_list_text(const placement& p) {
  std::string s;
  for (std::size_t g = 0; g < p.count; ++g) s += (g == 0 ? "" : ";") + std::to_string(p.gpus[g].gpu) + ":" + std::to_string(p.gpus[g].milli);
  return s;
}

}  // namespace gpurent
