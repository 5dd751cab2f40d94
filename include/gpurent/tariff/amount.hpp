// SPDX-License-Identifier: MIT
#pragma once
// The fixed-point numbers of the rating hot path: prices, quantities and tier bounds are
// int64 counts of 10^-9 units ("nano"), products are 128-bit (core/wide.hpp) with every
// operation checked (overflow is reported, never wrapped). Whole-line results become core
// `ratio<>`s, which are rounded once at the tariff's rounding point.

#include <chrono>
#include <compare>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/time.hpp>
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

namespace detail {
// A count of one dimension's smallest unit: Tag names the dimension, Rep is int64 or i128.
// Construction from a raw number is explicit and nothing converts implicitly, so amounts of
// different dimensions never mix by accident; only like amounts add and compare, and the
// products that make sense are the free operators below. Sums that input can overflow use
// add_to / sub_from (false on overflow); + and - are for sums that cannot, and stop the
// program if one does (a bug, not bad input).
template <class Tag, class Rep>
class amount {
 public:
  using rep = Rep;
  constexpr amount() noexcept = default;
  explicit constexpr amount(Rep v) noexcept : v_(v) {}
  template <std::floating_point F>
  amount(F) = delete;  // no floating point near money
  [[nodiscard]] constexpr Rep raw() const noexcept { return v_; }

  friend constexpr bool operator==(amount, amount) noexcept = default;
  friend constexpr auto operator<=>(amount, amount) noexcept = default;
  friend constexpr amount operator+(amount a, amount b) noexcept {
    GPURENT_ASSERT(detail::add_to(a.v_, b.v_));
    return a;
  }
  friend constexpr amount operator-(amount a, amount b) noexcept {
    GPURENT_ASSERT(detail::sub_from(a.v_, b.v_));
    return a;
  }
  [[nodiscard]] friend constexpr bool add_to(amount& acc, amount v) noexcept { return detail::add_to(acc.v_, v.v_); }
  [[nodiscard]] friend constexpr bool sub_from(amount& acc, amount v) noexcept { return detail::sub_from(acc.v_, v.v_); }
  // Scaled by a plain count (GPUs, GFLOPS, packages). False on overflow.
  [[nodiscard]] friend constexpr bool scale_into(amount a, Rep k, amount& out) noexcept {
    Rep r{};
    if (!detail::mul_into(a.v_, k, r)) return false;
    out = amount(r);
    return true;
  }

 private:
  Rep v_{};
};

struct quantity_tag {};
struct price_tag {};
struct money_tag {};
struct unit_hours_tag {};
struct usage_tag {};
struct price_seconds_tag {};
struct cost_tag {};
}  // namespace detail

// Units of use (GPUs, MIG slices, servers, shares) in 10^-9: half a GPU is 500'000'000.
using nano_quantity = detail::amount<detail::quantity_tag, std::int64_t>;
// A unit price in 10^-9 of the currency, per unit of quantity per the rate's period (`per`;
// per unit-hour in tiers).
using nano_price = detail::amount<detail::price_tag, std::int64_t>;
// An amount of the currency in 10^-9, owed once: a flat fee, a package's price, a fee.
using nano_money = detail::amount<detail::money_tag, std::int64_t>;
// Unit-hours in 10^-9: tier bounds and package sizes.
using nano_unit_hours = detail::amount<detail::unit_hours_tag, std::int64_t>;
// Use in nano unit-seconds: quantity x seconds.
using nano_usage = detail::amount<detail::usage_tag, detail::i128>;
// A unit price integrated over time: nano price x seconds (a spot price over a record).
using price_seconds = detail::amount<detail::price_seconds_tag, detail::i128>;
// An exact amount times its denominator (nano price x nano usage); the denominator comes
// from the rate (rate::denominator(), usage_denominator()), so it is never added across rates.
using cost_numerator = detail::amount<detail::cost_tag, detail::i128>;

