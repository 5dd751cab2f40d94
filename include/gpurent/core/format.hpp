// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the core value types. Each reuses fmt's string formatter, so width,
// fill and alignment work as for strings: fmt::format("{:>10}", money).

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <gpurent/core/core.hpp>

namespace gpurent {
// "1 record", "3 records": a count with its noun, the one way every text output says one.
[[nodiscard]] inline std::string plural(std::int64_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }
}  // namespace gpurent

namespace gpurent::detail {
struct string_view_formatter : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto put(const std::string& s, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(s, ctx);
  }
};
}  // namespace gpurent::detail

template <int S, gpurent::CheckedInteger R, gpurent::OverflowPolicy O>
struct fmt::formatter<gpurent::decimal<S, R, O>> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::decimal<S, R, O>& d, format_context& ctx) const { return put(d.to_string(), ctx); }
};

// "12.34 USD"
template <gpurent::CurrencyType C, gpurent::OverflowPolicy O>
struct fmt::formatter<gpurent::money<C, O>> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::money<C, O>& m, format_context& ctx) const { return put(m.to_string() + " " + std::string(C::code), ctx); }
};

// "83/12000": an exact ratio as numerator/denominator (denominator 1 prints alone).
template <gpurent::CheckedInteger R, gpurent::OverflowPolicy O>
struct fmt::formatter<gpurent::ratio<R, O>> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::ratio<R, O>& r, format_context& ctx) const {
    std::string s = gpurent::detail::to_digits(r.num());
    if (r.den() != 1) s += "/" + gpurent::detail::to_digits(r.den());
    return put(s, ctx);
  }
};

// "83/12000 USD (exact)": not yet rounded.
template <gpurent::CurrencyType C, gpurent::OverflowPolicy O>
struct fmt::formatter<gpurent::exact_money<C, O>> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::exact_money<C, O>& m, format_context& ctx) const { return put(fmt::format("{} {} (exact)", m.value(), C::code), ctx); }
};

template <>
struct fmt::formatter<gpurent::money_value> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::money_value& m, format_context& ctx) const { return put(gpurent::money_text(m), ctx); }
};

// "2.490000000 USD/1h"
template <gpurent::CurrencyType C, gpurent::OverflowPolicy O>
struct fmt::formatter<gpurent::price<C, O>> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::price<C, O>& p, format_context& ctx) const {
    return put(p.amount().to_string() + " " + std::string(C::code) + "/" + gpurent::format_duration(p.per()), ctx);
  }
};

// "[2026-11-01T04:00:00Z, 2026-12-01T05:00:00Z)"
template <>
struct fmt::formatter<gpurent::interval> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::interval& i, format_context& ctx) const {
    return put("[" + gpurent::format_instant(i.begin()) + ", " + gpurent::format_instant(i.end()) + ")", ctx);
  }
};

template <>
struct fmt::formatter<gpurent::error> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::error& e, format_context& ctx) const { return put(e.describe(), ctx); }
};

// Every enum with a name table (core/enum.hpp) prints its name: "half_even", "spot".
template <gpurent::NamedEnum E>
struct fmt::formatter<E> : fmt::formatter<std::string_view> {
  auto format(E e, format_context& ctx) const { return fmt::formatter<std::string_view>::format(gpurent::to_string(e), ctx); }
};

template <>
struct fmt::formatter<gpurent::bytes> : gpurent::detail::string_view_formatter {
  auto format(gpurent::bytes b, format_context& ctx) const { return put(std::to_string(b.count()) + " B", ctx); }
};

template <>
struct fmt::formatter<gpurent::milli_gpu> : gpurent::detail::string_view_formatter {
  auto format(gpurent::milli_gpu m, format_context& ctx) const { return put(std::to_string(m.count()) + " mGPU", ctx); }
};

template <>
struct fmt::formatter<gpurent::gflops> : gpurent::detail::string_view_formatter {
  auto format(gpurent::gflops g, format_context& ctx) const { return put(std::to_string(g.count()) + " GFLOPS", ctx); }
};

template <>
struct fmt::formatter<gpurent::mb_per_s> : gpurent::detail::string_view_formatter {
  auto format(gpurent::mb_per_s b, format_context& ctx) const { return put(std::to_string(b.count()) + " MB/s", ctx); }
};
