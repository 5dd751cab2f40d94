// SPDX-License-Identifier: MIT
#pragma once
// A GPU's live state through a loaded NVML (gpu_telemetry): UUID, utilization, memory used,
// power, temperature, ECC counts, retired pages, remapped rows, and each MIG device. Every
// function here is optional: a reading this NVML or this GPU cannot give says why, nothing
// more (nvml_calls::ask).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/probe/nvml/abi.hpp>
#include <gpurent/probe/nvml/calls.hpp>
#include <gpurent/probe/nvml/loader.hpp>
#include <gpurent/probe/types.hpp>

namespace gpurent::probe::detail {

class nvml_live_reader {
 public:
  explicit nvml_live_reader(const nvml_state& s) noexcept : call_(s), fn_(s.fn) {}

  // The live state of the GPU (or MIG device) at handle h; readings NVML cannot give say why.
  [[nodiscard]] gpu_telemetry read(nvml_abi::nvmlDevice_t h) const {
    gpu_telemetry t;
    t.uuid = uuid_of(h);
    t.utilization = utilization_of(h);
    t.memory = memory_of(h);
    t.power = power_of(h);
    t.temperature_c = temperature_of(h);
    t.health.ecc_volatile = ecc_of(h, nvml_abi::NVML_VOLATILE_ECC);
    t.health.ecc_aggregate = ecc_of(h, nvml_abi::NVML_AGGREGATE_ECC);
    t.health.retired = retired_of(h);
    t.health.remapped = remapped_of(h);
    t.mig_devices = mig_devices_of(h);
    return t;
  }

