// SPDX-License-Identifier: MIT
#pragma once
// GPU catalogs as JSON (nlohmann/json): write the built-in or any catalog, read one back
// into the same `catalog` type. Every number is an object {"value": ..., "source": "id"};
// an absent or null field is an unknown number. Read through the io layer's one JSON
// reader (io/text/json_reader.hpp): errors name the field by its JSON path
// ("models[3].vram_bytes.value") and, for files, the file; a field nobody knows (a typo) is
// an error listing the known ones. `mig_profiles`, which `gpurent catalog --format json`
// adds to each model, is read and ignored (it follows from the MIG tables).
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
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/core/error.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/io/text/json_reader.hpp>
#include <gpurent/spec/catalog.hpp>

namespace gpurent {

namespace detail::catalog_json {
using json = nlohmann::json;
using io::json_object;

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

// The member `key` as an object reader; nullopt when absent or null (an error when required).
[[nodiscard]] inline expected<std::optional<json_object>> object_member(json_object& o, std::string_view key, bool required = false) {
  const json* v = o.find(key);
  if (v == nullptr) return required ? o.fail(key, "missing required field") : expected<std::optional<json_object>>();
  std::optional<json_object> m(std::in_place, *v, o.field(key));
  GPURENT_TRY(m->check());
  return m;
}

inline constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t int32_min = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();

// How the `value` of each kind of sourced number is read, from the object that holds it.
// Integers are taken whole (sign included): catalog::validate says which must be positive.
template <class T>
struct value_reader;

template <class Q>
requires requires(Q q) {
  { q.count() } -> std::convertible_to<std::int64_t>;
}
struct value_reader<Q> {
  static expected<Q> read(json_object& o) {
    std::int64_t n = 0;
    GPURENT_TRY(o.integer("value", n, int64_min, int64_max, true));
    return Q(n);
  }
};

template <>
struct value_reader<std::int32_t> {
  static expected<std::int32_t> read(json_object& o) {
    std::int32_t n = 0;
    GPURENT_TRY(o.integer("value", n, int32_min, int32_max, true));
    return n;
  }
};

// "9.0"
template <>
struct value_reader<compute_capability> {
  static expected<compute_capability> read(json_object& o) {
    std::string s;
    GPURENT_TRY(o.string("value", s, true));
    compute_capability c;
    const char* end = s.data() + s.size();
    const auto major = std::from_chars(s.data(), end, c.major);
    const auto minor = major.ec == std::errc{} && major.ptr != end && *major.ptr == '.'
                           ? std::from_chars(major.ptr + 1, end, c.minor)
                           : std::from_chars_result{major.ptr, std::errc::invalid_argument};
    if (minor.ec != std::errc{} || minor.ptr != end) return o.fail("value", "not MAJOR.MINOR: \"" + s + "\"");
    return c;
  }
};

// A 16-bit PCI id as hex text: "10de" (or "0x10de").
[[nodiscard]] inline expected<std::uint16_t> hex16(const json& j, const std::string& field) {
  if (!j.is_string()) return io::json_fail(field, std::string("expected a hex string such as \"10de\", got ") + j.type_name());
  std::string_view s = j.get_ref<const std::string&>();
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  std::uint16_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size())
    return io::json_fail(field, "not a 16-bit hex id: \"" + j.get<std::string>() + "\"");
  return v;
}

// {"vendor_id": "10de", "device_ids": ["2330"]}
template <>
struct value_reader<pci_identity> {
  static expected<pci_identity> read(json_object& o) {
    GPURENT_TRY(member, object_member(o, "value", true));
    json_object& value = **member;
    pci_identity p;
    const json* vendor = value.find("vendor_id");
    if (vendor == nullptr) return value.fail("vendor_id", "missing required field");
    GPURENT_TRY(id, hex16(*vendor, value.field("vendor_id")));
    p.vendor_id = *id;
    GPURENT_TRY(ids, value.array("device_ids", true));
    for (std::size_t k = 0; k < (*ids)->size(); ++k) {
      const std::string field = io::json_item(value.field("device_ids"), k);
      GPURENT_TRY(d, hex16((**ids)[k], field));
      if (!p.device_ids.push_back(*d)) return io::json_fail(field, "too many device ids");
    }
    GPURENT_TRY(value.finish());
    return p;
  }
};

// {"generation": 4, "bandwidth_mb_per_s": 900000}
template <>
struct value_reader<nvlink_spec> {
  static expected<nvlink_spec> read(json_object& o) {
    GPURENT_TRY(member, object_member(o, "value", true));
    json_object& value = **member;
    nvlink_spec n;
    std::int64_t bandwidth = 0;
    GPURENT_TRY(value.integer("generation", n.generation, int32_min, int32_max, true));
    GPURENT_TRY(value.integer("bandwidth_mb_per_s", bandwidth, int64_min, int64_max, true));
    GPURENT_TRY(value.finish());
    n.bandwidth = mb_per_s(bandwidth);
    return n;
  }
};

// Reads models and sources into gpu_model / source_document, whose strings are views:
// every string read is interned in the catalog's store.
class reader {
 public:
  explicit reader(string_store& store) : store_(store) {}

