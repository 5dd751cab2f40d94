// SPDX-License-Identifier: MIT
// gpurent probe: this machine's GPUs (CUDA runtime + NVML loaded at run time), mapped onto
// the catalog with their live MIG layout. Exit 3 with a one-line reason and nothing on
// stdout when there is no GPU, no driver, or the tool was built without the probe.
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tool.hpp"

#if defined(GPURENT_HAS_PROBE)
#include <gpurent/probe/format.hpp>
#include <gpurent/probe/probe.hpp>
#endif

namespace {
using namespace gpurent;

#if defined(GPURENT_HAS_PROBE)
nlohmann::json optional_error(const std::optional<error>& e) {
  return e ? nlohmann::json(e->message) : nlohmann::json(nullptr);
}

nlohmann::json gpu_json(const probe::probed_gpu& g) {
  const probe::device_reading& r = g.reading;
  const probe::gpu_mapping& m = g.mapping;
  using nlohmann::json;
  json j;
  j["pci_address"] = r.pci ? json(probe::to_string(*r.pci)) : json(nullptr);
  j["pci_id"] = r.pci_id ? json(probe::to_string(*r.pci_id)) : json(nullptr);
  j["name"] = r.name;
  j["cuda_ordinal"] = g.cuda ? json(g.cuda->ordinal) : json(nullptr);
  j["nvml_index"] = g.nvml ? json(g.nvml->index) : json(nullptr);
  j["memory_mib"] = to_mib(r.total_memory);
  j["sm_count"] = r.sm_count ? json(*r.sm_count) : json(nullptr);
  j["compute_capability"] = r.capability ? json(std::to_string(r.capability->major) + "." + std::to_string(r.capability->minor)) : json(nullptr);
  j["memory_clock_khz"] = g.cuda && g.cuda->memory_clock_khz > 0 ? json(g.cuda->memory_clock_khz) : json(nullptr);
  j["memory_bus_width_bits"] = g.cuda && g.cuda->memory_bus_width_bits > 0 ? json(g.cuda->memory_bus_width_bits) : json(nullptr);
  j["memory_bandwidth_mb_s"] = r.memory_bandwidth ? json(r.memory_bandwidth->count()) : json(nullptr);
  j["cuda_mig_instance"] = r.cuda_mig_instance;
  j["nvlink"] = r.nvlink ? json{{"links", r.nvlink->links}, {"active", r.nvlink->active}} : json(nullptr);
  json mig;
  mig["mode"] = std::string(probe::to_string(r.mig_current));
  mig["pending"] = std::string(probe::to_string(r.mig_pending));
  json instances = json::array();
  for (const probe::nvml_gpu_instance& x : r.gpu_instances) {
    json i{{"id", x.id}, {"profile_id", x.profile_id}, {"profile", nullptr}, {"start", x.start}, {"size", x.size}};
    if (m.geometry != nullptr)
      for (const mig_profile& p : m.geometry->profiles)
        if (p.id == x.profile_id) i["profile"] = std::string(p.name);
    instances.push_back(i);
  }
  mig["instances"] = instances;
  json layout = nullptr;
  if (m.layout && m.geometry != nullptr) {
    layout = json::array();
    for (const mig_instance& x : *m.layout) layout.push_back(mig_name(*m.geometry, x));
  }
  mig["layout"] = layout;
  mig["layout_error"] = optional_error(m.layout_error);
  mig["geometry"] = m.geometry != nullptr ? json(std::string(m.geometry->model)) : json(nullptr);
  j["mig"] = mig;
  j["model"] = m.model != nullptr ? json(std::string(m.model->name)) : json(nullptr);
  j["matched_by"] = std::string(probe::to_string(m.matched_by));
  j["memory_deviation_ppm"] = m.memory_deviation_ppm ? json(*m.memory_deviation_ppm) : json(nullptr);
  if (m.model != nullptr) {
    const gpu_model& c = *m.model;
    j["catalog"] = {{"vram_mib", c.vram ? json(to_mib(c.vram->value)) : json(nullptr)},
                    {"sm_count", c.sm_count ? json(c.sm_count->value) : json(nullptr)},
                    {"memory_bandwidth_mb_s", c.memory_bandwidth ? json(c.memory_bandwidth->value.count()) : json(nullptr)}};
  } else {
    j["catalog"] = nullptr;
  }
  j["notes"] = m.notes;
  return j;
}
#endif

tool::runner setup_probe(CLI::App& app) {
  auto format = std::make_shared<tool::output_format>();
  auto* cmd = app.add_subcommand("probe", "this machine's GPUs (CUDA runtime, NVML) mapped onto the catalog, with live MIG layouts");
  tool::add_format_option(*cmd, *format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});
  return [format] {
#if defined(GPURENT_HAS_PROBE)
    const auto m = probe::probe_machine();
    if (!m) {
      fmt::print(stderr, "gpurent: {}\n", m.error().message);
      return tool::exit_not_here;
    }
    if (*format == tool::output_format::json) {
      nlohmann::json j;
      j["cuda"] = {{"runtime", probe::cuda_version_string(m->cuda_version.runtime)},
                   {"driver", m->cuda_version.driver != 0 ? nlohmann::json(probe::cuda_version_string(m->cuda_version.driver)) : nlohmann::json(nullptr)},
                   {"error", optional_error(m->cuda_error)}};
      j["nvml"] = {{"library", probe::nvml_default_library()}, {"error", optional_error(m->nvml_error)}};
      j["gpus"] = nlohmann::json::array();
      for (const probe::probed_gpu& g : m->gpus) j["gpus"].push_back(gpu_json(g));
      fmt::print("{}\n", j.dump(2));
    } else {
      for (const probe::probed_gpu& g : m->gpus) fmt::print("{}\n", g);
      if (m->cuda_error) fmt::print("CUDA: {}\n", m->cuda_error->message);
      if (m->nvml_error) fmt::print("NVML: {}\n", m->nvml_error->message);
    }
    return tool::exit_ok;
#else
    (void)format;
    fmt::print(stderr, "gpurent: built without CUDA probe support\n");
    return tool::exit_not_here;
#endif
  };
}
GPURENT_TOOL_COMMAND("probe", &setup_probe);
}  // namespace
