// SPDX-License-Identifier: MIT
#pragma once
// Time-varying prices (spot): a base price and changes at instants, integrated exactly over
// a record (the sum of price x seconds per price period), optionally with a protection
// period (Alibaba Cloud style: the first hour at the price in force when the instance started).

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent {

// From `from` on, `unit_price` (per unit per the rate's `per`) applies.
struct price_change {
  instant from;
  nano_price unit_price{};
  friend bool operator==(const price_change&, const price_change&) = default;
};

class price_schedule {
 public:
  price_schedule() = default;
  explicit price_schedule(nano_price base) noexcept : base_(base) {}
  // The changes in any order; two at the same instant or a negative price are errors.
  [[nodiscard]] static expected<price_schedule> make(nano_price base, std::vector<price_change> changes, seconds protection = seconds{0}) {
    if (base < nano_price{0}) return make_error(error_code::invalid_argument, "unit_price", "a price must not be negative");
    if (protection.count() < 0) return make_error(error_code::invalid_argument, "protection", "a protection period must not be negative");
    for (std::size_t i = 0; i < changes.size(); ++i) {
      if (changes[i].unit_price < nano_price{0}) {
        return make_error(error_code::invalid_argument, "price_changes[" + std::to_string(i) + "].unit_price", "a price must not be negative");
      }
    }
    std::ranges::stable_sort(changes, {}, &price_change::from);
    for (std::size_t i = 1; i < changes.size(); ++i) {
      if (changes[i].from == changes[i - 1].from) {
        return make_error(error_code::invalid_argument, "price_changes", "two price changes at the same instant " + format_instant(changes[i].from));
      }
    }
    price_schedule s(base);
    s.changes_ = std::move(changes);
    s.protection_ = protection.count();
    return s;
  }
  [[nodiscard]] nano_price base() const noexcept { return base_; }
  [[nodiscard]] const std::vector<price_change>& changes() const noexcept { return changes_; }
  [[nodiscard]] seconds protection() const noexcept { return seconds{protection_}; }
  [[nodiscard]] bool is_constant() const noexcept { return changes_.empty(); }
  // One price for every second of every record: no changes and no protection period.
  [[nodiscard]] bool is_flat() const noexcept { return changes_.empty() && protection_ == 0; }

  // The market price in force at t.
  [[nodiscard]] nano_price price_at(instant t) const noexcept {
    auto it = std::ranges::upper_bound(changes_, t, {}, &price_change::from);
    return it == changes_.begin() ? base_ : std::prev(it)->unit_price;
  }
  // The price a record started at `record_start` pays at t: the price at its start while
  // protected, the market price after.
  [[nodiscard]] nano_price price_for(instant record_start, instant t) const noexcept {
    if (protection_ > 0 && t < record_start + seconds{protection_}) return price_at(record_start);
    return price_at(t);
  }

  // Sum of price x seconds over [b, e) for a record that started at `record_start`.
  // False on overflow.
  [[nodiscard]] bool integrate(instant record_start, instant b, instant e, price_seconds& out) const noexcept {
    price_seconds acc;
    if (protection_ > 0) {
      const instant pend = record_start + seconds{protection_};
      if (b < pend) {
        const instant m = e < pend ? e : pend;
        if (!add_to(acc, price_at(record_start) * (m - b))) return false;
        b = m;
      }
    }
    if (b < e && !market(b, e, acc)) return false;
    out = acc;
    return true;
  }
  friend bool operator==(const price_schedule&, const price_schedule&) = default;

 private:
  [[nodiscard]] bool market(instant b, instant e, price_seconds& acc) const noexcept {
    auto it = std::ranges::upper_bound(changes_, b, {}, &price_change::from);
    nano_price p = it == changes_.begin() ? base_ : std::prev(it)->unit_price;
    instant t = b;
    while (t < e) {
      const instant next = (it != changes_.end() && it->from < e) ? it->from : e;
      if (!add_to(acc, p * (next - t))) return false;
      t = next;
      if (it != changes_.end() && it->from == next) {
        p = it->unit_price;
        ++it;
      }
    }
    return true;
  }

  nano_price base_{};
  std::vector<price_change> changes_;
  std::int64_t protection_ = 0;
};

}  // namespace gpurent
