// SPDX-License-Identifier: MIT
#pragma once
// Commitments: reserved capacity covering up to N concurrent units at every instant (usage
// above it is billed on demand), with a fee per period; dual-rate reservations (a holding
// rate on all reserved capacity plus a usage rate while it is used); prepaid credits drawn
// down invoice after invoice; monthly subscriptions.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent {

// A stretch of use: `quantity` units over [start, end).
struct usage_span {
  instant start;
  instant end;
  nano_quantity quantity{detail::nano_one};
};

// Use under and over the reserved level.
struct reserved_coverage {
  nano_usage covered{};  // min(concurrent, N) integrated over the window
  nano_usage excess{};   // max(0, concurrent - N) integrated over the window
  friend bool operator==(const reserved_coverage&, const reserved_coverage&) = default;
};

namespace detail {
// The spans' starts (+quantity) and ends (-quantity) inside `window`, in time order.
[[nodiscard]] inline expected<std::vector<std::pair<instant, std::int64_t>>> coverage_events(std::span<const usage_span> spans,
                                                                                             const interval& window) {
  std::vector<std::pair<instant, std::int64_t>> ev;
  ev.reserve(spans.size() * 2);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto& s = spans[i];
    if (s.quantity <= nano_quantity{0} || s.end <= s.start) {
      return make_error(error_code::invalid_argument, "spans[" + std::to_string(i) + "]", "a span needs quantity > 0 and end > start");
    }
    const instant b = std::max(s.start, window.begin()), e = std::min(s.end, window.end());
    if (b >= e) continue;
    ev.emplace_back(b, s.quantity.raw());
    ev.emplace_back(e, -s.quantity.raw());
  }
  std::ranges::sort(ev);
  return ev;
}
}  // namespace detail

// Sweeps the spans' concurrency over `window`: at every instant up to `reserved` units are
// covered, the rest is excess. Exact; independent of the spans' order.
[[nodiscard]] inline expected<reserved_coverage> cover(std::span<const usage_span> spans, nano_quantity reserved, const interval& window) {
  if (reserved < nano_quantity{0}) return make_error(error_code::invalid_argument, "reserved", "reserved units must not be negative");
  GPURENT_TRY(ev, detail::coverage_events(spans, window));
  reserved_coverage c;
  detail::i128 level = 0;  // nano units in use: a sum of quantities, beyond int64 in principle
  for (std::size_t i = 0; i < ev->size(); ++i) {
    level += (*ev)[i].second;
    if (i + 1 == ev->size()) break;
    const detail::i128 dt = ((*ev)[i + 1].first - (*ev)[i].first).count();
    if (dt == 0) continue;
    const detail::i128 under = level < reserved.raw() ? level : detail::i128(reserved.raw());
    detail::i128 a = 0, b = 0;
    if (!detail::mul_into(under, dt, a) || !detail::mul_into(level - under, dt, b) || !add_to(c.covered, nano_usage(a)) ||
        !add_to(c.excess, nano_usage(b))) {
      return detail::overflow_error("reserved coverage");
    }
  }
  return c;
}

// A reservation of `units` for a period at `fee`; usage above it at `on_demand_price` (per
// unit per `per`).
struct reservation {
  nano_quantity units{};
  nano_money fee{};
  nano_price on_demand_price{};
  seconds per{3600};
};

struct reservation_bill {
  reserved_coverage coverage;
  ratio<> fee;     // the period's fee
  ratio<> excess;  // usage above the reserved level, on demand
  ratio<> total;
};

// The denominator of a cost numerator priced per unit per `per`: 10^9 x 10^9 x per.
[[nodiscard]] inline int128 unit_denominator(seconds per) { return int128(detail::nano_one) * detail::nano_one * per.count(); }

[[nodiscard]] inline expected<reservation_bill> bill_reservation(std::span<const usage_span> spans, const reservation& r, const interval& window) {
  if (r.per.count() <= 0) return make_error(error_code::invalid_argument, "per", "must be positive");
  GPURENT_TRY(c, cover(spans, r.units, window));
  reservation_bill b;
  b.coverage = *c;
  b.fee = ratio<>(int128(r.fee.raw()), int128(detail::nano_one));
  cost_numerator num;
  if (!mul_into(r.on_demand_price, c->excess, num)) return detail::overflow_error("excess usage");
  b.excess = exact_amount(num, unit_denominator(r.per));
  b.total = b.fee + b.excess;
  return b;
}

