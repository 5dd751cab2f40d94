// SPDX-License-Identifier: MIT
#pragma once
// What the probe reads from a GPU, as plain values that need neither CUDA nor NVML headers:
// the CUDA runtime's view of a device, NVML's view (PCI id, MIG mode, GPU instances, NVLink,
// and its live state: utilization, memory, power, temperature, ECC health, MIG devices),
// and the two merged into one reading. The readers (cuda.hpp, nvml.hpp) fill these; the
// mapping (mapping.hpp) turns a reading into catalog terms. Tests build them by hand.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/metering/waste.hpp>
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
[[nodiscard]] constexpr bool is_mig_device_name(std::string_view name) noexcept { return name.find(" MIG ") != std::string_view::npos; }

// One device as the CUDA runtime sees it.
struct cuda_device {
  int ordinal = 0;   // the CUDA device number
  std::string name;  // "NVIDIA H200"
  bytes total_memory{};
  std::int32_t sm_count = 0;
  compute_capability capability{};
  std::int64_t memory_clock_khz = 0;  // 0 when the runtime does not say
  std::int32_t memory_bus_width_bits = 0;
  pci_address pci{};
  std::optional<pci_ids> pci_id{};  // CUDA >= 13 reports it; older runtimes do not
  bool mig_instance = false;        // this CUDA device is one MIG instance of a GPU

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
  std::uint32_t id = 0;  // instance id within the GPU
  std::uint32_t profile_id = 0;
  std::uint32_t start = 0;  // first memory slice
  std::uint32_t size = 0;   // memory slices
  friend constexpr bool operator==(const nvml_gpu_instance&, const nvml_gpu_instance&) = default;
};

// NVLink links of a GPU: how many NVML reports and how many are up.
struct nvlink_state {
  std::int32_t links = 0;
  std::int32_t active = 0;
  friend constexpr bool operator==(const nvlink_state&, const nvlink_state&) = default;
};

// ---- live state: utilization, memory, power, temperature, health ---------------------------

// A reading NVML may not give: the value, or why not (unsupported: "not available ...").
template <class T>
using nvml_reading = expected<T>;
// What a reading holds before NVML was asked.
[[nodiscard]] inline unexpected<error> not_read() { return unexpected<error>(error{error_code::unsupported, "nvml", "not read", {}}); }

struct milliwatt_tag {};
// Power draw, as NVML reports it (nvmlDeviceGetPowerUsage: milliwatts).
using milliwatts = gpurent::detail::quantity<milliwatt_tag, std::int64_t>;

// NVML's utilization over its last sample period (between 1/6 s and 1 s): the share of time
// a kernel ran (gpu) and the device memory was read or written (memory).
struct utilization_rates {
  milli_percent gpu{};
  milli_percent memory{};
  friend constexpr bool operator==(const utilization_rates&, const utilization_rates&) = default;
};

// Device memory now: what NVML calls total, used and free.
struct memory_use {
  bytes total{};
  bytes used{};
  bytes free{};
  friend constexpr bool operator==(const memory_use&, const memory_use&) = default;
};

// ECC error counts: since the driver loaded (volatile) or over the GPU's life (aggregate).
struct ecc_errors {
  std::uint64_t corrected = 0;
  std::uint64_t uncorrected = 0;
  friend constexpr bool operator==(const ecc_errors&, const ecc_errors&) = default;
};

// Pages retired for ECC errors (GPUs before Ampere; Ampere and later remap rows instead).
struct retired_pages {
  std::uint32_t multiple_single_bit = 0;  // retired after repeated correctable errors
  std::uint32_t double_bit = 0;           // retired after an uncorrectable error
  friend constexpr bool operator==(const retired_pages&, const retired_pages&) = default;
};

// Rows of device memory remapped for ECC errors (Ampere and later).
struct remapped_rows {
  std::uint32_t correctable = 0;
  std::uint32_t uncorrectable = 0;
  bool pending = false;  // a remap waits for the next GPU reset
  bool failed = false;   // a remap has failed: the GPU needs service
  friend constexpr bool operator==(const remapped_rows&, const remapped_rows&) = default;
};

struct gpu_health {
  nvml_reading<ecc_errors> ecc_volatile = not_read();
  nvml_reading<ecc_errors> ecc_aggregate = not_read();
  nvml_reading<retired_pages> retired = not_read();
  nvml_reading<remapped_rows> remapped = not_read();
  friend bool operator==(const gpu_health&, const gpu_health&) = default;
};

// One MIG device (a compute instance of a GPU instance) as NVML lists it under its GPU.
struct mig_device_telemetry {
  std::uint32_t index = 0;  // nvmlDeviceGetMigDeviceHandleByIndex's index
  nvml_reading<std::string> uuid = not_read();
  nvml_reading<std::uint32_t> gpu_instance_id = not_read();
  nvml_reading<std::uint32_t> compute_instance_id = not_read();
  nvml_reading<memory_use> memory = not_read();
  nvml_reading<utilization_rates> utilization = not_read();  // NVML does not give it for MIG devices today
  friend bool operator==(const mig_device_telemetry&, const mig_device_telemetry&) = default;
};

// A GPU's state when it was read.
struct gpu_telemetry {
  nvml_reading<std::string> uuid = not_read();
  nvml_reading<utilization_rates> utilization = not_read();  // not given while MIG is enabled
  nvml_reading<memory_use> memory = not_read();
  nvml_reading<milliwatts> power = not_read();
  nvml_reading<std::int32_t> temperature_c = not_read();
  gpu_health health;
  std::vector<mig_device_telemetry> mig_devices;  // with MIG enabled: each MIG device NVML lists
  friend bool operator==(const gpu_telemetry&, const gpu_telemetry&) = default;
};

// One GPU as NVML sees it (a physical GPU, never a MIG instance).
struct nvml_device {
  std::uint32_t index = 0;
  std::string name;
  pci_address pci{};
  pci_ids pci_id{};
  bytes total_memory{};
  mig_mode mig_current = mig_mode::unknown;
  mig_mode mig_pending = mig_mode::unknown;      // takes effect at the next GPU reset
  std::vector<nvml_gpu_instance> gpu_instances;  // by start slice; empty unless MIG is enabled
  std::string gpu_instances_error;               // why the instances could not be read; empty when they were
  nvlink_state nvlink{};
  gpu_telemetry telemetry;  // its state when it was read
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
