// SPDX-License-Identifier: MIT
#pragma once
// The fixed-point numbers of the rating hot path: prices, quantities and tier bounds are
// int64 counts of 10^-9 units ("nano"), products are 128-bit (core/wide.hpp) with every
// operation checked (overflow is reported, never wrapped). Whole-line results become core
// `ratio<>`s, which are rounded once at the tariff's rounding point.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/wide.hpp>

namespace gpurent {

namespace detail {
// 10^9: one unit in nano units.
inline constexpr std::int64_t nano_one = 1'000'000'000;

[[nodiscard]] inline unexpected<error> overflow_error(std::string what) {
  return make_error(error_code::overflow, {}, "overflow: " + std::move(what) + " does not fit 128 bits");
}

// Fast exact parse of "12.345" into nano units; nothing on any deviation from the grammar
// of decimal::parse (the caller then asks decimal::parse for the precise message).
[[nodiscard]] constexpr std::optional<std::int64_t> parse_nano_fast(std::string_view s) noexcept {
  std::size_t i = 0;
  const bool neg = !s.empty() && s[0] == '-';
  if (neg) ++i;
  std::int64_t whole = 0;
  int int_digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (++int_digits > 9) return std::nullopt;  // > 10^9 units: leave it to the checked path
    whole = whole * 10 + (s[i] - '0');
  }
  if (int_digits == 0) return std::nullopt;
  std::int64_t frac = 0;
  int frac_digits = 0;
  if (i < s.size()) {
    if (s[i] != '.') return std::nullopt;
    ++i;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (++frac_digits > 9) return std::nullopt;
      frac = frac * 10 + (s[i] - '0');
    }
    if (frac_digits == 0 || i != s.size()) return std::nullopt;
  }
  for (int k = frac_digits; k < 9; ++k) frac *= 10;
  const std::int64_t v = whole * nano_one + frac;
  return neg ? -v : v;
}
}  // namespace detail

// A decimal string with at most 9 fractional digits, as a count of 10^-9 units. Errors
// name the grammar, too many digits, or a value beyond +-9.2e9 units.
[[nodiscard]] inline expected<std::int64_t> parse_nano(std::string_view s) {
  if (auto v = detail::parse_nano_fast(s)) return *v;
  auto d = decimal<9>::parse(s);
  if (!d) return unexpected(d.error());
  const int128 limit(INT64_MAX);
  if (detail::abs(d->raw()) > limit) {
    return make_error(error_code::overflow, {}, "\"" + std::string(s) + "\" is too large (at most 9223372036.854775807)");
  }
  return d->raw().convert_to<std::int64_t>();
}

// A positive decimal string: "0.5" yes, "0" and "-1" no.
[[nodiscard]] inline expected<std::int64_t> parse_positive_nano(std::string_view s) {
  auto v = parse_nano(s);
  if (v && *v <= 0) return make_error(error_code::invalid_argument, {}, "must be greater than 0, got \"" + std::string(s) + "\"");
  return v;
}

// A non-negative decimal string: "0" yes, "-0.01" no.
[[nodiscard]] inline expected<std::int64_t> parse_non_negative_nano(std::string_view s) {
  auto v = parse_nano(s);
  if (v && *v < 0) return make_error(error_code::invalid_argument, {}, "must not be negative, got \"" + std::string(s) + "\"");
  return v;
}

// "2.490000000" from 2490000000: all nine fractional digits, as CSV and JSON round-trip them
// (format_exact(ratio) writes the shortest exact form, "2.49").
[[nodiscard]] inline std::string format_nano(std::int64_t v) {
  return decimal<9>::from_raw(int128(v)).to_string();
}

// An exact amount as text: a decimal when it terminates ("0.0415"), otherwise the reduced
// fraction ("83/2000"), so that no rounding hides in the display of an unrounded amount.
[[nodiscard]] inline std::string format_exact(const ratio<>& r) {
  int128 den = r.den();
  int twos = 0, fives = 0;
  while (den % 2 == 0) { den /= 2; ++twos; }
  while (den % 5 == 0) { den /= 5; ++fives; }
  if (den != 1) return detail::to_digits(r.num()) + "/" + detail::to_digits(r.den());
  const int digits = twos > fives ? twos : fives;
  if (digits > 36) return detail::to_digits(r.num()) + "/" + detail::to_digits(r.den());
  // num/den = num * (10^digits / den) / 10^digits exactly.
  const int256 scaled = int256(r.num()) * (detail::pow10<int256>(digits) / int256(r.den()));
  std::string s = detail::to_digits(detail::abs(scaled));
  if (digits > 0) {
    const auto d = static_cast<std::size_t>(digits);
    if (s.size() <= d) s.insert(0, d + 1 - s.size(), '0');
    s.insert(s.size() - d, 1, '.');
  }
  return scaled < 0 ? "-" + s : s;
}

}  // namespace gpurent
