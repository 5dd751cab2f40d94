// SPDX-License-Identifier: MIT
#pragma once
// Price models over a line's usage in unit-hours (quantity x hours): graduated tiers, volume
// tiers (each with an optional flat fee per tier) and packages. All costs are exact: a
// numerator over usage_denominator = 10^18 x 3600 (nano price x nano unit-seconds).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent {

enum class tier_mode : std::uint8_t { graduated, volume };

[[nodiscard]] constexpr std::string_view to_string(tier_mode m) noexcept { return m == tier_mode::graduated ? "graduated" : "volume"; }

// One step: usage up to `up_to` unit-hours (cumulative; nothing = no bound), at `unit_price`
// per unit-hour, plus `flat_fee` once when usage reaches the step. Nano units throughout.
struct tier_step {
  std::optional<std::int64_t> up_to;
  std::int64_t unit_price = 0;
  std::int64_t flat_fee = 0;
  friend bool operator==(const tier_step&, const tier_step&) = default;
};

// Usage in nano unit-seconds per nano unit-hour bound.
inline constexpr std::int64_t seconds_per_hour = 3600;
// Cost numerators are over this: nano price (10^9) x nano quantity (10^9) x seconds per hour.
[[nodiscard]] inline int128 usage_denominator() { return int128(detail::nano_one) * detail::nano_one * seconds_per_hour; }
[[nodiscard]] inline ratio<> usage_cost(detail::i128 numerator) { return ratio<>(detail::to_int128(numerator), usage_denominator()); }

class tier_table {
 public:
  tier_table() = default;
  // Steps with strictly increasing positive bounds; the last, and only the last, unbounded.
  [[nodiscard]] static expected<tier_table> make(tier_mode mode, std::vector<tier_step> steps) {
    if (steps.empty()) return make_error(error_code::invalid_argument, "steps", "a tier table needs at least one step");
    std::int64_t prev = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const std::string f = "steps[" + std::to_string(i) + "]";
      const bool last = i + 1 == steps.size();
      if (steps[i].unit_price < 0) return make_error(error_code::invalid_argument, f + ".unit_price", "a tier price must not be negative");
      if (steps[i].flat_fee < 0) return make_error(error_code::invalid_argument, f + ".flat_fee", "a flat fee must not be negative");
      if (!steps[i].up_to) {
        if (!last) return make_error(error_code::invalid_argument, f + ".up_to", "only the last step may be unbounded (null)");
        continue;
      }
      if (last) return make_error(error_code::invalid_argument, f + ".up_to", "the last step must be unbounded (null)");
      if (*steps[i].up_to <= prev) {
        return make_error(error_code::invalid_argument, f + ".up_to",
                          "bounds must be positive and strictly increasing (" + format_nano(*steps[i].up_to) + " after " + format_nano(prev) + ")");
      }
      prev = *steps[i].up_to;
    }
    tier_table t;
    t.mode_ = mode;
    t.steps_ = std::move(steps);
    return t;
  }
  [[nodiscard]] tier_mode mode() const noexcept { return mode_; }
  [[nodiscard]] const std::vector<tier_step>& steps() const noexcept { return steps_; }

  // The exact cost of a line's total usage (nano unit-seconds), over usage_denominator.
  // False on overflow.
  [[nodiscard]] bool cost(detail::i128 usage, detail::i128& out) const noexcept {
    return mode_ == tier_mode::graduated ? graduated(usage, out) : volume(usage, out);
  }
  // Graduated: the cost of `usage` laid on the steps after `before` (meter.md rule 6).
  [[nodiscard]] bool graduated_part(detail::i128 before, detail::i128 usage, detail::i128& out) const noexcept {
    detail::i128 a = 0, b = 0, end = before;
    if (!detail::add_to(end, usage) || !graduated(before, a) || !graduated(end, b)) return false;
    out = b - a;
    return true;
  }
  // The step whose price applies under volume pricing to a total usage.
  [[nodiscard]] std::size_t volume_step(detail::i128 usage) const noexcept {
    for (std::size_t i = 0; i + 1 < steps_.size(); ++i) {
      if (static_cast<detail::i128>(*steps_[i].up_to) * seconds_per_hour >= usage) return i;
    }
    return steps_.size() - 1;
  }
  friend bool operator==(const tier_table&, const tier_table&) = default;

 private:
  static constexpr detail::i128 fee_scale = static_cast<detail::i128>(detail::nano_one) * seconds_per_hour;

  // Each step the usage enters (usage above its lower bound) adds its part and its fee.
  [[nodiscard]] bool graduated(detail::i128 usage, detail::i128& out) const noexcept {
    detail::i128 acc = 0, lower = 0;
    for (const tier_step& s : steps_) {
      if (usage <= lower) break;
      const bool bounded = s.up_to.has_value();
      const detail::i128 upper = bounded ? static_cast<detail::i128>(*s.up_to) * seconds_per_hour : usage;
      const detail::i128 part = (usage < upper ? usage : upper) - lower;
      detail::i128 c = 0;
      if (!detail::mul_into(part, s.unit_price, c) || !detail::add_to(acc, c) || !detail::add_to(acc, s.flat_fee * fee_scale)) return false;
      if (!bounded || usage <= upper) break;
      lower = upper;
    }
    out = acc;
    return true;
  }
  [[nodiscard]] bool volume(detail::i128 usage, detail::i128& out) const noexcept {
    const tier_step& s = steps_[volume_step(usage)];
    detail::i128 c = 0;
    if (!detail::mul_into(usage, s.unit_price, c) || !detail::add_to(c, s.flat_fee * fee_scale)) return false;
    out = c;
    return true;
  }

  tier_mode mode_ = tier_mode::graduated;
  std::vector<tier_step> steps_;
};

// Package pricing: usage rounded up to whole packages of `size` unit-hours, each at `price`
// (Stripe's "package" / transform_quantity with round up).
struct package_pricing {
  std::int64_t size = detail::nano_one;  // nano unit-hours per package
  std::int64_t price = 0;                // nano currency per package

  [[nodiscard]] static expected<package_pricing> make(std::int64_t size_nano, std::int64_t price_nano) {
    if (size_nano <= 0) return make_error(error_code::invalid_argument, "package.size", "a package size must be positive");
    if (price_nano < 0) return make_error(error_code::invalid_argument, "package.price", "a package price must not be negative");
    return package_pricing{size_nano, price_nano};
  }
  [[nodiscard]] detail::i128 packages(detail::i128 usage) const noexcept {
    const detail::i128 per = static_cast<detail::i128>(size) * seconds_per_hour;
    return usage / per + (usage % per != 0 ? 1 : 0);
  }
  [[nodiscard]] bool cost(detail::i128 usage, detail::i128& out) const noexcept {
    detail::i128 c = 0;
    if (!detail::mul_into(packages(usage), price, c) || !detail::mul_into(c, static_cast<detail::i128>(detail::nano_one) * seconds_per_hour, c)) return false;
    out = c;
    return true;
  }
  friend bool operator==(const package_pricing&, const package_pricing&) = default;
};

}  // namespace gpurent
