// SPDX-License-Identifier: MIT
#pragma once
// Fast checked integers for the rating hot path: `detail::i128`, a 128-bit signed integer,
// and checked add, subtract and multiply on it and on int64. Each check reports overflow
// as `false` and never wraps. Where the compiler has `__int128` (GCC and Clang on 64-bit
// targets), these are the builtin type and the `__builtin_*_overflow` intrinsics. Elsewhere,
// or when GPURENT_NO_INT128 is defined, they are a portable two's-complement type on two
// 64-bit limbs with the same range (-2^127 .. 2^127 - 1) and the same results, and checks
// written out in plain C++. Every build compiles the portable code, and tests/core/wide.test.cpp
// checks it (and the builtin one, where there is one) against Boost's 256-bit integer.
// Neither scripts/test nor CI defines GPURENT_NO_INT128: docs/core.md shows the build that
// runs every test on the portable code.
// This is the one header that names __int128 or an overflow builtin.

#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include <gpurent/core/integer.hpp>

#if defined(__SIZEOF_INT128__) && !defined(GPURENT_NO_INT128)
#define GPURENT_NATIVE_INT128 1
#else
#define GPURENT_NATIVE_INT128 0
#endif

namespace gpurent::detail {

// The portable implementation, always compiled so that the tests compare it with the
// builtin one wherever there is a builtin one.
namespace portable {

// 64 x 64 -> 128 bits, unsigned, from 32-bit halves.
struct u128_parts {
  std::uint64_t hi, lo;
};
[[nodiscard]] constexpr u128_parts umul64(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  return {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & 0xFFFFFFFFu)};
}

// A 128-bit two's-complement integer that behaves as the builtin one: implicit from any
// integer, explicit to one (truncating), wrapping + - *, truncating / and %.
class i128 {
 public:
  constexpr i128() noexcept = default;
  template <std::integral I>
  constexpr i128(I v) noexcept  // NOLINT(google-explicit-constructor): a builtin integer converts implicitly too
      : hi_(std::is_signed_v<I> && v < 0 ? ~std::uint64_t{0} : 0), lo_(static_cast<std::uint64_t>(v)) {}
  [[nodiscard]] static constexpr i128 from_limbs(std::uint64_t hi, std::uint64_t lo) noexcept {
    i128 r;
    r.hi_ = hi;
    r.lo_ = lo;
    return r;
  }
  [[nodiscard]] constexpr std::uint64_t high() const noexcept { return hi_; }
  [[nodiscard]] constexpr std::uint64_t low() const noexcept { return lo_; }
  [[nodiscard]] constexpr bool negative() const noexcept { return (hi_ >> 63) != 0; }
  template <std::integral I>
  requires(!std::same_as<I, bool>) explicit constexpr operator I() const noexcept { return static_cast<I>(lo_); }
  explicit constexpr operator bool() const noexcept { return (hi_ | lo_) != 0; }

  friend constexpr i128 operator+(i128 a, i128 b) noexcept {
    const std::uint64_t lo = a.lo_ + b.lo_;
    return from_limbs(a.hi_ + b.hi_ + (lo < a.lo_ ? 1 : 0), lo);
  }
  friend constexpr i128 operator-(i128 a, i128 b) noexcept { return from_limbs(a.hi_ - b.hi_ - (a.lo_ < b.lo_ ? 1 : 0), a.lo_ - b.lo_); }
  friend constexpr i128 operator-(i128 a) noexcept { return i128{} - a; }
  friend constexpr i128 operator*(i128 a, i128 b) noexcept {
    const u128_parts p = umul64(a.lo_, b.lo_);
    return from_limbs(p.hi + a.lo_ * b.hi_ + a.hi_ * b.lo_, p.lo);
  }
  friend constexpr i128 operator/(i128 a, i128 b) noexcept {
    i128 q, r;
    divide(a, b, q, r);
    return q;
  }
  friend constexpr i128 operator%(i128 a, i128 b) noexcept {
    i128 q, r;
    divide(a, b, q, r);
    return r;
  }
  constexpr i128& operator+=(i128 b) noexcept { return *this = *this + b; }
  constexpr i128& operator-=(i128 b) noexcept { return *this = *this - b; }
  constexpr i128& operator*=(i128 b) noexcept { return *this = *this * b; }
  constexpr i128& operator/=(i128 b) noexcept { return *this = *this / b; }
  constexpr i128& operator%=(i128 b) noexcept { return *this = *this % b; }
  friend constexpr bool operator==(i128, i128) noexcept = default;
  friend constexpr std::strong_ordering operator<=>(i128 a, i128 b) noexcept {
    if (a.hi_ != b.hi_) return static_cast<std::int64_t>(a.hi_) <=> static_cast<std::int64_t>(b.hi_);
    return a.lo_ <=> b.lo_;
  }

 private:
  // The magnitude as unsigned limbs (2^127 for -2^127, which the signed range cannot hold).
  [[nodiscard]] constexpr i128 magnitude() const noexcept { return negative() ? -*this : *this; }
  [[nodiscard]] static constexpr bool unsigned_less(i128 a, i128 b) noexcept { return a.hi_ != b.hi_ ? a.hi_ < b.hi_ : a.lo_ < b.lo_; }
  // Truncating division by shift and subtract on the magnitudes; b != 0.
  static constexpr void divide(i128 a, i128 b, i128& q, i128& r) noexcept {
    const i128 n = a.magnitude(), d = b.magnitude();
    q = i128{};
    r = i128{};
    for (int bit = 127; bit >= 0; --bit) {
      r = from_limbs((r.hi_ << 1) | (r.lo_ >> 63), (r.lo_ << 1) | ((bit >= 64 ? n.hi_ >> (bit - 64) : n.lo_ >> bit) & 1));
      if (!unsigned_less(r, d)) {
        r = r - d;
        if (bit >= 64)
          q.hi_ |= std::uint64_t{1} << (bit - 64);
        else
          q.lo_ |= std::uint64_t{1} << bit;
      }
    }
    if (a.negative() != b.negative()) q = -q;
    if (a.negative()) r = -r;
  }

