// SPDX-License-Identifier: MIT
#pragma once
// Rounding modes as policies: each is a stateless type whose static `divide` rounds the
// exact quotient num/den to an integer. A tariff that names its mode at run time uses
// `rounding_mode` and `round_div`, which dispatch to the same policies.

#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/integer.hpp>

namespace gpurent {

namespace detail {
// Truncated quotient q, remainder r, and how the exact value compares with q + sign/2:
// cmp < 0 below half, 0 exactly half, > 0 above half (all in magnitude).
template <CheckedInteger I>
struct division {
  I q;
  I r;
  int sign;  // sign of the exact quotient (-1, 0, +1)
  int half;  // compare(2|r|, |den|)
};

template <CheckedInteger I>
[[nodiscard]] inline division<I> divide(const I& num, const I& den) {
  GPURENT_ASSERT(den != 0);
  division<I> d{num / den, num % den, 0, 0};
  const bool neg = (num < 0) != (den < 0);
  d.sign = num == 0 ? 0 : (neg ? -1 : 1);
  const I twice_r = abs(d.r) * 2;
  const I abs_den = abs(den);
  d.half = twice_r < abs_den ? -1 : (twice_r == abs_den ? 0 : 1);
  return d;
}

// q moved one unit away from zero.
template <CheckedInteger I>
[[nodiscard]] inline I away(const division<I>& d) {
  return d.sign < 0 ? I(d.q - 1) : I(d.q + 1);
}
}  // namespace detail

// The requirements of a rounding policy: a name, and division with rounding.
template <class R>
concept RoundingPolicy = requires(const int128& a) {
  { R::name } -> std::convertible_to<std::string_view>;
  { R::divide(a, a) } -> std::same_as<int128>;
};

// Ties to the even neighbour (banker's rounding): 1.005 -> 1.00, 1.015 -> 1.02.
struct round_half_even {
  static constexpr std::string_view name = "half_even";
  template <CheckedInteger I>
  [[nodiscard]] static I divide(const I& num, const I& den) {
    auto d = detail::divide(num, den);
    if (d.r == 0) return d.q;
    if (d.half > 0 || (d.half == 0 && d.q % 2 != 0)) return detail::away(d);
    return d.q;
  }
};

// Ties away from zero: 1.005 -> 1.01, -0.005 -> -0.01.
struct round_half_up {
  static constexpr std::string_view name = "half_up";
  template <CheckedInteger I>
  [[nodiscard]] static I divide(const I& num, const I& den) {
    auto d = detail::divide(num, den);
    if (d.r == 0) return d.q;
    return d.half >= 0 ? detail::away(d) : d.q;
  }
};

// Ties toward zero: 1.005 -> 1.00, -0.005 -> 0.00.
struct round_half_down {
  static constexpr std::string_view name = "half_down";
  template <CheckedInteger I>
  [[nodiscard]] static I divide(const I& num, const I& den) {
    auto d = detail::divide(num, den);
    if (d.r == 0) return d.q;
    return d.half > 0 ? detail::away(d) : d.q;
  }
};

// Away from zero (ceiling of the magnitude): 1.001 -> 1.01.
struct round_up {
  static constexpr std::string_view name = "up";
  template <CheckedInteger I>
  [[nodiscard]] static I divide(const I& num, const I& den) {
    auto d = detail::divide(num, den);
    return d.r == 0 ? d.q : detail::away(d);
  }
};

// Toward zero (truncation): 1.009 -> 1.00.
struct round_down {
  static constexpr std::string_view name = "down";
  template <CheckedInteger I>
  [[nodiscard]] static I divide(const I& num, const I& den) {
    return detail::divide(num, den).q;
  }
};

static_assert(RoundingPolicy<round_half_even>);
static_assert(RoundingPolicy<round_half_up>);
static_assert(RoundingPolicy<round_half_down>);
static_assert(RoundingPolicy<round_up>);
static_assert(RoundingPolicy<round_down>);

// The same modes as a value, for tariffs that choose at run time.
enum class rounding_mode : std::uint8_t { half_even, half_up, half_down, up, down };

template <>
struct enum_names<rounding_mode> {
  static constexpr enum_entry<rounding_mode> entries[] = {{rounding_mode::half_even, round_half_even::name},
                                                          {rounding_mode::half_up, round_half_up::name},
                                                          {rounding_mode::half_down, round_half_down::name},
                                                          {rounding_mode::up, round_up::name},
                                                          {rounding_mode::down, round_down::name}};
};

// num/den rounded to an integer with the mode. A switch, not a virtual call.
template <CheckedInteger I>
[[nodiscard]] inline I round_div(rounding_mode m, const I& num, const I& den) {
  switch (m) {
    case rounding_mode::half_even: return round_half_even::divide(num, den);
    case rounding_mode::half_up: return round_half_up::divide(num, den);
    case rounding_mode::half_down: return round_half_down::divide(num, den);
    case rounding_mode::up: return round_up::divide(num, den);
    case rounding_mode::down: return round_down::divide(num, den);
  }
  GPURENT_ASSERT(false);
  return I{};
}

}  // namespace gpurent
