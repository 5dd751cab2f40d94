// SPDX-License-Identifier: MIT
#pragma once
// Money: an exact, checked count of a currency's minor units. Prices are exact decimals per
// a stated duration; price * duration is an exact (unrounded) amount that becomes money
// through exactly one rounding, with a named policy.

#include <algorithm>
#include <chrono>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/rounding.hpp>

namespace gpurent {

namespace detail {
// "12.34" from 1234 minor units with 2 digits.
inline std::string format_minor(const int128& minor, int digits) {
  std::string s = to_digits(abs(minor));
  if (digits > 0) {
    const auto d = static_cast<std::size_t>(digits);
    if (s.size() <= d) s.insert(0, d + 1 - s.size(), '0');
    s.insert(s.size() - d, 1, '.');
  }
  return minor < 0 ? "-" + s : s;
}

// Parses an amount with at most `digits` fractional digits into minor units.
inline expected<int128> parse_minor(std::string_view s, int digits, std::string_view code) {
  auto d = decimal<18>::parse(s);
  if (!d) return unexpected(d.error());
  const int128 unit = pow10<int128>(18 - digits);
  if (d->raw() % unit != 0) {
    return make_error(error_code::parse_error, {},
                      "\"" + std::string(s) + "\" has more fractional digits than " + std::string(code) + " has minor-unit digits (" +
                          std::to_string(digits) + ")");
  }
  return int128(d->raw() / unit);
}
}  // namespace detail

// Money in a currency known at compile time.
template <CurrencyType C, OverflowPolicy Overflow = throw_on_overflow>
class money {
 public:
  using currency_type = C;
  using overflow_policy = Overflow;
  money() = default;
  [[nodiscard]] static money from_minor(int128 minor) {
    money m;
    m.minor_ = std::move(minor);
    return m;
  }
  template <std::integral I>
  [[nodiscard]] static money from_minor(I minor) {
    return from_minor(int128(minor));
  }
  // "12.34" in USD; more fractional digits than the currency has is an error.
  [[nodiscard]] static expected<money> parse(std::string_view s) {
    auto m = detail::parse_minor(s, C::minor_units, C::code);
    if (!m) return unexpected(m.error());
    return from_minor(*m);
  }
  [[nodiscard]] const int128& minor_units() const noexcept { return minor_; }
  [[nodiscard]] static constexpr currency currency_value() noexcept { return C::value(); }
  [[nodiscard]] std::string to_string() const { return detail::format_minor(minor_, C::minor_units); }

  friend money operator+(const money& a, const money& b) {
    return from_minor(detail::checked<Overflow>("money +", [&] { return int128(a.minor_ + b.minor_); }));
  }
  friend money operator-(const money& a, const money& b) {
    return from_minor(detail::checked<Overflow>("money -", [&] { return int128(a.minor_ - b.minor_); }));
  }
  friend money operator-(const money& a) { return from_minor(int128(-a.minor_)); }
  template <std::integral I>
  friend money operator*(const money& a, I k) {
    return from_minor(detail::checked<Overflow>("money *", [&] { return int128(a.minor_ * int128(k)); }));
  }
  template <std::integral I>
  friend money operator*(I k, const money& a) {
    return a * k;
  }
  money& operator+=(const money& b) { return *this = *this + b; }
  money& operator-=(const money& b) { return *this = *this - b; }
  friend bool operator==(const money& a, const money& b) { return a.minor_ == b.minor_; }
  friend std::strong_ordering operator<=>(const money& a, const money& b) {
    return a.minor_ < b.minor_ ? std::strong_ordering::less : (a.minor_ == b.minor_ ? std::strong_ordering::equal : std::strong_ordering::greater);
  }

