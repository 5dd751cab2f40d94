// SPDX-License-Identifier: MIT
#pragma once
// Prepaid packages of compute units as sold ("100 TFLOPS-hour packages, buy several"): an
// account buys TFLOPS-hours of one precision at a price; its usage of rates priced per
// TFLOPS-hour of that precision draws the package down, month after month, until it is used
// up or expires (docs/formats/billing.md, "Prepaid packages"). Balances are counted in FLOP
// (an integer: a nano GPU-second at g GFLOPS is g FLOP), so that every draw is exact.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent {

// FLOP in one TFLOPS-hour (10^12 x 3600), and in one nano TFLOPS-hour.
inline constexpr std::int64_t flop_per_tflops_hour = 3'600'000'000'000'000;
inline constexpr std::int64_t flop_per_nano_tflops_hour = 3'600'000;

// FLOP as exact TFLOPS-hours.
[[nodiscard]] inline ratio<> tflops_hours_of(int128 flop) { return ratio<>(flop, int128(flop_per_tflops_hour)); }

struct prepaid_package {
  std::string id;          // unique in the tariff; names the package's balance from month to month
  std::string account;     // who bought it
  std::string per_tflops;  // the precision of its TFLOPS-hours: it pays rates with this per_tflops
  nano_quantity tflops_hours{};
  nano_money price{};  // for the whole package, charged in the month it is bought
  instant bought{};
  std::optional<instant> expires;  // usage starting at or after it draws nothing; what is left is forfeited
  friend bool operator==(const prepaid_package&, const prepaid_package&) = default;

  [[nodiscard]] int128 size_flop() const { return int128(tflops_hours.raw()) * flop_per_nano_tflops_hour; }
  // Whether usage starting at `t` draws from it.
  [[nodiscard]] bool usable_at(instant t) const noexcept { return bought <= t && (!expires || t < *expires); }
  // Whether it can be drawn at all in `period` (bought before its end, not expired at its start).
  [[nodiscard]] bool alive_in(const interval& period) const noexcept { return bought < period.end() && (!expires || *expires > period.begin()); }
  // Bought in `period`: its price is on that month's invoice.
  [[nodiscard]] bool bought_in(const interval& period) const noexcept { return period.contains(bought); }
};

// The balances packages bought before a month start it with, by package id, in FLOP: the
// previous month's invoice's closing balances (io/billing/previous_invoice.hpp reads them).
using prepaid_balances = std::map<std::string, int128, std::less<>>;

}  // namespace gpurent