  expected<source_document> source(const json& j, std::string path) {
    json_object o(j, std::move(path));
    GPURENT_TRY(o.check());
    source_document s;
    GPURENT_TRY(text(o, "id", s.id, true));
    GPURENT_TRY(text(o, "title", s.title, true));
    GPURENT_TRY(text(o, "url", s.url));
    GPURENT_TRY(o.finish());
    return s;
  }

  expected<gpu_model> model(const json& j, std::string path) {
    json_object o(j, std::move(path));
    GPURENT_TRY(o.check());
    gpu_model m;
    GPURENT_TRY(identity(o, m));
    GPURENT_TRY(number(o, "compute_capability", m.capability));
    GPURENT_TRY(number(o, "pci", m.pci));
    GPURENT_TRY(number(o, "vram_bytes", m.vram));
    GPURENT_TRY(number(o, "sm_count", m.sm_count));
    GPURENT_TRY(number(o, "memory_bandwidth_mb_per_s", m.memory_bandwidth));
    GPURENT_TRY(number(o, "tdp_watts", m.tdp_watts));
    GPURENT_TRY(number(o, "pcie_generation", m.pcie_generation));
    GPURENT_TRY(throughput(o, m.throughput));
    GPURENT_TRY(number(o, "nvlink", m.nvlink));
    (void)o.member("mig_profiles");  // what `gpurent catalog` adds: follows from the MIG tables
    GPURENT_TRY(o.finish());
    return m;
  }

 private:
  // A string member, interned; left as is when absent.
  expected<void> text(json_object& o, std::string_view key, std::string_view& out, bool required = false) {
    std::string s;
    GPURENT_TRY(o.string(key, s, required));
    if (o.has(key)) out = store_.intern(s);
    return {};
  }

  // Name, aliases, vendor, architecture, form factor, MIG capability, notes.
  expected<void> identity(json_object& o, gpu_model& m) {
    GPURENT_TRY(text(o, "name", m.name, true));
    if (m.name.empty()) return o.fail("name", "must not be empty");
    std::vector<std::string> aliases;
    GPURENT_TRY(o.strings("aliases", aliases));
    for (std::size_t a = 0; a < aliases.size(); ++a) {
      if (!m.aliases.push_back(store_.intern(aliases[a])))
        return io::json_fail(io::json_item(o.field("aliases"), a), "at most " + std::to_string(decltype(m.aliases)::capacity()) + " aliases");
    }
    GPURENT_TRY(o.enumeration("vendor", m.vendor, true));
    GPURENT_TRY(text(o, "architecture", m.architecture));
    GPURENT_TRY(o.enumeration("form_factor", m.form));
    GPURENT_TRY(o.boolean("mig_capable", m.mig_capable));
    return text(o, "notes", m.notes);
  }

  // {"value": V, "source": "id"}; absent or null: an unknown number.
  template <class T>
  expected<void> number(json_object& o, std::string_view key, std::optional<sourced<T>>& out) {
    GPURENT_TRY(member, object_member(o, key));
    if (!*member) return {};
    json_object& n = **member;
    GPURENT_TRY(value, value_reader<T>::read(n));
    sourced<T> s{*value, {}};
    GPURENT_TRY(text(n, "source", s.source, true));
    GPURENT_TRY(n.finish());
    out = s;
    return {};
  }

