// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the sharing modes: the text form of `to_string(sharing_mode)`
// ("share:300", "mig:3g.40gb"), so a formatted mode parses back.

#include <string>

#include <fmt/format.h>

#include <gpurent/core/format.hpp>
#include <gpurent/sharing/modes.hpp>

template <>
struct fmt::formatter<gpurent::sharing_mode> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::sharing_mode& m, format_context& ctx) const { return put(gpurent::to_string(m), ctx); }
};

template <>
struct fmt::formatter<gpurent::exclusive> : gpurent::detail::string_view_formatter {
  auto format(gpurent::exclusive m, format_context& ctx) const { return put(gpurent::to_string(gpurent::sharing_mode(m)), ctx); }
};

template <>
struct fmt::formatter<gpurent::fractional_share> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::fractional_share& m, format_context& ctx) const {
    return put(gpurent::to_string(gpurent::sharing_mode(m)), ctx);
  }
};

template <>
struct fmt::formatter<gpurent::mig_slice> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::mig_slice& m, format_context& ctx) const { return put(gpurent::to_string(gpurent::sharing_mode(m)), ctx); }
};

template <>
struct fmt::formatter<gpurent::mps> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::mps& m, format_context& ctx) const { return put(gpurent::to_string(gpurent::sharing_mode(m)), ctx); }
};

template <>
struct fmt::formatter<gpurent::preemptible> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::preemptible& m, format_context& ctx) const {
    return put(gpurent::to_string(gpurent::sharing_mode(m)), ctx);
  }
};
