// SPDX-License-Identifier: MIT
// gpurent catalog: the built-in GPU models, their specs and where every number comes from.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/io/catalog_json.hpp>
#include <gpurent/spec/format.hpp>
#include <gpurent/spec/spec.hpp>

#include "tool.hpp"

namespace {
using namespace gpurent;

// How many MIG GPU-instance profiles the model has (0 without MIG).
std::size_t mig_profile_count(const gpu_model& m) {
  const mig_geometry* g = find_mig_geometry(m.name);
  return g != nullptr ? g->profiles.size() : 0;
}

nlohmann::json catalog_json() {
  nlohmann::json j = catalog_to_json(builtin_catalog(), builtin_sources());
  auto& models = j["models"];
  for (std::size_t i = 0; i < builtin_catalog().size(); ++i) models[i]["mig_profiles"] = mig_profile_count(builtin_catalog()[i]);
  return j;
}

// The table cell of one number: "989.4 [4]", the bracket naming the source's row in the
// legend; "-" when unknown.
class table_writer {
 public:
  template <class T, class F>
  std::string cell(const std::optional<sourced<T>>& v, F&& show) {
    if (!v) return "-";
    return show(v->value) + " [" + std::to_string(source_number(v->source)) + "]";
  }

  std::size_t source_number(std::string_view id) {
    for (std::size_t i = 0; i < builtin_sources().size(); ++i)
      if (builtin_sources()[i].id == id) return i + 1;
    return 0;
  }

  int print() {
    auto tf = [this](const std::optional<sourced<gflops>>& v) { return cell(v, [](gflops g) { return tflops_string(g); }); };
    auto integer = [this](const std::optional<sourced<std::int32_t>>& v) { return cell(v, [](std::int32_t n) { return std::to_string(n); }); };
    fmt::print("{:<16} {:<7} {:<12} {:<15} {:<9} {:<9} {:<10} {:<10} {:<12} {:<13} {:<13} {:<12} {:<9} {:<10} {:<13} {}\n", "model", "vendor", "arch",
               "pci", "cc", "VRAM", "SMs/CUs", "FP64", "FP32", "TF32", "FP16/BF16", "FP8", "mem GB/s", "TDP W", "NVLink", "MIG");
    fmt::print("{:<16} {:<7} {:<12} {:<15} {:<9} {:<9} {:<10} {:<10} {:<12} {:<13} {:<13} {:<12} {:<9} {:<10} {:<13} {}\n", "", "", "", "", "", "GiB",
               "", "TFLOPS", "TFLOPS", "TFLOPS", "TFLOPS", "TFLOPS", "", "", "gen GB/s", "profiles");
    for (const gpu_model& m : builtin_catalog()) {
      const std::size_t mig = mig_profile_count(m);
      fmt::print("{:<16} {:<7} {:<12} {:<15} {:<9} {:<9} {:<10} {:<10} {:<12} {:<13} {:<13} {:<12} {:<9} {:<10} {:<13} {}\n", m.name,
                 to_string(m.vendor), m.architecture.empty() ? "-" : m.architecture, cell(m.pci, [](const pci_identity& p) { return to_string(p); }),
                 cell(m.capability, [](compute_capability c) { return fmt::format("{}", c); }),
                 cell(m.vram, [](bytes b) { return std::to_string(to_mib(b) / 1024); }), integer(m.sm_count), tf(m.throughput.fp64),
                 tf(m.throughput.fp32), tf(m.throughput.tf32), tf(m.throughput.fp16), tf(m.throughput.fp8),
                 cell(m.memory_bandwidth, [](mb_per_s b) { return std::to_string(b.count() / 1000); }), integer(m.tdp_watts),
                 cell(m.nvlink, [](const nvlink_spec& n) { return std::to_string(n.generation) + " " + std::to_string(n.bandwidth.count() / 1000); }),
                 m.mig_capable ? (mig > 0 ? std::to_string(mig) : std::string("yes")) : std::string("-"));
    }
    fmt::print("\nnotes:\n");
    for (const gpu_model& m : builtin_catalog())
      if (!m.notes.empty()) fmt::print("  {:<16} {}\n", m.name, m.notes);
    fmt::print("\nsources ([n] above):\n");
    for (std::size_t i = 0; i < builtin_sources().size(); ++i) fmt::print("  [{}] {}\n", i + 1, builtin_sources()[i]);
    return tool::exit_ok;
  }
};

tool::runner setup_catalog(CLI::App& app) {
  struct options {
    tool::output_format format{};
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("catalog", "the built-in GPU models, their specs and where each number comes from");
  tool::add_format_option(*cmd, o->format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});
  return [o] {
    if (o->format == tool::output_format::json) {
      fmt::print("{}\n", catalog_json().dump(2));
      return tool::exit_ok;
    }
    return table_writer{}.print();
  };
}
GPURENT_TOOL_COMMAND("catalog", &setup_catalog);
}  // namespace
