// SPDX-License-Identifier: MIT
#pragma once
// MIG in text, as people and the `gpurent mig fit` command write it: a GPU model by catalog
// name or alias, wanted profiles "3g.40gb,4g.40gb", existing instances "3g.40gb@4,1g.10gb@0".
// Every error names the field it came from (the caller says which: "--want", "have", ...)
// and what was wrong, and lists the names that exist where a name was not found.
// `mig_layout_text` writes a layout in the form `parse_mig_layout` reads, so text round-trips.

#include <cctype>
#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/mig.hpp>

namespace gpurent {

namespace detail::mig_text {

[[nodiscard]] constexpr bool same_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

[[nodiscard]] inline std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

// "a, b,c" -> {"a", "b", "c"}; empty items are kept (the caller reports them).
[[nodiscard]] inline std::vector<std::string_view> split_list(std::string_view s) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto comma = s.find(',');
    out.push_back(trim(s.substr(0, comma)));
    if (comma == std::string_view::npos) return out;
    s.remove_prefix(comma + 1);
  }
}

// Names from the input are quoted in messages; keep a hostile or binary one readable.
[[nodiscard]] inline std::string quoted(std::string_view s) {
  constexpr std::size_t max = 64;
  std::string q = "'";
  for (std::size_t i = 0; i < s.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      q += static_cast<char>(c);
    } else {
      constexpr std::string_view hex = "0123456789abcdef";
      q += "\\x";
      q += hex[c >> 4];
      q += hex[c & 15U];
    }
  }
  if (s.size() > max) q += "...";
  return q + "'";
}

[[nodiscard]] inline std::string model_names() {
  std::string s;
  for (const mig_geometry& g : mig_geometries) s += (s.empty() ? "" : ", ") + std::string(g.model);
  return s;
}

[[nodiscard]] inline std::string profile_names(const mig_geometry& g) {
  std::string s;
  for (const mig_profile& p : g.profiles) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

}  // namespace detail::mig_text

// The MIG geometry of a model named the way people name GPUs: a built-in catalog name or
// alias ("H100", "h100-80gb"), or a MIG model name in any case ("a30"). unknown_name when
// nothing is called that, not_found when the model has no MIG; both list the MIG models.
[[nodiscard]] inline expected<const mig_geometry*> resolve_mig_geometry(std::string_view name, std::string_view field = "gpu") {
  using namespace detail::mig_text;
  if (const gpu_model* m = find_model(name)) {
    if (const mig_geometry* g = find_mig_geometry(m->name)) return g;
    return make_error(error_code::not_found, std::string(field), std::string(m->name) + " has no MIG; models with MIG: " + model_names());
  }
  for (const mig_geometry& g : mig_geometries)
    if (same_ignoring_case(g.model, name)) return &g;
  return make_error(error_code::unknown_name, std::string(field), "unknown model " + quoted(name) + "; models with MIG: " + model_names());
}

// A profile of g by name, exact or in any case ("3G.40GB").
[[nodiscard]] inline expected<mig_profile_index> parse_mig_profile(const mig_geometry& g, std::string_view name, std::string_view field = "profile") {
  using namespace detail::mig_text;
  if (auto i = g.find_profile(name)) return *i;
  for (std::size_t i = 0; i < g.profiles.size(); ++i)
    if (same_ignoring_case(g.profiles[i].name, name)) return static_cast<mig_profile_index>(i);
  return make_error(error_code::unknown_name, std::string(field),
                    "unknown profile " + quoted(name) + " on " + std::string(g.model) + "; profiles: " + profile_names(g));
}

// "PROFILE[,PROFILE...]": the instances wanted, in the order written. At most mig_max_slices
// (no GPU holds more); whether they fit is mig_fit's question, not the parser's.
[[nodiscard]] inline expected<std::vector<mig_profile_index>> parse_mig_profiles(const mig_geometry& g, std::string_view text,
                                                                                 std::string_view field = "want") {
  using namespace detail::mig_text;
  std::vector<mig_profile_index> out;
  for (const std::string_view item : split_list(text)) {
    if (item.empty()) return make_error(error_code::parse_error, std::string(field), "empty profile name in " + quoted(text));
    auto p = parse_mig_profile(g, item, field);
    if (!p) return unexpected<error>(p.error());
    out.push_back(*p);
    if (out.size() > mig_max_slices)
      return make_error(error_code::invalid_argument, std::string(field),
                        "more than " + std::to_string(mig_max_slices) + " instances wanted; a GPU holds at most " + std::to_string(g.memory_slices));
  }
  return out;
}

// "PROFILE@START[,...]" (empty or blank: no instances): a layout, which must be valid on g
// (start slots, overlaps, counts; mig_check's message says which rule it breaks).
[[nodiscard]] inline expected<mig_layout> parse_mig_layout(const mig_geometry& g, std::string_view text, std::string_view field = "have") {
  using namespace detail::mig_text;
  mig_layout l;
  if (trim(text).empty()) return l;
  for (const std::string_view item : split_list(text)) {
    const auto at = item.find('@');
    if (trim(item).empty()) return make_error(error_code::parse_error, std::string(field), "empty instance in " + quoted(text));
    if (at == std::string_view::npos || at == 0)
      return make_error(error_code::parse_error, std::string(field), "expected PROFILE@START, got " + quoted(item));
    const std::string_view digits = trim(item.substr(at + 1));
    unsigned start = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), start);
    const bool whole = !digits.empty() && end == digits.data() + digits.size();
    if (!whole || (ec != std::errc{} && ec != std::errc::result_out_of_range))
      return make_error(error_code::parse_error, std::string(field), "start slice of " + quoted(item) + " is not a number");
    if (ec == std::errc::result_out_of_range || start >= g.memory_slices)
      return make_error(
          error_code::invalid_argument, std::string(field),
          "start slice " + std::string(digits) + " of " + quoted(item) + " is past the last memory slice " + std::to_string(g.memory_slices - 1));
    auto p = parse_mig_profile(g, trim(item.substr(0, at)), field);
    if (!p) return unexpected<error>(p.error());
    if (!l.add({*p, static_cast<std::uint8_t>(start)}))
      return make_error(error_code::invalid_argument, std::string(field), "more than " + std::to_string(mig_layout::capacity) + " instances");
  }
  if (auto ok = mig_check(g, l); !ok) return unexpected<error>(ok.error().in_field(field));
  return l;
}

// "3g.40gb@0,4g.40gb@4" (empty for no instances): what parse_mig_layout reads back.
[[nodiscard]] inline std::string mig_layout_text(const mig_geometry& g, const mig_layout& l) { return mig_names(g, l, ","); }

}  // namespace gpurent
