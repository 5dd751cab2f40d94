// SPDX-License-Identifier: MIT
#pragma once
// A job's `max_hourly_cost`: the most its whole allocation (every unit it holds at once) may
// cost per hour, by capacity mode (planning/workload.hpp's hourly_caps). An allocation's
// hourly cost is the units it holds (a fraction offer: the share of one GPU) times the
// offer's price per unit-hour; a tiered offer's price is its first step's (its list price).
//
// Two checks, one rule: a candidate is ruled out outright when it is over the cap at the
// lowest price its offer has in the period (it counts as the offer's `cap` rejection when
// every candidate on the offer is); otherwise it may run only while every price in force
// during its run keeps it at or under the cap (planning/timing.hpp waits for such a window,
// as for max_spot_price). Comparisons are exact (integers), never through a float.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/workload.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent {

namespace detail::plan {

// One unit's price (nano currency units) per `per_s` seconds.
struct unit_price_per {
  std::int64_t nano = 0;
  std::int64_t per_s = 3600;
};

// The offer's price in force at t (a tiered offer: its first step, per unit-hour).
[[nodiscard]] inline unit_price_per price_in_force(const offer& o, instant t) {
  if (o.tiered()) return {o.pricing.tiers.steps().front().unit_price.raw(), 3600};
  return {o.pricing.price.price_at(t).raw(), o.pricing.per.count()};
}

// The lowest price the offer has at any instant of `window`.
[[nodiscard]] inline unit_price_per lowest_price_in(const offer& o, const interval& window) {
  unit_price_per low = price_in_force(o, window.begin());
  if (o.tiered()) return low;
  for (const price_change& c : o.pricing.price.changes())
    if (c.from > window.begin() && c.from < window.end()) low.nano = std::min(low.nano, c.unit_price.raw());
  return low;
}

// What candidate c holds of its offer at once, in 10^-3 units (a fraction: of one GPU).
[[nodiscard]] inline int128 held_milli(const offer& o, const candidate& c) {
  return o.unit == offer_unit::fraction ? int128(c.qty.raw()) : int128(c.units) * 1000;
}

// The least k can cost at any start in the period: its amount at the job's start, scaled
// by the lowest over the highest price its offer has in the period (billed time times a
// price in force, whichever prices those are). Its amount itself when the price is constant.
[[nodiscard]] inline plan_amount floor_of(const plan_context& cx, const candidate& k) {
  const offer& o = cx.cat[k.offer];
  if (o.tiered() || o.pricing.price.changes().empty()) return k.amount;
  std::int64_t low = price_in_force(o, cx.window().begin()).nano, high = low;
  for (const price_change& c : o.pricing.price.changes()) {
    if (c.from <= cx.window().begin() || c.from >= cx.window().end()) continue;
    low = std::min(low, c.unit_price.raw());
    high = std::max(high, c.unit_price.raw());
  }
  return high <= 0 ? plan_amount(0) : plan_amount(k.amount * low / high);
}

// Whether the allocation of c at price p costs more per hour than `cap`:
// held/1000 x p.nano/10^9 x 3600/per_s > cap.raw/10^9, crosswise in integers.
[[nodiscard]] inline bool over(const offer& o, const candidate& c, const unit_price_per& p, const decimal<9>& cap) {
  return held_milli(o, c) * p.nano * 3600 > int128(cap.raw()) * 1000 * p.per_s;
}

}  // namespace detail::plan

// An exact decimal with at least `minor_digits` fractional digits ("30.00", "0.000123"):
// how a cap, a budget or a price is quoted back, never rounded.
[[nodiscard]] inline std::string exact_decimal_text(const ratio<>& r, int minor_digits) {
  std::string s = format_exact(r);
  if (s.find('/') != std::string::npos) return s;
  const std::size_t dot = s.find('.');
  const int have = dot == std::string::npos ? 0 : static_cast<int>(s.size() - dot - 1);
  if (have < minor_digits) s += (dot == std::string::npos ? "." : "") + std::string(static_cast<std::size_t>(minor_digits - have), '0');
  return s;
}

// The allocation's cost per hour at price p, exact.
[[nodiscard]] inline ratio<> allocation_hourly_cost(const offer& o, const candidate& c, const detail::plan::unit_price_per& p) {
  return ratio<>(detail::plan::held_milli(o, c) * p.nano * 3600, int128(1000) * detail::nano_one * p.per_s);
}

// The cap on job j's allocations on offer o, if any.
[[nodiscard]] inline const std::optional<decimal<9>>& cap_on(const job& j, const offer& o) { return j.max_hourly_cost.for_mode(o.mode); }

// Candidate c is over its cap at every price its offer has in the period: ruled out.
[[nodiscard]] inline bool over_cap_always(const plan_context& cx, const job& j, const candidate& c) {
  const offer& o = cx.cat[c.offer];
  const auto& cap = cap_on(j, o);
  return cap && detail::plan::over(o, c, detail::plan::lowest_price_in(o, cx.window()), *cap);
}

// Candidate c may run over [t, t + wall): every price in force then keeps it within its cap.
[[nodiscard]] inline bool cap_holds(const job& j, const offer& o, const candidate& c, instant t) {
  const auto& cap = cap_on(j, o);
  if (!cap) return true;
  if (detail::plan::over(o, c, detail::plan::price_in_force(o, t), *cap)) return false;
  if (o.tiered()) return true;
  return std::ranges::none_of(o.pricing.price.changes(), [&](const price_change& p) {
    return p.from > t && p.from < t + c.wall && detail::plan::over(o, c, {p.unit_price.raw(), o.pricing.per.count()}, *cap);
  });
}

// The allocation's lowest hourly cost in the period, in the catalog's currency (rounded
// with its mode): what a reason quotes against the cap.
[[nodiscard]] inline money_value lowest_hourly_cost(const plan_context& cx, const candidate& c) {
  const offer& o = cx.cat[c.offer];
  return money_value::round(cx.cat.currency_value(), allocation_hourly_cost(o, c, detail::plan::lowest_price_in(o, cx.window())), cx.cat.rounding());
}

}  // namespace gpurent
