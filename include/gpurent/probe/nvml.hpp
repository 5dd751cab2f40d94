// SPDX-License-Identifier: MIT
#pragma once
// NVML, loaded at run time: dlopen("libnvidia-ml.so.1"), no NVML headers and no link-time
// dependency. Reads each GPU's name, PCI address and id, memory, MIG mode, the existing GPU
// instances with their placements, and NVLink state; and its live state (gpu_telemetry):
// UUID, utilization, memory used, power, temperature, ECC counts, retired pages, remapped
// rows, and each MIG device. A missing library, a missing required symbol or an NVML error is
// an `expected` error with the reason. The live-state functions are optional: one this NVML
// lacks, or that the GPU does not support, makes that reading "not available", nothing more.
//
// Only the few NVML declarations used are repeated below (namespace nvml_abi). Their
// layouts follow NVIDIA's nvml.h (NVML 11-13); the static_asserts pin the sizes and offsets
// of that header on LP64, so a typo cannot silently shift a field.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <dlfcn.h>

#include <gpurent/core/error.hpp>
#include <gpurent/probe/types.hpp>

namespace gpurent::probe {

// The C ABI of the NVML functions the probe calls.
namespace nvml_abi {

using nvmlReturn_t = int;  // a C enum: int-sized
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_LIBRARY_NOT_FOUND = 12;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

using nvmlEnableState_t = int;
inline constexpr nvmlEnableState_t NVML_FEATURE_DISABLED = 0;
inline constexpr nvmlEnableState_t NVML_FEATURE_ENABLED = 1;
inline constexpr unsigned NVML_DEVICE_MIG_DISABLE = 0;
inline constexpr unsigned NVML_DEVICE_MIG_ENABLE = 1;

inline constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
inline constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;
inline constexpr unsigned NVML_NVLINK_MAX_LINKS = 18;
// NVML_GPU_INSTANCE_PROFILE_1_SLICE (0x0) ... NVML_GPU_INSTANCE_PROFILE_2_SLICE_ALL_ME (0x10):
// the profile kinds nvmlDeviceGetGpuInstanceProfileInfo accepts; a kind a GPU lacks answers
// NOT_SUPPORTED or INVALID_ARGUMENT.
inline constexpr unsigned NVML_GPU_INSTANCE_PROFILE_KINDS = 0x11;

struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlGpuInstance_st;
using nvmlGpuInstance_t = nvmlGpuInstance_st*;

struct nvmlPciInfo_t {  // as filled by nvmlDeviceGetPciInfo_v3
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;  // device id << 16 | vendor id
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
};

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct nvmlGpuInstancePlacement_t {
  unsigned int start;  // first memory slice
  unsigned int size;   // memory slices
};

struct nvmlGpuInstanceProfileInfo_t {
  unsigned int id;  // the profile id (nvidia-smi mig -lgip "ID")
  unsigned int isP2pSupported;
  unsigned int sliceCount;
  unsigned int instanceCount;  // the most instances of this profile
  unsigned int multiprocessorCount;
  unsigned int copyEngineCount;
  unsigned int decoderCount;
  unsigned int encoderCount;
  unsigned int jpegCount;
  unsigned int ofaCount;
  unsigned long long memorySizeMB;
};

struct nvmlGpuInstanceInfo_t {
  nvmlDevice_t device;
  unsigned int id;
  unsigned int profileId;
  nvmlGpuInstancePlacement_t placement;
};

inline constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
inline constexpr int NVML_TEMPERATURE_GPU = 0;              // nvmlTemperatureSensors_t
inline constexpr int NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;  // nvmlMemoryErrorType_t
inline constexpr int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
inline constexpr int NVML_VOLATILE_ECC = 0;  // nvmlEccCounterType_t
inline constexpr int NVML_AGGREGATE_ECC = 1;
inline constexpr int NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0;  // nvmlPageRetirementCause_t
inline constexpr int NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1;

struct nvmlUtilization_t {
  unsigned int gpu;     // percent of the last sample period a kernel ran
  unsigned int memory;  // percent of it device memory was read or written
};

struct nvmlTemperature_v1_t {  // nvmlDeviceGetTemperatureV (NVML 12.6+)
  unsigned int version;        // nvmlTemperature_v1: sizeof | 1 << 24
  int sensorType;
  int temperature;
};
inline constexpr unsigned nvmlTemperature_v1 = static_cast<unsigned>(sizeof(nvmlTemperature_v1_t)) | (1U << 24U);

static_assert(sizeof(nvmlUtilization_t) == 8 && sizeof(nvmlTemperature_v1_t) == 12);
static_assert(sizeof(nvmlPciInfo_t) == 68 && offsetof(nvmlPciInfo_t, pciDeviceId) == 28 && offsetof(nvmlPciInfo_t, busId) == 36);
static_assert(sizeof(nvmlMemory_t) == 24);
static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48 && offsetof(nvmlGpuInstanceProfileInfo_t, memorySizeMB) == 40);
static_assert(sizeof(void*) != 8 || (sizeof(nvmlGpuInstanceInfo_t) == 24 && offsetof(nvmlGpuInstanceInfo_t, placement) == 16));

using nvmlInit_v2_fn = nvmlReturn_t (*)();
using nvmlShutdown_fn = nvmlReturn_t (*)();
using nvmlErrorString_fn = const char* (*)(nvmlReturn_t);
using nvmlDeviceGetCount_v2_fn = nvmlReturn_t (*)(unsigned int*);
using nvmlDeviceGetHandleByIndex_v2_fn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using nvmlDeviceGetName_fn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using nvmlDeviceGetPciInfo_v3_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*);
using nvmlDeviceGetMemoryInfo_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
using nvmlDeviceGetMigMode_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*);
using nvmlDeviceGetGpuInstanceProfileInfo_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpuInstanceProfileInfo_t*);
using nvmlDeviceGetGpuInstances_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlGpuInstance_t*, unsigned int*);
using nvmlGpuInstanceGetInfo_fn = nvmlReturn_t (*)(nvmlGpuInstance_t, nvmlGpuInstanceInfo_t*);
using nvmlDeviceGetNvLinkState_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlEnableState_t*);
// The live state (optional: absent in an old NVML, each reading is then "not available").
using nvmlDeviceGetUUID_fn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using nvmlDeviceGetUtilizationRates_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*);
using nvmlDeviceGetPowerUsage_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetTemperatureV_fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlTemperature_v1_t*);
using nvmlDeviceGetTemperature_fn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned int*);  // deprecated in NVML 13
using nvmlDeviceGetTotalEccErrors_fn = nvmlReturn_t (*)(nvmlDevice_t, int, int, unsigned long long*);
using nvmlDeviceGetRetiredPages_fn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned int*, unsigned long long*);
using nvmlDeviceGetRemappedRows_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*, unsigned int*, unsigned int*);
using nvmlDeviceGetMaxMigDeviceCount_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetMigDeviceHandleByIndex_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlDevice_t*);
using nvmlDeviceGetGpuInstanceId_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using nvmlDeviceGetComputeInstanceId_fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);

}  // namespace nvml_abi

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

}  // namespace detail

