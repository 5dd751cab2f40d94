// SPDX-License-Identifier: MIT
#pragma once
// GPU catalogs as JSON (nlohmann/json): write the built-in or any catalog, read one back
// into the same `catalog` type. Every number is an object {"value": ..., "source": "id"};
// an absent or null field is an unknown number. Errors name the field with its index
// ("models[3].vram_bytes.value") and, for files, the file.
//
// {"sources": [{"id": "nvidia-h100-datasheet", "title": "...", "url": "..."}],
//  "models": [{"name": "H100-SXM5-80GB", "aliases": ["H100"], "vendor": "nvidia",
//              "architecture": "Hopper", "form_factor": "sxm", "mig_capable": true,
//              "notes": "...",
//              "compute_capability": {"value": "9.0", "source": "..."},
//              "pci": {"value": {"vendor_id": "10de", "device_ids": ["2330"]}, "source": "..."},
//              "vram_bytes": {"value": 85899345920, "source": "..."},
//              "sm_count": {...}, "memory_bandwidth_mb_per_s": {...}, "tdp_watts": {...},
//              "pcie_generation": {...},
//              "throughput_gflops": {"fp64": {...}, "fp64_tensor": {...}, "fp32": {...},
//                                    "tf32": {...}, "fp16": {...}, "fp8": {...}},
//              "nvlink": {"value": {"generation": 4, "bandwidth_mb_per_s": 900000}, "source": "..."}}]}

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/core/error.hpp>
#include <gpurent/spec/catalog.hpp>

namespace gpurent {

namespace detail::catalog_json {
using json = nlohmann::json;

inline std::string hex4(std::uint16_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(4, '0');
  for (std::size_t i = 0; i < 4; ++i) s[3 - i] = digits[(v >> (4 * i)) & 0xfu];
  return s;
}

template <class T>
json number_json(const sourced<T>& s) {
  if constexpr (std::is_arithmetic_v<T>) {
    return json{{"value", s.value}, {"source", s.source}};
  } else {
    return json{{"value", s.value.count()}, {"source", s.source}};
  }
}

inline const char* type_name(const json& j) { return j.type_name(); }

// Reads one model or source, remembering the path for messages.
class reader {
 public:
  explicit reader(string_store& store) : store_(store) {}

  static unexpected<error> fail(const std::string& field, std::string message) {
    return make_error(error_code::invalid_argument, field, std::move(message));
  }

  // A required or optional string member.
  expected<std::string_view> string_member(const json& obj, const char* key, const std::string& path, bool required) {
    const std::string field = path + "." + key;
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
      if (required) return fail(field, "missing required field");
      return std::string_view{};
    }
    if (!it->is_string()) return fail(field, std::string("expected a string, got ") + type_name(*it));
    return store_.intern(it->get_ref<const std::string&>());
  }

  static expected<std::int64_t> integer(const json& j, const std::string& field) {
    if (j.is_number_unsigned()) {
      const auto u = j.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return fail(field, "integer too large");
      return static_cast<std::int64_t>(u);
    }
    if (j.is_number_integer()) return j.get<std::int64_t>();
    return fail(field, std::string("expected an integer, got ") + type_name(j));
  }

  static expected<std::uint16_t> hex16(const json& j, const std::string& field) {
    if (!j.is_string()) return fail(field, std::string("expected a hex string such as \"10de\", got ") + type_name(j));
    std::string_view s = j.get_ref<const std::string&>();
    if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
    std::uint16_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size())
      return fail(field, "not a 16-bit hex id: \"" + j.get<std::string>() + "\"");
    return v;
  }

  // {"value": V, "source": "id"} with V read by `read_value`; nullopt when absent or null.
  template <class T, class F>
  expected<std::optional<sourced<T>>> sourced_member(const json& obj, const char* key, const std::string& path,
                                                     F&& read_value) {
    const std::string field = path + "." + key;
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::optional<sourced<T>>{};
    if (!it->is_object()) return fail(field, std::string("expected an object {\"value\", \"source\"}, got ") + type_name(*it));
    auto v = it->find("value");
    if (v == it->end()) return fail(field + ".value", "missing required field");
    auto value = read_value(*v, field + ".value");
    if (!value) return unexpected<error>(std::move(value.error()));
    auto src = string_member(*it, "source", field, true);
    if (!src) return unexpected<error>(std::move(src.error()));
    return std::optional<sourced<T>>{sourced<T>{std::move(*value), *src}};
  }