  std::uint64_t hi_ = 0;
  std::uint64_t lo_ = 0;
};

[[nodiscard]] constexpr bool add_to(i128& acc, i128 v) noexcept {
  const i128 r = acc + v;
  if (acc.negative() == v.negative() && r.negative() != acc.negative()) return false;
  acc = r;
  return true;
}
[[nodiscard]] constexpr bool sub_from(i128& acc, i128 v) noexcept {
  const i128 r = acc - v;
  if (acc.negative() != v.negative() && r.negative() != acc.negative()) return false;
  acc = r;
  return true;
}
// The product of the magnitudes must fit 127 bits (128 with the sign for -2^127 exactly).
[[nodiscard]] constexpr bool mul_into(i128 a, i128 b, i128& out) noexcept {
  const bool neg = a.negative() != b.negative();
  const i128 ma = a.negative() ? -a : a, mb = b.negative() ? -b : b;
  if (ma.high() != 0 && mb.high() != 0) return false;
  const i128 big = ma.high() != 0 ? ma : mb, small = ma.high() != 0 ? mb : ma;  // small < 2^64
  const u128_parts low = umul64(big.low(), small.low()), high = umul64(big.high(), small.low());
  const std::uint64_t top = low.hi + high.lo;
  if (high.hi != 0 || top < low.hi) return false;
  constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;
  if (top > sign_bit || (top == sign_bit && (!neg || low.lo != 0))) return false;
  const i128 m = i128::from_limbs(top, low.lo);
  out = neg ? -m : m;
  return true;
}
[[nodiscard]] constexpr bool add_to(std::int64_t& acc, std::int64_t v) noexcept {
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max(), lo = std::numeric_limits<std::int64_t>::min();
  if ((v > 0 && acc > hi - v) || (v < 0 && acc < lo - v)) return false;
  acc += v;
  return true;
}
[[nodiscard]] constexpr bool sub_from(std::int64_t& acc, std::int64_t v) noexcept {
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max(), lo = std::numeric_limits<std::int64_t>::min();
  if ((v < 0 && acc > hi + v) || (v > 0 && acc < lo + v)) return false;
  acc -= v;
  return true;
}
[[nodiscard]] constexpr bool mul_into(std::int64_t a, std::int64_t b, std::int64_t& out) noexcept {
  const i128 p = i128(a) * i128(b);  // exact: two int64 factors fit 127 bits
  if (p < i128(std::numeric_limits<std::int64_t>::min()) || p > i128(std::numeric_limits<std::int64_t>::max())) return false;
  out = static_cast<std::int64_t>(p);
  return true;
}

[[nodiscard]] inline int128 to_int128(i128 v) {
  const i128 m = v.negative() ? -v : v;  // as unsigned limbs, 2^127 included
  int128 r(m.high());
  r <<= 64;
  r += m.low();
  return v.negative() ? int128(-r) : r;
}
[[nodiscard]] inline std::optional<i128> i128_of_magnitude(bool negative, const int128& magnitude) {
  const int128 high = magnitude >> 64;
  const i128 m = i128::from_limbs(high.convert_to<std::uint64_t>(), int128(magnitude - (high << 64)).convert_to<std::uint64_t>());
  return negative ? -m : m;
}

}  // namespace portable

#if GPURENT_NATIVE_INT128

__extension__ using i128 = __int128;

[[nodiscard]] constexpr bool add_to(i128& acc, i128 v) noexcept { return !__builtin_add_overflow(acc, v, &acc); }
[[nodiscard]] constexpr bool sub_from(i128& acc, i128 v) noexcept { return !__builtin_sub_overflow(acc, v, &acc); }
[[nodiscard]] constexpr bool mul_into(i128 a, i128 b, i128& out) noexcept { return !__builtin_mul_overflow(a, b, &out); }
[[nodiscard]] constexpr bool add_to(std::int64_t& acc, std::int64_t v) noexcept { return !__builtin_add_overflow(acc, v, &acc); }
[[nodiscard]] constexpr bool sub_from(std::int64_t& acc, std::int64_t v) noexcept { return !__builtin_sub_overflow(acc, v, &acc); }
[[nodiscard]] constexpr bool mul_into(std::int64_t a, std::int64_t b, std::int64_t& out) noexcept { return !__builtin_mul_overflow(a, b, &out); }

[[nodiscard]] inline int128 to_int128(i128 v) { return int128(v); }
[[nodiscard]] inline std::optional<i128> i128_of_magnitude(bool negative, const int128& magnitude) {
  const i128 m = magnitude.convert_to<i128>();
  return negative ? -m : m;
}

#else

using portable::add_to;
using portable::i128;
using portable::i128_of_magnitude;
using portable::mul_into;
using portable::sub_from;
using portable::to_int128;

#endif

// The exact product of two int64 values: it always fits 128 bits, so it needs no check.
[[nodiscard]] constexpr i128 wide_mul(std::int64_t a, std::int64_t b) noexcept { return i128(a) * i128(b); }

// The core's checked integer as an i128; nothing when it is beyond +-(2^127 - 1).
[[nodiscard]] inline std::optional<i128> to_i128(const int128& v) {
  static const int128 limit = (int128(1) << 127) - 1;
  const int128 m = abs(v);
  if (m > limit) return std::nullopt;
  return i128_of_magnitude(v < 0, m);
}

}  // namespace gpurent::detail
