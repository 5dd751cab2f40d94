// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <compare>
#include <random>
#include <string>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/format.hpp>

using namespace gpurent;

TEST_CASE("decimal parsing is exact") {
  auto a = decimal<4>::parse("2.49");
  REQUIRE(a);
  CHECK(a->raw() == 24900);
  CHECK(a->to_string() == "2.4900");
  auto b = decimal<4>::parse("-0.0001");
  REQUIRE(b);
  CHECK(b->raw() == -1);
  CHECK(b->to_string() == "-0.0001");
  CHECK(decimal<0>::parse("0042")->raw() == 42);
  CHECK(decimal<2>::parse("0")->to_string() == "0.00");
  CHECK(fmt::format("{:>8}", *decimal<2>::parse("1.5")) == "    1.50");
}

TEST_CASE("decimal parsing rejects what is not a plain decimal") {
  for (const char* bad : {"1,5", "1e3", "", " 1", "1 ", "+1", ".5", "5.", "1.2.3", "-", "--1", "0x10", "1_000", "١"}) {
    auto d = decimal<4>::parse(bad);
    CHECK_MESSAGE(!d, bad);
    if (!d) {
      CHECK(d.error().code == error_code::parse_error);
    }
  }
  auto many = decimal<4>::parse("1.00001");
  REQUIRE_FALSE(many);
  CHECK(many.error().message.find("more than 4 fractional digits") != std::string::npos);
}

TEST_CASE("decimal overflow is reported, never wrapped") {
  // int128 here is 128 bits of magnitude: 2^128 - 1 = 340282366920938463463374607431768211455.
  const std::string max = "340282366920938463463374607431768211455";
  auto ok = decimal<0>::parse(max);
  REQUIRE(ok);
  CHECK(ok->to_string() == max);
  auto over = decimal<0>::parse("340282366920938463463374607431768211456");
  REQUIRE_FALSE(over);
  CHECK(over.error().code == error_code::overflow);
  // Scaling the digits up also overflows: 10^38 at scale 2 does not fit.
  auto scaled = decimal<2>::parse("100000000000000000000000000000000000000");
  REQUIRE_FALSE(scaled);
  CHECK(scaled.error().code == error_code::overflow);
  auto huge = decimal<0>::parse(std::string(200, '9'));
  REQUIRE_FALSE(huge);
  CHECK(huge.error().code == error_code::overflow);

  const auto top = *ok;
  const auto one = decimal<0>(1);
  CHECK_THROWS_AS(top + one, gpurent::exception);
  CHECK_THROWS_AS((-top) - one, gpurent::exception);
  CHECK_THROWS_AS(top * 2, gpurent::exception);
  CHECK_THROWS_AS(top * top, gpurent::exception);
  try {
    (void)(top + one);
  } catch (const gpurent::exception& e) {
    CHECK(e.err().code == error_code::overflow);
  }
  // One below the edge is fine.
  CHECK((top - one + one) == top);
  CHECK(((-top) + one).sign() == -1);
}

TEST_CASE("decimal arithmetic, products and rescaling") {
  const auto a = *decimal<2>::parse("1.25");
  const auto b = *decimal<3>::parse("0.004");
  CHECK((a * b).to_string() == "0.00500");
  CHECK((a + a).to_string() == "2.50");
  CHECK((a - decimal<2>(2)).to_string() == "-0.75");
  CHECK(a.rescale<4>().to_string() == "1.2500");
  CHECK(a.rescale<1>().to_string() == "1.2");  // half_even: 1.25 -> 1.2
  CHECK((a.rescale<1, round_half_up>()).to_string() == "1.3");
  CHECK(a < decimal<2>(2));
  CHECK(decimal<2>(3).to_string() == "3.00");
}

