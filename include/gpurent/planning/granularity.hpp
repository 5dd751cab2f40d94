// SPDX-License-Identifier: MIT
#pragma once
// Billing granularity: what an increment and a minimum add to the seconds actually used. A
// 12-minute job billed by the hour pays for 60 minutes: 5x.

#include <cstdint>
#include <span>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/billing_time.hpp>

namespace gpurent {

struct granularity_waste {
  seconds used{0};
  seconds billed{0};
  [[nodiscard]] seconds wasted() const noexcept { return billed - used; }
  // billed / used, exact (1 when nothing was used).
  [[nodiscard]] ratio<> factor() const { return used.count() == 0 ? ratio<>(1, 1) : ratio<>(int128(billed.count()), int128(used.count())); }
};

// Runs of the given lengths, each a separate record billed under `rule` (each starting
// inside the billing period, so the minimum applies).
[[nodiscard]] inline granularity_waste billing_waste(const billing_rule& rule, std::span<const seconds> runs) {
  granularity_waste w;
  for (seconds r : runs) {
    w.used += r;
    w.billed += rule.billed(r);
  }
  return w;
}

// The same for one run.
[[nodiscard]] inline granularity_waste billing_waste(const billing_rule& rule, seconds run) {
  return billing_waste(rule, std::span<const seconds>(&run, 1));
}

}  // namespace gpurent
