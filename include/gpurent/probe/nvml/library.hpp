// SPDX-License-Identifier: MIT
#pragma once
// nvml_library: an opened and initialized NVML, and what it reads of each GPU (name, PCI
// address and id, memory, MIG mode, the existing GPU instances with their placements, NVLink
// state, and the live state of probe/nvml/live_state.hpp). A missing library, a missing
// required symbol or an NVML error is an `expected` error with the reason.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <dlfcn.h>

#include <gpurent/core/error.hpp>
#include <gpurent/probe/nvml/abi.hpp>
#include <gpurent/probe/nvml/calls.hpp>
#include <gpurent/probe/nvml/live_state.hpp>
#include <gpurent/probe/nvml/loader.hpp>
#include <gpurent/probe/types.hpp>

namespace gpurent::probe {

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
    if (const char* lacking = detail::nvml_resolve_required(s->handle, s->fn); lacking != nullptr)
      return make_error(error_code::unsupported, "nvml", path + " has no symbol " + lacking + " (NVML too old?)");
    detail::nvml_resolve_optional(s->handle, s->fn);
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
    d.telemetry = detail::nvml_live_reader(*s_).read(h);
    return d;
  }

  // The live state of the GPU at NVML index `index`; readings NVML cannot give say why.
  [[nodiscard]] expected<gpu_telemetry> telemetry(std::uint32_t index) const {
    nvml_abi::nvmlDevice_t h = nullptr;
    if (const auto r = s_->fn.handle(index, &h); r != nvml_abi::NVML_SUCCESS)
      return unexpected<error>(failure(r, "device " + std::to_string(index) + ": nvmlDeviceGetHandleByIndex_v2"));
    return detail::nvml_live_reader(*s_).read(h);
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
  [[nodiscard]] std::string error_text(nvml_abi::nvmlReturn_t r) const { return detail::nvml_calls(*s_).error_text(r); }

 private:
  explicit nvml_library(std::unique_ptr<detail::nvml_state> s) : s_(std::move(s)) {}

  [[nodiscard]] error failure(nvml_abi::nvmlReturn_t r, const std::string& call) const { return detail::nvml_calls(*s_).failure(r, call); }

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
