// SPDX-License-Identifier: MIT
#pragma once
// Reserve versus on demand: which commitment level minimises cost over a look-back window of
// hourly load, as the cloud providers' own recommenders do it: simulate every candidate
// level c over the window (c units billed every hour at the committed price, the load above c
// at the on-demand price) and keep the cheapest. Exact: each level's cost is one exact sum,
// rounded once.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/rounding.hpp>

namespace gpurent {

struct commitment_option {
  std::int64_t level = 0;    // units committed for every hour of the window
  money_value cost{currency{"USD", 2}, 0};  // committed + on-demand overflow over the window
  ratio<> utilization;       // committed unit-hours used / committed unit-hours (1 at level 0)
};

struct commitment_advice {
  commitment_option best;
  money_value on_demand_cost{currency{"USD", 2}, 0};  // level 0
  money_value savings{currency{"USD", 2}, 0};         // on_demand_cost - best.cost
  std::vector<commitment_option> curve;  // every level 0..peak, in order
};

// `hourly_load`: units in use each hour (>= 0); prices per unit-hour. Ties go to the lower level.
[[nodiscard]] inline expected<commitment_advice> size_commitment(std::span<const std::int64_t> hourly_load, currency c,
                                                                 rounding_mode mode, const decimal<9>& on_demand_per_hour,
                                                                 const decimal<9>& committed_per_hour) {
  if (hourly_load.empty()) return make_error(error_code::invalid_argument, "load", "the load profile is empty");
  for (std::size_t h = 0; h < hourly_load.size(); ++h)
    if (hourly_load[h] < 0) return make_error(error_code::invalid_argument, "load[" + std::to_string(h) + "]", "must not be negative");
  if (on_demand_per_hour.sign() < 0 || committed_per_hour.sign() < 0)
    return make_error(error_code::invalid_argument, "price", "prices must not be negative");
  const std::int64_t peak = *std::ranges::max_element(hourly_load);
  const auto hours = static_cast<std::int64_t>(hourly_load.size());
  // Loads sorted, with suffix sums, so each level costs O(log n).
  std::vector<std::int64_t> sorted(hourly_load.begin(), hourly_load.end());
  std::ranges::sort(sorted);
  std::vector<std::int64_t> suffix(sorted.size() + 1, 0);
  for (std::size_t i = sorted.size(); i-- > 0;) suffix[i] = suffix[i + 1] + sorted[i];
  commitment_advice a;
  const int128 den = decimal<9>::one();
  for (std::int64_t level = 0; level <= peak; ++level) {
    const auto first_above = static_cast<std::size_t>(std::ranges::upper_bound(sorted, level) - sorted.begin());
    const std::int64_t n_above = static_cast<std::int64_t>(sorted.size() - first_above);
    const std::int64_t over = suffix[first_above] - level * n_above;  // unit-hours above the level
    const std::int64_t used = suffix[0] - over;                        // committed unit-hours used
    const int128 exact = committed_per_hour.raw() * int128(level) * int128(hours) + on_demand_per_hour.raw() * int128(over);
    commitment_option o{level, money_value::round(c, ratio<>(exact, den), mode),
                        level == 0 ? ratio<>(1, 1) : ratio<>(int128(used), int128(level) * int128(hours))};
    if (level == 0 || o.cost.minor_units() < a.best.cost.minor_units()) a.best = o;
    a.curve.push_back(std::move(o));
  }
  a.on_demand_cost = a.curve.front().cost;
  a.savings = a.on_demand_cost - a.best.cost;
  return a;
}

}  // namespace gpurent
