// SPDX-License-Identifier: MIT
#pragma once
// A base level under an hourly load profile, and its cost: the level sweep. Two advisors size
// such a level: reserve versus on demand (this header) and build versus rent's profile form
// (own the base, rent the peak; build_vs_rent.hpp). Both price every level n = 0..peak as
//
//   cost(n) = n H held + served(n) served + above(n) above,
//   served(n) = sum_h min(load_h, n),  above(n) = sum_h max(load_h - n, 0),
//
// over the H hours of the profile, and keep the cheapest (ties: the lower level). One pass
// over the sorted loads with running sums gives every level's unit-hours; every cost is an
// exact integer over one common denominator, so nothing is rounded before the caller rounds.
//
// Reserve versus on demand, as the cloud providers' own recommenders do it: c units billed
// every hour at the committed price (held), the load above c at the on-demand price (above),
// nothing more for the committed units' use (served).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/rounding.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// The largest load of one hour: the sweep walks, prices and shows every level up to the peak
// (2^20 levels: about 25 MB of sweep and a curve of about 90 MB as JSON; 2^30, the limit
// until 2026-12-07, ran out of memory instead).
inline constexpr std::int64_t max_hourly_load = std::int64_t{1} << 20;

// One level against the profile: the unit-hours it serves and those above it.
struct level_hours {
  std::int64_t level = 0;
  std::int64_t served = 0;  // sum of min(load, level)
  std::int64_t above = 0;   // sum of max(load - level, 0)
  friend bool operator==(const level_hours&, const level_hours&) = default;
};

namespace detail {
[[nodiscard]] inline expected<void> check_load(std::span<const std::int64_t> hourly_load) {
  if (hourly_load.empty()) return make_error(error_code::invalid_argument, "load", "the load profile is empty");
  for (std::size_t h = 0; h < hourly_load.size(); ++h) {
    if (hourly_load[h] < 0) return make_error(error_code::invalid_argument, "load[" + std::to_string(h) + "]", "must not be negative");
    if (hourly_load[h] > max_hourly_load)
      return make_error(error_code::invalid_argument, "load[" + std::to_string(h) + "]", "must be at most " + std::to_string(max_hourly_load));
  }
  return {};
}
}  // namespace detail

// Every level 0..peak of an hourly load profile (units in use each hour, >= 0), in order.
[[nodiscard]] inline expected<std::vector<level_hours>> sweep_levels(std::span<const std::int64_t> hourly_load) {
  GPURENT_TRY(detail::check_load(hourly_load));
  std::vector<std::int64_t> sorted(hourly_load.begin(), hourly_load.end());
  std::ranges::sort(sorted);
  std::int64_t total = 0;
  for (std::int64_t l : sorted) total += l;
  const std::int64_t peak = sorted.back();
  std::vector<level_hours> out;
  out.reserve(static_cast<std::size_t>(peak) + 1);
  std::size_t first_above = 0;   // the first sorted load above the level
  std::int64_t at_or_below = 0;  // the sum of the loads up to the level
  for (std::int64_t level = 0; level <= peak; ++level) {
    while (first_above < sorted.size() && sorted[first_above] <= level) at_or_below += sorted[first_above++];
    const auto n_above = static_cast<std::int64_t>(sorted.size() - first_above);
    const std::int64_t above = total - at_or_below - level * n_above;
    out.push_back({level, total - above, above});
  }
  return out;
}

// What a level costs: per unit of the level per hour of the profile (used or not), per
// unit-hour it serves, per unit-hour above it. Exact, not negative.
struct level_prices {
  ratio<> held;
  ratio<> served;
  ratio<> above;
};

// Every level's cost; costs are scaled[n] / denominator.
struct level_costs {
  std::int64_t hours = 0;
  int128 denominator{1};
  std::vector<level_hours> levels;
  std::vector<int128> scaled;

  [[nodiscard]] ratio<> cost(std::size_t n) const { return ratio<>(scaled[n], denominator); }
  // The cheapest level; ties go to the lower one.
  [[nodiscard]] std::size_t cheapest() const { return static_cast<std::size_t>(std::ranges::min_element(scaled) - scaled.begin()); }
  // Unit-hours served / unit-hours held; 1 at level 0, which holds nothing.
  [[nodiscard]] ratio<> utilization(std::size_t n) const {
    const level_hours& l = levels[n];
    return l.level == 0 ? ratio<>(1, 1) : ratio<>(int128(l.served), int128(l.level) * int128(hours));
  }
};

