// SPDX-License-Identifier: MIT
#pragma once
// From what the probe read to catalog terms: the catalog model of a GPU (by PCI device id
// first, then by name and memory), its MIG geometry, and its live MIG layout as a spec
// `mig_layout` (validated), which the matcher takes as the GPU's existing instances. Pure
// functions of the readings: no CUDA, no NVML, so tests feed them synthetic readings.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/probe/types.hpp>
#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/gpu.hpp>
#include <gpurent/spec/mig.hpp>

namespace gpurent::probe {

enum class match_method : std::uint8_t {
  none,             // no catalog model fits
  pci_device_id,    // the PCI vendor/device id is one the model ships under
  name_and_memory,  // a model name or alias, with memory within name_match_tolerance_ppm
};

}  // namespace gpurent::probe

namespace gpurent {
template <>
struct enum_names<gpurent::probe::match_method> {
  static constexpr enum_entry<probe::match_method> entries[] = {{probe::match_method::none, "none"},
                                                                {probe::match_method::pci_device_id, "pci_device_id"},
                                                                {probe::match_method::name_and_memory, "name_and_memory"}};
};
}  // namespace gpurent

namespace gpurent::probe {

// A name match must also agree on memory within this (5%): drivers report a little less
// than the datasheet's "N GB" (an H200 reports 143 771 MiB of 141 GiB, -0.4%), while
// variants under one name differ by far more (A100 40 vs 80 GB).
inline constexpr std::int64_t name_match_tolerance_ppm = 50'000;

// One GPU in catalog terms.
struct gpu_mapping {
  const gpu_model* model = nullptr;
  match_method matched_by = match_method::none;
  const mig_geometry* geometry = nullptr;            // null: the model has no MIG (or no model)
  std::optional<std::int64_t> memory_deviation_ppm;  // (reported - catalog) / catalog, in ppm
  std::optional<mig_layout> layout;                  // the live MIG layout, when MIG is enabled and it was read
  std::optional<error> layout_error;                 // why there is no layout although MIG is enabled
  std::vector<std::string> notes;                    // disagreements with the catalog, pending changes

