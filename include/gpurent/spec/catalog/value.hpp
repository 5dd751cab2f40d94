// SPDX-License-Identifier: MIT
#pragma once
// `catalog`, the run-time value type that holds either the built-in models
// (spec/catalog/builtin.hpp) or models loaded from a file (io/spec/catalog_json.hpp): both are
// spans of the same `gpu_model`. A catalog made with `catalog::make` is validated: names
// unique, every number positive and from a listed source.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/spec/catalog/builtin.hpp>
#include <gpurent/spec/catalog/sources.hpp>
#include <gpurent/spec/gpu.hpp>

namespace gpurent {

// Owns the text a loaded catalog's string_views point into. Interned strings never move
// (std::deque keeps its elements in place as it grows).
class string_store {
 public:
  std::string_view intern(std::string_view s) { return strings_.emplace_back(s); }

 private:
  std::deque<std::string> strings_;
};

// A catalog value: the built-in one, or one loaded from a file (same gpu_model type). A
// loaded catalog shares ownership of its string storage, so copies stay valid.
class catalog {
 public:
  catalog() = default;
  // Models whose strings live in `storage` (or in static data when storage is null). Use
  // `make` to also validate.
  catalog(std::vector<gpu_model> models, std::vector<source_document> sources, std::shared_ptr<const string_store> storage = nullptr)
      : models_(std::move(models)), sources_(std::move(sources)), storage_(std::move(storage)) {}

  [[nodiscard]] static catalog builtin() {
    return catalog({builtin_catalog().begin(), builtin_catalog().end()}, {builtin_sources().begin(), builtin_sources().end()});
  }

  // A validated catalog: every name non-empty and unique (aliases included), every source
  // id known, every number positive. Errors name the field as "models[i].field".
  [[nodiscard]] static expected<catalog> make(std::vector<gpu_model> models, std::vector<source_document> sources,
                                              std::shared_ptr<const string_store> storage = nullptr) {
    catalog c(std::move(models), std::move(sources), std::move(storage));
    if (auto ok = c.validate(); !ok) return unexpected<error>(std::move(ok.error()));
    return c;
  }

  [[nodiscard]] std::span<const gpu_model> models() const noexcept { return models_; }
  [[nodiscard]] std::span<const source_document> sources() const noexcept { return sources_; }
  [[nodiscard]] std::size_t size() const noexcept { return models_.size(); }

  [[nodiscard]] const gpu_model* find(std::string_view name_or_alias) const noexcept {
    for (const gpu_model& m : models_)
      if (m.named(name_or_alias)) return &m;
    return nullptr;
  }
  [[nodiscard]] const gpu_model* find_by_pci(std::uint16_t vendor_id, std::uint16_t device_id) const noexcept {
    for (const gpu_model& m : models_)
      if (m.has_pci_device(vendor_id, device_id)) return &m;
    return nullptr;
  }
  [[nodiscard]] const source_document* find_source(std::string_view id) const noexcept {
    for (const source_document& s : sources_)
      if (s.id == id) return &s;
    return nullptr;
  }

  [[nodiscard]] expected<void> validate() const;

  // Equal when they hold equal models and sources, wherever their strings live.
  friend bool operator==(const catalog& a, const catalog& b) { return a.models_ == b.models_ && a.sources_ == b.sources_; }

 private:
  std::vector<gpu_model> models_;
  std::vector<source_document> sources_;
  std::shared_ptr<const string_store> storage_;
};

namespace detail {
inline std::string model_field(std::size_t i, std::string_view field) {
  std::string s = "models[" + std::to_string(i) + "]";
  if (!field.empty()) {
    s += '.';
    s += field;
  }
  return s;
}

inline unexpected<error> model_error(std::size_t i, std::string_view field, std::string message, error_code code = error_code::invalid_argument) {
  return make_error(code, model_field(i, field), std::move(message));
}

// Every source id non-empty and unique.
[[nodiscard]] inline expected<void> validate_sources(std::span<const source_document> sources) {
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const std::string field = "sources[" + std::to_string(k) + "].id";
    if (sources[k].id.empty()) return make_error(error_code::invalid_argument, field, "must not be empty");
    for (std::size_t l = 0; l < k; ++l)
      if (sources[l].id == sources[k].id)
        return make_error(error_code::duplicate, field, "source id '" + std::string(sources[k].id) + "' repeats sources[" + std::to_string(l) + "]");
  }
  return {};
}

// Model i's name and aliases name no model before it.
[[nodiscard]] inline expected<void> validate_names(std::span<const gpu_model> models, std::size_t i) {
  const gpu_model& m = models[i];
  if (m.name.empty()) return model_error(i, "name", "must not be empty");
  for (std::size_t j = 0; j < i; ++j) {
    const std::string other = "' already names models[" + std::to_string(j) + "]";
    if (models[j].named(m.name)) return model_error(i, "name", "'" + std::string(m.name) + other, error_code::duplicate);
    for (std::size_t a = 0; a < m.aliases.size(); ++a)
      if (models[j].named(m.aliases[a]))
        return model_error(i, "aliases[" + std::to_string(a) + "]", "'" + std::string(m.aliases[a]) + other, error_code::duplicate);
  }
  return {};
}

// Model i's numbers: each positive and from a listed source.
class number_check {
 public:
  number_check(const catalog& c, std::size_t i) : c_(c), i_(i) {}

