// SPDX-License-Identifier: MIT
#pragma once
// How time is billed: an increment (each started increment is billed whole) and a minimum
// charge, with presets that follow the providers' published rules.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>

namespace gpurent {

// b = ceil(max(a, minimum) / increment) * increment, for a record of `a` actual seconds.
// The minimum applies only where the caller says so (docs/formats/billing.md: the record starts inside
// the billing period, so a job crossing a month boundary pays its minimum once).
class billing_rule {
 public:
  constexpr billing_rule() = default;
  [[nodiscard]] static expected<billing_rule> make(seconds increment, seconds minimum = seconds{0}) {
    if (increment.count() <= 0) return make_error(error_code::invalid_argument, "increment", "the billing increment must be positive");
    if (minimum.count() < 0) return make_error(error_code::invalid_argument, "minimum", "the minimum charge must not be negative");
    return billing_rule(increment, minimum);
  }
  // A rule known at compile time; a bad one does not compile.
  [[nodiscard]] static consteval billing_rule fixed(std::int64_t increment_s, std::int64_t minimum_s = 0) {
    if (increment_s <= 0 || minimum_s < 0) throw "billing_rule: the increment must be positive, the minimum not negative";
    return billing_rule(seconds{increment_s}, seconds{minimum_s});
  }
  [[nodiscard]] constexpr seconds increment() const noexcept { return seconds{inc_}; }
  [[nodiscard]] constexpr seconds minimum() const noexcept { return seconds{min_}; }

  // Billed seconds for `actual` seconds (actual >= 0). Never overflows: both inputs are
  // below 2^62 (parse_duration's bound), and the result is below their sum.
  [[nodiscard]] constexpr std::int64_t billed(std::int64_t actual, bool minimum_applies) const noexcept {
    const std::int64_t x = (minimum_applies && min_ > actual) ? min_ : actual;
    const std::int64_t q = x / inc_ + (x % inc_ != 0 ? 1 : 0);
    return q * inc_;
  }
  [[nodiscard]] constexpr seconds billed(seconds actual, bool minimum_applies = true) const noexcept {
    return seconds{billed(actual.count(), minimum_applies)};
  }
  friend constexpr bool operator==(const billing_rule&, const billing_rule&) = default;

 private:
  constexpr billing_rule(seconds inc, seconds min) noexcept : inc_(inc.count()), min_(min.count()) {}
  std::int64_t inc_ = 1;
  std::int64_t min_ = 0;
};

// Published billing rules of GPU and cloud providers. Each names its source; the tests hold
// their worked examples.
namespace billing_presets {
// AWS EC2 Linux on-demand: "billed in one-second increments, with a minimum of 60 seconds"
// (aws.amazon.com/ec2/pricing/on-demand).
inline constexpr billing_rule aws_ec2_linux() noexcept { return billing_rule::fixed(1, 60); }
// Google Compute Engine: "billed in one-second increments, with a 1-minute minimum"
// (cloud.google.com/compute/vm-instance-pricing).
inline constexpr billing_rule gcp_compute() noexcept { return billing_rule::fixed(1, 60); }
// Lambda (on-demand cloud): billed in one-minute increments, no minimum (lambda.ai/pricing).
inline constexpr billing_rule lambda_per_minute() noexcept { return billing_rule::fixed(60); }
// CoreWeave: instances billed by the minute, no minimum (docs.coreweave.com, billing).
inline constexpr billing_rule coreweave_per_minute() noexcept { return billing_rule::fixed(60); }
// SUSE Linux on EC2 (and other hourly-billed AMIs): each partial hour billed as a full hour.
inline constexpr billing_rule suse_on_ec2_hourly() noexcept { return billing_rule::fixed(3600); }
// Scaleway GPU Instances: billed per minute with a 60-minute minimum (scaleway.com, GPU pricing).
inline constexpr billing_rule scaleway_gpu() noexcept { return billing_rule::fixed(60, 3600); }
// Quarter-hour rounding (common in colocation and consulting contracts).
inline constexpr billing_rule quarter_hour() noexcept { return billing_rule::fixed(900); }
// Daily: any part of a (24 h) day billed as a day.
inline constexpr billing_rule daily() noexcept { return billing_rule::fixed(86400); }
}  // namespace billing_presets

}  // namespace gpurent
