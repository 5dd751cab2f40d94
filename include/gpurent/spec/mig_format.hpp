// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the MIG types. Instances and layouts hold profile indices, so they print
// through a view that knows their geometry: fmt::format("{}", mig_show(g, layout)) gives
// "4g.40gb@0 3g.40gb@4". Each reuses fmt's string formatter (width, fill, alignment work).

#include <string>
#include <string_view>

#include <fmt/format.h>

#include <gpurent/spec/mig.hpp>

namespace gpurent {

[[nodiscard]] constexpr std::string_view to_string(mig_fit_status s) noexcept {
  switch (s) {
    case mig_fit_status::fits: return "fits";
    case mig_fit_status::invalid_layout: return "invalid_layout";
    case mig_fit_status::unknown_profile: return "unknown_profile";
    case mig_fit_status::too_many_of_profile: return "too_many_of_profile";
    case mig_fit_status::too_many_media: return "too_many_media";
    case mig_fit_status::not_enough_compute: return "not_enough_compute";
    case mig_fit_status::not_enough_memory: return "not_enough_memory";
    case mig_fit_status::no_arrangement: return "no_arrangement";
  }
  return "unknown";
}

[[nodiscard]] constexpr std::string_view to_string(mig_op_kind k) noexcept {
  return k == mig_op_kind::destroy ? "destroy" : "create";
}

// A layout, instance or operation seen through its geometry, for printing.
template <class T>
struct mig_view {
  const mig_geometry* geometry;
  T value;
};
template <class T>
[[nodiscard]] constexpr mig_view<T> mig_show(const mig_geometry& g, const T& value) noexcept {
  return {&g, value};
}

}  // namespace gpurent

template <>
struct fmt::formatter<gpurent::mig_profile> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_profile& p, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(p.name, ctx);
  }
};

template <>
struct fmt::formatter<gpurent::mig_geometry> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_geometry& g, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(g.model, ctx);
  }
};

template <>
struct fmt::formatter<gpurent::mig_fit_status> : fmt::formatter<std::string_view> {
  auto format(gpurent::mig_fit_status s, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(gpurent::to_string(s), ctx);
  }
};

// "3g.40gb@4"
template <>
struct fmt::formatter<gpurent::mig_view<gpurent::mig_instance>> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_view<gpurent::mig_instance>& v, format_context& ctx) const {
    const std::string s = gpurent::mig_name(*v.geometry, v.value);
    return fmt::formatter<std::string_view>::format(s, ctx);
  }
};

// "4g.40gb@0 3g.40gb@4"; "empty" for no instances
template <>
struct fmt::formatter<gpurent::mig_view<gpurent::mig_layout>> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_view<gpurent::mig_layout>& v, format_context& ctx) const {
    std::string s;
    for (const gpurent::mig_instance& x : v.value) {
      if (!s.empty()) s += ' ';
      s += gpurent::mig_name(*v.geometry, x);
    }
    if (s.empty()) s = "empty";
    return fmt::formatter<std::string_view>::format(s, ctx);
  }
};

// "destroy 3g.40gb@0"
template <>
struct fmt::formatter<gpurent::mig_view<gpurent::mig_operation>> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_view<gpurent::mig_operation>& v, format_context& ctx) const {
    const std::string s = std::string(gpurent::to_string(v.value.kind)) + " " + gpurent::mig_name(*v.geometry, v.value.instance);
    return fmt::formatter<std::string_view>::format(s, ctx);
  }
};