// An opened and initialized NVML. Move-only; shuts NVML down and closes the library when
// destroyed.
class nvml_library {
 public:
  // Loads `path` (a soname or a file path), resolves every function the probe uses and calls
  // nvmlInit_v2. Errors: not_found when the library cannot be loaded or NVML finds no
  // driver; unsupported when a function is missing (NVML older than the probe needs).
  [[nodiscard]] static expected<nvml_library> open(const std::string& path = nvml_default_library()) {
    auto s = std::make_unique<detail::nvml_state>();
    s->path = path;
    s->handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (s->handle == nullptr) return make_error(error_code::not_found, "nvml", "cannot load " + path + ": " + detail::dl_error_text());
    auto& f = s->fn;
    struct entry {
      const char* symbol;
      bool ok;
    };
    const entry entries[] = {
        {"nvmlInit_v2", detail::nvml_resolve(s->handle, "nvmlInit_v2", f.init)},
        {"nvmlShutdown", detail::nvml_resolve(s->handle, "nvmlShutdown", f.shutdown)},
        {"nvmlErrorString", detail::nvml_resolve(s->handle, "nvmlErrorString", f.error_string)},
        {"nvmlDeviceGetCount_v2", detail::nvml_resolve(s->handle, "nvmlDeviceGetCount_v2", f.count)},
        {"nvmlDeviceGetHandleByIndex_v2", detail::nvml_resolve(s->handle, "nvmlDeviceGetHandleByIndex_v2", f.handle)},
        {"nvmlDeviceGetName", detail::nvml_resolve(s->handle, "nvmlDeviceGetName", f.name)},
        {"nvmlDeviceGetPciInfo_v3", detail::nvml_resolve(s->handle, "nvmlDeviceGetPciInfo_v3", f.pci)},
        {"nvmlDeviceGetMemoryInfo", detail::nvml_resolve(s->handle, "nvmlDeviceGetMemoryInfo", f.memory)},
        {"nvmlDeviceGetMigMode", detail::nvml_resolve(s->handle, "nvmlDeviceGetMigMode", f.mig_mode)},
        {"nvmlDeviceGetGpuInstanceProfileInfo", detail::nvml_resolve(s->handle, "nvmlDeviceGetGpuInstanceProfileInfo", f.gi_profile)},
        {"nvmlDeviceGetGpuInstances", detail::nvml_resolve(s->handle, "nvmlDeviceGetGpuInstances", f.gi_list)},
        {"nvmlGpuInstanceGetInfo", detail::nvml_resolve(s->handle, "nvmlGpuInstanceGetInfo", f.gi_info)},
        {"nvmlDeviceGetNvLinkState", detail::nvml_resolve(s->handle, "nvmlDeviceGetNvLinkState", f.nvlink)},
    };
    for (const entry& e : entries)
      if (!e.ok) return make_error(error_code::unsupported, "nvml", path + " has no symbol " + e.symbol + " (NVML too old?)");
    detail::nvml_resolve_optional(s->handle, f);
    nvml_library lib(std::move(s));
    if (const auto r = lib.s_->fn.init(); r != nvml_abi::NVML_SUCCESS) return unexpected<error>(lib.failure(r, "nvmlInit_v2"));
    lib.s_->initialized = true;
    return lib;
  }