  template <class Q>
  static auto quantity_reader() {
    return [](const json& j, const std::string& field) -> expected<Q> {
      auto n = integer(j, field);
      if (!n) return unexpected<error>(std::move(n.error()));
      return Q(*n);
    };
  }
  static auto int32_reader() {
    return [](const json& j, const std::string& field) -> expected<std::int32_t> {
      auto n = integer(j, field);
      if (!n) return unexpected<error>(std::move(n.error()));
      if (*n > std::numeric_limits<std::int32_t>::max() || *n < std::numeric_limits<std::int32_t>::min())
        return fail(field, "integer out of range");
      return static_cast<std::int32_t>(*n);
    };
  }

  expected<gpu_model> model(const json& j, const std::string& path);
  expected<source_document> source(const json& j, const std::string& path) {
    if (!j.is_object()) return fail(path, std::string("expected an object, got ") + type_name(j));
    auto id = string_member(j, "id", path, true);
    if (!id) return unexpected<error>(std::move(id.error()));
    auto title = string_member(j, "title", path, true);
    if (!title) return unexpected<error>(std::move(title.error()));
    auto url = string_member(j, "url", path, false);
    if (!url) return unexpected<error>(std::move(url.error()));
    return source_document{*id, *title, *url};
  }

 private:
  string_store& store_;
};

#define GPURENT_JSON_TRY(var, expr)                                    \
  auto var = (expr);                                                   \
  if (!var) return unexpected<error>(std::move(var.error()))

