// SPDX-License-Identifier: MIT
// Fuzz target: decimal<S>::parse (S = 0, 2, 9, 18) and money parsing (money_value::parse in
// every ISO 4217 currency, money<USD>::parse). Each result is checked against an independent
// string oracle: the grammar -?[0-9]+(\.[0-9]{1,S})?, the exact value, and overflow exactly
// when the magnitude passes 2^128 - 1. Accepted values must print and parse back unchanged.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <gpurent/core/core.hpp>

#include "fuzz.hpp"

namespace {

using gpurent::error_code;

// The magnitude limit of gpurent::int128 (128 bits of magnitude plus a sign).
constexpr std::string_view max_magnitude = "340282366920938463463374607431768211455";

struct oracle {
  bool grammar = false;   // the text is a decimal with at most `scale` fractional digits
  bool overflow = false;  // ...whose value needs more than 128 bits
  std::string raw;        // the value in 10^-scale units, as parse's raw() prints
};

oracle expect(std::string_view s, int scale) {
  oracle o;
  std::size_t i = 0;
  const bool neg = !s.empty() && s[0] == '-';
  if (neg) ++i;
  std::string whole, frac;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') whole += s[i++];
  if (whole.empty()) return o;
  if (i < s.size()) {
    if (s[i] != '.') return o;
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') frac += s[i++];
    if (frac.empty() || i != s.size() || frac.size() > static_cast<std::size_t>(scale)) return o;
  }
  o.grammar = true;
  std::string digits = whole + frac + std::string(static_cast<std::size_t>(scale) - frac.size(), '0');
  const std::size_t nz = digits.find_first_not_of('0');
  digits = nz == std::string::npos ? "0" : digits.substr(nz);
  o.overflow = digits.size() > max_magnitude.size() || (digits.size() == max_magnitude.size() && digits > max_magnitude);
  o.raw = (neg && digits != "0") ? "-" + digits : digits;
  return o;
}

template <int S>
void check_decimal(std::string_view s) {
  using dec = gpurent::decimal<S>;
  const auto r = dec::parse(s);
  const oracle o = expect(s, S);
  if (!o.grammar) {
    FUZZ_CHECK(!r, "accepted text outside the decimal grammar");
    return;
  }
  if (o.overflow) {
    FUZZ_CHECK(!r && r.error().code == error_code::overflow, "a value beyond 128 bits was not reported as overflow");
    return;
  }
  FUZZ_CHECK(r.has_value(), r ? std::string{} : r.error().describe());
  FUZZ_CHECK(gpurent::detail::to_digits(r->raw()) == o.raw, "parsed value differs from the oracle");
  const std::string printed = r->to_string();
  const auto again = dec::parse(printed);
  FUZZ_CHECK(again && *again == *r, "to_string does not parse back to the same value: " + printed);
}

void check_money(std::string_view s, const gpurent::currency& c) {
  const auto m = gpurent::money_value::parse(c, s);
  const oracle o = expect(s, 18);  // money parses at scale 18, then requires whole minor units
  if (!o.grammar) {
    FUZZ_CHECK(!m, "money accepted text outside the grammar");
    return;
  }
  if (o.overflow) {
    FUZZ_CHECK(!m && m.error().code == error_code::overflow, "money overflow not reported as overflow");
    return;
  }
  // The digits below the minor unit must all be zero.
  const std::size_t cut = static_cast<std::size_t>(18 - c.minor_units);
  const std::string& raw = o.raw;
  const bool neg = raw[0] == '-';
  const std::string mag = neg ? raw.substr(1) : raw;
  const bool exact = mag.size() <= cut ? mag == "0" || mag.find_first_not_of('0') == std::string::npos
                                       : mag.substr(mag.size() - cut).find_first_not_of('0') == std::string::npos;
  if (!exact) {
    FUZZ_CHECK(!m, "money accepted more fractional digits than the currency has");
    return;
  }
  FUZZ_CHECK(m.has_value(), m ? std::string{} : m.error().describe());
  std::string minor = mag.size() <= cut ? "0" : mag.substr(0, mag.size() - cut);
  if (neg && minor != "0") minor = "-" + minor;
  FUZZ_CHECK(gpurent::detail::to_digits(m->minor_units()) == minor, "money minor units differ from the oracle");
  FUZZ_CHECK(m->currency_value() == c);
  const std::string printed = m->to_string();
  const auto again = gpurent::money_value::parse(c, printed);
  FUZZ_CHECK(again && *again == *m, "money does not parse back: " + printed);
  // Adding and subtracting the same amount is exact (or an overflow error, never a wrap).
  const auto twice = m->plus(*m);
  if (twice) {
    const auto back = twice->minus(*m);
    FUZZ_CHECK(back && *back == *m, "money (m + m) - m != m");
  } else {
    FUZZ_CHECK(twice.error().code == error_code::overflow);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpurent_fuzz::bytes_reader in(data, size);
  const std::uint8_t sel = in.byte();
  const std::string_view s = in.rest();
  switch (sel % 4) {
    case 0: check_decimal<0>(s); break;
    case 1: check_decimal<2>(s); break;
    case 2: check_decimal<9>(s); break;
    default: check_decimal<18>(s); break;
  }
  const auto& table = gpurent::iso4217;
  check_money(s, table[static_cast<std::size_t>(sel) % table.size()]);
  const auto usd = gpurent::money<gpurent::currencies::USD>::parse(s);
  const auto usd_value = gpurent::money_value::parse(gpurent::currencies::USD::value(), s);
  FUZZ_CHECK(usd.has_value() == usd_value.has_value(), "money<USD> and money_value(USD) disagree");
  if (usd) FUZZ_CHECK(usd->minor_units() == usd_value->minor_units());
  return 0;
}
