// SPDX-License-Identifier: MIT
#pragma once
// Exact decimals: a checked integer count of 10^-Scale units, with the scale fixed at
// compile time. Parsing is exact or an error: a value that needs more digits than the
// scale holds is rejected, never rounded behind the caller's back.

#include <compare>
#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include <gpurent/core/error.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/rounding.hpp>

namespace gpurent {

template <int Scale, CheckedInteger Rep = int128, OverflowPolicy Overflow = throw_on_overflow>
requires(Scale >= 0 && Scale <= 18) class decimal {
 public:
  using rep = Rep;
  using overflow_policy = Overflow;
  static constexpr int scale = Scale;

  decimal() = default;
  // From a whole number of units: decimal<2>(3) is 3.00.
  template <std::integral I>
  explicit decimal(I units) : raw_(detail::checked<Overflow>("decimal from integer", [&] { return Rep(units) * one(); })) {}
  // From a count of 10^-Scale units: from_raw(249) at scale 2 is 2.49.
  [[nodiscard]] static decimal from_raw(Rep raw) {
    decimal d;
    d.raw_ = std::move(raw);
    return d;
  }
  [[nodiscard]] const Rep& raw() const noexcept { return raw_; }
  [[nodiscard]] static Rep one() { return detail::pow10<Rep>(Scale); }

  // Parses "-12.345": an optional '-', digits, optionally '.' and digits. No '+', no
  // exponent, no separators, no spaces, no more fractional digits than Scale.
  [[nodiscard]] static expected<decimal> parse(std::string_view s);

  [[nodiscard]] std::string to_string() const {
    std::string digits = detail::to_digits(detail::abs(raw_));
    if constexpr (Scale > 0) {
      if (digits.size() <= static_cast<std::size_t>(Scale)) digits.insert(0, static_cast<std::size_t>(Scale) + 1 - digits.size(), '0');
      digits.insert(digits.size() - static_cast<std::size_t>(Scale), 1, '.');
    }
    return raw_ < 0 ? "-" + digits : digits;
  }

  // The same value at another scale: exact when widening, rounded with R when narrowing.
  template <int S2, RoundingPolicy R = round_half_even>
  [[nodiscard]] decimal<S2, Rep, Overflow> rescale() const {
    return detail::checked<Overflow>("decimal rescale", [&] {
      if constexpr (S2 >= Scale) {
        return decimal<S2, Rep, Overflow>::from_raw(raw_ * detail::pow10<Rep>(S2 - Scale));
      } else {
        return decimal<S2, Rep, Overflow>::from_raw(R::divide(raw_, detail::pow10<Rep>(Scale - S2)));
      }
    });
  }

  [[nodiscard]] bool is_zero() const noexcept { return raw_ == 0; }
  [[nodiscard]] int sign() const noexcept { return raw_ < 0 ? -1 : (raw_ == 0 ? 0 : 1); }

  friend decimal operator+(const decimal& a, const decimal& b) {
    return from_raw(detail::checked<Overflow>("decimal +", [&] { return Rep(a.raw_ + b.raw_); }));
  }
  friend decimal operator-(const decimal& a, const decimal& b) {
    return from_raw(detail::checked<Overflow>("decimal -", [&] { return Rep(a.raw_ - b.raw_); }));
  }
  friend decimal operator-(const decimal& a) { return from_raw(Rep(-a.raw_)); }
  friend decimal operator*(const decimal& a, std::int64_t k) {
    return from_raw(detail::checked<Overflow>("decimal *", [&] { return Rep(a.raw_ * Rep(k)); }));
  }
  friend decimal operator*(std::int64_t k, const decimal& a) { return a * k; }
  // The exact product: scales add.
  template <int S2>
  requires(Scale + S2 <= 18) friend decimal<Scale + S2, Rep, Overflow> operator*(const decimal& a, const decimal<S2, Rep, Overflow>& b) {
    return decimal<Scale + S2, Rep, Overflow>::from_raw(detail::checked<Overflow>("decimal *", [&] { return Rep(a.raw_ * b.raw()); }));
  }
  decimal& operator+=(const decimal& b) { return *this = *this + b; }
  decimal& operator-=(const decimal& b) { return *this = *this - b; }

  friend bool operator==(const decimal& a, const decimal& b) { return a.raw_ == b.raw_; }
  friend std::strong_ordering operator<=>(const decimal& a, const decimal& b) {
    return a.raw_ < b.raw_ ? std::strong_ordering::less : (a.raw_ == b.raw_ ? std::strong_ordering::equal : std::strong_ordering::greater);
  }

  // Floating point never becomes money; delete the tempting conversions.
  decimal(double) = delete;
  decimal(float) = delete;

 private:
  Rep raw_{0};
};

template <int Scale, CheckedInteger Rep, OverflowPolicy Overflow>
requires(Scale >= 0 && Scale <= 18) expected<decimal<Scale, Rep, Overflow>> decimal<Scale, Rep, Overflow>::parse(std::string_view s) {
  // The text as the error messages quote it, built only when there is an error.
  const auto shown = [s] {
    std::string q(1, '"');
    q.append(s.substr(0, 64));
    q.append(s.size() > 64 ? "...\"" : "\"");
    return q;
  };
  if (s.empty()) return make_error(error_code::parse_error, {}, "empty decimal");
  std::size_t i = 0;
  const bool neg = s[0] == '-';
  if (neg) ++i;
  Rep v = 0;
  int int_digits = 0, frac_digits = 0;
  bool dot = false;
  try {
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '.') {
        if (dot) return make_error(error_code::parse_error, {}, "more than one '.' in " + shown());
        if (int_digits == 0) return make_error(error_code::parse_error, {}, "no digit before '.' in " + shown());
        dot = true;
        continue;
      }
      if (c < '0' || c > '9') {
        return make_error(error_code::parse_error, {}, "not a decimal number: " + shown() + " (expected digits with an optional '-' and '.')");
      }
      if (dot) {
        if (++frac_digits > Scale) {
          return make_error(error_code::parse_error, {}, shown() + " has more than " + std::to_string(Scale) + " fractional digits");
        }
      } else {
        ++int_digits;
      }
      v = v * 10 + (c - '0');
    }
  } catch (const std::overflow_error&) {
    return make_error(error_code::overflow, {}, shown() + " is too large");
  }
  if (int_digits == 0) return make_error(error_code::parse_error, {}, "no digits in " + shown());
  if (dot && frac_digits == 0) return make_error(error_code::parse_error, {}, "no digit after '.' in " + shown());
  try {
    v *= detail::pow10<Rep>(Scale - frac_digits);
  } catch (const std::overflow_error&) {
    return make_error(error_code::overflow, {}, shown() + " is too large");
  }
  return from_raw(neg ? Rep(-v) : v);
}

