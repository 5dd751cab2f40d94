// SPDX-License-Identifier: MIT
#pragma once
// The integers money is made of: Boost.Multiprecision fixed-width *checked* integers
// (expression templates off). Overflow is reported, never wrapped: Boost throws
// std::overflow_error, and an overflow policy turns that into the integrator's choice.

#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <boost/multiprecision/cpp_int.hpp>

#include <gpurent/core/error.hpp>

namespace gpurent {

// 128 bits of magnitude plus a sign: about +-3.4e38. At scale 9 (nano-units) that is more
// than 10^29 whole units: no real invoice comes near it, and if one does it is an error.
using int128 = boost::multiprecision::number<
    boost::multiprecision::cpp_int_backend<128, 128, boost::multiprecision::signed_magnitude, boost::multiprecision::checked, void>,
    boost::multiprecision::et_off>;
using int256 = boost::multiprecision::number<
    boost::multiprecision::cpp_int_backend<256, 256, boost::multiprecision::signed_magnitude, boost::multiprecision::checked, void>,
    boost::multiprecision::et_off>;

// The integer types money may be built on.
template <class I>
concept CheckedInteger = std::same_as<I, int128> || std::same_as<I, int256>;

// What happens on overflow: a policy names it. Both policies report what overflowed.
template <class P>
concept OverflowPolicy = requires(std::string_view what) {
  { P::name } -> std::convertible_to<std::string_view>;
  P::on_overflow(what);
};

// Throws gpurent::exception with error_code::overflow (the default).
struct throw_on_overflow {
  static constexpr std::string_view name = "throw";
  [[noreturn]] static void on_overflow(std::string_view what) {
    throw exception(error{error_code::overflow, {}, "overflow: " + std::string(what), {}});
  }
};

// Stops the program: for integrators who treat any overflow as a bug.
struct terminate_on_overflow {
  static constexpr std::string_view name = "terminate";
  [[noreturn]] static void on_overflow(std::string_view what) noexcept {
    std::fprintf(stderr, "gpurent: overflow: %.*s\n", static_cast<int>(what.size()), what.data());
    std::abort();
  }
};

static_assert(OverflowPolicy<throw_on_overflow>);
static_assert(OverflowPolicy<terminate_on_overflow>);

namespace detail {

// Runs f; a Boost overflow inside becomes the policy's overflow.
template <OverflowPolicy P, class F>
constexpr decltype(auto) checked(std::string_view what, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const std::overflow_error&) {
    P::on_overflow(what);
  } catch (const std::range_error&) {
    P::on_overflow(what);
  }
}

template <CheckedInteger I>
[[nodiscard]] inline I pow10(int n) {
  I r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

template <CheckedInteger I>
[[nodiscard]] inline I abs(const I& v) {
  return v < 0 ? I(-v) : v;
}

// Decimal digits of an integer, with a leading '-' when negative.
template <CheckedInteger I>
[[nodiscard]] inline std::string to_digits(I v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  if (neg) v = -v;
  std::string s;
  while (v != 0) {
    const I q = v / 10;
    const I d = v - q * 10;
    s.push_back(static_cast<char>('0' + d.template convert_to<int>()));
    v = q;
  }
  if (neg) s.push_back('-');
  return {s.rbegin(), s.rend()};
}

template <CheckedInteger I>
[[nodiscard]] inline I gcd(I a, I b) {
  a = abs(a);
  b = abs(b);
  while (b != 0) {
    I t = a % b;
    a = std::move(b);
    b = std::move(t);
  }
  return a;
}

}  // namespace detail
}  // namespace gpurent