  expected<void> throughput(json_object& o, dense_throughput& t) {
    GPURENT_TRY(member, object_member(o, "throughput_gflops"));
    if (!*member) return {};
    json_object& tp = **member;
    GPURENT_TRY(number(tp, "fp64", t.fp64));
    GPURENT_TRY(number(tp, "fp64_tensor", t.fp64_tensor));
    GPURENT_TRY(number(tp, "fp32", t.fp32));
    GPURENT_TRY(number(tp, "tf32", t.tf32));
    GPURENT_TRY(number(tp, "fp16", t.fp16));
    GPURENT_TRY(number(tp, "fp8", t.fp8));
    return tp.finish();
  }

  string_store& store_;
};

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
    j["compute_capability"] = {{"value", std::to_string(m.capability->value.major) + "." + std::to_string(m.capability->value.minor)},
                               {"source", m.capability->source}};
  if (m.pci) {
    nlohmann::json ids = nlohmann::json::array();
    for (std::uint16_t d : m.pci->value.device_ids) ids.push_back(detail::catalog_json::hex4(d));
    j["pci"] = {{"value", {{"vendor_id", detail::catalog_json::hex4(m.pci->value.vendor_id)}, {"device_ids", ids}}}, {"source", m.pci->source}};
  }
  if (m.vram) j["vram_bytes"] = number_json(*m.vram);
  if (m.sm_count) j["sm_count"] = number_json(*m.sm_count);
  if (m.memory_bandwidth) j["memory_bandwidth_mb_per_s"] = number_json(*m.memory_bandwidth);
  if (m.tdp_watts) j["tdp_watts"] = number_json(*m.tdp_watts);
  if (m.pcie_generation) j["pcie_generation"] = number_json(*m.pcie_generation);
  nlohmann::json t = nlohmann::json::object();
  const std::pair<const char*, const std::optional<sourced<gflops>>*> fields[] = {
      {"fp64", &m.throughput.fp64}, {"fp64_tensor", &m.throughput.fp64_tensor},
      {"fp32", &m.throughput.fp32}, {"tf32", &m.throughput.tf32},
      {"fp16", &m.throughput.fp16}, {"fp8", &m.throughput.fp8}};
  for (const auto& [key, f] : fields)
    if (*f) t[key] = number_json(**f);
  j["throughput_gflops"] = t;
  if (m.nvlink)
    j["nvlink"] = {{"value", {{"generation", m.nvlink->value.generation}, {"bandwidth_mb_per_s", m.nvlink->value.bandwidth.count()}}},
                   {"source", m.nvlink->source}};
  return j;
}

[[nodiscard]] inline nlohmann::json to_json(const source_document& s) { return {{"id", s.id}, {"title", s.title}, {"url", s.url}}; }

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
  io::json_object top(j, "");
  GPURENT_TRY(top.check());
  auto store = std::make_shared<string_store>();
  detail::catalog_json::reader r(*store);
  std::vector<source_document> sources;
  GPURENT_TRY(source_list, top.array("sources"));
  for (std::size_t k = 0; *source_list != nullptr && k < (*source_list)->size(); ++k) {
    GPURENT_TRY(s, r.source((**source_list)[k], io::json_item("sources", k)));
    sources.push_back(*s);
  }
  GPURENT_TRY(model_list, top.array("models", true));
  std::vector<gpu_model> models;
  models.reserve((*model_list)->size());
  for (std::size_t i = 0; i < (*model_list)->size(); ++i) {
    GPURENT_TRY(m, r.model((**model_list)[i], io::json_item("models", i)));
    models.push_back(*m);
  }
  GPURENT_TRY(top.finish());
  return catalog::make(std::move(models), std::move(sources), std::move(store));
}

// Parses JSON text; `file` (when given) locates errors: "file:line" for text that is not
// JSON, the file for a catalog that is not valid.
[[nodiscard]] inline expected<catalog> parse_catalog_json(std::string_view text, std::string_view file = {}) {
  GPURENT_TRY(j, io::parse_json_text(text, file));
  auto c = catalog_from_json(*j);
  if (!c && !file.empty()) return unexpected(io::json_located(std::move(c.error()), text, file));
  return c;
}

[[nodiscard]] inline expected<catalog> load_catalog_file(const std::filesystem::path& path) {
  GPURENT_TRY(text, io::read_file(path.string()));
  return parse_catalog_json(*text, path.string());
}

}  // namespace gpurent