  [[nodiscard]] const std::string& path() const noexcept { return s_->path; }

  [[nodiscard]] expected<std::uint32_t> device_count() const {
    unsigned n = 0;
    if (const auto r = s_->fn.count(&n); r != nvml_abi::NVML_SUCCESS) return unexpected<error>(failure(r, "nvmlDeviceGetCount_v2"));
    return std::uint32_t{n};
  }

  // The GPU at NVML index `index` (physical GPUs only; MIG instances are read as its
  // gpu_instances).
  [[nodiscard]] expected<nvml_device> device(std::uint32_t index) const {
    const auto& f = s_->fn;
    const std::string at = "device " + std::to_string(index) + ": ";
    nvml_abi::nvmlDevice_t h = nullptr;
    if (const auto r = f.handle(index, &h); r != nvml_abi::NVML_SUCCESS) return unexpected<error>(failure(r, at + "nvmlDeviceGetHandleByIndex_v2"));
    nvml_device d;
    d.index = index;
    char name[nvml_abi::NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    if (const auto r = f.name(h, name, sizeof name); r != nvml_abi::NVML_SUCCESS) return unexpected<error>(failure(r, at + "nvmlDeviceGetName"));
    d.name = std::string(name, std::find(std::begin(name), std::end(name), '\0'));
    nvml_abi::nvmlPciInfo_t pci{};
    if (const auto r = f.pci(h, &pci); r != nvml_abi::NVML_SUCCESS) return unexpected<error>(failure(r, at + "nvmlDeviceGetPciInfo_v3"));
    d.pci = pci_address{pci.domain, pci.bus, pci.device};
    d.pci_id = split_pci_id(pci.pciDeviceId);
    nvml_abi::nvmlMemory_t mem{};
    if (const auto r = f.memory(h, &mem); r != nvml_abi::NVML_SUCCESS) return unexpected<error>(failure(r, at + "nvmlDeviceGetMemoryInfo"));
    d.total_memory = bytes(static_cast<std::int64_t>(mem.total));
    unsigned current = 0;
    unsigned pending = 0;
    if (const auto r = f.mig_mode(h, &current, &pending); r == nvml_abi::NVML_SUCCESS) {
      d.mig_current = current == nvml_abi::NVML_DEVICE_MIG_ENABLE ? mig_mode::enabled : mig_mode::disabled;
      d.mig_pending = pending == nvml_abi::NVML_DEVICE_MIG_ENABLE ? mig_mode::enabled : mig_mode::disabled;
    } else if (r == nvml_abi::NVML_ERROR_NOT_SUPPORTED) {
      d.mig_current = d.mig_pending = mig_mode::unsupported;
    } else {
      return unexpected<error>(failure(r, at + "nvmlDeviceGetMigMode"));
    }
    if (d.mig_current == mig_mode::enabled) {
      auto gis = gpu_instances(h);
      if (!gis)
        d.gpu_instances_error = at + gis.error().message;
      else
        d.gpu_instances = std::move(*gis);
    }
    d.nvlink = nvlink(h);
    d.telemetry = telemetry_of(h);
    return d;
  }

  // The live state of the GPU at NVML index `index`; readings NVML cannot give say why.
  [[nodiscard]] expected<gpu_telemetry> telemetry(std::uint32_t index) const {
    nvml_abi::nvmlDevice_t h = nullptr;
    if (const auto r = s_->fn.handle(index, &h); r != nvml_abi::NVML_SUCCESS)
      return unexpected<error>(failure(r, "device " + std::to_string(index) + ": nvmlDeviceGetHandleByIndex_v2"));
    return telemetry_of(h);
  }

  // Every GPU NVML sees, by index.
  [[nodiscard]] expected<std::vector<nvml_device>> devices() const {
    auto n = device_count();
    if (!n) return unexpected<error>(std::move(n.error()));
    std::vector<nvml_device> out;
    out.reserve(*n);
    for (std::uint32_t i = 0; i < *n; ++i) {
      auto d = device(i);
      if (!d) return unexpected<error>(std::move(d.error()));
      out.push_back(std::move(*d));
    }
    return out;
  }

  // "NVML_ERROR_...: text" for a return code, through the library's nvmlErrorString.
  [[nodiscard]] std::string error_text(nvml_abi::nvmlReturn_t r) const {
    const char* t = s_->fn.error_string != nullptr ? s_->fn.error_string(r) : nullptr;
    return (t != nullptr ? std::string(t) : std::string("unknown NVML error")) + " (NVML return " + std::to_string(r) + ")";
  }

 private:
  explicit nvml_library(std::unique_ptr<detail::nvml_state> s) : s_(std::move(s)) {}

  [[nodiscard]] error failure(nvml_abi::nvmlReturn_t r, const std::string& call) const {
    using namespace nvml_abi;
    error_code c = error_code::io_error;
    if (r == NVML_ERROR_DRIVER_NOT_LOADED || r == NVML_ERROR_LIBRARY_NOT_FOUND || r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_GPU_IS_LOST)
      c = error_code::not_found;
    else if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND || r == NVML_ERROR_LIB_RM_VERSION_MISMATCH)
      c = error_code::unsupported;
    return error{c, "nvml", call + " failed: " + error_text(r), {}};
  }

