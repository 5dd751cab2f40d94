// SPDX-License-Identifier: MIT
#pragma once
// ISO 4217 currencies and their minor units, and money: an exact count of minor units of
// one currency. Money of two currencies never adds: a compile error when the currency is a
// type (money<USD> + money<EUR>), a reported error when it is a value (money_value).

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <gpurent/core/error.hpp>

namespace gpurent {

// A currency: its ISO 4217 alphabetic code and the number of digits of its minor unit
// (USD 2, JPY 0, KWD 3, CLF 4).
struct currency {
  std::string_view code;
  int minor_units = 2;
  friend constexpr bool operator==(const currency& a, const currency& b) noexcept { return a.code == b.code; }
};

// The active ISO 4217 list (amendment of 2025: XCG replaces ANG, ZWG replaces ZWL,
// SLE replaces SLL; CUC withdrawn), sorted by code. Codes whose minor unit is "N.A."
// (precious metals, SDR, bond units, XTS, XXX) are not money here and are left out.
inline constexpr std::array iso4217 = std::to_array<currency>({
    {"AED", 2}, {"AFN", 2}, {"ALL", 2}, {"AMD", 2}, {"AOA", 2}, {"ARS", 2}, {"AUD", 2}, {"AWG", 2}, {"AZN", 2}, {"BAM", 2}, {"BBD", 2}, {"BDT", 2},
    {"BGN", 2}, {"BHD", 3}, {"BIF", 0}, {"BMD", 2}, {"BND", 2}, {"BOB", 2}, {"BOV", 2}, {"BRL", 2}, {"BSD", 2}, {"BTN", 2}, {"BWP", 2}, {"BYN", 2},
    {"BZD", 2}, {"CAD", 2}, {"CDF", 2}, {"CHE", 2}, {"CHF", 2}, {"CHW", 2}, {"CLF", 4}, {"CLP", 0}, {"CNY", 2}, {"COP", 2}, {"COU", 2}, {"CRC", 2},
    {"CUP", 2}, {"CVE", 2}, {"CZK", 2}, {"DJF", 0}, {"DKK", 2}, {"DOP", 2}, {"DZD", 2}, {"EGP", 2}, {"ERN", 2}, {"ETB", 2}, {"EUR", 2}, {"FJD", 2},
    {"FKP", 2}, {"GBP", 2}, {"GEL", 2}, {"GHS", 2}, {"GIP", 2}, {"GMD", 2}, {"GNF", 0}, {"GTQ", 2}, {"GYD", 2}, {"HKD", 2}, {"HNL", 2}, {"HTG", 2},
    {"HUF", 2}, {"IDR", 2}, {"ILS", 2}, {"INR", 2}, {"IQD", 3}, {"IRR", 2}, {"ISK", 0}, {"JMD", 2}, {"JOD", 3}, {"JPY", 0}, {"KES", 2}, {"KGS", 2},
    {"KHR", 2}, {"KMF", 0}, {"KPW", 2}, {"KRW", 0}, {"KWD", 3}, {"KYD", 2}, {"KZT", 2}, {"LAK", 2}, {"LBP", 2}, {"LKR", 2}, {"LRD", 2}, {"LSL", 2},
    {"LYD", 3}, {"MAD", 2}, {"MDL", 2}, {"MGA", 2}, {"MKD", 2}, {"MMK", 2}, {"MNT", 2}, {"MOP", 2}, {"MRU", 2}, {"MUR", 2}, {"MVR", 2}, {"MWK", 2},
    {"MXN", 2}, {"MXV", 2}, {"MYR", 2}, {"MZN", 2}, {"NAD", 2}, {"NGN", 2}, {"NIO", 2}, {"NOK", 2}, {"NPR", 2}, {"NZD", 2}, {"OMR", 3}, {"PAB", 2},
    {"PEN", 2}, {"PGK", 2}, {"PHP", 2}, {"PKR", 2}, {"PLN", 2}, {"PYG", 0}, {"QAR", 2}, {"RON", 2}, {"RSD", 2}, {"RUB", 2}, {"RWF", 0}, {"SAR", 2},
    {"SBD", 2}, {"SCR", 2}, {"SDG", 2}, {"SEK", 2}, {"SGD", 2}, {"SHP", 2}, {"SLE", 2}, {"SOS", 2}, {"SRD", 2}, {"SSP", 2}, {"STN", 2}, {"SVC", 2},
    {"SYP", 2}, {"SZL", 2}, {"THB", 2}, {"TJS", 2}, {"TMT", 2}, {"TND", 3}, {"TOP", 2}, {"TRY", 2}, {"TTD", 2}, {"TWD", 2}, {"TZS", 2}, {"UAH", 2},
    {"UGX", 0}, {"USD", 2}, {"USN", 2}, {"UYI", 0}, {"UYU", 2}, {"UYW", 4}, {"UZS", 2}, {"VED", 2}, {"VES", 2}, {"VND", 0}, {"VUV", 0}, {"WST", 2},
    {"XAF", 0}, {"XCD", 2}, {"XCG", 2}, {"XOF", 0}, {"XPF", 0}, {"YER", 2}, {"ZAR", 2}, {"ZMW", 2}, {"ZWG", 2},
});

static_assert(std::ranges::is_sorted(iso4217, {}, &currency::code));

// Codes of ISO 4217 that have no minor unit; named in the error when someone bills in them.
inline constexpr std::array<std::string_view, 13> iso4217_without_minor_unit = {"XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XDR",
                                                                                "XPD", "XPT", "XSU", "XTS", "XUA", "XXX"};

// The position of the currency with this code (upper case, exact) in iso4217, or -1.
// An index rather than a pointer, so it stays a constant expression under sanitizers.
[[nodiscard]] constexpr std::ptrdiff_t currency_index(std::string_view code) noexcept {
  auto it = std::ranges::lower_bound(iso4217, code, {}, &currency::code);
  return (it != iso4217.end() && it->code == code) ? it - iso4217.begin() : -1;
}

// The currency with this code (upper case, exact), or nothing.
[[nodiscard]] constexpr const currency* find_currency(std::string_view code) noexcept {
  const auto i = currency_index(code);
  return i < 0 ? nullptr : &iso4217[static_cast<std::size_t>(i)];
}

[[nodiscard]] inline expected<currency> parse_currency(std::string_view code) {
  if (const currency* c = find_currency(code)) return *c;
  if (std::ranges::find(iso4217_without_minor_unit, code) != iso4217_without_minor_unit.end()) {
    return make_error(error_code::invalid_argument, "currency", "\"" + std::string(code) + "\" has no minor unit in ISO 4217 and cannot be billed");
  }
  return make_error(error_code::unknown_name, "currency",
                    "unknown ISO 4217 currency code \"" + std::string(code) + "\" (codes are three upper-case letters, e.g. USD)");
}

namespace detail {
template <std::size_t N>
struct fixed_string {
  char chars[N]{};
  constexpr fixed_string(const char (&s)[N]) noexcept { std::copy_n(s, N, chars); }
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars, N - 1}; }
};
}  // namespace detail

// A currency as a type, for code that knows its currency at compile time.
template <detail::fixed_string Code>
struct iso_currency {
  static constexpr std::ptrdiff_t index = currency_index(Code.view());
  static_assert(index >= 0, "not an ISO 4217 currency with a minor unit");
  static constexpr std::string_view code = Code.view();
  static constexpr int minor_units = iso4217[static_cast<std::size_t>(index)].minor_units;
  [[nodiscard]] static constexpr currency value() noexcept { return iso4217[static_cast<std::size_t>(index)]; }
};

template <class C>
concept CurrencyType = requires {
  { C::code } -> std::convertible_to<std::string_view>;
  { C::minor_units } -> std::convertible_to<int>;
};

namespace currencies {
using USD = iso_currency<"USD">;
using EUR = iso_currency<"EUR">;
using GBP = iso_currency<"GBP">;
using JPY = iso_currency<"JPY">;
using CNY = iso_currency<"CNY">;
using KWD = iso_currency<"KWD">;
using CLF = iso_currency<"CLF">;
using CHF = iso_currency<"CHF">;
using INR = iso_currency<"INR">;
}  // namespace currencies

}  // namespace gpurent