// Exact ratio of two checked integers, kept unrounded until one rounding at a stated
// point (for "2.49 per 3600 seconds"). The denominator is positive and the ratio reduced.
template <CheckedInteger Rep = int128, OverflowPolicy Overflow = throw_on_overflow>
class ratio {
 public:
  using rep = Rep;
  ratio() = default;
  ratio(Rep num, Rep den) {
    GPURENT_ASSERT(den != 0);
    if (den < 0) {
      num = -num;
      den = -den;
    }
    const Rep g = detail::gcd(num, den);
    if (g > 1) {
      num /= g;
      den /= g;
    }
    num_ = std::move(num);
    den_ = std::move(den);
  }
  template <int S>
  explicit ratio(const decimal<S, Rep, Overflow>& d) : ratio(d.raw(), decimal<S, Rep, Overflow>::one()) {}

  [[nodiscard]] const Rep& num() const noexcept { return num_; }
  [[nodiscard]] const Rep& den() const noexcept { return den_; }

  friend ratio operator+(const ratio& a, const ratio& b) {
    return detail::checked<Overflow>("ratio +", [&] {
      if (a.den_ == b.den_) return ratio(a.num_ + b.num_, a.den_);
      const Rep g = detail::gcd(a.den_, b.den_);
      const Rep bd = b.den_ / g;
      return ratio(a.num_ * bd + b.num_ * (a.den_ / g), a.den_ * bd);
    });
  }
  friend ratio operator-(const ratio& a) { return ratio(Rep(-a.num_), a.den_); }
  friend ratio operator-(const ratio& a, const ratio& b) { return a + (-b); }
  friend ratio operator*(const ratio& a, const ratio& b) {
    return detail::checked<Overflow>("ratio *", [&] {
      const Rep g1 = detail::gcd(a.num_, b.den_), g2 = detail::gcd(b.num_, a.den_);
      const Rep n1 = g1 > 1 ? Rep(a.num_ / g1) : a.num_, d2 = g1 > 1 ? Rep(b.den_ / g1) : b.den_;
      const Rep n2 = g2 > 1 ? Rep(b.num_ / g2) : b.num_, d1 = g2 > 1 ? Rep(a.den_ / g2) : a.den_;
      return ratio(n1 * n2, d1 * d2);
    });
  }
  ratio& operator+=(const ratio& b) { return *this = *this + b; }

