// SPDX-License-Identifier: MIT
#pragma once
// The built-in catalog's AMD GPUs: a source for every number, under the conventions
// spec/catalog/sources.hpp states.

#include <array>
#include <optional>

#include <gpurent/spec/catalog/sources.hpp>
#include <gpurent/spec/gpu.hpp>

namespace gpurent::detail::builtin {

inline constexpr std::array amd_models{
    gpu_model{.name = "MI300X",
              .aliases = {"Instinct MI300X", "AMD Instinct MI300X"},
              .vendor = gpu_vendor::amd,
              .architecture = "CDNA 3",
              .form = form_factor::oam,
              .capability = std::nullopt,
              .pci = sourced<pci_identity>{pci_identity{pci_vendor_amd, {0x74a1}}, pci_ids},
              .vram = mem_gib(192, mi300x_ds),
              .sm_count = num(304, mi300x_ds),
              .throughput = {gf(81'700, mi300x_ds), gf(163'400, mi300x_ds), gf(163'400, mi300x_ds), gf(653'700, mi300x_ds), gf(1'307'400, mi300x_ds),
                             gf(2'614'900, mi300x_ds)},
              .memory_bandwidth = gbs(5'300, mi300x_ds),
              .tdp_watts = num(750, mi300x_ds),
              .pcie_generation = num(5, mi300x_ds),
              .nvlink = std::nullopt,
              .mig_capable = false,
              .notes = "sm_count is 304 compute units; GPU-to-GPU is AMD Infinity Fabric (not NVLink); no CUDA capability"},
};

}  // namespace gpurent::detail::builtin