// Dual-rate: `holding_price` on every reserved unit for the whole window, plus `usage_price`
// on the covered use (both per unit per `per`); use above the reserved level at
// `on_demand_price`.
[[nodiscard]] inline expected<ratio<>> dual_rate_amount(std::span<const usage_span> spans, nano_quantity reserved, nano_price holding_price,
                                                        nano_price usage_price, nano_price on_demand_price, seconds per, const interval& window) {
  if (per.count() <= 0) return make_error(error_code::invalid_argument, "per", "must be positive");
  GPURENT_TRY(c, cover(spans, reserved, window));
  cost_numerator hold, use, over;
  if (!mul_into(holding_price, reserved * window.length(), hold) || !mul_into(usage_price, c->covered, use) ||
      !mul_into(on_demand_price, c->excess, over) || !add_to(hold, use) || !add_to(hold, over)) {
    return detail::overflow_error("dual-rate amount");
  }
  return exact_amount(hold, unit_denominator(per));
}

// A commitment as sold (a tariff's `commitments`): `account` reserves `units` of the rate
// (resource, mode) for `term` at `price` per unit for the whole term; without a term, for
// each billing period at `price` per unit per period. Its usage is covered up to `units` at
// every instant of the term (docs/formats/billing.md, "Commitments"); the commitment is charged
// whether used or not, a term spanning periods prorated by exact seconds.
struct tariff_commitment {
  std::string account;
  std::string resource;
  std::string mode;
  nano_quantity units{};
  nano_money price{};
  std::optional<interval> term;  // none: every billing period
  std::size_t rate = 0;          // the covered rate's index in the tariff (tariff::make sets it)
  friend bool operator==(const tariff_commitment&, const tariff_commitment&) = default;

  // The part of `period` the commitment covers (empty when its term misses the period).
  [[nodiscard]] interval window(const interval& period) const {
    if (!term) return period;
    return term->intersect(period).value_or(interval{});
  }
  // Its charge in `period`: units x price, times the share of the term inside the period.
  [[nodiscard]] ratio<> charge(const interval& period) const {
    const int128 whole = int128(units.raw()) * int128(price.raw());
    const int128 nano2 = int128(detail::nano_one) * detail::nano_one;
    if (!term) return ratio<>(whole, nano2);
    return ratio<>(whole * int128(window(period).length().count()), nano2 * int128(term->length().count()));
  }
  // Unit-seconds (nano) the commitment offers in `period`: units x its window's length.
  [[nodiscard]] nano_usage available(const interval& period) const { return units * window(period).length(); }
};

// A prepaid balance drawn down by successive invoice totals: the one credit rule (the meter
// applies an account's credit with it). A total takes min(balance, total); a negative total
// (a refund) takes nothing and stays due as it is, negative; the balance never grows and
// never goes below zero.
class credit_balance {
 public:
  explicit credit_balance(money_value left) : left_(std::move(left)) { GPURENT_ASSERT(left_.minor_units() >= 0); }
  struct draw_result {
    money_value applied;
    money_value due;  // total - applied
  };
  [[nodiscard]] draw_result draw(const money_value& total) {
    GPURENT_ASSERT(total.currency_value() == left_.currency_value());
    const currency& c = left_.currency_value();
    const int128& t = total.minor_units();
    const int128 applied = t < 0 ? int128(0) : (t < left_.minor_units() ? t : left_.minor_units());
    left_ = money_value(c, int128(left_.minor_units() - applied));
    return {money_value(c, applied), money_value(c, int128(t - applied))};
  }
  [[nodiscard]] const money_value& remaining() const noexcept { return left_; }

 private:
  money_value left_;
};

// A monthly subscription (prepaid month): `fee` per unit per calendar month, for `units`,
// not prorated.
[[nodiscard]] inline ratio<> subscription_amount(nano_money fee, nano_quantity units) {
  return ratio<>(int128(fee.raw()) * int128(units.raw()), int128(detail::nano_one) * detail::nano_one);
}

}  // namespace gpurent
