// SPDX-License-Identifier: MIT
#pragma once
// Build versus rent: what an owned GPU costs per delivered GPU-hour, the utilization at which
// owning is as cheap as renting, and, over an hourly load profile, how many GPUs to own. All
// exact.
//
// Per GPU, an owned GPU costs F every hour whether used or not (the purchase spread over its
// life, hosting, staff) and V for every hour it is used (energy). At utilization u a
// delivered hour costs F/u + V; against a rental price R per hour the break-even is
// u* = F / (R - V): above u*, owning is cheaper.
//
// Own the base, rent the peak: over H hours of load L_h (GPUs in use), owning n GPUs costs
//   n F H + V sum_h min(L_h, n) + R sum_h max(L_h - n, 0),
// the level sweep of commitment.hpp with held = F, served = V, above = R. The n-th owned GPU
// is busy in the hours where L_h >= n, so it pays exactly when that share of hours is above
// u*: the best n is the number of levels used more than u* of the time.

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/planning/commitment.hpp>

namespace gpurent {

struct ownership_costs {
  decimal<9> purchase{0};          // per GPU, with its share of the server and network
  std::int64_t life_hours = 0;     // amortization period
  decimal<9> hosting_per_hour{0};  // space, cooling, network, per GPU
  decimal<9> staff_per_hour{0};    // operations, per GPU
  decimal<9> power_kw{0};          // per GPU at load, PUE included
  decimal<9> energy_per_kwh{0};

  // F: the fixed cost of one GPU-hour of wall time.
  [[nodiscard]] ratio<> fixed_per_hour() const {
    return ratio<>(purchase.raw(), decimal<9>::one() * int128(life_hours)) + ratio<>(hosting_per_hour) + ratio<>(staff_per_hour);
  }
  // V: the energy of one used GPU-hour.
  [[nodiscard]] ratio<> variable_per_hour() const { return ratio<>(power_kw) * ratio<>(energy_per_kwh); }
  // A positive life and no negative cost.
  [[nodiscard]] expected<void> check() const {
    if (life_hours <= 0) return make_error(error_code::invalid_argument, "life_hours", "must be positive");
    const std::pair<const decimal<9>*, const char*> fields[] = {{&purchase, "purchase"},
                                                                {&hosting_per_hour, "hosting_per_hour"},
                                                                {&staff_per_hour, "staff_per_hour"},
                                                                {&power_kw, "power_kw"},
                                                                {&energy_per_kwh, "energy_per_kwh"}};
    for (const auto& [value, name] : fields)
      if (value->sign() < 0) return make_error(error_code::invalid_argument, name, "must not be negative");
    return {};
  }
};

// u* = F / (R - V) when it is at most 1; none when renting always wins (R <= V, or u* > 1).
[[nodiscard]] inline std::optional<ratio<>> break_even_utilization(const ratio<>& fixed, const ratio<>& variable, const ratio<>& rent) {
  const ratio<> margin = rent - variable;
  if (!(ratio<>(0, 1) < margin)) return std::nullopt;
  const ratio<> u = fixed * ratio<>(margin.den(), margin.num());
  if (ratio<>(1, 1) < u) return std::nullopt;
  return u;
}

struct build_vs_rent {
  ratio<> fixed_per_hour;
  ratio<> variable_per_hour;
  ratio<> owned_per_delivered_hour;   // at the given utilization
  std::optional<ratio<>> break_even;  // utilization in (0, 1]; none when renting always wins
  bool own_is_cheaper = false;        // at the given utilization
};

// `utilization`: the share of hours the owned GPU would be used, in (0, 1].
[[nodiscard]] inline expected<build_vs_rent> compare_build_rent(const ownership_costs& own, const decimal<9>& rent_per_hour,
                                                                const ratio<>& utilization) {
  GPURENT_TRY(own.check());
  if (rent_per_hour.sign() < 0) return make_error(error_code::invalid_argument, "rent", "must not be negative");
  if (utilization <= ratio<>(0, 1) || ratio<>(1, 1) < utilization)
    return make_error(error_code::invalid_argument, "utilization", "must be in (0, 1]");
  build_vs_rent r;
  r.fixed_per_hour = own.fixed_per_hour();
  r.variable_per_hour = own.variable_per_hour();
  r.owned_per_delivered_hour = r.fixed_per_hour * ratio<>(utilization.den(), utilization.num()) + r.variable_per_hour;
  r.break_even = break_even_utilization(r.fixed_per_hour, r.variable_per_hour, ratio<>(rent_per_hour));
  r.own_is_cheaper = r.owned_per_delivered_hour < ratio<>(rent_per_hour);
  return r;
}

// One owned pool size over the profile.
struct owned_pool_option {
  std::int64_t owned = 0;  // GPUs owned
  ratio<> cost;            // owned (fixed + energy) plus rented above, over the profile
  ratio<> utilization;     // owned GPU-hours used / owned GPU-hours (1 when none is owned)
};

struct owned_pool_advice {
  ratio<> fixed_per_hour;                // F
  ratio<> variable_per_hour;             // V
  std::optional<ratio<>> break_even;     // u* of the scalar form
  std::int64_t hours = 0;                // H
  std::int64_t gpu_hours = 0;            // sum of the load
  owned_pool_option best;                // the cheapest size; ties go to the smaller pool
  owned_pool_option all_rented;          // n = 0
  owned_pool_option all_owned;           // n = peak
  ratio<> savings_vs_rented;             // all_rented.cost - best.cost
  ratio<> savings_vs_owned;              // all_owned.cost - best.cost
  std::vector<owned_pool_option> curve;  // every size 0..peak, in order
};

// Own the base, rent the peak: every owned size 0..peak over `hourly_load` (GPUs in use each hour).
[[nodiscard]] inline expected<owned_pool_advice> size_owned_pool(const ownership_costs& own, const decimal<9>& rent_per_hour,
                                                                 std::span<const std::int64_t> hourly_load) {
  GPURENT_TRY(own.check());
  if (rent_per_hour.sign() < 0) return make_error(error_code::invalid_argument, "rent", "must not be negative");
  owned_pool_advice a;
  a.fixed_per_hour = own.fixed_per_hour();
  a.variable_per_hour = own.variable_per_hour();
  a.break_even = break_even_utilization(a.fixed_per_hour, a.variable_per_hour, ratio<>(rent_per_hour));
  GPURENT_TRY(costs, cost_levels(hourly_load, {a.fixed_per_hour, a.variable_per_hour, ratio<>(rent_per_hour)}));
  a.hours = costs->hours;
  a.gpu_hours = costs->levels.front().above;
  for (std::size_t n = 0; n < costs->levels.size(); ++n) a.curve.push_back({costs->levels[n].level, costs->cost(n), costs->utilization(n)});
  a.best = a.curve[costs->cheapest()];
  a.all_rented = a.curve.front();
  a.all_owned = a.curve.back();
  a.savings_vs_rented = a.all_rented.cost - a.best.cost;
  a.savings_vs_owned = a.all_owned.cost - a.best.cost;
  return a;
}

}  // namespace gpurent