  // Rounded once to a count of 10^-S units with the policy.
  template <int S, RoundingPolicy R>
  [[nodiscard]] decimal<S, Rep, Overflow> round() const {
    return decimal<S, Rep, Overflow>::from_raw(
        scaled_round(S, [](const auto& n, const auto& d) -> decltype(R::divide(n, d)) { return R::divide(n, d); }));
  }
  // The same with a run-time mode, to `digits` fractional digits, as a raw count.
  [[nodiscard]] Rep round_to_digits(int digits, rounding_mode m) const {
    return scaled_round(digits, [m](const auto& n, const auto& d) { return round_div(m, n, d); });
  }

  friend bool operator==(const ratio& a, const ratio& b) { return a.num_ == b.num_ && a.den_ == b.den_; }
  // Exact for any two ratios: the cross products of two 128-bit ratios may need 254 bits,
  // and are then formed in 256 (a comparison never overflows).
  friend std::strong_ordering operator<=>(const ratio& a, const ratio& b) {
    const auto order = [](const auto& l, const auto& r) {
      return l < r ? std::strong_ordering::less : (l == r ? std::strong_ordering::equal : std::strong_ordering::greater);
    };
    if constexpr (std::same_as<Rep, int128>) {
      try {
        return order(Rep(a.num_ * b.den_), Rep(b.num_ * a.den_));
      } catch (const std::overflow_error&) {
      } catch (const std::range_error&) {
      }
      return order(int256(a.num_) * int256(b.den_), int256(b.num_) * int256(a.den_));
    } else {
      return order(Rep(a.num_ * b.den_), Rep(b.num_ * a.den_));
    }
  }

 private:
  // num * 10^digits / den, rounded by div(n, d). The product may need more bits than the
  // result (a large numerator over a large denominator): then, for 128-bit ratios and a
  // policy that divides 256-bit integers too (the built-in ones), it is formed in 256 bits, so
  // a result that fits is never refused; only a result beyond Rep is an overflow.
  template <class Div>
  [[nodiscard]] Rep scaled_round(int digits, Div div) const {
    try {
      return div(Rep(num_ * detail::pow10<Rep>(digits)), den_);
    } catch (const std::overflow_error&) {
    } catch (const std::range_error&) {
    }
    return detail::checked<Overflow>("ratio round", [&] {
      if constexpr (std::same_as<Rep, int128> && std::is_invocable_v<Div&, const int256&, const int256&>) {  // a policy may divide int128 only
        return div(int256(num_) * detail::pow10<int256>(digits), int256(den_)).template convert_to<Rep>();
      } else {
        return div(Rep(num_ * detail::pow10<Rep>(digits)), den_);
      }
    });
  }

  Rep num_{0};
  Rep den_{1};
};

}  // namespace gpurent
