// SPDX-License-Identifier: MIT
#pragma once
// The hot path: one record against its rate inside a billing period, with period clipping,
// the minimum and increment, and the exact amount as a cost numerator over the rate's
// denominator. No allocation, no virtual dispatch, every operation checked.

#include <cstdint>
#include <optional>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/rate.hpp>
#include <gpurent/tariff/tiers.hpp>

namespace gpurent {

// One record's contribution to its line.
struct rated_usage {
  seconds used{0};        // actual seconds inside the period
  seconds billed{0};      // b: after minimum and increment (docs/formats/billing.md, rule 3)
  cost_numerator amount;  // unit-priced rates: exact amount x rate.denominator()
  cost_numerator waste;   // the part of `amount` due to b - used
  nano_usage usage;       // billed use (quantity x b)
  nano_usage used_usage;  // actual use (quantity x used)
};

enum class rating_status : std::uint8_t { rated, out_of_period, overflow };

template <>
struct enum_names<rating_status> {
  static constexpr enum_entry<rating_status> entries[] = {
      {rating_status::rated, "rated"}, {rating_status::out_of_period, "out_of_period"}, {rating_status::overflow, "overflow"}};
};

// Rates [start, end) x quantity under `r` within `period` (docs/formats/billing.md, rules 2 to 5).
[[nodiscard]] inline rating_status rate_usage(const rate& r, const interval& period, instant start, instant end, nano_quantity quantity,
                                              rated_usage& out) noexcept {
  const instant b = start > period.begin() ? start : period.begin();
  const instant e = end < period.end() ? end : period.end();
  if (b >= e) return rating_status::out_of_period;
  const seconds used = e - b;
  const seconds billed = r.time.billed(used, start >= period.begin());
  out.used = used;
  out.billed = billed;
  out.usage = quantity * billed;
  out.used_usage = quantity * used;
  if (r.kind != price_kind::unit) {
    out.amount = cost_numerator{};
    out.waste = cost_numerator{};
    return rating_status::rated;
  }
  if (r.price.is_flat()) [[likely]] {
    // The common case: both price x seconds products in 64 bits (checked), then one widening
    // product each.
    const std::int64_t p = r.price.base().raw();
    std::int64_t pb = 0, pe = 0;
    if (detail::mul_into(p, billed.count(), pb) && detail::mul_into(p, (billed - used).count(), pe)) [[likely]] {
      out.amount = cost_numerator(detail::wide_mul(pb, quantity.raw()));
      out.waste = cost_numerator(detail::wide_mul(pe, quantity.raw()));
      return rating_status::rated;
    }
    const bool ok = mul_into(r.price.base() * billed, quantity, out.amount) && mul_into(r.price.base() * (billed - used), quantity, out.waste);
    return ok ? rating_status::rated : rating_status::overflow;
  }
  // Actual seconds at the prices in force; b - a extra seconds at the price of the last
  // actual second inside the period (rule 5).
  price_seconds at_prices;
  if (!r.price.integrate(start, b, e, at_prices)) return rating_status::overflow;
  const price_seconds extra = r.price.price_for(start, e - seconds{1}) * (billed - used);
  if (!add_to(at_prices, extra) || !mul_into(at_prices, quantity, out.amount) || !mul_into(extra, quantity, out.waste)) {
    return rating_status::overflow;
  }
  return rating_status::rated;
}

// The running sums of one line; merging two is adding them, so shards merge exactly.
struct line_totals {
  std::int64_t records = 0;
  std::int64_t billed_seconds = 0;
  std::int64_t used_seconds = 0;
  cost_numerator amount;
  cost_numerator waste;  // only for rates whose price changes (see add)
  nano_usage usage;
  nano_usage used_usage;
  detail::i128 rounded_minor = 0;  // record rounding point: the sum of rounded records, in minor units