TEST_CASE("ratios stay exact until rounded once") {
  // 2.49 per 3600 s, for 10 s: 24.9/3600 = 0.00691666...
  const ratio<> per_second(*decimal<2>::parse("2.49"));
  const ratio<> ten_s = per_second * ratio<>(10, 3600);
  CHECK(ten_s.num() == 83);
  CHECK(ten_s.den() == 12000);
  ratio<> sum;
  for (int i = 0; i < 360; ++i) sum += ten_s;  // 360 x 10 s = 1 h
  CHECK(sum == ratio<>(249, 100));
  CHECK(sum.round<2, round_half_even>().to_string() == "2.49");
  CHECK(ratio<>(1, 3) + ratio<>(1, 6) == ratio<>(1, 2));
  CHECK(ratio<>(1, 3) < ratio<>(1, 2));
  CHECK(ratio<>(2, -4) == ratio<>(-1, 2));
}

TEST_CASE("a ratio whose rounded value fits is rounded even when num x 10^S does not fit 128 bits (issue 32: 'overflow: ratio round')") {
  // num = 7 x 10^33 and den = 3 x 10^12: num x 10^9 is 7 x 10^42, past 2^127 (1.7 x 10^38),
  // yet num / den x 10^9 = 2.333... x 10^30 fits easily. Checked against the same division
  // done exactly by hand: 7 x 10^21 / 3 = 2333...3.33 -> half_even ...33 at 9 places.
  const int128 num = int128(7) * detail::pow10<int128>(33), den = int128(3) * detail::pow10<int128>(12);
  const ratio<> r(num, den);
  const auto d = r.round<9, round_half_even>();
  CHECK(d.raw() == int128(7) * detail::pow10<int128>(30) / 3);
  CHECK(r.round_to_digits(9, rounding_mode::up) == int128(7) * detail::pow10<int128>(30) / 3 + 1);
  CHECK(ratio<>(-num, den).round_to_digits(2, rounding_mode::half_even) == -(int128(7) * detail::pow10<int128>(23) / 3));
  // A result beyond 128 bits is still an overflow, named.
  const ratio<> huge(detail::pow10<int128>(37), 1);
  CHECK_THROWS_WITH_AS(static_cast<void>(huge.round<9, round_half_even>()), "overflow: ratio round", exception);
}

TEST_CASE("ratios compare exactly when their cross products need more than 128 bits (advise build-vs-rent: 'overflow in multiplication')") {
  // a = (10^37 + 1) / (10^36 + 7), b = (10^37 + 3) / (10^36 + 9): each cross product is about
  // 10^73. a - b = (10^37 + 1)(10^36 + 9) - (10^37 + 3)(10^36 + 7) over a positive
  // denominator = 10^37 x 2 - 2 x 10^36 - 12 > 0 (worked by hand), so a > b.
  const int128 p37 = detail::pow10<int128>(37), p36 = detail::pow10<int128>(36);
  const ratio<> a(p37 + 1, p36 + 7), b(p37 + 3, p36 + 9);
  CHECK(b < a);
  CHECK_FALSE(a < b);
  CHECK(a != b);
  CHECK((a <=> a) == std::strong_ordering::equal);
  CHECK(ratio<>(-p37 - 1, p36 + 7) < ratio<>(-p37 - 3, p36 + 9));  // signs flip the order
  // The slow twin: every comparison of random 128-bit ratios against the same in 256 bits.
  std::mt19937_64 rng(11);
  const auto draw = [&] {
    const int128 shift = detail::pow10<int128>(18);  // about 2^60
    const int128 n = int128(static_cast<std::int64_t>(rng())) * shift + int128(rng() >> 4);
    const int128 d = int128(rng() >> 1) * shift + int128(rng() >> 4) + 1;
    return ratio<>(n, d);
  };
  for (int i = 0; i < 2000; ++i) {
    const ratio<> x = draw(), y = draw();
    const int256 l = int256(x.num()) * int256(y.den()), r = int256(y.num()) * int256(x.den());
    CHECK((x < y) == (l < r));
    CHECK((x == y) == (l == r));
  }
}
