// SPDX-License-Identifier: MIT
#pragma once
// `gpurent catalog` as the tool prints it: the catalog JSON with each model's count of MIG
// profiles, and the table whose every number names its source's row in the legend.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/io/spec/catalog_json.hpp>
#include <gpurent/spec/format.hpp>
#include <gpurent/spec/spec.hpp>

namespace gpurent::io {

// How many MIG GPU-instance profiles the model has (0 without MIG).
[[nodiscard]] inline std::size_t mig_profile_count(const gpu_model& m) {
  const mig_geometry* g = find_mig_geometry(m.name);
  return g != nullptr ? g->profiles.size() : 0;
}

// catalog_to_json with "mig_profiles" on each model.
[[nodiscard]] inline nlohmann::json catalog_listing_json(std::span<const gpu_model> models, std::span<const source_document> sources) {
  nlohmann::json j = catalog_to_json(models, sources);
  auto& out = j["models"];
  for (std::size_t i = 0; i < models.size(); ++i) out[i]["mig_profiles"] = mig_profile_count(models[i]);
  return j;
}

namespace detail::catalog_table {
constexpr std::string_view row = "{:<16} {:<7} {:<12} {:<15} {:<9} {:<9} {:<10} {:<10} {:<12} {:<13} {:<13} {:<12} {:<9} {:<10} {:<13} {}\n";

// The table cell of one number: "989.4 [4]", the bracket naming the source's row in the
// legend; "-" when unknown.
struct cells {
  std::span<const source_document> sources;
  [[nodiscard]] std::size_t source_number(std::string_view id) const {
    for (std::size_t i = 0; i < sources.size(); ++i)
      if (sources[i].id == id) return i + 1;
    return 0;
  }
  template <class T, class F>
  [[nodiscard]] std::string cell(const std::optional<sourced<T>>& v, F&& show) const {
    if (!v) return "-";
    return show(v->value) + " [" + std::to_string(source_number(v->source)) + "]";
  }
  [[nodiscard]] std::string tf(const std::optional<sourced<gflops>>& v) const {
    return cell(v, [](gflops g) { return tflops_string(g); });
  }
  [[nodiscard]] std::string integer(const std::optional<sourced<std::int32_t>>& v) const {
    return cell(v, [](std::int32_t n) { return std::to_string(n); });
  }
};

inline std::string model_row(const cells& c, const gpu_model& m) {
  const std::size_t mig = mig_profile_count(m);
  return fmt::format(
      fmt::runtime(row), m.name, to_string(m.vendor), m.architecture.empty() ? "-" : m.architecture,
      c.cell(m.pci, [](const pci_identity& p) { return to_string(p); }),
      c.cell(m.capability, [](compute_capability x) { return fmt::format("{}", x); }),
      c.cell(m.vram, [](bytes b) { return std::to_string(to_mib(b) / 1024); }), c.integer(m.sm_count), c.tf(m.throughput.fp64),
      c.tf(m.throughput.fp32), c.tf(m.throughput.tf32), c.tf(m.throughput.fp16), c.tf(m.throughput.fp8),
      c.cell(m.memory_bandwidth, [](mb_per_s b) { return std::to_string(b.count() / 1000); }), c.integer(m.tdp_watts),
      c.cell(m.nvlink, [](const nvlink_spec& n) { return std::to_string(n.generation) + " " + std::to_string(n.bandwidth.count() / 1000); }),
      m.mig_capable ? (mig > 0 ? std::to_string(mig) : std::string("yes")) : std::string("-"));
}
}  // namespace detail::catalog_table

// One row per model, then the models' notes and the numbered sources.
[[nodiscard]] inline std::string catalog_table(std::span<const gpu_model> models, std::span<const source_document> sources) {
  using detail::catalog_table::row;
  const detail::catalog_table::cells c{sources};
  std::string s = fmt::format(fmt::runtime(row), "model", "vendor", "arch", "pci", "cc", "VRAM", "SMs/CUs", "FP64", "FP32", "TF32", "FP16/BF16",
                              "FP8", "mem GB/s", "TDP W", "NVLink", "MIG");
  s +=
      fmt::format(fmt::runtime(row), "", "", "", "", "", "GiB", "", "TFLOPS", "TFLOPS", "TFLOPS", "TFLOPS", "TFLOPS", "", "", "gen GB/s", "profiles");
  for (const gpu_model& m : models) s += detail::catalog_table::model_row(c, m);
  s += "\nnotes:\n";
  for (const gpu_model& m : models)
    if (!m.notes.empty()) s += fmt::format("  {:<16} {}\n", m.name, m.notes);
  s += "\nsources ([n] above):\n";
  for (std::size_t i = 0; i < sources.size(); ++i) s += fmt::format("  [{}] {}\n", i + 1, sources[i]);
  return s;
}

}  // namespace gpurent::io