namespace detail {
// The products where the dimensions make sense. Two int64 factors always fit 128 bits:
// those products are exact and need no check; the rest report overflow.
[[nodiscard]] constexpr nano_usage operator*(nano_quantity q, seconds s) noexcept { return nano_usage(wide_mul(q.raw(), s.count())); }
[[nodiscard]] constexpr nano_usage operator*(seconds s, nano_quantity q) noexcept { return q * s; }
[[nodiscard]] constexpr price_seconds operator*(nano_price p, seconds s) noexcept { return price_seconds(wide_mul(p.raw(), s.count())); }
[[nodiscard]] constexpr price_seconds operator*(seconds s, nano_price p) noexcept { return p * s; }
[[nodiscard]] constexpr bool mul_into(price_seconds ps, nano_quantity q, cost_numerator& out) noexcept {
  i128 r = 0;
  if (!mul_into(ps.raw(), i128(q.raw()), r)) return false;
  out = cost_numerator(r);
  return true;
}
[[nodiscard]] constexpr bool mul_into(nano_price p, nano_usage u, cost_numerator& out) noexcept {
  i128 r = 0;
  if (!mul_into(i128(p.raw()), u.raw(), r)) return false;
  out = cost_numerator(r);
  return true;
}
}  // namespace detail

// Seconds per hour: tier bounds and package sizes are unit-hours, usage is unit-seconds.
inline constexpr std::int64_t seconds_per_hour = 3600;
[[nodiscard]] constexpr nano_usage usage_of(nano_unit_hours h) noexcept { return nano_usage(detail::wide_mul(h.raw(), seconds_per_hour)); }

// An exact amount: a cost numerator over its denominator, in major units.
[[nodiscard]] inline ratio<> exact_amount(cost_numerator c, const int128& denominator) { return ratio<>(detail::to_int128(c.raw()), denominator); }

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
[[nodiscard]] inline std::string format_nano(std::int64_t v) { return decimal<9>::from_raw(int128(v)).to_string(); }
template <class Tag>
[[nodiscard]] std::string format_nano(detail::amount<Tag, std::int64_t> v) {
  return format_nano(v.raw());
}

// An exact amount as text: a decimal when it terminates ("0.0415"), otherwise the reduced
// fraction ("83/2000"), so that no rounding hides in the display of an unrounded amount.
[[nodiscard]] inline std::string format_exact(const ratio<>& r) {
  int128 den = r.den();
  int twos = 0, fives = 0;
  while (den % 2 == 0) {
    den /= 2;
    ++twos;
  }
  while (den % 5 == 0) {
    den /= 5;
    ++fives;
  }
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

// The inverse of format_exact: a decimal ("0.0415", "-3") or a fraction ("83/2000") read exactly.
[[nodiscard]] inline expected<ratio<>> parse_exact(std::string_view s) {
  const auto bad = [&] {
    return make_error(error_code::parse_error, {},
                      "not an exact number: \"" + std::string(s) + "\" (expected a decimal such as 2.5 or a fraction such as 5/2)");
  };
  const auto digits = [](std::string_view d, int128& out) {
    if (d.empty() || d.size() > 36) return false;
    out = 0;
    for (char ch : d) {
      if (ch < '0' || ch > '9') return false;
      out = out * 10 + (ch - '0');
    }
    return true;
  };
  const bool minus = !s.empty() && s.front() == '-';
  const std::string_view body = s.substr(minus ? 1 : 0);
  int128 num = 0, den = 1;
  if (const auto slash = body.find('/'); slash != std::string_view::npos) {
    if (!digits(body.substr(0, slash), num) || !digits(body.substr(slash + 1), den) || den == 0) return bad();
  } else {
    const auto dot = body.find('.');
    const std::string_view whole = body.substr(0, dot), frac = dot == std::string_view::npos ? std::string_view{} : body.substr(dot + 1);
    int128 f = 0;
    if (!digits(whole, num) || (dot != std::string_view::npos && !digits(frac, f)) || whole.size() + frac.size() > 36) return bad();
    den = detail::pow10<int128>(static_cast<int>(frac.size()));
    num = num * den + f;
  }
  return ratio<>(minus ? -num : num, den);
}

}  // namespace gpurent