 private:
  int128 minor_{0};
};

// An exact amount of a compile-time currency, in major units, not yet rounded.
template <CurrencyType C, OverflowPolicy Overflow = throw_on_overflow>
class exact_money {
 public:
  exact_money() = default;
  explicit exact_money(ratio<int128, Overflow> r) : r_(std::move(r)) {}
  [[nodiscard]] const ratio<int128, Overflow>& value() const noexcept { return r_; }
  // The one rounding: to the currency's minor units with policy R.
  template <RoundingPolicy R>
  [[nodiscard]] money<C, Overflow> round() const {
    return money<C, Overflow>::from_minor(r_.template round<C::minor_units, R>().raw());
  }
  friend exact_money operator+(const exact_money& a, const exact_money& b) { return exact_money(a.r_ + b.r_); }
  exact_money& operator+=(const exact_money& b) { return *this = *this + b; }
  // Scaled by an exact quantity (0.5 GPU, 3 servers).
  template <int S>
  friend exact_money operator*(const exact_money& a, const decimal<S, int128, Overflow>& q) {
    return exact_money(a.r_ * ratio<int128, Overflow>(q));
  }
  template <std::integral I>
  friend exact_money operator*(const exact_money& a, I k) {
    return exact_money(a.r_ * ratio<int128, Overflow>(int128(k), int128(1)));
  }
  friend bool operator==(const exact_money&, const exact_money&) = default;

 private:
  ratio<int128, Overflow> r_{};
};

// A price: an exact amount of C (9 fractional digits) for each `per` of use.
// price * duration = exact_money; the quotient by `per` is never rounded early.
template <CurrencyType C, OverflowPolicy Overflow = throw_on_overflow>
class price {
 public:
  using amount_type = decimal<9, int128, Overflow>;
  price(amount_type amount, std::chrono::seconds per) : amount_(std::move(amount)), per_(per) { GPURENT_ASSERT(per.count() > 0); }
  [[nodiscard]] static expected<price> parse(std::string_view amount, std::chrono::seconds per) {
    if (per.count() <= 0) return make_error(error_code::invalid_argument, "per", "a price's period must be positive");
    auto a = amount_type::parse(amount);
    if (!a) return unexpected(a.error());
    return price(*a, per);
  }
  [[nodiscard]] const amount_type& amount() const noexcept { return amount_; }
  [[nodiscard]] std::chrono::seconds per() const noexcept { return per_; }

  // Whole seconds only: chrono converts hours and minutes implicitly, and refuses
  // durations that would lose a fraction of a second.
  friend exact_money<C, Overflow> operator*(const price& p, std::chrono::seconds s) {
    return exact_money<C, Overflow>(detail::checked<Overflow>("price * duration", [&] {
      return ratio<int128, Overflow>(p.amount_.raw() * int128(s.count()), amount_type::one() * int128(p.per_.count()));
    }));
  }
  friend exact_money<C, Overflow> operator*(std::chrono::seconds s, const price& p) { return p * s; }
  friend bool operator==(const price&, const price&) = default;

 private:
  amount_type amount_;
  std::chrono::seconds per_;
};

// Money whose currency is a run-time value (read from a tariff file). Adding two different
// currencies is reported: `plus` returns an error, operator+ throws gpurent::exception.
// There is no default: an amount is always told its currency (a silent USD would print as
// one).
class money_value {
 public:
  money_value(currency c, int128 minor) : ccy_(c), minor_(std::move(minor)) {}
  [[nodiscard]] static expected<money_value> parse(currency c, std::string_view s) {
    auto m = detail::parse_minor(s, c.minor_units, c.code);
    if (!m) return unexpected(m.error());
    return money_value(c, *m);
  }
  // An exact amount in major units, rounded once to the currency's minor units.
  [[nodiscard]] static money_value round(currency c, const ratio<>& exact, rounding_mode m) {
    return money_value(c, exact.round_to_digits(c.minor_units, m));
  }
  [[nodiscard]] const currency& currency_value() const noexcept { return ccy_; }
  [[nodiscard]] const int128& minor_units() const noexcept { return minor_; }
  [[nodiscard]] std::string to_string() const { return detail::format_minor(minor_, ccy_.minor_units); }