  // Adds a record's contribution. `waste` is only summed where the rate's price changes
  // over time (for a constant price it follows from usage - used_usage), `rounded` (the
  // record's rounded amount) only at the record rounding point: the hot path adds six sums.
  [[nodiscard]] bool add(const rated_usage& u, detail::i128 rounded = 0, bool with_waste = false) noexcept {
    // Every sum is added, then checked: one branch for all the checks.
    const bool r = detail::add_to(records, std::int64_t{1});
    const bool b = detail::add_to(billed_seconds, u.billed.count());
    const bool s = detail::add_to(used_seconds, u.used.count());
    const bool a = add_to(amount, u.amount);
    const bool q = add_to(usage, u.usage);
    const bool w = add_to(used_usage, u.used_usage);
    bool ok = r && b && s && a && q && w;
    if (with_waste) ok = ok && add_to(waste, u.waste);
    if (rounded != 0) ok = ok && detail::add_to(rounded_minor, rounded);
    return ok;
  }
  // Takes a contribution back out (a duplicate found at merge time).
  [[nodiscard]] bool subtract(const rated_usage& u, detail::i128 rounded, bool with_waste) noexcept {
    return detail::sub_from(records, std::int64_t{1}) && detail::sub_from(billed_seconds, u.billed.count()) &&
           detail::sub_from(used_seconds, u.used.count()) && sub_from(amount, u.amount) && sub_from(waste, with_waste ? u.waste : cost_numerator{}) &&
           sub_from(usage, u.usage) && sub_from(used_usage, u.used_usage) && detail::sub_from(rounded_minor, rounded);
  }
  [[nodiscard]] bool merge(const line_totals& o) noexcept {
    return detail::add_to(records, o.records) && detail::add_to(billed_seconds, o.billed_seconds) && detail::add_to(used_seconds, o.used_seconds) &&
           add_to(amount, o.amount) && add_to(waste, o.waste) && add_to(usage, o.usage) && add_to(used_usage, o.used_usage) &&
           detail::add_to(rounded_minor, o.rounded_minor);
  }
  friend bool operator==(const line_totals&, const line_totals&) = default;
};

// Whether a line of this rate sums each record's waste: only where the price changes over
// time (for a constant price the waste follows from usage - used_usage at the end).
[[nodiscard]] inline bool sums_waste(const rate& r) noexcept { return r.kind == price_kind::unit && !r.price.is_flat(); }

// The exact cost of a tiered or package line's total usage (nano unit-seconds), over
// usage_denominator(). False on overflow.
[[nodiscard]] inline bool tiered_cost(const rate& r, nano_usage usage, cost_numerator& out) noexcept {
  return r.kind == price_kind::tiers ? r.tiers.cost(usage, out) : r.package.cost(usage, out);
}

// A line's exact amount, the one rating rule every caller uses (the meter, the planner): the
// integer numerator `out` over line_denominator(r). Unit prices: the sum of the records'
// amounts over the rate's denominator; tiers and packages: the cost of the line's total
// usage over usage_denominator(). False on overflow.
[[nodiscard]] inline bool line_cost(const rate& r, const line_totals& t, cost_numerator& out) noexcept {
  if (r.kind != price_kind::unit) return tiered_cost(r, t.usage, out);
  out = t.amount;
  return true;
}
// The denominator of line_cost's numerator; it depends only on the rate.
[[nodiscard]] inline int128 line_denominator(const rate& r) { return r.kind == price_kind::unit ? r.denominator() : usage_denominator(); }

// The exact amount of a line in major units; nothing on overflow.
[[nodiscard]] inline std::optional<ratio<>> line_exact(const rate& r, const line_totals& t) {
  cost_numerator num;
  if (!line_cost(r, t, num)) return std::nullopt;
  return exact_amount(num, line_denominator(r));
}

// The part of a line's exact amount due to increments and minimums (billed - used seconds):
// unit prices at the price in force; tiers and packages pro rata of the line's usage.
// Nothing on overflow.
[[nodiscard]] inline std::optional<ratio<>> line_waste(const rate& r, const line_totals& t, const ratio<>& exact) {
  const nano_usage idle = t.usage - t.used_usage;
  if (r.kind != price_kind::unit) {
    return t.usage == nano_usage{} ? ratio<>{} : exact * ratio<>(detail::to_int128(idle.raw()), detail::to_int128(t.usage.raw()));
  }
  if (sums_waste(r)) return exact_amount(t.waste, r.denominator());
  cost_numerator w;
  if (!mul_into(r.price.base(), idle, w)) return std::nullopt;
  return exact_amount(w, r.denominator());
}

}  // namespace gpurent
