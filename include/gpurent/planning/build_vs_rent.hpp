// SPDX-License-Identifier: MIT
#pragma once
// Build versus rent: what an owned GPU costs per delivered GPU-hour, and the utilization at
// which owning is as cheap as renting. All exact.
//
// Per GPU, an owned GPU costs F every hour whether used or not (the purchase spread over its
// life, hosting, staff) and V for every hour it is used (energy). At utilization u a
// delivered hour costs F/u + V; against a rental price R per hour the break-even is
// u* = F / (R - V): above u*, owning is cheaper.

#include <cstdint>
#include <optional>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>

namespace gpurent {

struct ownership_costs {
  decimal<9> purchase;          // per GPU, with its share of the server and network
  std::int64_t life_hours = 0;  // amortization period
  decimal<9> hosting_per_hour;  // space, cooling, network, per GPU
  decimal<9> staff_per_hour;    // operations, per GPU
  decimal<9> power_kw;          // per GPU at load, PUE included
  decimal<9> energy_per_kwh;

  // F: the fixed cost of one GPU-hour of wall time.
  [[nodiscard]] ratio<> fixed_per_hour() const {
    return ratio<>(purchase.raw(), decimal<9>::one() * int128(life_hours)) + ratio<>(hosting_per_hour) + ratio<>(staff_per_hour);
  }
  // V: the energy of one used GPU-hour.
  [[nodiscard]] ratio<> variable_per_hour() const { return ratio<>(power_kw) * ratio<>(energy_per_kwh); }
};

struct build_vs_rent {
  ratio<> fixed_per_hour;
  ratio<> variable_per_hour;
  ratio<> owned_per_delivered_hour;      // at the given utilization
  std::optional<ratio<>> break_even;     // utilization in (0, 1]; none when renting always wins
  bool own_is_cheaper = false;           // at the given utilization
};

// `utilization`: the share of hours the owned GPU would be used, in (0, 1].
[[nodiscard]] inline expected<build_vs_rent> compare_build_rent(const ownership_costs& own, const decimal<9>& rent_per_hour,
                                                               const ratio<>& utilization) {
  if (own.life_hours <= 0) return make_error(error_code::invalid_argument, "life_hours", "must be positive");
  if (utilization <= ratio<>(0, 1) || ratio<>(1, 1) < utilization)
    return make_error(error_code::invalid_argument, "utilization", "must be in (0, 1]");
  build_vs_rent r;
  r.fixed_per_hour = own.fixed_per_hour();
  r.variable_per_hour = own.variable_per_hour();
  r.owned_per_delivered_hour = r.fixed_per_hour * ratio<>(utilization.den(), utilization.num()) + r.variable_per_hour;
  const ratio<> margin = ratio<>(rent_per_hour) - r.variable_per_hour;
  if (ratio<>(0, 1) < margin) {
    const ratio<> u = r.fixed_per_hour * ratio<>(margin.den(), margin.num());
    if (!(ratio<>(1, 1) < u)) r.break_even = u;
  }
  r.own_is_cheaper = r.owned_per_delivered_hour < ratio<>(rent_per_hour);
  return r;
}

}  // namespace gpurent
