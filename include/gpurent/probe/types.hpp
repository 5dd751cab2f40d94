// SPDX-License-Identifier: MIT
#pragma once
// What the probe reads from a GPU, as plain values that need neither CUDA nor NVML headers:
// the CUDA runtime's view of a device, NVML's view (PCI id, MIG mode, GPU instances, NVLink),
// and the two merged into one reading. The readers (cuda.hpp, nvml.hpp) fill these; the
// mapping (mapping.hpp) turns a reading into catalog terms. Tests build them by hand.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/enum.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/spec/gpu.hpp>

namespace gpurent::probe {

// The probe's enums are named by core/enum.hpp's tables (specialized below, in gpurent):
// bring the generic to_string into this namespace, where the value types' own live.
using gpurent::to_string;

// Where a device sits on the PCI bus: domain:bus:device (function is always 0 for GPUs).
// CUDA and NVML both report it, so it is how their two views of one GPU are joined.
struct pci_address {
  std::uint32_t domain = 0;
  std::uint32_t bus = 0;
  std::uint32_t device = 0;
  friend constexpr bool operator==(const pci_address&, const pci_address&) = default;
  friend constexpr auto operator<=>(const pci_address&, const pci_address&) = default;
};

namespace detail {
inline void put_hex(std::string& s, std::uint32_t v, int digits) {
  constexpr std::string_view hex = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) s += hex[(v >> (4 * i)) & 0xFU];
}
}  // namespace detail

// "0000:3b:00.0", the form lspci and the kernel use.
[[nodiscard]] inline std::string to_string(const pci_address& a) {
  std::string s;
  detail::put_hex(s, a.domain, a.domain > 0xFFFFU ? 8 : 4);
  s += ':';
  detail::put_hex(s, a.bus, 2);
  s += ':';
  detail::put_hex(s, a.device, 2);
  s += ".0";
  return s;
}

// The combined 32-bit PCI id NVML and CUDA report: device id in the high half, vendor id in
// the low half (0x233510de is an H200 from NVIDIA).
struct pci_ids {
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  friend constexpr bool operator==(const pci_ids&, const pci_ids&) = default;
};
// "10de:2335", vendor:device as lspci -n prints them.
[[nodiscard]] inline std::string to_string(const pci_ids& p) {
  std::string s;
  detail::put_hex(s, p.vendor_id, 4);
  s += ':';
  detail::put_hex(s, p.device_id, 4);
  return s;
}
[[nodiscard]] constexpr pci_ids split_pci_id(std::uint32_t combined) noexcept {
  return {static_cast<std::uint16_t>(combined & 0xFFFFU), static_cast<std::uint16_t>(combined >> 16)};
}

// Peak memory bandwidth from the memory clock (kHz) and bus width (bits): two transfers per
// clock (DDR and HBM alike), width/8 bytes each. An H100 SXM5 (2 619 000 kHz, 5120 bits)
// gives 3 352 320 MB/s, its datasheet's 3.35 TB/s.
[[nodiscard]] constexpr mb_per_s memory_bandwidth(std::int64_t memory_clock_khz, std::int64_t bus_width_bits) noexcept {
  // 2 * khz * 1000 * bits / 8 bytes/s = khz * bits / 4000 MB/s
  return mb_per_s(memory_clock_khz * bus_width_bits / 4000);
}

// A CUDA device that is one MIG instance is named after its parent and profile
// ("NVIDIA H100 80GB HBM3 MIG 3g.40gb"): the runtime reports no other MIG flag.
[[nodiscard]] constexpr bool is_mig_device_name(std::string_view name) noexcept {
  return name.find(" MIG ") != std::string_view::npos;
}

// One device as the CUDA runtime sees it.
struct cuda_device {
  int ordinal = 0;                      // the CUDA device number
  std::string name;                     // "NVIDIA H200"
  bytes total_memory{};
  std::int32_t sm_count = 0;
  compute_capability capability{};
  std::int64_t memory_clock_khz = 0;    // 0 when the runtime does not say
  std::int32_t memory_bus_width_bits = 0;
  pci_address pci{};
  std::optional<pci_ids> pci_id{};      // CUDA >= 13 reports it; older runtimes do not
  bool mig_instance = false;            // this CUDA device is one MIG instance of a GPU

