// SPDX-License-Identifier: MIT
#pragma once
// Commitments: reserved capacity covering up to N concurrent units at every instant (usage
// above it is billed on demand), with a fee per period; dual-rate reservations (a holding
// rate on all reserved capacity plus a usage rate while it is used); prepaid credits drawn
// down invoice after invoice; monthly subscriptions.

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent {

// A stretch of use: `quantity` units (nano) over [start, end).
struct usage_span {
  instant start;
  instant end;
  std::int64_t quantity = detail::nano_one;
};

// Unit-seconds (nano) under and over the reserved level.
struct reserved_coverage {
  detail::i128 covered = 0;  // min(concurrent, N) integrated over the window
  detail::i128 excess = 0;   // max(0, concurrent - N) integrated over the window
  friend bool operator==(const reserved_coverage&, const reserved_coverage&) = default;
};

// Sweeps the spans' concurrency over `window`: at every instant up to `reserved` units
// (nano) are covered, the rest is excess. Exact; independent of the spans' order.
[[nodiscard]] inline expected<reserved_coverage> cover(std::span<const usage_span> spans, std::int64_t reserved, const interval& window) {
  if (reserved < 0) return make_error(error_code::invalid_argument, "reserved", "reserved units must not be negative");
  std::vector<std::pair<instant, std::int64_t>> ev;
  ev.reserve(spans.size() * 2);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto& s = spans[i];
    if (s.quantity <= 0 || s.end <= s.start) {
      return make_error(error_code::invalid_argument, "spans[" + std::to_string(i) + "]", "a span needs quantity > 0 and end > start");
    }
    const instant b = std::max(s.start, window.begin()), e = std::min(s.end, window.end());
    if (b >= e) continue;
    ev.emplace_back(b, s.quantity);
    ev.emplace_back(e, -s.quantity);
  }
  std::ranges::sort(ev);
  reserved_coverage c;
  detail::i128 level = 0;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    level += ev[i].second;
    if (i + 1 == ev.size()) break;
    const detail::i128 dt = (ev[i + 1].first - ev[i].first).count();
    if (dt == 0) continue;
    const detail::i128 under = level < reserved ? level : reserved;
    detail::i128 a = 0, b = 0;
    if (!detail::mul_into(under, dt, a) || !detail::mul_into(level - under, dt, b) || !detail::add_to(c.covered, a) || !detail::add_to(c.excess, b)) {
      return detail::overflow_error("reserved coverage");
    }
  }
  return c;
}

// A reservation of `units` (nano) for a period at `fee` (nano currency); usage above it at
// `on_demand_price` (nano currency per unit per `per`).
struct reservation {
  std::int64_t units = 0;
  std::int64_t fee = 0;
  std::int64_t on_demand_price = 0;
  seconds per{3600};
};

struct reservation_bill {
  reserved_coverage coverage;
  ratio<> fee;     // the period's fee
  ratio<> excess;  // usage above the reserved level, on demand
  ratio<> total;
};

[[nodiscard]] inline expected<reservation_bill> bill_reservation(std::span<const usage_span> spans, const reservation& r, const interval& window) {
  if (r.per.count() <= 0) return make_error(error_code::invalid_argument, "per", "must be positive");
  auto c = cover(spans, r.units, window);
  if (!c) return unexpected(c.error());
  reservation_bill b;
  b.coverage = *c;
  b.fee = ratio<>(int128(r.fee), int128(detail::nano_one));
  detail::i128 num = 0;
  if (!detail::mul_into(c->excess, r.on_demand_price, num)) return detail::overflow_error("excess usage");
  b.excess = ratio<>(detail::to_int128(num), int128(detail::nano_one) * detail::nano_one * r.per.count());
  b.total = b.fee + b.excess;
  return b;
}

// Dual-rate: `holding_price` on every reserved unit for the whole window, plus `usage_price`
// on the covered unit-seconds (both nano currency per unit per `per`); usage above the
// reserved level at `on_demand_price`.
[[nodiscard]] inline expected<ratio<>> dual_rate_amount(std::span<const usage_span> spans, std::int64_t reserved, std::int64_t holding_price,
                                                        std::int64_t usage_price, std::int64_t on_demand_price, seconds per, const interval& window) {
  if (per.count() <= 0) return make_error(error_code::invalid_argument, "per", "must be positive");
  auto c = cover(spans, reserved, window);
  if (!c) return unexpected(c.error());
  detail::i128 hold = 0, use = 0, over = 0;
  if (!detail::mul_into(static_cast<detail::i128>(reserved) * window.length().count(), holding_price, hold) ||
      !detail::mul_into(c->covered, usage_price, use) || !detail::mul_into(c->excess, on_demand_price, over) || !detail::add_to(hold, use) ||
      !detail::add_to(hold, over)) {
    return detail::overflow_error("dual-rate amount");
  }
  return ratio<>(detail::to_int128(hold), int128(detail::nano_one) * detail::nano_one * per.count());
}

// A prepaid balance drawn down by successive invoice totals (minor units).
class credit_balance {
 public:
  explicit credit_balance(int128 minor) : left_(std::move(minor)) { GPURENT_ASSERT(left_ >= 0); }
  struct draw_result {
    int128 applied;
    int128 due;
  };
  // Applies min(balance, total) to a total; never makes anything negative.
  [[nodiscard]] draw_result draw(const int128& total) {
    const int128 t = total < 0 ? int128(0) : total;
    const int128 applied = t < left_ ? t : left_;
    left_ -= applied;
    return {applied, int128(t - applied)};
  }
  [[nodiscard]] const int128& remaining() const noexcept { return left_; }

 private:
  int128 left_;
};

// A monthly subscription (prepaid month): `fee` (nano currency) per unit per calendar month,
// for `units` (nano), not prorated.
[[nodiscard]] inline ratio<> subscription_amount(std::int64_t fee, std::int64_t units) {
  return ratio<>(int128(fee) * int128(units), int128(detail::nano_one) * detail::nano_one);
}

}  // namespace gpurent
