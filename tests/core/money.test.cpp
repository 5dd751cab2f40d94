// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include <gpurent/core/format.hpp>
#include <gpurent/core/money.hpp>

using namespace gpurent;
using namespace std::chrono_literals;
using USD = currencies::USD;

TEST_CASE("ISO 4217 table") {
  CHECK(iso4217.size() >= 150);
  CHECK(find_currency("USD")->minor_units == 2);
  CHECK(find_currency("JPY")->minor_units == 0);
  CHECK(find_currency("KRW")->minor_units == 0);
  CHECK(find_currency("BHD")->minor_units == 3);
  CHECK(find_currency("TND")->minor_units == 3);
  CHECK(find_currency("UYW")->minor_units == 4);
  CHECK(find_currency("usd") == nullptr);
  auto bad = parse_currency("ABC");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == error_code::unknown_name);
  auto gold = parse_currency("XAU");
  REQUIRE_FALSE(gold);
  CHECK(gold.error().message.find("no minor unit") != std::string::npos);
  static_assert(currencies::KWD::minor_units == 3);
  static_assert(currencies::CLF::minor_units == 4);
}

TEST_CASE("money parses at the currency's minor units only") {
  CHECK(money<USD>::parse("12.34")->minor_units() == 1234);
  CHECK(money<USD>::parse("12")->to_string() == "12.00");
  CHECK_FALSE(money<USD>::parse("12.345"));
  CHECK(money<currencies::JPY>::parse("47")->to_string() == "47");
  auto half_yen = money_value::parse(*find_currency("JPY"), "0.5");
  REQUIRE_FALSE(half_yen);
  CHECK(half_yen.error().message.find("JPY") != std::string::npos);
  CHECK(fmt::format("{}", *money<USD>::parse("-0.05")) == "-0.05 USD");
}

TEST_CASE("price * duration is exact money, rounded once") {
  const auto p = *price<USD>::parse("2.49", 1h);
  // AWS: 10 s at 2.49/h billed with a 60 s minimum: 0.0415 before rounding.
  const auto billed = p * 60s;
  CHECK(billed.value() == ratio<>(415, 10000));
  CHECK(fmt::format("{}", billed) == "83/2000 USD (exact)");
  CHECK(billed.round<round_half_even>().to_string() == "0.04");
  CHECK(billed.round<round_up>().to_string() == "0.05");
  // Stripe: 150 minutes at 10/h, rounded up to whole hours = 3 h = 30.00.
  const auto ten = *price<USD>::parse("10", 1h);
  CHECK((ten * 3h).round<round_half_even>().to_string() == "30.00");
  // 0.5 GPU for 90 minutes at 2.49/h = 1.8675 -> 1.87.
  const auto half = *decimal<1>::parse("0.5");
  CHECK(((p * 90min) * half).round<round_half_even>().to_string() == "1.87");
  CHECK(fmt::format("{}", p) == "2.490000000 USD/1h");
  CHECK_FALSE(price<USD>::parse("2.49", 0s));
}

TEST_CASE("money of two currencies as values is an error") {
  const auto usd = *money_value::parse(*find_currency("USD"), "1.00");
  const auto eur = *money_value::parse(*find_currency("EUR"), "1.00");
  auto sum = usd.plus(eur);
  REQUIRE_FALSE(sum);
  CHECK(sum.error().code == error_code::currency_mismatch);
  CHECK_THROWS_AS(usd + eur, gpurent::exception);
  CHECK((usd + usd).to_string() == "2.00");
}

TEST_CASE("money overflow is reported for +, - and *") {
  const auto top = money<USD>::from_minor(decimal<0>::parse("340282366920938463463374607431768211455")->raw());
  CHECK_THROWS_AS(top + money<USD>::from_minor(1), gpurent::exception);
  CHECK_THROWS_AS(-top - money<USD>::from_minor(1), gpurent::exception);
  CHECK_THROWS_AS(top * 3, gpurent::exception);
  const money_value mv(*find_currency("USD"), top.minor_units());
  auto r = mv.plus(money_value(*find_currency("USD"), 1));
  REQUIRE_FALSE(r);
  CHECK(r.error().code == error_code::overflow);
}

TEST_CASE("allocation: parts sum to the whole and stay within one unit of their share") {
  std::uint64_t seed = 20261202;
  INFO("seed = " << seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 2000; ++round) {
    const auto n = static_cast<std::size_t>(rng() % 12 + 1);
    std::vector<int128> w(n);
    int128 wsum = 0;
    for (auto& x : w) {
      x = static_cast<long long>(rng() % 1000);
      wsum += x;
    }
    if (wsum == 0) w[0] = 1, wsum = 1;
    const int128 total = static_cast<long long>(rng() % 2000001) - 1000000;
    auto parts = allocate(total, w);
    REQUIRE(parts);
    int128 s = 0;
    for (std::size_t i = 0; i < n; ++i) {
      s += (*parts)[i];
      // |part - total*w/W| < 1  <=>  |part*W - total*w| < W
      CHECK(detail::abs(int128((*parts)[i] * wsum - total * w[i])) < wsum);
    }
    CHECK(s == total);
  }
  // The textbook case: 100.00 in three equal parts is 33.34, 33.33, 33.33.
  const std::vector<int128> thirds{1, 1, 1};
  auto p = allocate(10000, thirds);
  REQUIRE(p);
  CHECK((*p)[0] == 3334);
  CHECK((*p)[1] == 3333);
  CHECK((*p)[2] == 3333);
  // A total and weights past 2^64 (a month of thousands of GPUs in nano unit-seconds): the
  // products pass 128 bits, the parts do not; it allocated nothing before (an overflow).
  const int128 big = int128(1) << 110;
  const std::vector<int128> wide{big / 3, big / 5, big / 7, 1};
  const int128 wide_total = big - 12345;
  auto wide_parts = allocate(wide_total, wide);
  REQUIRE(wide_parts);
  int256 wide_sum = 0, wide_w = 0;
  for (const int128& x : wide) wide_w += int256(x);
  for (std::size_t i = 0; i < wide.size(); ++i) {
    wide_sum += int256((*wide_parts)[i]);
    CHECK(detail::abs(int256(int256((*wide_parts)[i]) * wide_w - int256(wide_total) * int256(wide[i]))) < wide_w);
  }
  CHECK(wide_sum == int256(wide_total));
  const std::vector<int128> none{0, 0};
  CHECK_FALSE(allocate(5, none));
  const std::vector<int128> negative{1, -1};
  CHECK_FALSE(allocate(5, negative));
}
