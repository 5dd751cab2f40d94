// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <string>

#include <gpurent/core/money.hpp>

using namespace gpurent;

namespace {
// Rounds a decimal string (scale up to 18) to the currency's minor units with mode m.
std::string r(const char* amount, rounding_mode m, currency c = *find_currency("USD")) {
  auto d = decimal<18>::parse(amount);
  REQUIRE(d);
  return money_value::round(c, ratio<>(*d), m).to_string();
}
constexpr auto HE = rounding_mode::half_even, HU = rounding_mode::half_up, HD = rounding_mode::half_down, UP = rounding_mode::up,
               DN = rounding_mode::down;
}  // namespace

TEST_CASE("rounding: ties and negatives, per mode") {
  // The table: 1.005 USD: half_even 1.00, half_up 1.01; 1.015 half_even 1.02.
  CHECK(r("1.005", HE) == "1.00");
  CHECK(r("1.005", HU) == "1.01");
  CHECK(r("1.005", HD) == "1.00");
  CHECK(r("1.005", UP) == "1.01");
  CHECK(r("1.005", DN) == "1.00");
  CHECK(r("1.015", HE) == "1.02");
  CHECK(r("1.015", HU) == "1.02");
  CHECK(r("1.015", HD) == "1.01");
  CHECK(r("1.025", HE) == "1.02");
  // -0.005 in each mode: ties toward even (0), away from zero, toward zero.
  CHECK(r("-0.005", HE) == "0.00");
  CHECK(r("-0.005", HU) == "-0.01");
  CHECK(r("-0.005", HD) == "0.00");
  CHECK(r("-0.005", UP) == "-0.01");
  CHECK(r("-0.005", DN) == "0.00");
  CHECK(r("-0.015", HE) == "-0.02");
  // Not a tie: every mode but up/down goes to the nearest.
  CHECK(r("1.0051", HE) == "1.01");
  CHECK(r("1.0049", HU) == "1.00");
  CHECK(r("1.0049", UP) == "1.01");
  CHECK(r("-1.0049", UP) == "-1.01");
  CHECK(r("-1.0051", DN) == "-1.00");
  CHECK(r("2.50", HE) == "2.50");
}

TEST_CASE("rounding: JPY, KWD and CLF scales") {
  const currency jpy = *find_currency("JPY"), kwd = *find_currency("KWD"), clf = *find_currency("CLF");
  CHECK(jpy.minor_units == 0);
  CHECK(kwd.minor_units == 3);
  CHECK(clf.minor_units == 4);
  CHECK(r("47.34075", HE, jpy) == "47");
  CHECK(r("2.5", HE, jpy) == "2");
  CHECK(r("3.5", HE, jpy) == "4");
  CHECK(r("2.5", HU, jpy) == "3");
  CHECK(r("1.0005", HE, kwd) == "1.000");
  CHECK(r("1.0015", HE, kwd) == "1.002");
  CHECK(r("1.0005", HU, kwd) == "1.001");
  CHECK(r("0.00005", HE, clf) == "0.0000");
  CHECK(r("0.00015", HE, clf) == "0.0002");
  CHECK(r("-0.00005", HU, clf) == "-0.0001");
  // Chargebee's example: 4.4556 x 10.625 = 47.34075 -> USD 47.34 (half_even), JPY 47.
  auto a = decimal<4>::parse("4.4556");
  auto b = decimal<3>::parse("10.625");
  REQUIRE(a);
  REQUIRE(b);
  const auto prod = *a * *b;
  CHECK(prod.to_string() == "47.3407500");
  CHECK(money_value::round(*find_currency("USD"), ratio<>(prod), HE).to_string() == "47.34");
  CHECK(money_value::round(jpy, ratio<>(prod), HE).to_string() == "47");
}

TEST_CASE("rounding policies agree with the run-time modes") {
  for (long long num = -41; num <= 41; ++num) {
    for (long long den : {1LL, 2LL, 3LL, 4LL, 10LL, -4LL}) {
      const int128 n = num, d = den;
      CHECK(round_half_even::divide(n, d) == round_div(rounding_mode::half_even, n, d));
      CHECK(round_half_up::divide(n, d) == round_div(rounding_mode::half_up, n, d));
      CHECK(round_half_down::divide(n, d) == round_div(rounding_mode::half_down, n, d));
      CHECK(round_up::divide(n, d) == round_div(rounding_mode::up, n, d));
      CHECK(round_down::divide(n, d) == round_div(rounding_mode::down, n, d));
      // Each result is within one unit of the exact quotient, and up/down bracket it.
      const int128 lo = round_down::divide(n, d), hi = round_up::divide(n, d);
      CHECK(detail::abs(int128(hi - lo)) <= 1);
    }
  }
  CHECK(parse_enum<rounding_mode>("half_even") == rounding_mode::half_even);
  CHECK(parse_enum<rounding_mode>("half_down") == rounding_mode::half_down);
  CHECK_FALSE(parse_enum<rounding_mode>("bankers"));
}
