// SPDX-License-Identifier: MIT
#pragma once
// NVML, loaded at run time: which library (nvml_default_library), the functions the probe
// resolves from it with dlsym (the required ones and the optional live-state ones), and the
// state that closes it again. No NVML headers and no link-time dependency.

#include <cstdlib>
#include <string>

#include <dlfcn.h>

#include <gpurent/probe/nvml/abi.hpp>

namespace gpurent::probe {

// The library the probe loads: $GPURENT_NVML_LIBRARY when set (tests point it at a fake),
// else the driver's "libnvidia-ml.so.1". Read here, in one named place, never implicitly.
[[nodiscard]] inline std::string nvml_default_library() {
  const char* env = std::getenv("GPURENT_NVML_LIBRARY");  // NOLINT(concurrency-mt-unsafe)
  return (env != nullptr && *env != '\0') ? std::string(env) : std::string("libnvidia-ml.so.1");
}

namespace detail {

struct nvml_functions {
  nvml_abi::nvmlInit_v2_fn init = nullptr;
  nvml_abi::nvmlShutdown_fn shutdown = nullptr;
  nvml_abi::nvmlErrorString_fn error_string = nullptr;
  nvml_abi::nvmlDeviceGetCount_v2_fn count = nullptr;
  nvml_abi::nvmlDeviceGetHandleByIndex_v2_fn handle = nullptr;
  nvml_abi::nvmlDeviceGetName_fn name = nullptr;
  nvml_abi::nvmlDeviceGetPciInfo_v3_fn pci = nullptr;
  nvml_abi::nvmlDeviceGetMemoryInfo_fn memory = nullptr;
  nvml_abi::nvmlDeviceGetMigMode_fn mig_mode = nullptr;
  nvml_abi::nvmlDeviceGetGpuInstanceProfileInfo_fn gi_profile = nullptr;
  nvml_abi::nvmlDeviceGetGpuInstances_fn gi_list = nullptr;
  nvml_abi::nvmlGpuInstanceGetInfo_fn gi_info = nullptr;
  nvml_abi::nvmlDeviceGetNvLinkState_fn nvlink = nullptr;
  // optional
  nvml_abi::nvmlDeviceGetUUID_fn uuid = nullptr;
  nvml_abi::nvmlDeviceGetUtilizationRates_fn utilization = nullptr;
  nvml_abi::nvmlDeviceGetPowerUsage_fn power = nullptr;
  nvml_abi::nvmlDeviceGetTemperatureV_fn temperature_v = nullptr;
  nvml_abi::nvmlDeviceGetTemperature_fn temperature = nullptr;
  nvml_abi::nvmlDeviceGetTotalEccErrors_fn ecc = nullptr;
  nvml_abi::nvmlDeviceGetRetiredPages_fn retired = nullptr;
  nvml_abi::nvmlDeviceGetRemappedRows_fn remapped = nullptr;
  nvml_abi::nvmlDeviceGetMaxMigDeviceCount_fn mig_count = nullptr;
  nvml_abi::nvmlDeviceGetMigDeviceHandleByIndex_fn mig_handle = nullptr;
  nvml_abi::nvmlDeviceGetGpuInstanceId_fn gi_id = nullptr;
  nvml_abi::nvmlDeviceGetComputeInstanceId_fn ci_id = nullptr;
};

// Closes the library (after nvmlShutdown when init succeeded).
struct nvml_state {
  void* handle = nullptr;
  bool initialized = false;
  nvml_functions fn;
  std::string path;
  nvml_state() = default;
  nvml_state(const nvml_state&) = delete;
  nvml_state& operator=(const nvml_state&) = delete;
  ~nvml_state() {
    if (initialized && fn.shutdown != nullptr) (void)fn.shutdown();
    if (handle != nullptr) (void)::dlclose(handle);
  }
};

[[nodiscard]] inline std::string dl_error_text() {
  const char* e = ::dlerror();
  return e != nullptr ? std::string(e) : std::string("unknown dynamic-loader error");
}

// Resolves one symbol into a typed function pointer; false when the library lacks it.
template <class F>
[[nodiscard]] bool nvml_resolve(void* handle, const char* symbol, F& out) {
  (void)::dlerror();
  void* p = ::dlsym(handle, symbol);
  if (p == nullptr) return false;
  out = reinterpret_cast<F>(p);  // POSIX guarantees object and function pointers convert
  return true;
}

// The optional functions: each one this NVML lacks stays null.
inline void nvml_resolve_optional(void* handle, nvml_functions& f) {
  (void)nvml_resolve(handle, "nvmlDeviceGetUUID", f.uuid);
  (void)nvml_resolve(handle, "nvmlDeviceGetUtilizationRates", f.utilization);
  (void)nvml_resolve(handle, "nvmlDeviceGetPowerUsage", f.power);
  (void)nvml_resolve(handle, "nvmlDeviceGetTemperatureV", f.temperature_v);
  (void)nvml_resolve(handle, "nvmlDeviceGetTemperature", f.temperature);
  (void)nvml_resolve(handle, "nvmlDeviceGetTotalEccErrors", f.ecc);
  (void)nvml_resolve(handle, "nvmlDeviceGetRetiredPages", f.retired);
  (void)nvml_resolve(handle, "nvmlDeviceGetRemappedRows", f.remapped);
  (void)nvml_resolve(handle, "nvmlDeviceGetMaxMigDeviceCount", f.mig_count);
  (void)nvml_resolve(handle, "nvmlDeviceGetMigDeviceHandleByIndex", f.mig_handle);
  (void)nvml_resolve(handle, "nvmlDeviceGetGpuInstanceId", f.gi_id);
  (void)nvml_resolve(handle, "nvmlDeviceGetComputeInstanceId", f.ci_id);
}

// The functions every probe needs: resolves each into `f`; the first symbol this NVML lacks,
// or null when it has them all.
[[nodiscard]] inline const char* nvml_resolve_required(void* handle, nvml_functions& f) {
  struct entry {
    const char* symbol;
    bool ok;
  };
  const entry entries[] = {
      {"nvmlInit_v2", nvml_resolve(handle, "nvmlInit_v2", f.init)},
      {"nvmlShutdown", nvml_resolve(handle, "nvmlShutdown", f.shutdown)},
      {"nvmlErrorString", nvml_resolve(handle, "nvmlErrorString", f.error_string)},
      {"nvmlDeviceGetCount_v2", nvml_resolve(handle, "nvmlDeviceGetCount_v2", f.count)},
      {"nvmlDeviceGetHandleByIndex_v2", nvml_resolve(handle, "nvmlDeviceGetHandleByIndex_v2", f.handle)},
      {"nvmlDeviceGetName", nvml_resolve(handle, "nvmlDeviceGetName", f.name)},
      {"nvmlDeviceGetPciInfo_v3", nvml_resolve(handle, "nvmlDeviceGetPciInfo_v3", f.pci)},
      {"nvmlDeviceGetMemoryInfo", nvml_resolve(handle, "nvmlDeviceGetMemoryInfo", f.memory)},
      {"nvmlDeviceGetMigMode", nvml_resolve(handle, "nvmlDeviceGetMigMode", f.mig_mode)},
      {"nvmlDeviceGetGpuInstanceProfileInfo", nvml_resolve(handle, "nvmlDeviceGetGpuInstanceProfileInfo", f.gi_profile)},
      {"nvmlDeviceGetGpuInstances", nvml_resolve(handle, "nvmlDeviceGetGpuInstances", f.gi_list)},
      {"nvmlGpuInstanceGetInfo", nvml_resolve(handle, "nvmlGpuInstanceGetInfo", f.gi_info)},
      {"nvmlDeviceGetNvLinkState", nvml_resolve(handle, "nvmlDeviceGetNvLinkState", f.nvlink)},
  };
  for (const entry& e : entries)
    if (!e.ok) return e.symbol;
  return nullptr;
}

}  // namespace detail

}  // namespace gpurent::probe