  // The existing GPU instances, by start slice: for every profile kind the GPU has, its
  // instances and their placements.
  [[nodiscard]] expected<std::vector<nvml_gpu_instance>> gpu_instances(nvml_abi::nvmlDevice_t h) const {
    using namespace nvml_abi;
    const auto& f = s_->fn;
    std::vector<nvml_gpu_instance> out;
    for (unsigned kind = 0; kind < NVML_GPU_INSTANCE_PROFILE_KINDS; ++kind) {
      nvmlGpuInstanceProfileInfo_t info{};
      const auto r = f.gi_profile(h, kind, &info);
      if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_INVALID_ARGUMENT) continue;
      if (r != NVML_SUCCESS) return unexpected<error>(failure(r, "nvmlDeviceGetGpuInstanceProfileInfo"));
      if (info.instanceCount == 0) continue;
      std::vector<nvmlGpuInstance_t> list(info.instanceCount, nullptr);
      unsigned n = info.instanceCount;
      if (const auto r2 = f.gi_list(h, info.id, list.data(), &n); r2 != NVML_SUCCESS) {
        if (r2 == NVML_ERROR_NO_PERMISSION)
          return make_error(error_code::unsupported, "nvml",
                            "no permission to list GPU instances (run as root, or grant the MIG monitor capability)");
        return unexpected<error>(failure(r2, "nvmlDeviceGetGpuInstances"));
      }
      for (unsigned i = 0; i < n && i < list.size(); ++i) {
        nvmlGpuInstanceInfo_t gi{};
        if (const auto r3 = f.gi_info(list[i], &gi); r3 != NVML_SUCCESS) return unexpected<error>(failure(r3, "nvmlGpuInstanceGetInfo"));
        const nvml_gpu_instance x{gi.id, gi.profileId, gi.placement.start, gi.placement.size};
        if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
      }
    }
    std::sort(out.begin(), out.end(),
              [](const nvml_gpu_instance& a, const nvml_gpu_instance& b) { return a.start != b.start ? a.start < b.start : a.id < b.id; });
    return out;
  }

  // ---- the live state --------------------------------------------------------------------------

  [[nodiscard]] gpu_telemetry telemetry_of(nvml_abi::nvmlDevice_t h) const {
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

  // Calls an optional function: "not available" when this NVML lacks it or the GPU does not
  // support it, NVML's error otherwise.
  template <class F, class... A>
  [[nodiscard]] expected<void> ask(F fn, const char* name, A... args) const {
    if (fn == nullptr) return missing(name);
    return answer(fn(args...), name);
  }
  [[nodiscard]] static unexpected<error> missing(const char* name) {
    return make_error(error_code::unsupported, "nvml", std::string("not available: this NVML has no ") + name);
  }
  [[nodiscard]] expected<void> answer(nvml_abi::nvmlReturn_t r, const char* name) const {
    using namespace nvml_abi;
    if (r == NVML_SUCCESS) return {};
    if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND)
      return make_error(error_code::unsupported, "nvml", std::string("not available on this GPU (") + name + ": " + error_text(r) + ")");
    if (r == NVML_ERROR_NO_PERMISSION)
      return make_error(error_code::unsupported, "nvml", std::string("not available without permission (") + name + ": " + error_text(r) + ")");
    return unexpected<error>(failure(r, name));
  }

  [[nodiscard]] nvml_reading<std::string> uuid_of(nvml_abi::nvmlDevice_t h) const {
    char buf[nvml_abi::NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    GPURENT_TRY(ask(s_->fn.uuid, "nvmlDeviceGetUUID", h, static_cast<char*>(buf), static_cast<unsigned>(sizeof buf)));
    return std::string(buf, std::find(std::begin(buf), std::end(buf), '\0'));
  }
  [[nodiscard]] nvml_reading<utilization_rates> utilization_of(nvml_abi::nvmlDevice_t h) const {
    nvml_abi::nvmlUtilization_t u{};
    GPURENT_TRY(ask(s_->fn.utilization, "nvmlDeviceGetUtilizationRates", h, &u));
    if (u.gpu > 100 || u.memory > 100) return make_error(error_code::io_error, "nvml", "nvmlDeviceGetUtilizationRates: a percentage above 100");
    return utilization_rates{percent(static_cast<std::int32_t>(u.gpu)), percent(static_cast<std::int32_t>(u.memory))};
  }
  [[nodiscard]] nvml_reading<memory_use> memory_of(nvml_abi::nvmlDevice_t h) const {
    nvml_abi::nvmlMemory_t m{};
    GPURENT_TRY(ask(s_->fn.memory, "nvmlDeviceGetMemoryInfo", h, &m));
    const auto b = [](unsigned long long v) { return bytes(static_cast<std::int64_t>(v)); };
    return memory_use{b(m.total), b(m.used), b(m.free)};
  }
  [[nodiscard]] nvml_reading<milliwatts> power_of(nvml_abi::nvmlDevice_t h) const {
    unsigned mw = 0;
    GPURENT_TRY(ask(s_->fn.power, "nvmlDeviceGetPowerUsage", h, &mw));
    return milliwatts(mw);
  }
  // nvmlDeviceGetTemperatureV where NVML has it (12.6+), else the deprecated nvmlDeviceGetTemperature.
  [[nodiscard]] nvml_reading<std::int32_t> temperature_of(nvml_abi::nvmlDevice_t h) const {
    if (s_->fn.temperature_v != nullptr) {
      nvml_abi::nvmlTemperature_v1_t t{nvml_abi::nvmlTemperature_v1, nvml_abi::NVML_TEMPERATURE_GPU, 0};
      GPURENT_TRY(ask(s_->fn.temperature_v, "nvmlDeviceGetTemperatureV", h, &t));
      return std::int32_t{t.temperature};
    }
    unsigned c = 0;
    GPURENT_TRY(ask(s_->fn.temperature, "nvmlDeviceGetTemperature", h, nvml_abi::NVML_TEMPERATURE_GPU, &c));
    return static_cast<std::int32_t>(c);
  }
  [[nodiscard]] nvml_reading<ecc_errors> ecc_of(nvml_abi::nvmlDevice_t h, int counter) const {
    unsigned long long corrected = 0, uncorrected = 0;
    GPURENT_TRY(ask(s_->fn.ecc, "nvmlDeviceGetTotalEccErrors", h, nvml_abi::NVML_MEMORY_ERROR_TYPE_CORRECTED, counter, &corrected));
    GPURENT_TRY(ask(s_->fn.ecc, "nvmlDeviceGetTotalEccErrors", h, nvml_abi::NVML_MEMORY_ERROR_TYPE_UNCORRECTED, counter, &uncorrected));
    return ecc_errors{corrected, uncorrected};
  }
  // The counts only: a size query (no address buffer) answers with the count (SUCCESS when
  // there are none, INSUFFICIENT_SIZE when there are some).
  [[nodiscard]] nvml_reading<retired_pages> retired_of(nvml_abi::nvmlDevice_t h) const {
    using namespace nvml_abi;
    const char* name = "nvmlDeviceGetRetiredPages";
    if (s_->fn.retired == nullptr) return missing(name);
    std::uint32_t counts[2] = {};
    for (int cause : {NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR}) {
      unsigned n = 0;
      const nvmlReturn_t r = s_->fn.retired(h, cause, &n, nullptr);
      if (r != NVML_ERROR_INSUFFICIENT_SIZE) GPURENT_TRY(answer(r, name));
      counts[static_cast<std::size_t>(cause)] = n;
    }
    return retired_pages{counts[0], counts[1]};
  }
  [[nodiscard]] nvml_reading<remapped_rows> remapped_of(nvml_abi::nvmlDevice_t h) const {
    unsigned corr = 0, unc = 0, pending = 0, failed = 0;
    GPURENT_TRY(ask(s_->fn.remapped, "nvmlDeviceGetRemappedRows", h, &corr, &unc, &pending, &failed));
    return remapped_rows{corr, unc, pending != 0, failed != 0};
  }

  // Every MIG device NVML lists under the GPU (none when MIG is off or this NVML cannot list them).
  [[nodiscard]] std::vector<mig_device_telemetry> mig_devices_of(nvml_abi::nvmlDevice_t h) const {
    std::vector<mig_device_telemetry> out;
    unsigned n = 0;
    if (!ask(s_->fn.mig_count, "nvmlDeviceGetMaxMigDeviceCount", h, &n) || s_->fn.mig_handle == nullptr) return out;
    for (unsigned i = 0; i < n; ++i) {
      nvml_abi::nvmlDevice_t m = nullptr;
      if (s_->fn.mig_handle(h, i, &m) != nvml_abi::NVML_SUCCESS || m == nullptr) continue;  // no MIG device at this index
      mig_device_telemetry d;
      d.index = i;
      d.uuid = uuid_of(m);
      unsigned gi = 0, ci = 0;
      if (auto ok = ask(s_->fn.gi_id, "nvmlDeviceGetGpuInstanceId", m, &gi); ok)
        d.gpu_instance_id = std::uint32_t{gi};
      else
        d.gpu_instance_id = unexpected<error>(std::move(ok.error()));
      if (auto ok = ask(s_->fn.ci_id, "nvmlDeviceGetComputeInstanceId", m, &ci); ok)
        d.compute_instance_id = std::uint32_t{ci};
      else
        d.compute_instance_id = unexpected<error>(std::move(ok.error()));
      d.memory = memory_of(m);
      d.utilization = utilization_of(m);
      out.push_back(std::move(d));
    }
    return out;
  }

  // Links NVML reports and how many are up; zero links on a GPU without NVLink.
  [[nodiscard]] nvlink_state nvlink(nvml_abi::nvmlDevice_t h) const {
    using namespace nvml_abi;
    nvlink_state s;
    for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
      nvmlEnableState_t st = NVML_FEATURE_DISABLED;
      const auto r = s_->fn.nvlink(h, link, &st);
      if (r == NVML_ERROR_NOT_SUPPORTED) break;  // no NVLink on this GPU
      if (r != NVML_SUCCESS) continue;           // a link index this GPU does not have
      ++s.links;
      if (st == NVML_FEATURE_ENABLED) ++s.active;
    }
    return s;
  }

  std::unique_ptr<detail::nvml_state> s_;
};

// Every GPU NVML sees, through the library at `path`.
[[nodiscard]] inline expected<std::vector<nvml_device>> nvml_devices(const std::string& path = nvml_default_library()) {
  auto lib = nvml_library::open(path);
  if (!lib) return unexpected<error>(std::move(lib.error()));
  return lib->devices();
}

}  // namespace gpurent::probe