  [[nodiscard]] std::optional<mb_per_s> bandwidth() const {
    if (memory_clock_khz <= 0 || memory_bus_width_bits <= 0) return std::nullopt;
    return memory_bandwidth(memory_clock_khz, memory_bus_width_bits);
  }
  friend bool operator==(const cuda_device&, const cuda_device&) = default;
};

// NVML's MIG mode of a GPU: `unsupported` on a GPU without MIG.
enum class mig_mode : std::uint8_t { unknown, unsupported, disabled, enabled };

}  // namespace gpurent::probe

namespace gpurent {
template <>
struct enum_names<gpurent::probe::mig_mode> {
  static constexpr enum_entry<probe::mig_mode> entries[] = {{probe::mig_mode::unknown, "unknown"},
                                                            {probe::mig_mode::unsupported, "unsupported"},
                                                            {probe::mig_mode::disabled, "disabled"},
                                                            {probe::mig_mode::enabled, "enabled"}};
};
}  // namespace gpurent

namespace gpurent::probe {

// One existing GPU instance (NVML nvmlGpuInstanceInfo_t): its NVML profile id (the
// "ID" column of `nvidia-smi mig -lgip`, mig_profile::id) and its memory-slice placement.
struct nvml_gpu_instance {
  std::uint32_t id = 0;          // instance id within the GPU
  std::uint32_t profile_id = 0;
  std::uint32_t start = 0;       // first memory slice
  std::uint32_t size = 0;        // memory slices
  friend constexpr bool operator==(const nvml_gpu_instance&, const nvml_gpu_instance&) = default;
};

// NVLink links of a GPU: how many NVML reports and how many are up.
struct nvlink_state {
  std::int32_t links = 0;
  std::int32_t active = 0;
  friend constexpr bool operator==(const nvlink_state&, const nvlink_state&) = default;
};

// One GPU as NVML sees it (a physical GPU, never a MIG instance).
struct nvml_device {
  std::uint32_t index = 0;
  std::string name;
  pci_address pci{};
  pci_ids pci_id{};
  bytes total_memory{};
  mig_mode mig_current = mig_mode::unknown;
  mig_mode mig_pending = mig_mode::unknown;  // takes effect at the next GPU reset
  std::vector<nvml_gpu_instance> gpu_instances;  // by start slice; empty unless MIG is enabled
  std::string gpu_instances_error;  // why the instances could not be read; empty when they were
  nvlink_state nvlink{};
  friend bool operator==(const nvml_device&, const nvml_device&) = default;
};

// One GPU, CUDA's and NVML's views merged (either may be missing): what the mapping reads.
struct device_reading {
  std::string name;
  bytes total_memory{};
  std::optional<pci_address> pci{};
  std::optional<pci_ids> pci_id{};
  std::optional<std::int32_t> sm_count{};
  std::optional<compute_capability> capability{};
  std::optional<mb_per_s> memory_bandwidth{};
  bool cuda_mig_instance = false;  // CUDA sees one MIG instance, so SMs and memory are the slice's
  mig_mode mig_current = mig_mode::unknown;
  mig_mode mig_pending = mig_mode::unknown;
  std::vector<nvml_gpu_instance> gpu_instances;
  std::string gpu_instances_error;
  std::optional<nvlink_state> nvlink{};
  friend bool operator==(const device_reading&, const device_reading&) = default;
};

// Merges the two views of one GPU. NVML wins on identity and memory (it sees the whole GPU
// even when CUDA sees a MIG instance); CUDA gives SMs, capability and bandwidth.
[[nodiscard]] inline device_reading merge_reading(const cuda_device* cuda, const nvml_device* nvml) {
  device_reading r;
  if (cuda != nullptr) {
    r.name = cuda->name;
    r.total_memory = cuda->total_memory;
    r.pci = cuda->pci;
    r.pci_id = cuda->pci_id;
    r.sm_count = cuda->sm_count;
    r.capability = cuda->capability;
    r.memory_bandwidth = cuda->bandwidth();
    r.cuda_mig_instance = cuda->mig_instance;
  }
  if (nvml != nullptr) {
    r.name = nvml->name;
    r.total_memory = nvml->total_memory;
    r.pci = nvml->pci;
    r.pci_id = nvml->pci_id;
    r.mig_current = nvml->mig_current;
    r.mig_pending = nvml->mig_pending;
    r.gpu_instances = nvml->gpu_instances;
    r.gpu_instances_error = nvml->gpu_instances_error;
    r.nvlink = nvml->nvlink;
  }
  return r;
}

}  // namespace gpurent::probe
