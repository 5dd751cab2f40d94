// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the sharing vocabulary: a mode (the variant or any one mode) prints its
// text form, `to_string(sharing_mode)` ("share:300", "mig:3g.40gb"), so a formatted mode
// parses back. sharing_kind prints its name through core/format.hpp.

#include <concepts>
#include <string>

#include <fmt/format.h>

#include <gpurent/core/format.hpp>
#include <gpurent/sharing/modes.hpp>

template <class M>
requires gpurent::SharingModeValue<M> || std::same_as<M, gpurent::sharing_mode>
struct fmt::formatter<M> : gpurent::detail::string_view_formatter {
  auto format(const M& m, fmt::format_context& ctx) const { return put(gpurent::to_string(gpurent::sharing_mode(m)), ctx); }
};
