// SPDX-License-Identifier: MIT
#pragma once
// A GPU's live state (gpu_telemetry) in the DCGM exporter's terms, so that what the probe
// reads and what an operator's DCGM exporter scrapes are one vocabulary: the field names of
// NVIDIA/dcgm-exporter etc/default-counters.csv (DCGM_FI_DEV_GPU_UTIL in %, FB_USED in MiB,
// POWER_USAGE in W, ...) and the exporter's labels (gpu, UUID, device, modelName, Hostname;
// GPU_I_ID for a MIG device). `gpurent probe --watch` writes these as a Prometheus
// query_range answer, which `gpurent idle` reads. Pure functions: no NVML here.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/metering/waste.hpp>
#include <gpurent/probe/types.hpp>

namespace gpurent::probe {

// One value of one DCGM field, as text ("87", "412.345").
struct dcgm_value {
  std::string_view field;
  std::string value;
  friend bool operator==(const dcgm_value&, const dcgm_value&) = default;
};

namespace detail {
// Milliwatts as watts with three decimals ("412.345").
[[nodiscard]] inline std::string watts_text(milliwatts mw) {
  return std::to_string(mw.count() / 1000) + "." + std::to_string(1000 + mw.count() % 1000).substr(1);
}
}  // namespace detail

// The fields a GPU's state gives, in the exporter's units; readings NVML did not give are left
// out (as the exporter leaves out a field it cannot read).
[[nodiscard]] inline std::vector<dcgm_value> dcgm_values(const gpu_telemetry& t) {
  std::vector<dcgm_value> out;
  const auto put = [&](std::string_view field, std::string v) { out.push_back({field, std::move(v)}); };
  if (t.utilization) {
    put("DCGM_FI_DEV_GPU_UTIL", format_percent(t.utilization->gpu));
    put("DCGM_FI_DEV_MEM_COPY_UTIL", format_percent(t.utilization->memory));
  }
  if (t.memory) {
    put("DCGM_FI_DEV_FB_USED", std::to_string(to_mib(t.memory->used)));
    put("DCGM_FI_DEV_FB_FREE", std::to_string(to_mib(t.memory->free)));
  }
  if (t.power) put("DCGM_FI_DEV_POWER_USAGE", detail::watts_text(*t.power));
  if (t.temperature_c) put("DCGM_FI_DEV_GPU_TEMP", std::to_string(*t.temperature_c));
  if (const auto& e = t.health.ecc_volatile) {
    put("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", std::to_string(e->corrected));
    put("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", std::to_string(e->uncorrected));
  }
  if (const auto& e = t.health.ecc_aggregate) {
    put("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", std::to_string(e->corrected));
    put("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", std::to_string(e->uncorrected));
  }
  if (const auto& r = t.health.retired) {
    put("DCGM_FI_DEV_RETIRED_SBE", std::to_string(r->multiple_single_bit));
    put("DCGM_FI_DEV_RETIRED_DBE", std::to_string(r->double_bit));
  }
  if (const auto& r = t.health.remapped) {
    put("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", std::to_string(r->correctable));
    put("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", std::to_string(r->uncorrectable));
    put("DCGM_FI_DEV_ROW_REMAP_FAILURE", r->failed ? "1" : "0");
  }
  return out;
}

// The fields of one MIG device (its memory; utilization where NVML gives it).
[[nodiscard]] inline std::vector<dcgm_value> dcgm_values(const mig_device_telemetry& m) {
  gpu_telemetry t;
  t.utilization = m.utilization;
  t.memory = m.memory;
  return dcgm_values(t);
}

// The exporter's labels of GPU `index` on `host`: gpu, UUID (when read), device, modelName,
// Hostname, in the exporter's order.
[[nodiscard]] inline std::vector<std::pair<std::string, std::string>> dcgm_labels(const nvml_device& d, const gpu_telemetry& t,
                                                                                  std::string_view host) {
  std::vector<std::pair<std::string, std::string>> out{{"gpu", std::to_string(d.index)}};
  if (t.uuid) out.emplace_back("UUID", *t.uuid);
  out.emplace_back("device", "nvidia" + std::to_string(d.index));
  out.emplace_back("modelName", d.name);
  out.emplace_back("Hostname", std::string(host));
  return out;
}

}  // namespace gpurent::probe
