// SPDX-License-Identifier: MIT
#pragma once
// The CUDA runtime's view of this machine's GPUs: name, memory, SMs, compute capability,
// memory clock and bus width (hence bandwidth), PCI address and id, whether a device is a
// MIG instance. Host API only, no kernels: any C++ compiler builds it against the toolkit's
// headers, linked with CUDA::cudart. No driver, no device, a driver older than the runtime:
// each is an error with the reason, never a crash.

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include <gpurent/core/error.hpp>
#include <gpurent/probe/types.hpp>

namespace gpurent::probe {

// The runtime this binary was linked with and the driver's CUDA version (1000 * major +
// 10 * minor; 13000 is 13.0); driver 0 when no driver is loaded.
struct cuda_versions {
  int runtime = 0;
  int driver = 0;
  friend constexpr bool operator==(const cuda_versions&, const cuda_versions&) = default;
};

[[nodiscard]] inline cuda_versions cuda_version() noexcept {
  cuda_versions v;
  if (cudaRuntimeGetVersion(&v.runtime) != cudaSuccess) v.runtime = 0;
  if (cudaDriverGetVersion(&v.driver) != cudaSuccess) v.driver = 0;
  return v;
}

// "13.0"
[[nodiscard]] inline std::string cuda_version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

namespace detail {

[[nodiscard]] inline std::string cuda_error_text(cudaError_t e) {
  const char* name = cudaGetErrorName(e);
  const char* text = cudaGetErrorString(e);
  return std::string(name != nullptr ? name : "cudaError") + ": " + (text != nullptr ? text : "unknown error");
}

// Why cudaGetDeviceCount failed, for a person. No GPU here is `not_found` (the tool's exit 3).
[[nodiscard]] inline error cuda_count_error(cudaError_t e, cuda_versions v) {
  std::string why;
  if (e == cudaErrorInsufficientDriver && v.driver == 0) {
    why = "no NVIDIA driver: libcuda.so.1 could not be loaded (" + cuda_error_text(e) + ")";
  } else if (e == cudaErrorInsufficientDriver) {
    why = "the NVIDIA driver supports CUDA " + cuda_version_string(v.driver) + ", older than this binary's runtime " +
          cuda_version_string(v.runtime) + " (" + cuda_error_text(e) + ")";
  } else if (e == cudaErrorNoDevice) {
    why = "no CUDA-capable device (" + cuda_error_text(e) + ")";
  } else {
    why = "cudaGetDeviceCount failed (" + cuda_error_text(e) + ")";
  }
  return error{error_code::not_found, "cuda", why, {}};
}

[[nodiscard]] inline expected<int> cuda_attribute(cudaDeviceAttr a, int ordinal, std::string_view what) {
  int v = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&v, a, ordinal);
  if (e != cudaSuccess)
    return make_error(error_code::io_error, "cuda", "device " + std::to_string(ordinal) + ": " + std::string(what) + ": " + cuda_error_text(e));
  return v;
}

[[nodiscard]] inline std::uint32_t as_u32(int v) noexcept { return v < 0 ? 0U : static_cast<std::uint32_t>(v); }

}  // namespace detail

// One device by its CUDA ordinal. Reads attributes (cudaDeviceGetAttribute) rather than
// cudaDeviceProp fields where both exist: CUDA 13 removed memoryClockRate and others from
// the struct, the attributes remain.
[[nodiscard]] inline expected<cuda_device> cuda_device_at(int ordinal) {
  cudaDeviceProp p{};
  if (const cudaError_t e = cudaGetDeviceProperties(&p, ordinal); e != cudaSuccess)
    return make_error(error_code::io_error, "cuda", "device " + std::to_string(ordinal) + ": " + detail::cuda_error_text(e));
  cuda_device d;
  d.ordinal = ordinal;
  d.name = std::string(std::begin(p.name), std::find(std::begin(p.name), std::end(p.name), '\0'));
  d.total_memory = bytes(static_cast<std::int64_t>(p.totalGlobalMem));
  struct attr {
    cudaDeviceAttr a;
    std::string_view what;
    int* out;
  };
  int sms = 0, major = 0, minor = 0, clock = 0, width = 0, domain = 0, bus = 0, dev = 0;
  for (const attr& x :
       {attr{cudaDevAttrMultiProcessorCount, "SM count", &sms}, attr{cudaDevAttrComputeCapabilityMajor, "compute capability", &major},
        attr{cudaDevAttrComputeCapabilityMinor, "compute capability", &minor}, attr{cudaDevAttrMemoryClockRate, "memory clock", &clock},
        attr{cudaDevAttrGlobalMemoryBusWidth, "memory bus width", &width}, attr{cudaDevAttrPciDomainId, "PCI domain", &domain},
        attr{cudaDevAttrPciBusId, "PCI bus", &bus}, attr{cudaDevAttrPciDeviceId, "PCI device", &dev}}) {
    auto v = detail::cuda_attribute(x.a, ordinal, x.what);
    if (!v) return unexpected<error>(std::move(v.error()));
    *x.out = *v;
  }
  d.sm_count = sms;
  d.capability = compute_capability{major, minor};
  d.memory_clock_khz = clock;
  d.memory_bus_width_bits = width;
  d.pci = pci_address{detail::as_u32(domain), detail::as_u32(bus), detail::as_u32(dev)};
#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000
  // The PCI vendor/device id, where the driver knows this attribute; otherwise the id comes
  // from NVML alone.
  int combined = 0;
  if (cudaDeviceGetAttribute(&combined, cudaDevAttrGpuPciDeviceId, ordinal) == cudaSuccess && combined != 0)
    d.pci_id = split_pci_id(static_cast<std::uint32_t>(combined));
  else
    (void)cudaGetLastError();  // a failed query leaves its error as the last one: clear it
#endif
  d.mig_instance = is_mig_device_name(d.name);
  return d;
}

// Every CUDA device of this machine, in ordinal order; an error (not_found) with the reason
// when there is no driver or no device.
[[nodiscard]] inline expected<std::vector<cuda_device>> cuda_devices() {
  int n = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&n); e != cudaSuccess) {
    (void)cudaGetLastError();
    return unexpected<error>(detail::cuda_count_error(e, cuda_version()));
  }
  if (n <= 0) return make_error(error_code::not_found, "cuda", "no CUDA-capable device");
  std::vector<cuda_device> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    auto d = cuda_device_at(i);
    if (!d) return unexpected<error>(std::move(d.error()));
    out.push_back(std::move(*d));
  }
  return out;
}

}  // namespace gpurent::probe