// Prices every level of the profile (see the top of this header).
[[nodiscard]] inline expected<level_costs> cost_levels(std::span<const std::int64_t> hourly_load, const level_prices& p) {
  const ratio<> zero(0, 1);
  if (p.held < zero || p.served < zero || p.above < zero) return make_error(error_code::invalid_argument, "price", "prices must not be negative");
  GPURENT_TRY(levels, sweep_levels(hourly_load));
  level_costs c;
  c.hours = static_cast<std::int64_t>(hourly_load.size());
  try {
    const auto lcm = [](const int128& a, const int128& b) { return int128(a / detail::gcd(a, b) * b); };
    c.denominator = lcm(lcm(p.held.den(), p.served.den()), p.above.den());
    const auto over = [&](const ratio<>& r) { return int128(r.num() * (c.denominator / r.den())); };
    const int128 held = over(p.held) * int128(c.hours), served = over(p.served), above = over(p.above);
    c.scaled.reserve(levels->size());
    for (const level_hours& l : *levels) c.scaled.push_back(held * int128(l.level) + served * int128(l.served) + above * int128(l.above));
  } catch (const std::overflow_error&) {
    return make_error(error_code::overflow, "price", "the costs of this profile do not fit 128 bits");
  }
  c.levels = std::move(*levels);
  return c;
}

struct commitment_option {
  std::int64_t level = 0;                   // units committed for every hour of the window
  money_value cost{currency{"USD", 2}, 0};  // committed + on-demand overflow over the window
  ratio<> utilization;                      // committed unit-hours used / committed unit-hours (1 at level 0)
};

// The window's costs carried over a commitment term, as if the window repeated.
struct commitment_term {
  seconds length{0};
  money_value cost;  // the best level's
  money_value on_demand_cost;
  money_value savings;
};

struct commitment_advice {
  commitment_option best;
  money_value on_demand_cost{currency{"USD", 2}, 0};  // level 0
  money_value savings{currency{"USD", 2}, 0};         // on_demand_cost - best.cost
  std::vector<commitment_option> curve;               // every level 0..peak, in order
  std::optional<commitment_term> term;                // when a term was given
};

// `hourly_load`: units in use each hour (>= 0); prices per unit-hour. Each level's cost is
// rounded once; the cheapest rounded cost wins, ties to the lower level. `term`: also project
// the best level and level 0 over a term of that length (exact, rounded once).
[[nodiscard]] inline expected<commitment_advice> size_commitment(std::span<const std::int64_t> hourly_load, currency c, rounding_mode mode,
                                                                 const ratio<>& on_demand_per_hour, const ratio<>& committed_per_hour,
                                                                 std::optional<seconds> term = std::nullopt) {
  if (term && term->count() <= 0) return make_error(error_code::invalid_argument, "term", "must be positive");
  GPURENT_TRY(costs, cost_levels(hourly_load, {committed_per_hour, ratio<>(0, 1), on_demand_per_hour}));
  std::vector<commitment_option> curve;
  curve.reserve(costs->levels.size());
  for (std::size_t n = 0; n < costs->levels.size(); ++n)
    curve.push_back({costs->levels[n].level, money_value::round(c, costs->cost(n), mode), costs->utilization(n)});
  const auto best = static_cast<std::size_t>(
      std::ranges::min_element(curve, {}, [](const commitment_option& o) -> const int128& { return o.cost.minor_units(); }) - curve.begin());
  std::optional<commitment_term> projected;
  if (term) {
    const ratio<> scale(int128(term->count()), int128(costs->hours) * 3600);
    const money_value t_best = money_value::round(c, costs->cost(best) * scale, mode), t_od = money_value::round(c, costs->cost(0) * scale, mode);
    projected = commitment_term{*term, t_best, t_od, t_od - t_best};
  }
  const commitment_option chosen = curve[best];
  const money_value on_demand = curve.front().cost;
  return commitment_advice{chosen, on_demand, on_demand - chosen.cost, std::move(curve), std::move(projected)};
}

// A unit rate's base price (before any price change) per unit-hour, exact; a tiered or
// package rate has none.
[[nodiscard]] inline expected<ratio<>> base_price_per_hour(const rate& r) {
  if (r.kind != price_kind::unit) return make_error(error_code::unsupported, "price", "a tiered or package rate has no single price per hour");
  return ratio<>(int128(r.price.base().raw()) * 3600, int128(detail::nano_one) * r.per.count());
}

// The same with prices as decimals per unit-hour.
[[nodiscard]] inline expected<commitment_advice> size_commitment(std::span<const std::int64_t> hourly_load, currency c, rounding_mode mode,
                                                                 const decimal<9>& on_demand_per_hour, const decimal<9>& committed_per_hour) {
  return size_commitment(hourly_load, c, mode, ratio<>(on_demand_per_hour), ratio<>(committed_per_hour));
}

}  // namespace gpurent