 private:
  [[nodiscard]] nvml_reading<std::string> uuid_of(nvml_abi::nvmlDevice_t h) const {
    char buf[nvml_abi::NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    GPURENT_TRY(call_.ask(fn_.uuid, "nvmlDeviceGetUUID", h, static_cast<char*>(buf), static_cast<unsigned>(sizeof buf)));
    return std::string(buf, std::find(std::begin(buf), std::end(buf), '\0'));
  }
  [[nodiscard]] nvml_reading<utilization_rates> utilization_of(nvml_abi::nvmlDevice_t h) const {
    nvml_abi::nvmlUtilization_t u{};
    GPURENT_TRY(call_.ask(fn_.utilization, "nvmlDeviceGetUtilizationRates", h, &u));
    if (u.gpu > 100 || u.memory > 100) return make_error(error_code::io_error, "nvml", "nvmlDeviceGetUtilizationRates: a percentage above 100");
    return utilization_rates{percent(static_cast<std::int32_t>(u.gpu)), percent(static_cast<std::int32_t>(u.memory))};
  }
  [[nodiscard]] nvml_reading<memory_use> memory_of(nvml_abi::nvmlDevice_t h) const {
    nvml_abi::nvmlMemory_t m{};
    GPURENT_TRY(call_.ask(fn_.memory, "nvmlDeviceGetMemoryInfo", h, &m));
    const auto b = [](unsigned long long v) { return bytes(static_cast<std::int64_t>(v)); };
    return memory_use{b(m.total), b(m.used), b(m.free)};
  }
  [[nodiscard]] nvml_reading<milliwatts> power_of(nvml_abi::nvmlDevice_t h) const {
    unsigned mw = 0;
    GPURENT_TRY(call_.ask(fn_.power, "nvmlDeviceGetPowerUsage", h, &mw));
    return milliwatts(mw);
  }
  // nvmlDeviceGetTemperatureV where NVML has it (12.6+), else the deprecated nvmlDeviceGetTemperature.
  [[nodiscard]] nvml_reading<std::int32_t> temperature_of(nvml_abi::nvmlDevice_t h) const {
    if (fn_.temperature_v != nullptr) {
      nvml_abi::nvmlTemperature_v1_t t{nvml_abi::nvmlTemperature_v1, nvml_abi::NVML_TEMPERATURE_GPU, 0};
      GPURENT_TRY(call_.ask(fn_.temperature_v, "nvmlDeviceGetTemperatureV", h, &t));
      return std::int32_t{t.temperature};
    }
    unsigned c = 0;
    GPURENT_TRY(call_.ask(fn_.temperature, "nvmlDeviceGetTemperature", h, nvml_abi::NVML_TEMPERATURE_GPU, &c));
    return static_cast<std::int32_t>(c);
  }
  [[nodiscard]] nvml_reading<ecc_errors> ecc_of(nvml_abi::nvmlDevice_t h, int counter) const {
    unsigned long long corrected = 0, uncorrected = 0;
    GPURENT_TRY(call_.ask(fn_.ecc, "nvmlDeviceGetTotalEccErrors", h, nvml_abi::NVML_MEMORY_ERROR_TYPE_CORRECTED, counter, &corrected));
    GPURENT_TRY(call_.ask(fn_.ecc, "nvmlDeviceGetTotalEccErrors", h, nvml_abi::NVML_MEMORY_ERROR_TYPE_UNCORRECTED, counter, &uncorrected));
    return ecc_errors{corrected, uncorrected};
  }
  // The counts only: a size query (no address buffer) answers with the count (SUCCESS when
  // there are none, INSUFFICIENT_SIZE when there are some).
  [[nodiscard]] nvml_reading<retired_pages> retired_of(nvml_abi::nvmlDevice_t h) const {
    using namespace nvml_abi;
    const char* name = "nvmlDeviceGetRetiredPages";
    if (fn_.retired == nullptr) return nvml_calls::missing(name);
    std::uint32_t counts[2] = {};
    for (int cause : {NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR}) {
      unsigned n = 0;
      const nvmlReturn_t r = fn_.retired(h, cause, &n, nullptr);
      if (r != NVML_ERROR_INSUFFICIENT_SIZE) GPURENT_TRY(call_.answer(r, name));
      counts[static_cast<std::size_t>(cause)] = n;
    }
    return retired_pages{counts[0], counts[1]};
  }
  [[nodiscard]] nvml_reading<remapped_rows> remapped_of(nvml_abi::nvmlDevice_t h) const {
    unsigned corr = 0, unc = 0, pending = 0, failed = 0;
    GPURENT_TRY(call_.ask(fn_.remapped, "nvmlDeviceGetRemappedRows", h, &corr, &unc, &pending, &failed));
    return remapped_rows{corr, unc, pending != 0, failed != 0};
  }

  // Every MIG device NVML lists under the GPU (none when MIG is off or this NVML cannot list them).
  [[nodiscard]] std::vector<mig_device_telemetry> mig_devices_of(nvml_abi::nvmlDevice_t h) const {
    std::vector<mig_device_telemetry> out;
    unsigned n = 0;
    if (!call_.ask(fn_.mig_count, "nvmlDeviceGetMaxMigDeviceCount", h, &n) || fn_.mig_handle == nullptr) return out;
    for (unsigned i = 0; i < n; ++i) {
      nvml_abi::nvmlDevice_t m = nullptr;
      if (fn_.mig_handle(h, i, &m) != nvml_abi::NVML_SUCCESS || m == nullptr) continue;  // no MIG device at this index
      mig_device_telemetry d;
      d.index = i;
      d.uuid = uuid_of(m);
      unsigned gi = 0, ci = 0;
      if (auto ok = call_.ask(fn_.gi_id, "nvmlDeviceGetGpuInstanceId", m, &gi); ok)
        d.gpu_instance_id = std::uint32_t{gi};
      else
        d.gpu_instance_id = unexpected<error>(std::move(ok.error()));
      if (auto ok = call_.ask(fn_.ci_id, "nvmlDeviceGetComputeInstanceId", m, &ci); ok)
        d.compute_instance_id = std::uint32_t{ci};
      else
        d.compute_instance_id = unexpected<error>(std::move(ok.error()));
      d.memory = memory_of(m);
      d.utilization = utilization_of(m);
      out.push_back(std::move(d));
    }
    return out;
  }

  nvml_calls call_;
  const nvml_functions& fn_;
};

}  // namespace gpurent::probe::detail