  [[nodiscard]] expected<money_value> plus(const money_value& b) const {
    if (!(ccy_ == b.ccy_)) return mismatch(b);
    try {
      return money_value(ccy_, int128(minor_ + b.minor_));
    } catch (const std::overflow_error&) {
      return make_error(error_code::overflow, "amount", "overflow adding " + to_string() + " and " + b.to_string());
    }
  }
  [[nodiscard]] expected<money_value> minus(const money_value& b) const { return plus(-b); }
  friend money_value operator-(const money_value& a) { return money_value(a.ccy_, int128(-a.minor_)); }
  friend money_value operator+(const money_value& a, const money_value& b) {
    auto r = a.plus(b);
    if (!r) throw exception(r.error());
    return *r;
  }
  friend money_value operator-(const money_value& a, const money_value& b) { return a + (-b); }
  money_value& operator+=(const money_value& b) { return *this = *this + b; }
  friend bool operator==(const money_value& a, const money_value& b) { return a.ccy_ == b.ccy_ && a.minor_ == b.minor_; }

 private:
  [[nodiscard]] unexpected<error> mismatch(const money_value& b) const {
    return make_error(error_code::currency_mismatch, "currency", "cannot combine " + std::string(ccy_.code) + " and " + std::string(b.ccy_.code));
  }
  currency ccy_;
  int128 minor_;
};

// "123.45 USD": an amount as every text output prints it (the one money text formatter:
// fmt's formatter, invoices, plans, tariffs and advisors all call it).
[[nodiscard]] inline std::string money_text(const money_value& m) { return m.to_string() + " " + std::string(m.currency_value().code); }

// The largest remainder method's last step, the one every allocation in gpurent uses:
// `parts` hold each exact share rounded toward zero and `remainders` what that rounding
// left out (any ordered type: an integer over a common denominator, a ratio). The units
// between the parts' sum and `total` go one each to the largest remainders (ties: the lower
// index); when the parts are over `total`, one each is taken from the smallest (ties: the
// higher index). At most one unit moves per part.
template <std::totally_ordered R>
void distribute_remainder(const int128& total, std::vector<int128>& parts, const std::vector<R>& remainders) {
  GPURENT_ASSERT(parts.size() == remainders.size());
  std::vector<std::size_t> order(parts.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return remainders[b] < remainders[a]; });
  int128 left = total;
  for (const int128& p : parts) left -= p;
  for (std::size_t k = 0; k < order.size() && left > 0; ++k, left -= 1) parts[order[k]] += 1;
  for (std::size_t k = order.size(); k-- > 0 && left < 0; left += 1) parts[order[k]] -= 1;
}

// Splits `total` minor units into parts proportional to `weights` that sum exactly to
// total: each part is its exact share rounded toward zero, and the units left over go one
// each to the largest remainders (ties: lower index first). Every part is within one minor
// unit of its exact share. Weights must be non-negative with a positive sum. The products
// are formed in 256 bits: a total and weights near 2^64 each (a month of thousands of GPUs
// in nano unit-seconds) overflow 128, and a part never exceeds the total.
[[nodiscard]] inline expected<std::vector<int128>> allocate(const int128& total, std::span<const int128> weights) {
  if (weights.empty()) return make_error(error_code::invalid_argument, "weights", "nothing to allocate to");
  int256 sum = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] < 0) return make_error(error_code::invalid_argument, "weights", "weight " + std::to_string(i) + " is negative");
    sum += int256(weights[i]);
  }
  if (sum == 0) return make_error(error_code::invalid_argument, "weights", "weights sum to zero");
  const int128 whole = detail::abs(total);
  std::vector<int128> parts(weights.size());
  std::vector<int256> remainders(weights.size());  // over `sum`
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const int256 n = int256(whole) * int256(weights[i]);
    parts[i] = (n / sum).convert_to<int128>();
    remainders[i] = n % sum;
  }
  distribute_remainder(whole, parts, remainders);
  if (total < 0) {
    for (auto& p : parts) p = -p;
  }
  return parts;
}

}  // namespace gpurent