  [[nodiscard]] expected<void> source(std::string_view field, std::string_view src) const {
    if (src.empty()) return model_error(i_, std::string(field) + ".source", "every number needs a source");
    if (c_.find_source(src) == nullptr)
      return model_error(i_, std::string(field) + ".source", "unknown source id '" + std::string(src) + "'", error_code::unknown_name);
    return {};
  }
  // v: an optional sourced number whose value is `value`.
  template <class V>
  [[nodiscard]] expected<void> positive(std::string_view field, const V& v, std::int64_t value) const {
    if (!v) return {};
    if (value <= 0) return model_error(i_, std::string(field) + ".value", "must be positive, got " + std::to_string(value));
    return source(field, v->source);
  }
  template <class T>
  [[nodiscard]] expected<void> quantity(std::string_view field, const std::optional<sourced<T>>& v) const {
    if constexpr (std::is_integral_v<T>)
      return positive(field, v, v ? v->value : 0);
    else
      return positive(field, v, v ? v->value.count() : 0);
  }

 private:
  const catalog& c_;
  std::size_t i_;
};

[[nodiscard]] inline expected<void> validate_numbers(const catalog& c, std::size_t i) {
  const gpu_model& m = c.models()[i];
  const number_check check(c, i);
  GPURENT_TRY(check.quantity("vram_bytes", m.vram));
  GPURENT_TRY(check.quantity("sm_count", m.sm_count));
  GPURENT_TRY(check.quantity("memory_bandwidth_mb_per_s", m.memory_bandwidth));
  GPURENT_TRY(check.quantity("tdp_watts", m.tdp_watts));
  GPURENT_TRY(check.quantity("pcie_generation", m.pcie_generation));
  const std::pair<std::string_view, const std::optional<sourced<gflops>>*> flops[] = {
      {"throughput_gflops.fp64", &m.throughput.fp64}, {"throughput_gflops.fp64_tensor", &m.throughput.fp64_tensor},
      {"throughput_gflops.fp32", &m.throughput.fp32}, {"throughput_gflops.tf32", &m.throughput.tf32},
      {"throughput_gflops.fp16", &m.throughput.fp16}, {"throughput_gflops.fp8", &m.throughput.fp8}};
  for (const auto& [field, f] : flops) GPURENT_TRY(check.quantity(field, *f));
  if (m.nvlink) {
    GPURENT_TRY(check.positive("nvlink.generation", m.nvlink, m.nvlink->value.generation));
    GPURENT_TRY(check.positive("nvlink.bandwidth_mb_per_s", m.nvlink, m.nvlink->value.bandwidth.count()));
  }
  if (m.capability) {
    if (m.capability->value.major <= 0) return model_error(i, "compute_capability.value", "major version must be positive");
    GPURENT_TRY(check.source("compute_capability", m.capability->source));
  }
  if (m.pci) {
    if (m.pci->value.vendor_id == 0) return model_error(i, "pci.value.vendor_id", "must not be 0");
    if (m.pci->value.device_ids.empty()) return model_error(i, "pci.value.device_ids", "must list at least one device id");
    GPURENT_TRY(check.source("pci", m.pci->source));
  }
  return {};
}
}  // namespace detail

inline expected<void> catalog::validate() const {
  GPURENT_TRY(detail::validate_sources(sources_));
  for (std::size_t i = 0; i < models_.size(); ++i) {
    GPURENT_TRY(detail::validate_names(models_, i));
    GPURENT_TRY(detail::validate_numbers(*this, i));
  }
  return {};
}

}  // namespace gpurent
