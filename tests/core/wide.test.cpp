// SPDX-License-Identifier: MIT
// core/wide.hpp: the portable 128-bit integer and every checked operation against an
// independent oracle (Boost's checked 256-bit integer), on edge values and random ones;
// where the compiler has __int128, the builtin results too.
#include <doctest/doctest.h>

#include <concepts>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gpurent/core/wide.hpp>

namespace test_core_wide {

using namespace gpurent;
using detail::portable::i128;
namespace portable = detail::portable;

#if !GPURENT_NATIVE_INT128
static_assert(std::same_as<detail::i128, i128>, "GPURENT_NO_INT128 builds run the rating on the portable type");
#endif

namespace {
const int256 two64 = int256(1) << 64;
const int256 max127 = (int256(1) << 127) - 1;
const int256 min127 = -(int256(1) << 127);

// The value of the limbs, computed without the type under test.
int256 value(i128 v) {
  const int256 u = int256(v.high()) * two64 + int256(v.low());
  return v.high() >> 63 != 0 ? int256(u - two64 * two64) : u;
}
bool fits(const int256& v) { return v >= min127 && v <= max127; }

// Edge values around every limb and sign boundary, then random values of every bit length.
std::vector<i128> samples() {
  std::vector<i128> v;
  for (std::uint64_t hi : {std::uint64_t{0}, std::uint64_t{1}, ~std::uint64_t{0}, std::uint64_t{1} << 63, (std::uint64_t{1} << 63) - 1}) {
    for (std::uint64_t lo : {std::uint64_t{0}, std::uint64_t{1}, ~std::uint64_t{0}, std::uint64_t{1} << 63, (std::uint64_t{1} << 63) - 1}) {
      v.push_back(i128::from_limbs(hi, lo));
    }
  }
  std::mt19937_64 rng(15);
  for (int k = 0; k < 200; ++k) {
    const int bits = static_cast<int>(rng() % 128) + 1;
    std::uint64_t hi = rng(), lo = rng();
    if (bits <= 64) {
      hi = 0;
      lo = bits == 64 ? lo : lo & ((std::uint64_t{1} << bits) - 1);
    } else {
      hi = bits == 128 ? hi : hi & ((std::uint64_t{1} << (bits - 64)) - 1);
    }
    const i128 x = i128::from_limbs(hi, lo);
    v.push_back(rng() % 2 == 0 ? x : -x);
  }
  return v;
}
}  // namespace

TEST_CASE("the portable i128: + - * / % and order agree with the oracle, checked operations report every overflow") {
  const std::vector<i128> xs = samples();
  for (const i128 a : xs) {
    for (const i128 b : xs) {
      const int256 va = value(a), vb = value(b);
      CAPTURE(detail::to_digits(va));
      CAPTURE(detail::to_digits(vb));
      REQUIRE((a < b) == (va < vb));
      REQUIRE((a == b) == (va == vb));
      i128 s = a, d = a, p = 0;
      const bool s_ok = portable::add_to(s, b), d_ok = portable::sub_from(d, b), p_ok = portable::mul_into(a, b, p);
      REQUIRE(s_ok == fits(va + vb));
      REQUIRE(d_ok == fits(va - vb));
      REQUIRE(p_ok == fits(va * vb));
      if (s_ok) REQUIRE(value(s) == va + vb);
      if (s_ok) REQUIRE(value(a + b) == va + vb);
      if (d_ok) REQUIRE(value(d) == va - vb);
      if (d_ok) REQUIRE(value(a - b) == va - vb);
      if (p_ok) REQUIRE(value(p) == va * vb);
      if (p_ok) REQUIRE(value(a * b) == va * vb);
      if (vb != 0 && fits(va / vb)) {
        REQUIRE(value(a / b) == va / vb);  // both truncate toward zero
        REQUIRE(value(a % b) == va % vb);
      }
#if GPURENT_NATIVE_INT128
      const auto native = [](i128 x) { return detail::i128(static_cast<std::int64_t>(x.high())) * (detail::i128(1) << 64) + detail::i128(x.low()); };
      detail::i128 ns = native(a), np = 0;
      REQUIRE(detail::add_to(ns, native(b)) == s_ok);
      REQUIRE(detail::mul_into(native(a), native(b), np) == p_ok);
      if (p_ok) REQUIRE(np == native(p));
#endif
    }
  }
}

TEST_CASE("the portable int64 checks agree with the oracle at the edges") {
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> xs = {lo, lo + 1, -3037000500, -3037000499, -2, -1, 0, 1, 2, 3037000499, 3037000500, hi - 1, hi};
  for (const std::int64_t a : xs) {
    for (const std::int64_t b : xs) {
      const int256 va(a), vb(b);
      const auto in64 = [&](const int256& v) { return v >= int256(lo) && v <= int256(hi); };
      std::int64_t s = a, d = a, p = 0;
      REQUIRE(portable::add_to(s, b) == in64(va + vb));
      REQUIRE(portable::sub_from(d, b) == in64(va - vb));
      REQUIRE(portable::mul_into(a, b, p) == in64(va * vb));
      if (in64(va * vb)) REQUIRE(int256(p) == va * vb);
      std::int64_t ns = a, np = 0;
      REQUIRE(detail::add_to(ns, b) == in64(va + vb));
      REQUIRE(detail::mul_into(a, b, np) == in64(va * vb));
      REQUIRE(int256(detail::to_int128(detail::wide_mul(a, b))) == va * vb);
    }
  }
}

TEST_CASE("i128 to the core's int128 and back, the range ends included") {
  for (const i128 a : samples()) {
    const int128 c = portable::to_int128(a);
    CHECK(int256(c) == value(a));
    const auto back = detail::to_i128(c);
    if (value(a) == min127) {
      CHECK_FALSE(back);  // the core's range is symmetric: -2^127 is not taken back
    } else {
      REQUIRE(back);
      CHECK(detail::to_int128(*back) == c);
    }
  }
  CHECK_FALSE(detail::to_i128(int128(max127) + 1));
  CHECK(detail::to_i128(int128(max127)));
  CHECK(detail::to_int128(detail::wide_mul(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::min())) ==
        int128(int256(1) << 126));
}

}  // namespace test_core_wide
