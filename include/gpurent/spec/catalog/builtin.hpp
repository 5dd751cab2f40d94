// SPDX-License-Identifier: MIT
#pragma once
// The built-in GPU catalog as constexpr data: the vendor tables (spec/catalog/<vendor>.hpp)
// in one span, NVIDIA first, then AMD, then the undisclosed types, and the documents their
// numbers come from; finding a model by name, alias or PCI id.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <gpurent/spec/catalog/amd.hpp>
#include <gpurent/spec/catalog/nvidia.hpp>
#include <gpurent/spec/catalog/sources.hpp>
#include <gpurent/spec/catalog/undisclosed.hpp>
#include <gpurent/spec/gpu.hpp>

namespace gpurent {

namespace detail::builtin {

// The tables one after another, in the order given.
template <std::size_t... N>
[[nodiscard]] constexpr std::array<gpu_model, (N + ...)> join(const std::array<gpu_model, N>&... tables) {
  std::array<gpu_model, (N + ...)> out{};
  auto at = out.begin();
  ((at = std::copy(tables.begin(), tables.end(), at)), ...);
  return out;
}

inline constexpr std::array models = join(nvidia_models, amd_models, undisclosed_models);

}  // namespace detail::builtin

// The built-in models and the documents their numbers come from (constexpr data).
[[nodiscard]] constexpr std::span<const gpu_model> builtin_catalog() noexcept { return detail::builtin::models; }
[[nodiscard]] constexpr std::span<const source_document> builtin_sources() noexcept { return detail::builtin::sources; }

// The built-in model a name or alias names (case and '-', '_', ' ' ignored), or null.
[[nodiscard]] constexpr const gpu_model* find_model(std::string_view name_or_alias) noexcept {
  for (const gpu_model& m : detail::builtin::models)
    if (m.named(name_or_alias)) return &m;
  return nullptr;
}

// The built-in model that ships under a PCI vendor/device id, or null.
[[nodiscard]] constexpr const gpu_model* find_model_by_pci(std::uint16_t vendor_id, std::uint16_t device_id) noexcept {
  for (const gpu_model& m : detail::builtin::models)
    if (m.has_pci_device(vendor_id, device_id)) return &m;
  return nullptr;
}

}  // namespace gpurent
