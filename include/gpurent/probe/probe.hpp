// SPDX-License-Identifier: MIT
#pragma once
// The probe layer (optional, target gpurent::probe): what this machine's GPUs are, in catalog
// terms. probe_machine() reads the CUDA runtime and NVML, joins their views by PCI address
// and maps each GPU onto the catalog (model, MIG geometry, live MIG layout). See docs/probe.md.

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/probe/cuda.hpp>
#include <gpurent/probe/mapping.hpp>
#include <gpurent/probe/nvml.hpp>
#include <gpurent/probe/types.hpp>
#include <gpurent/spec/catalog.hpp>

namespace gpurent::probe {

// What probe_machine found. Either source may have failed while the other saw GPUs; its
// error says why (CUDA without a driver, NVML without libnvidia-ml).
struct machine_probe {
  cuda_versions cuda_version{};
  std::vector<probed_gpu> gpus;
  std::optional<error> cuda_error;
  std::optional<error> nvml_error;
};

struct probe_options {
  std::string nvml_library = nvml_default_library();
  std::span<const gpu_model> models = builtin_catalog();
};

// Reads this machine's GPUs. An error (not_found) when neither CUDA nor NVML sees a GPU,
// saying why for both: no driver, no device, no NVML.
[[nodiscard]] inline expected<machine_probe> probe_machine(const probe_options& o = {}) {
  machine_probe m;
  m.cuda_version = cuda_version();
  std::vector<cuda_device> cuda;
  if (auto c = cuda_devices())
    cuda = std::move(*c);
  else
    m.cuda_error = std::move(c.error());
  std::vector<nvml_device> nvml;
  if (auto n = nvml_devices(o.nvml_library))
    nvml = std::move(*n);
  else
    m.nvml_error = std::move(n.error());
  if (cuda.empty() && nvml.empty()) {
    const std::string cuda_why = m.cuda_error ? m.cuda_error->message : std::string("no CUDA device");
    const std::string nvml_why = m.nvml_error ? m.nvml_error->message : std::string("no GPU");
    return make_error(error_code::not_found, "gpu", "no GPU: " + cuda_why + "; NVML: " + nvml_why);
  }
  m.gpus = join_devices(cuda, nvml, o.models);
  return m;
}

}  // namespace gpurent::probe
