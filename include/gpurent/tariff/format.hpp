// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the tariff types: what a rule or a price says, in one line a person
// reads in a log ("gpu/H100-80GB on_demand: 2.49 per 1h, increment 1s, minimum 1m"). Prices
// print exactly (a terminating decimal, else a fraction), never through a double. A tariff
// prints as several lines: its currency, zone and rounding, then one line per rate and
// credit. Each reuses fmt's string formatter, so width, fill and alignment work.

#include <string>
#include <string_view>

#include <fmt/format.h>

#include <gpurent/core/format.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/billing_time.hpp>
#include <gpurent/tariff/rate.hpp>
#include <gpurent/tariff/schedule.hpp>
#include <gpurent/tariff/tiers.hpp>

namespace gpurent {

namespace detail::tariff_format {

// "increment 1s, minimum 1m"; the minimum only when there is one.
[[nodiscard]] inline std::string billing(const billing_rule& b) {
  std::string s = "increment " + format_duration(b.increment());
  if (b.minimum().count() != 0) s += ", minimum " + format_duration(b.minimum());
  return s;
}

// "half_even at line", then the rule's options.
[[nodiscard]] inline std::string rounding(const rounding_rule& r) {
  std::string s = std::string(to_string(r.mode)) + " at " + std::string(to_string(r.point));
  if (r.forgive_below_minor_unit) s += ", forgiving amounts below one minor unit";
  if (r.carry) s += ", carrying remainders";
  return s;
}

// A nano amount (a price, a bound in unit-hours, a quantity) divided by `divisor`, exactly
// and shortest: "2.49", "1/1500".
template <class Tag>
[[nodiscard]] std::string nano_text(detail::amount<Tag, std::int64_t> v, std::int64_t divisor = 1) {
  return format_exact(ratio<>(int128(v.raw()), int128(nano_one) * divisor));
}

// "2.49", then "1.2 from 2026-11-05T00:00:00Z", ...; "first 1h at the start's price".
[[nodiscard]] inline std::string schedule(const price_schedule& p, std::int64_t divisor = 1) {
  std::string s = nano_text(p.base(), divisor);
  for (const price_change& c : p.changes()) s += ", " + nano_text(c.unit_price, divisor) + " from " + format_instant(c.from);
  if (p.protection().count() != 0) s += " (first " + format_duration(p.protection()) + " at the price in force at the start)";
  return s;
}

// "graduated: up to 100 at 2, up to 500 at 1.8 + 10 flat, beyond at 1.5" (unit-hours).
[[nodiscard]] inline std::string tiers(const tier_table& t) {
  std::string s = std::string(to_string(t.mode())) + ":";
  const char* sep = " ";
  for (const tier_step& step : t.steps()) {
    s += sep;
    s += step.up_to ? "up to " + nano_text(*step.up_to) : std::string("beyond");
    s += " at " + nano_text(step.unit_price);
    if (step.flat_fee != nano_money{}) s += " + " + nano_text(step.flat_fee) + " flat";
    sep = ", ";
  }
  return s;
}

[[nodiscard]] inline std::string package(const package_pricing& p) {
  return "packages of " + nano_text(p.size) + " unit-hours at " + nano_text(p.price);
}

[[nodiscard]] inline std::string rate_text(const rate& r) {
  std::string s = r.resource + " " + r.mode + ": ";
  switch (r.kind) {
    case price_kind::unit: s += schedule(r.price, r.price_divisor) + " per " + format_duration(r.per); break;
    case price_kind::tiers: s += "tiers " + tiers(r.tiers) + " per unit-hour"; break;
    case price_kind::package: s += package(r.package); break;
  }
  return s + ", " + billing(r.time);
}

}  // namespace detail::tariff_format
}  // namespace gpurent

// "increment 1s, minimum 1m"
template <>
struct fmt::formatter<gpurent::billing_rule> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::billing_rule& b, format_context& ctx) const { return put(gpurent::detail::tariff_format::billing(b), ctx); }
};

// "half_even at line, carrying remainders"
template <>
struct fmt::formatter<gpurent::rounding_rule> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::rounding_rule& r, format_context& ctx) const { return put(gpurent::detail::tariff_format::rounding(r), ctx); }
};

// "2.49, 1.2 from 2026-11-05T00:00:00Z"
template <>
struct fmt::formatter<gpurent::price_schedule> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::price_schedule& p, format_context& ctx) const { return put(gpurent::detail::tariff_format::schedule(p), ctx); }
};

// "graduated: up to 100 at 2, beyond at 1.5"
template <>
struct fmt::formatter<gpurent::tier_table> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::tier_table& t, format_context& ctx) const { return put(gpurent::detail::tariff_format::tiers(t), ctx); }
};

template <>
struct fmt::formatter<gpurent::package_pricing> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::package_pricing& p, format_context& ctx) const { return put(gpurent::detail::tariff_format::package(p), ctx); }
};

// "gpu/H100-80GB on_demand: 2.49 per 1h, increment 1s, minimum 1m"
template <>
struct fmt::formatter<gpurent::rate> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::rate& r, format_context& ctx) const { return put(gpurent::detail::tariff_format::rate_text(r), ctx); }
};

// "tariff in USD, zone America/New_York, rounding half_even at line", then one indented line
// per rate (in the tariff's order) and per credit (by account).
template <>
struct fmt::formatter<gpurent::tariff> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::tariff& t, format_context& ctx) const {
    namespace tf = gpurent::detail::tariff_format;
    std::string s = "tariff in " + std::string(t.currency_value().code) + ", zone " + t.zone_name() + ", rounding " + tf::rounding(t.rounding());
    for (const gpurent::rate& r : t.rates()) s += "\n  " + tf::rate_text(r);
    for (const gpurent::credit_grant& c : t.credits()) s += "\n  credit " + c.account + ": " + gpurent::money_text(c.amount);
    return put(s, ctx);
  }
};
