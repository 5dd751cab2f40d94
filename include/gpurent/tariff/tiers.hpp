// SPDX-License-Identifier: MIT
#pragma once
// Price models over a line's usage in unit-hours (quantity x hours): graduated tiers, volume
// tiers (each with an optional flat fee per tier) and packages. All costs are exact: a
// cost_numerator over usage_denominator() = 10^18 x 3600 (nano price x nano unit-seconds).

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

template <>
struct enum_names<tier_mode> {
  static constexpr enum_entry<tier_mode> entries[] = {{tier_mode::graduated, "graduated"}, {tier_mode::volume, "volume"}};
};

// One step: usage up to `up_to` unit-hours (cumulative; nothing = no bound), at `unit_price`
// per unit-hour, plus `flat_fee` once when usage reaches the step.
struct tier_step {
  std::optional<nano_unit_hours> up_to;
  nano_price unit_price{};
  nano_money flat_fee{};
  friend bool operator==(const tier_step&, const tier_step&) = default;
};

// Cost numerators of tiers and packages are over this: nano price (10^9) x nano quantity
// (10^9) x seconds per hour.
[[nodiscard]] inline int128 usage_denominator() { return int128(detail::nano_one) * detail::nano_one * seconds_per_hour; }
[[nodiscard]] inline ratio<> usage_cost(cost_numerator numerator) { return exact_amount(numerator, usage_denominator()); }
// A fee owed once, over usage_denominator(): exact (an int64 times 3.6e12 fits 128 bits).
[[nodiscard]] constexpr cost_numerator fee_cost(nano_money fee) noexcept {
  return cost_numerator(detail::wide_mul(fee.raw(), detail::nano_one * seconds_per_hour));
}

class tier_table {
 public:
  tier_table() = default;
  // Steps with strictly increasing positive bounds; the last, and only the last, unbounded.
  [[nodiscard]] static expected<tier_table> make(tier_mode mode, std::vector<tier_step> steps) {
    if (steps.empty()) return make_error(error_code::invalid_argument, "steps", "a tier table needs at least one step");
    nano_unit_hours prev{0};
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const std::string f = "steps[" + std::to_string(i) + "]";
      const bool last = i + 1 == steps.size();
      if (steps[i].unit_price < nano_price{0})
        return make_error(error_code::invalid_argument, f + ".unit_price", "a tier price must not be negative");
      if (steps[i].flat_fee < nano_money{0}) return make_error(error_code::invalid_argument, f + ".flat_fee", "a flat fee must not be negative");
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

  // The exact cost of a line's total usage, over usage_denominator(). False on overflow.
  [[nodiscard]] bool cost(nano_usage usage, cost_numerator& out) const noexcept {
    return mode_ == tier_mode::graduated ? graduated(usage, out) : volume(usage, out);
  }
  // Graduated: the cost of `usage` laid on the steps after `before` (docs/formats/billing.md, rule 6).
  [[nodiscard]] bool graduated_part(nano_usage before, nano_usage usage, cost_numerator& out) const noexcept {
    cost_numerator a, b;
    nano_usage end = before;
    if (!add_to(end, usage) || !graduated(before, a) || !graduated(end, b)) return false;
    out = b - a;
    return true;
  }
  // The step whose price applies under volume pricing to a total usage.
  [[nodiscard]] std::size_t volume_step(nano_usage usage) const noexcept {
    for (std::size_t i = 0; i + 1 < steps_.size(); ++i) {
      if (usage_of(*steps_[i].up_to) >= usage) return i;
    }
    return steps_.size() - 1;
  }
  friend bool operator==(const tier_table&, const tier_table&) = default;

 private:
  // Each step the usage enters (usage above its lower bound) adds its part and its fee.
  [[nodiscard]] bool graduated(nano_usage usage, cost_numerator& out) const noexcept {
    cost_numerator acc;
    nano_usage lower;
    for (const tier_step& s : steps_) {
      if (usage <= lower) break;
      const bool bounded = s.up_to.has_value();
      const nano_usage upper = bounded ? usage_of(*s.up_to) : usage;
      const nano_usage part = (usage < upper ? usage : upper) - lower;
      cost_numerator c;
      if (!mul_into(s.unit_price, part, c) || !add_to(acc, c) || !add_to(acc, fee_cost(s.flat_fee))) return false;
      if (!bounded || usage <= upper) break;
      lower = upper;
    }
    out = acc;
    return true;
  }
  [[nodiscard]] bool volume(nano_usage usage, cost_numerator& out) const noexcept {
    const tier_step& s = steps_[volume_step(usage)];
    cost_numerator c;
    if (!mul_into(s.unit_price, usage, c) || !add_to(c, fee_cost(s.flat_fee))) return false;
    out = c;
    return true;
  }

  tier_mode mode_ = tier_mode::graduated;
  std::vector<tier_step> steps_;
};

// Package pricing: usage rounded up to whole packages of `size` unit-hours, each at `price`
// (Stripe's "package" / transform_quantity with round up).
struct package_pricing {
  nano_unit_hours size{detail::nano_one};
  nano_money price{};  // per package

  [[nodiscard]] static expected<package_pricing> make(nano_unit_hours size, nano_money price) {
    if (size <= nano_unit_hours{0}) return make_error(error_code::invalid_argument, "package.size", "a package size must be positive");
    if (price < nano_money{0}) return make_error(error_code::invalid_argument, "package.price", "a package price must not be negative");
    return package_pricing{size, price};
  }
  // How many packages `usage` starts (rounded up).
  [[nodiscard]] detail::i128 packages(nano_usage usage) const noexcept {
    const detail::i128 per = usage_of(size).raw();
    return usage.raw() / per + (usage.raw() % per != 0 ? 1 : 0);
  }
  [[nodiscard]] bool cost(nano_usage usage, cost_numerator& out) const noexcept { return scale_into(fee_cost(price), packages(usage), out); }
  friend bool operator==(const package_pricing&, const package_pricing&) = default;
};

}  // namespace gpurent