  // Whether the reported memory is within `ppm` of the catalog's (false when either is unknown).
  [[nodiscard]] bool memory_within(std::int64_t ppm) const noexcept {
    return memory_deviation_ppm && *memory_deviation_ppm <= ppm && *memory_deviation_ppm >= -ppm;
  }
};

namespace detail {

// "NVIDIA H100 80GB HBM3 MIG 3g.40gb" -> "NVIDIA H100 80GB HBM3": a MIG instance's parent.
[[nodiscard]] constexpr std::string_view parent_name(std::string_view name) noexcept {
  const auto at = name.find(" MIG ");
  return at == std::string_view::npos ? name : name.substr(0, at);
}

// "NVIDIA H200" -> "H200"
[[nodiscard]] constexpr std::string_view without_vendor(std::string_view name) noexcept {
  for (std::string_view v : {std::string_view("NVIDIA "), std::string_view("Tesla "), std::string_view("AMD ")})
    if (name.substr(0, v.size()) == v) name.remove_prefix(v.size());
  return name;
}

[[nodiscard]] constexpr std::optional<std::int64_t> deviation_ppm(bytes reported, const gpu_model& m) noexcept {
  if (!m.vram || m.vram->value.count() <= 0 || reported.count() <= 0) return std::nullopt;
  const std::int64_t cat = m.vram->value.count();
  return (reported.count() - cat) * 1'000'000 / cat;  // < 2^63 for any memory below 9 TB
}

[[nodiscard]] constexpr std::int64_t abs64(std::int64_t v) noexcept { return v < 0 ? -v : v; }

}  // namespace detail

// The model a reading is, among `models`: the one shipping under its PCI id; else the one
// whose name or alias is the device's name (with or without "NVIDIA "), memory within 5%,
// the closest in memory when several are. Null and `none` when nothing fits.
[[nodiscard]] constexpr std::pair<const gpu_model*, match_method> find_catalog_model(const device_reading& r,
                                                                                     std::span<const gpu_model> models) noexcept {
  if (r.pci_id && r.pci_id->vendor_id != 0)
    for (const gpu_model& m : models)
      if (m.has_pci_device(r.pci_id->vendor_id, r.pci_id->device_id)) return {&m, match_method::pci_device_id};
  const std::string_view full = detail::parent_name(r.name);
  const std::string_view bare = detail::without_vendor(full);
  const gpu_model* best = nullptr;
  std::int64_t best_dev = 0;
  for (const gpu_model& m : models) {
    if (full.empty() || (!m.named(full) && !m.named(bare))) continue;
    // A CUDA-only view of a MIG instance has the slice's memory, not the GPU's: name alone.
    const auto dev = r.cuda_mig_instance && !r.pci_id ? std::optional<std::int64_t>(0) : detail::deviation_ppm(r.total_memory, m);
    if (!dev || detail::abs64(*dev) > name_match_tolerance_ppm) continue;
    if (best == nullptr || detail::abs64(*dev) < best_dev) {
      best = &m;
      best_dev = detail::abs64(*dev);
    }
  }
  if (best != nullptr) return {best, match_method::name_and_memory};
  return {nullptr, match_method::none};
}

// The live MIG layout from NVML's GPU instances: each instance's profile id names a profile
// of the geometry (mig_profile::id), its placement size must be that profile's memory
// slices, and the whole must be a valid layout (mig_check). Errors name the instance.
[[nodiscard]] inline expected<mig_layout> live_mig_layout(const mig_geometry& g, std::span<const nvml_gpu_instance> instances) {
  mig_layout l;
  for (const nvml_gpu_instance& x : instances) {
    const std::string who =
        "GPU instance " + std::to_string(x.id) + " (profile id " + std::to_string(x.profile_id) + " at " + std::to_string(x.start) + ")";
    std::optional<mig_profile_index> p;
    for (std::size_t i = 0; i < g.profiles.size(); ++i)
      if (g.profiles[i].id == x.profile_id) p = static_cast<mig_profile_index>(i);
    if (!p) return make_error(error_code::unknown_name, "gpu_instances", who + ": no such profile in the " + std::string(g.model) + " MIG geometry");
    const mig_profile& prof = g.profiles[*p];
    if (x.start >= static_cast<std::uint32_t>(g.memory_slices))
      return make_error(error_code::invalid_argument, "gpu_instances",
                        who + ": start beyond the " + std::to_string(g.memory_slices) + " memory slices");
    if (x.size != prof.memory_slices)
      return make_error(
          error_code::invalid_argument, "gpu_instances",
          who + ": occupies " + std::to_string(x.size) + " memory slices, " + std::string(prof.name) + " has " + std::to_string(prof.memory_slices));
    if (!l.add(mig_instance{*p, static_cast<std::uint8_t>(x.start)}))
      return make_error(error_code::invalid_argument, "gpu_instances", "more GPU instances than memory slices");
  }
  if (auto ok = mig_check(g, l); !ok) return unexpected<error>(ok.error().in_field("gpu_instances"));
  return l;
}

// A reading in catalog terms (see gpu_mapping). The models default to the built-in catalog;
// pass a loaded catalog's models() to map onto it (MIG geometries are the built-in ones).
[[nodiscard]] inline gpu_mapping map_device(const device_reading& r, std::span<const gpu_model> models = builtin_catalog()) {
  gpu_mapping out;
  const auto [model, how] = find_catalog_model(r, models);
  out.model = model;
  out.matched_by = how;
  if (model == nullptr) {
    out.notes.push_back("no catalog model for \"" + r.name + "\"" + (r.pci_id ? " (PCI id " + to_string(*r.pci_id) + ")" : ""));
    if (r.mig_current == mig_mode::enabled)
      out.layout_error = error{error_code::unsupported, "gpu_instances", "MIG is enabled, but the GPU is not in the catalog", {}};
    return out;
  }
  if (!r.cuda_mig_instance || r.pci_id) out.memory_deviation_ppm = detail::deviation_ppm(r.total_memory, *model);
  if (out.memory_deviation_ppm && detail::abs64(*out.memory_deviation_ppm) > name_match_tolerance_ppm)
    out.notes.push_back("memory differs from the catalog's by " + std::to_string(*out.memory_deviation_ppm / 10'000) + "%");
  if (r.sm_count && model->sm_count && !r.cuda_mig_instance && *r.sm_count != model->sm_count->value)
    out.notes.push_back(std::to_string(*r.sm_count) + " SMs, the catalog says " + std::to_string(model->sm_count->value));
  if (r.cuda_mig_instance) out.notes.push_back("CUDA sees one MIG instance of this GPU: its SMs and bandwidth are the instance's");
  out.geometry = find_mig_geometry(model->name);
  if (r.mig_pending != mig_mode::unknown && r.mig_pending != r.mig_current)
    out.notes.push_back("MIG mode changes to " + std::string(to_string(r.mig_pending)) + " at the next GPU reset");
  if (r.mig_current == mig_mode::enabled) {
    if (out.geometry == nullptr) {
      out.layout_error =
          error{error_code::unsupported, "gpu_instances", "MIG is enabled, but the catalog has no MIG geometry for " + std::string(model->name), {}};
    } else if (!r.gpu_instances_error.empty()) {
      out.layout_error = error{error_code::unsupported, "gpu_instances", r.gpu_instances_error, {}};
    } else if (auto l = live_mig_layout(*out.geometry, r.gpu_instances)) {
      out.layout = *l;
    } else {
      out.layout_error = std::move(l.error());
    }
  }
  return out;
}

// One GPU of the machine: what CUDA and NVML said (either may be missing), merged, mapped.
struct probed_gpu {
  std::optional<cuda_device> cuda;
  std::optional<nvml_device> nvml;
  device_reading reading;
  gpu_mapping mapping;
};

// Joins the CUDA and NVML views by PCI address, one entry per physical GPU: NVML's GPUs in
// NVML order, each with the first CUDA device at its address (several when CUDA sees MIG
// instances; a whole-GPU device is preferred), then the CUDA devices NVML did not see.
[[nodiscard]] inline std::vector<probed_gpu> join_devices(std::span<const cuda_device> cuda, std::span<const nvml_device> nvml,
                                                          std::span<const gpu_model> models = builtin_catalog()) {
  std::vector<probed_gpu> out;
  std::vector<bool> used(cuda.size(), false);
  const auto take = [&](probed_gpu& g, const pci_address& at) {
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < cuda.size(); ++i) {
      if (cuda[i].pci != at) continue;
      used[i] = true;
      if (!pick || (cuda[*pick].mig_instance && !cuda[i].mig_instance)) pick = i;
    }
    if (pick) g.cuda = cuda[*pick];
  };
  for (const nvml_device& n : nvml) {
    probed_gpu g;
    g.nvml = n;
    take(g, n.pci);
    out.push_back(std::move(g));
  }
  for (std::size_t i = 0; i < cuda.size(); ++i) {
    if (used[i]) continue;
    probed_gpu g;
    take(g, cuda[i].pci);
    out.push_back(std::move(g));
  }
  for (probed_gpu& g : out) {
    g.reading = merge_reading(g.cuda ? &*g.cuda : nullptr, g.nvml ? &*g.nvml : nullptr);
    g.mapping = map_device(g.reading, models);
  }
  return out;
}

}  // namespace gpurent::probe
