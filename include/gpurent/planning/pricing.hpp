// SPDX-License-Identifier: MIT
#pragma once
// Pricing a plan: the tariff the offers make and the exact amount of a set of records on an
// offer, rated by metering's own functions (rate_usage, line_totals, line_cost): the code
// path `gpurent meter` runs, so a plan and the meter agree to the last fraction.
//
// Amounts are exact integers: counts of 1/D currency units, where D is the least common
// multiple of every offer's line denominator (metering/rating.hpp) and of 10^18 x 3600 (a
// nano price per hour of a nano quantity). So amounts of different offers add and compare
// as integers, and each is rounded once, at the point the caller names (a job's records; a
// shared unit), with the catalog's rounding mode. The planner rents quantities in steps of
// 0.001 units, so every amount it prices is a multiple of `milli_grain`.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// One record to price: `quantity` units from `start` for `length`.
struct priced_record {
  unit_quantity quantity{1};
  instant start{};
  seconds length{0};
};

// An exact amount of a plan, in 1/D currency units (see plan_pricer::denominator).
using plan_amount = int128;

class plan_pricer {
 public:
  // Prices offers of `cat` for records inside `window` (the billing period: the meter's
  // clipping and minimum rules see the same period).
  plan_pricer(const offer_catalog& cat, interval window) : cat_(&cat), window_(window) {
    int128 d = int128(detail::nano_one) * detail::nano_one * 3600;
    for (const offer& o : cat.offers()) d = lcm(d, line_denominator(o.pricing));
    den_ = d;
    for (const offer& o : cat.offers()) factor_.push_back(den_ / line_denominator(o.pricing));
  }
  [[nodiscard]] const offer_catalog& catalog() const noexcept { return *cat_; }
  [[nodiscard]] const interval& window() const noexcept { return window_; }
  // D: an amount of n means n / D currency units.
  [[nodiscard]] const int128& denominator() const noexcept { return den_; }
  // Quantities are nano units in the meter, milli units in a plan: amounts of a plan are
  // multiples of 10^6.
  static constexpr std::int64_t milli_grain = 1'000'000;

  // The records on offer `oi` as one invoice line (a tiered rate prices their usage
  // together). Throws gpurent::exception on overflow, like every checked amount.
  [[nodiscard]] plan_amount line(std::size_t oi, std::span<const priced_record> records) const {
    const rate& r = (*cat_)[oi].pricing;
    line_totals t;
    for (const priced_record& p : records) {
      rated_usage u;
      const nano_quantity q(p.quantity.raw().convert_to<std::int64_t>() * 1'000'000);  // 10^-3 -> nano units
      const rating_status s = rate_usage(r, window_, p.start, p.start + p.length, q, u);
      if (s == rating_status::overflow || !t.add(u)) overflow();
    }
    return amount_of(r, oi, t);
  }
  // One record alone (a tiered rate as if it were its line's only record).
  [[nodiscard]] plan_amount record(std::size_t oi, const unit_quantity& q, instant start, seconds length) const {
    const priced_record one{q, start, length};
    return line(oi, std::span<const priced_record>(&one, 1));
  }
  // One record of `q` units on offer `oi` from `start`, held for whole hours (`length`
  // rounded up to a multiple of 3600 s), at the offer's own prices and terms and not clipped
  // to the period: what a renter who never stops a machine before its hour is up pays (the
  // naive baseline, planning/naive.hpp).
  [[nodiscard]] plan_amount whole_hours(std::size_t oi, const unit_quantity& q, instant start, seconds length) const {
    const rate& r = (*cat_)[oi].pricing;
    const seconds held((length.count() + 3599) / 3600 * 3600);
    line_totals t;
    rated_usage u;
    const nano_quantity nano(q.raw().convert_to<std::int64_t>() * 1'000'000);
    if (rate_usage(r, *interval::make(start, start + held), start, start + held, nano, u) != rating_status::rated || !t.add(u)) overflow();
    return amount_of(r, oi, t);
  }
  // One unit of offer `oi` for `length` at the rate's base price (or at `nano` per `per`): no
  // increments, minimums, price changes or tiers (what lower bounds use).
  [[nodiscard]] plan_amount flat(std::size_t oi, seconds length) const { return flat_at(oi, (*cat_)[oi].pricing.price.base(), length); }
  [[nodiscard]] plan_amount flat_at(std::size_t oi, nano_price p, seconds length) const {
    return plan_amount(int128(p.raw()) * detail::nano_one * length.count() * factor_[oi]);
  }
  // The seconds the meter bills for a record of `actual` seconds starting in the period.
  [[nodiscard]] seconds billed(std::size_t oi, seconds actual) const { return (*cat_)[oi].pricing.time.billed(actual); }
  // An exact amount rounded once to the currency's minor units.
  [[nodiscard]] money_value round(const plan_amount& a) const {
    return money_value::round(cat_->currency_value(), ratio<>(a, den_), cat_->rounding());
  }
  // "123.45 USD"
  [[nodiscard]] std::string text(const plan_amount& a) const {
    const money_value m = round(a);
    return m.to_string() + " " + std::string(m.currency_value().code);
  }

 private:
  [[noreturn]] static void overflow() { throw exception(error{error_code::overflow, {}, "overflow: rating a plan's records", {}}); }
  // A line of offer `oi`, priced by `r` (its rate, or one of the same denominator).
  [[nodiscard]] plan_amount amount_of(const rate& r, std::size_t oi, const line_totals& t) const {
    cost_numerator num{0};
    if (!line_cost(r, t, num)) overflow();
    return detail::checked<throw_on_overflow>("rating a plan's records", [&] { return plan_amount(detail::to_int128(num.raw()) * factor_[oi]); });
  }
  [[nodiscard]] static int128 lcm(const int128& a, const int128& b) { return a / detail::gcd(a, b) * b; }

  const offer_catalog* cat_;
  interval window_;
  int128 den_ = 1;
  std::vector<int128> factor_;  // D / the offer's line denominator
};

// The tariff a catalog's offers make for invoices in `zone` (an IANA name): one rate per
// offer, rounded once per line with the catalog's mode (docs/formats/billing.md). `used` selects offers
// (by index, ascending); empty: all of them.
[[nodiscard]] inline expected<tariff> offers_tariff(const offer_catalog& cat, const std::string& zone, std::span<const std::size_t> used = {}) {
  std::vector<rate> rates;
  if (used.empty()) {
    for (const offer& o : cat.offers()) rates.push_back(o.pricing);
  } else {
    for (std::size_t oi : used) rates.push_back(cat[oi].pricing);
  }
  return tariff::make(cat.currency_value(), zone, rounding_rule{cat.rounding(), rounding_point::line, false, false}, std::move(rates));
}

}  // namespace gpurent
