// SPDX-License-Identifier: MIT
#pragma once
// `gpurent probe` results as the tool prints them: each probed GPU (its reading, its catalog
// mapping, its live MIG layout and live state) as JSON, the live state as a table line, and a
// watch's samples as DCGM-named series for a Prometheus query_range answer
// (io/monitor/prometheus_json.hpp). Needs only the probe's types, not CUDA: what a probe read can be
// written anywhere.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/monitor/gpu_metrics.hpp>
#include <gpurent/io/monitor/prometheus_json.hpp>
#include <gpurent/metering/waste.hpp>
#include <gpurent/probe/format.hpp>
#include <gpurent/probe/mapping.hpp>
#include <gpurent/probe/telemetry.hpp>
#include <gpurent/probe/types.hpp>
#include <gpurent/spec/mig.hpp>

namespace gpurent::io {

namespace detail::probe_json {
inline nlohmann::json optional_error(const std::optional<error>& e) { return e ? nlohmann::json(e->message) : nlohmann::json(nullptr); }

// A reading's value as JSON, or null with the reason recorded under `why[name]`.
template <class T, class F>
inline nlohmann::json reading_json(const probe::nvml_reading<T>& r, const char* name, nlohmann::json& why, F&& to_json) {
  if (r) return to_json(*r);
  why[name] = r.error().message;
  return nullptr;
}

inline nlohmann::json ecc_json(const probe::ecc_errors& e) { return {{"corrected", e.corrected}, {"uncorrected", e.uncorrected}}; }
inline nlohmann::json rates_json(const probe::utilization_rates& u) {
  return {{"gpu", percent_json<nlohmann::json>(u.gpu)}, {"memory", percent_json<nlohmann::json>(u.memory)}};
}
inline nlohmann::json memory_json(const probe::memory_use& m) {
  return {{"total_mib", to_mib(m.total)}, {"used_mib", to_mib(m.used)}, {"free_mib", to_mib(m.free)}};
}
inline nlohmann::json id_json(std::uint32_t v) { return v; }
inline nlohmann::json text_json(const std::string& v) { return v; }

inline nlohmann::json mig_devices_json(const std::vector<probe::mig_device_telemetry>& devices) {
  nlohmann::json out = nlohmann::json::array();
  for (const probe::mig_device_telemetry& m : devices) {
    nlohmann::json why = nlohmann::json::object();
    out.push_back({{"index", m.index},
                   {"uuid", reading_json(m.uuid, "uuid", why, text_json)},
                   {"gpu_instance_id", reading_json(m.gpu_instance_id, "gpu_instance_id", why, id_json)},
                   {"compute_instance_id", reading_json(m.compute_instance_id, "compute_instance_id", why, id_json)},
                   {"memory", reading_json(m.memory, "memory", why, memory_json)},
                   {"utilization", reading_json(m.utilization, "utilization", why, rates_json)},
                   {"not_available", why}});
  }
  return out;
}

}  // namespace detail::probe_json

// The live state: each reading, or null and why under "not_available".
[[nodiscard]] inline nlohmann::json probe_telemetry_json(const probe::gpu_telemetry& t) {
  nlohmann::json why = nlohmann::json::object();
  const probe::gpu_health& h = t.health;
  nlohmann::json j{
      {"uuid", detail::probe_json::reading_json(t.uuid, "uuid", why, detail::probe_json::text_json)},
      {"utilization", detail::probe_json::reading_json(t.utilization, "utilization", why, detail::probe_json::rates_json)},
      {"memory", detail::probe_json::reading_json(t.memory, "memory", why, detail::probe_json::memory_json)},
      {"power_w", detail::probe_json::reading_json(t.power, "power_w", why,
                                                   [](probe::milliwatts mw) { return nlohmann::json(static_cast<double>(mw.count()) / 1000.0); })},
      {"temperature_c", detail::probe_json::reading_json(t.temperature_c, "temperature_c", why, [](std::int32_t c) { return nlohmann::json(c); })},
      {"ecc",
       {{"volatile", detail::probe_json::reading_json(h.ecc_volatile, "ecc.volatile", why, detail::probe_json::ecc_json)},
        {"aggregate", detail::probe_json::reading_json(h.ecc_aggregate, "ecc.aggregate", why, detail::probe_json::ecc_json)}}},
      {"retired_pages",
       detail::probe_json::reading_json(h.retired, "retired_pages", why,
                                        [](const probe::retired_pages& r) {
                                          return nlohmann::json{{"multiple_single_bit", r.multiple_single_bit}, {"double_bit", r.double_bit}};
                                        })},
      {"remapped_rows", detail::probe_json::reading_json(h.remapped, "remapped_rows", why,
                                                         [](const probe::remapped_rows& r) {
                                                           return nlohmann::json{{"correctable", r.correctable},
                                                                                 {"uncorrectable", r.uncorrectable},
                                                                                 {"pending", r.pending},
                                                                                 {"failed", r.failed}};
                                                         })},
      {"mig_devices", detail::probe_json::mig_devices_json(t.mig_devices)}};
  j["not_available"] = why;
  return j;
}

// "now: GPU 87%, memory 12%, 2048 of 143771 MiB used, 412.345 W, 54 C, ECC 0/0": what a
// person reads in the table; readings NVML did not give are left out.
[[nodiscard]] inline std::string probe_telemetry_line(const probe::gpu_telemetry& t) {
  std::string s = "now:";
  const auto add = [&](const std::string& part) { s += (s.size() > 4 ? ", " : " ") + part; };
  if (t.utilization) add("GPU " + format_percent(t.utilization->gpu) + "%, memory " + format_percent(t.utilization->memory) + "%");
  if (t.memory) add(std::to_string(to_mib(t.memory->used)) + " of " + std::to_string(to_mib(t.memory->total)) + " MiB used");
  for (const probe::dcgm_value& v : probe::dcgm_values(t)) {
    if (v.field == "DCGM_FI_DEV_POWER_USAGE") add(v.value + " W");
    if (v.field == "DCGM_FI_DEV_GPU_TEMP") add(v.value + " C");
  }
  if (t.health.ecc_volatile)
    add(fmt::format("ECC {}/{} (corrected/uncorrected since boot)", t.health.ecc_volatile->corrected, t.health.ecc_volatile->uncorrected));
  if (t.health.remapped && (t.health.remapped->pending || t.health.remapped->failed))
    add("row remapping pending or failed: reset or service the GPU");
  if (!t.mig_devices.empty()) add(std::to_string(t.mig_devices.size()) + " MIG devices");
  return s;
}

[[nodiscard]] inline nlohmann::json probe_gpu_json(const probe::probed_gpu& g) {
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
  mig["layout_error"] = detail::probe_json::optional_error(m.layout_error);
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
  j["telemetry"] = g.nvml ? probe_telemetry_json(g.nvml->telemetry) : nlohmann::json(nullptr);
  return j;
}
// What a machine probe found beside its GPUs: the CUDA versions ("12.4"; no driver: none),
// the NVML library tried, and why CUDA or NVML saw nothing (none: it did).
struct probe_context {
  std::string cuda_runtime;
  std::optional<std::string> cuda_driver;
  std::optional<error> cuda_error;
  std::string nvml_library;
  std::optional<error> nvml_error;
};

[[nodiscard]] inline nlohmann::json probe_machine_json(const probe_context& c, std::span<const probe::probed_gpu> gpus) {
  using detail::probe_json::optional_error;
  nlohmann::json j;
  j["cuda"] = {{"runtime", c.cuda_runtime},
               {"driver", c.cuda_driver ? nlohmann::json(*c.cuda_driver) : nlohmann::json(nullptr)},
               {"error", optional_error(c.cuda_error)}};
  j["nvml"] = {{"library", c.nvml_library}, {"error", optional_error(c.nvml_error)}};
  j["gpus"] = nlohmann::json::array();
  for (const probe::probed_gpu& g : gpus) j["gpus"].push_back(probe_gpu_json(g));
  return j;
}

// A line per GPU (probe/format.hpp's) with its live state under it, then why CUDA or NVML
// saw nothing.
[[nodiscard]] inline std::string probe_machine_table(const probe_context& c, std::span<const probe::probed_gpu> gpus) {
  std::string s;
  for (const probe::probed_gpu& g : gpus) {
    s += fmt::format("{}\n", g);
    if (g.nvml) s += fmt::format("  {}\n", probe_telemetry_line(g.nvml->telemetry));
  }
  if (c.cuda_error) s += fmt::format("CUDA: {}\n", c.cuda_error->message);
  if (c.nvml_error) s += fmt::format("NVML: {}\n", c.nvml_error->message);
  return s;
}

// A watch's DCGM-named series, one per (field, GPU, MIG device), in the order they first appear.
class probe_watch_series {
 public:
  void add(instant at, const probe::nvml_device& d, const probe::gpu_telemetry& t, const std::string& host) {
    const auto labels = probe::dcgm_labels(d, t, host);
    for (const probe::dcgm_value& v : probe::dcgm_values(t)) put(at, v, d.index, -1, labels);
    for (const probe::mig_device_telemetry& m : t.mig_devices) {
      if (!m.gpu_instance_id) continue;  // a MIG device is named by its GPU instance
      auto mig_labels = labels;
      mig_labels.emplace_back("GPU_I_ID", std::to_string(*m.gpu_instance_id));
      for (const probe::dcgm_value& v : probe::dcgm_values(m)) put(at, v, d.index, static_cast<long>(*m.gpu_instance_id), mig_labels);
    }
  }
  [[nodiscard]] const std::vector<metric_series>& series() const noexcept { return series_; }

 private:
  void put(instant at, const probe::dcgm_value& v, std::uint32_t gpu, long gi, const metric_labels& labels) {
    const auto key = std::make_tuple(std::string(v.field), gpu, gi);
    auto it = index_.find(key);
    if (it == index_.end()) {
      metric_series s;
      s.labels.emplace_back("__name__", std::string(v.field));
      s.labels.insert(s.labels.end(), labels.begin(), labels.end());
      series_.push_back(std::move(s));
      it = index_.emplace(key, series_.size() - 1).first;
    }
    series_[it->second].values.emplace_back(at, v.value);
  }
  std::map<std::tuple<std::string, std::uint32_t, long>, std::size_t> index_;
  std::vector<metric_series> series_;
};

}  // namespace gpurent::io