inline expected<gpu_model> reader::model(const json& j, const std::string& path) {
  if (!j.is_object()) return fail(path, std::string("expected an object, got ") + type_name(j));
  gpu_model m;
  GPURENT_JSON_TRY(name, string_member(j, "name", path, true));
  if (name->empty()) return fail(path + ".name", "must not be empty");
  m.name = *name;

  if (auto it = j.find("aliases"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return fail(path + ".aliases", std::string("expected an array, got ") + type_name(*it));
    for (std::size_t a = 0; a < it->size(); ++a) {
      const std::string f = path + ".aliases[" + std::to_string(a) + "]";
      const json& e = (*it)[a];
      if (!e.is_string()) return fail(f, std::string("expected a string, got ") + type_name(e));
      if (!m.aliases.push_back(store_.intern(e.get_ref<const std::string&>())))
        return fail(f, "at most " + std::to_string(decltype(m.aliases)::capacity()) + " aliases");
    }
  }

  GPURENT_JSON_TRY(vendor, string_member(j, "vendor", path, true));
  const auto v = parse_enum<gpu_vendor>(*vendor);
  if (!v) return fail(path + ".vendor", "unknown vendor '" + std::string(*vendor) + "' (nvidia, amd, unknown)");
  m.vendor = *v;

  GPURENT_JSON_TRY(arch, string_member(j, "architecture", path, false));
  m.architecture = *arch;
  GPURENT_JSON_TRY(form, string_member(j, "form_factor", path, false));
  if (!form->empty()) {
    const auto ff = parse_enum<form_factor>(*form);
    if (!ff) return fail(path + ".form_factor", "unknown form factor '" + std::string(*form) + "' (sxm, pcie, oam, superchip, unknown)");
    m.form = *ff;
  }
  if (auto it = j.find("mig_capable"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) return fail(path + ".mig_capable", std::string("expected a boolean, got ") + type_name(*it));
    m.mig_capable = it->get<bool>();
  }
  GPURENT_JSON_TRY(notes, string_member(j, "notes", path, false));
  m.notes = *notes;

  GPURENT_JSON_TRY(cap, (sourced_member<compute_capability>(
                            j, "compute_capability", path, [](const json& e, const std::string& f) -> expected<compute_capability> {
                              if (!e.is_string()) return fail(f, std::string("expected a string such as \"9.0\", got ") + type_name(e));
                              const std::string& s = e.get_ref<const std::string&>();
                              compute_capability c;
                              const char* b = s.data();
                              const char* end = s.data() + s.size();
                              auto r1 = std::from_chars(b, end, c.major);
                              if (r1.ec != std::errc{} || r1.ptr == end || *r1.ptr != '.') return fail(f, "not MAJOR.MINOR: \"" + s + "\"");
                              auto r2 = std::from_chars(r1.ptr + 1, end, c.minor);
                              if (r2.ec != std::errc{} || r2.ptr != end) return fail(f, "not MAJOR.MINOR: \"" + s + "\"");
                              return c;
                            })));
  m.capability = *cap;

  GPURENT_JSON_TRY(pci, (sourced_member<pci_identity>(j, "pci", path, [](const json& e, const std::string& f) -> expected<pci_identity> {
                      if (!e.is_object()) return fail(f, std::string("expected an object, got ") + type_name(e));
                      pci_identity p;
                      auto vi = e.find("vendor_id");
                      if (vi == e.end()) return fail(f + ".vendor_id", "missing required field");
                      auto vid = hex16(*vi, f + ".vendor_id");
                      if (!vid) return unexpected<error>(std::move(vid.error()));
                      p.vendor_id = *vid;
                      auto di = e.find("device_ids");
                      if (di == e.end()) return fail(f + ".device_ids", "missing required field");
                      if (!di->is_array()) return fail(f + ".device_ids", std::string("expected an array, got ") + type_name(*di));
                      for (std::size_t k = 0; k < di->size(); ++k) {
                        const std::string fk = f + ".device_ids[" + std::to_string(k) + "]";
                        auto d = hex16((*di)[k], fk);
                        if (!d) return unexpected<error>(std::move(d.error()));
                        if (!p.device_ids.push_back(*d)) return fail(fk, "too many device ids");
                      }
                      return p;
                    })));
  m.pci = *pci;

  GPURENT_JSON_TRY(vram, sourced_member<bytes>(j, "vram_bytes", path, quantity_reader<bytes>()));
  m.vram = *vram;
  GPURENT_JSON_TRY(sms, sourced_member<std::int32_t>(j, "sm_count", path, int32_reader()));
  m.sm_count = *sms;
  GPURENT_JSON_TRY(bw, sourced_member<mb_per_s>(j, "memory_bandwidth_mb_per_s", path, quantity_reader<mb_per_s>()));
  m.memory_bandwidth = *bw;
  GPURENT_JSON_TRY(tdp, sourced_member<std::int32_t>(j, "tdp_watts", path, int32_reader()));
  m.tdp_watts = *tdp;
  GPURENT_JSON_TRY(pcie, sourced_member<std::int32_t>(j, "pcie_generation", path, int32_reader()));
  m.pcie_generation = *pcie;

  if (auto it = j.find("throughput_gflops"); it != j.end() && !it->is_null()) {
    const std::string tp = path + ".throughput_gflops";
    if (!it->is_object()) return fail(tp, std::string("expected an object, got ") + type_name(*it));
    const std::pair<const char*, std::optional<sourced<gflops>>*> fields[] = {
        {"fp64", &m.throughput.fp64}, {"fp64_tensor", &m.throughput.fp64_tensor}, {"fp32", &m.throughput.fp32},
        {"tf32", &m.throughput.tf32}, {"fp16", &m.throughput.fp16},               {"fp8", &m.throughput.fp8}};
    for (const auto& [key, out] : fields) {
      GPURENT_JSON_TRY(f, sourced_member<gflops>(*it, key, tp, quantity_reader<gflops>()));
      *out = *f;
    }
  }

  GPURENT_JSON_TRY(nvl, (sourced_member<nvlink_spec>(j, "nvlink", path, [](const json& e, const std::string& f) -> expected<nvlink_spec> {
                      if (!e.is_object()) return fail(f, std::string("expected an object, got ") + type_name(e));
                      auto g = e.find("generation");
                      if (g == e.end()) return fail(f + ".generation", "missing required field");
                      auto gen = int32_reader()(*g, f + ".generation");
                      if (!gen) return unexpected<error>(std::move(gen.error()));
                      auto b = e.find("bandwidth_mb_per_s");
                      if (b == e.end()) return fail(f + ".bandwidth_mb_per_s", "missing required field");
                      auto bw2 = integer(*b, f + ".bandwidth_mb_per_s");
                      if (!bw2) return unexpected<error>(std::move(bw2.error()));
                      return nvlink_spec{*gen, mb_per_s(*bw2)};
                    })));
  m.nvlink = *nvl;
  return m;
}

#undef GPURENT_JSON_TRY

}  // namespace detail::catalog_json

// One model as JSON (empty numbers are left out).
[[nodiscard]] inline nlohmann::json to_json(const gpu_model& m) {
  using detail::catalog_json::number_json;
  nlohmann::json j;
  j["name"] = m.name;
  j["aliases"] = nlohmann::json::array();
  for (std::string_view a : m.aliases) j["aliases"].push_back(a);
  j["vendor"] = to_string(m.vendor);
  j["architecture"] = m.architecture;
  j["form_factor"] = to_string(m.form);
  j["mig_capable"] = m.mig_capable;
  j["notes"] = m.notes;
  if (m.capability)
    j["compute_capability"] = {
        {"value", std::to_string(m.capability->value.major) + "." + std::to_string(m.capability->value.minor)},
        {"source", m.capability->source}};
  if (m.pci) {
    nlohmann::json ids = nlohmann::json::array();
    for (std::uint16_t d : m.pci->value.device_ids) ids.push_back(detail::catalog_json::hex4(d));
    j["pci"] = {{"value", {{"vendor_id", detail::catalog_json::hex4(m.pci->value.vendor_id)}, {"device_ids", ids}}},
                {"source", m.pci->source}};
  }
  if (m.vram) j["vram_bytes"] = number_json(*m.vram);
  if (m.sm_count) j["sm_count"] = number_json(*m.sm_count);
  if (m.memory_bandwidth) j["memory_bandwidth_mb_per_s"] = number_json(*m.memory_bandwidth);
  if (m.tdp_watts) j["tdp_watts"] = number_json(*m.tdp_watts);
  if (m.pcie_generation) j["pcie_generation"] = number_json(*m.pcie_generation);
  nlohmann::json t = nlohmann::json::object();
  const std::pair<const char*, const std::optional<sourced<gflops>>*> fields[] = {
      {"fp64", &m.throughput.fp64}, {"fp64_tensor", &m.throughput.fp64_tensor}, {"fp32", &m.throughput.fp32},
      {"tf32", &m.throughput.tf32}, {"fp16", &m.throughput.fp16},               {"fp8", &m.throughput.fp8}};
  for (const auto& [key, f] : fields)
    if (*f) t[key] = number_json(**f);
  j["throughput_gflops"] = t;
  if (m.nvlink)
    j["nvlink"] = {{"value", {{"generation", m.nvlink->value.generation}, {"bandwidth_mb_per_s", m.nvlink->value.bandwidth.count()}}},
                   {"source", m.nvlink->source}};
  return j;
}

[[nodiscard]] inline nlohmann::json to_json(const source_document& s) {
  return {{"id", s.id}, {"title", s.title}, {"url", s.url}};
}

// A whole catalog: {"sources": [...], "models": [...]}.
[[nodiscard]] inline nlohmann::json catalog_to_json(std::span<const gpu_model> models, std::span<const source_document> sources) {
  nlohmann::json j;
  j["sources"] = nlohmann::json::array();
  for (const auto& s : sources) j["sources"].push_back(to_json(s));
  j["models"] = nlohmann::json::array();
  for (const auto& m : models) j["models"].push_back(to_json(m));
  return j;
}
[[nodiscard]] inline nlohmann::json catalog_to_json(const catalog& c) { return catalog_to_json(c.models(), c.sources()); }

// Reads a catalog; validates it (unique names, known sources, positive numbers).
[[nodiscard]] inline expected<catalog> catalog_from_json(const nlohmann::json& j) {
  using detail::catalog_json::reader;
  if (!j.is_object()) return reader::fail("", std::string("a catalog is a JSON object, got ") + j.type_name());
  auto store = std::make_shared<string_store>();
  reader r(*store);
  std::vector<source_document> sources;
  if (auto it = j.find("sources"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return reader::fail("sources", std::string("expected an array, got ") + it->type_name());
    for (std::size_t k = 0; k < it->size(); ++k) {
      auto s = r.source((*it)[k], "sources[" + std::to_string(k) + "]");
      if (!s) return unexpected<error>(std::move(s.error()));
      sources.push_back(*s);
    }
  }
  auto it = j.find("models");
  if (it == j.end()) return reader::fail("models", "missing required field");
  if (!it->is_array()) return reader::fail("models", std::string("expected an array, got ") + it->type_name());
  std::vector<gpu_model> models;
  models.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    auto m = r.model((*it)[i], "models[" + std::to_string(i) + "]");
    if (!m) return unexpected<error>(std::move(m.error()));
    models.push_back(*m);
  }
  return catalog::make(std::move(models), std::move(sources), std::move(store));
}

// Parses JSON text; `file` (when given) locates errors.
[[nodiscard]] inline expected<catalog> parse_catalog_json(std::string_view text, std::string_view file = {}) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    error e{error_code::parse_error, {}, "not valid JSON", std::string(file)};
    return unexpected<error>(std::move(e));
  }
  auto c = catalog_from_json(j);
  if (!c && !file.empty()) c.error().where = std::string(file);
  return c;
}

[[nodiscard]] inline expected<catalog> load_catalog_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error e{error_code::io_error, {}, "cannot open file", path.string()};
    return unexpected<error>(std::move(e));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_catalog_json(ss.str(), path.string());
}

}  // namespace gpurent
