// SPDX-License-Identifier: MIT
#pragma once
// Step 4a of the planner: when a candidate runs. A job starts at its `start` when its units
// are free and its price rules hold there; otherwise later, as long as it still ends by its
// deadline and the end of the period (a service only within its `start_slack`). Within its
// slack a job may also wait for a cheaper price window. A spot offer is used only while its
// price per GPU-hour stays at or under the job's `max_spot_price`, and any offer only while
// the allocation's hourly cost stays within the job's `max_hourly_cost` for its mode.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/caps.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/supply.hpp>
#include <gpurent/planning/workload.hpp>

namespace gpurent {

// A candidate placed in time: its amount is priced at `start`.
struct timed_candidate {
  candidate c;
  instant start{};
  [[nodiscard]] instant end() const { return start + c.wall; }
};

// Why a job starts later than asked.
enum class delay_cause : std::uint8_t { none, capacity, price };
template <>
struct enum_names<delay_cause> {
  static constexpr enum_entry<delay_cause> entries[] = {
      {delay_cause::none, "none"}, {delay_cause::capacity, "capacity"}, {delay_cause::price, "price"}};
};

namespace detail::plan {

// The latest start at which a run of `wall` still ends in time.
[[nodiscard]] inline instant latest_start(const plan_context& cx, const job& j, seconds wall) {
  const instant start = cx.start_of(j);
  instant end = cx.window().end();
  if (j.kind == job_kind::service) end = std::min(end, start + j.start_slack + wall);
  if (j.deadline) end = std::min(end, start + *j.deadline);
  return end - wall;
}

// The price per GPU-hour of offer o at t is at most the job's maximum.
[[nodiscard]] inline bool under_max(const offer& o, const decimal<9>& max, instant t) {
  const std::int64_t milli = o.unit == offer_unit::fraction ? 1000 : std::max<std::int64_t>(1, o.unit_milli_gpu());
  // nano per unit per `per` -> per GPU-hour: x 3600 / per x 1000 / milli; compared crosswise.
  return int128(o.pricing.price.price_at(t).raw()) * 3600 * 1000 <= max.raw() * o.pricing.per.count() * milli;
}

// The price rules over the run of c from t: a spot offer only while its price is under the
// job's maximum (every other offer, and a job without a maximum, passes), and the job's
// max_hourly_cost for the offer's mode at every price in force (planning/caps.hpp).
[[nodiscard]] inline bool price_rule_holds(const job& j, const offer& o, const candidate& c, instant t) {
  if (!cap_holds(j, o, c, t)) return false;
  if (o.mode != offer_mode::spot || !j.max_spot_price || o.tiered()) return true;
  if (!under_max(o, *j.max_spot_price, t)) return false;
  return std::ranges::all_of(o.pricing.price.changes(),
                             [&](const price_change& p) { return p.from <= t || p.from >= t + c.wall || under_max(o, *j.max_spot_price, p.from); });
}

// Starts worth trying for c: the job's start, and each instant the offer's price changes
// before the latest start (a cheaper window, or the spot price falling under the maximum).
[[nodiscard]] inline std::vector<instant> starts_to_try(const plan_context& cx, const job& j, const candidate& c, instant latest) {
  const instant start = cx.start_of(j);
  std::vector<instant> out{start};
  const offer& o = cx.cat[c.offer];
  if (o.tiered()) return out;
  const bool rule_waits = (o.mode == offer_mode::spot && j.max_spot_price) || cap_on(j, o);  // a window under a price rule
  const instant voluntary = std::min(latest, rule_waits ? latest : start + j.start_slack);
  for (const price_change& p : o.pricing.price.changes())
    if (p.from > start && p.from <= voluntary) out.push_back(p.from);
  return out;
}

}  // namespace detail::plan

// The cheapest start of candidate c that its offer's supply and the job's rules allow, with
// the amount priced there; nothing when there is none.
[[nodiscard]] inline std::optional<timed_candidate> place_in_time(const plan_context& cx, const plan_supply& supply, const job& j,
                                                                  const candidate& c) {
  const instant latest = detail::plan::latest_start(cx, j, c.wall);
  const offer& o = cx.cat[c.offer];
  std::optional<timed_candidate> best;
  // Each start tried is one earliest fit; a fit where the spot price is over the maximum is
  // skipped, and the later price changes among the starts tried cover what follows it.
  for (instant from : detail::plan::starts_to_try(cx, j, c, latest)) {
    const auto t = supply.earliest_fit(c.offer, c.units, from, latest, c.wall);
    if (!t || !detail::plan::price_rule_holds(j, o, c, *t)) continue;
    timed_candidate tc{c, *t};
    if (*t != cx.start_of(j)) tc.c.amount = detail::plan::amount_of(cx, c, *t);
    if (!best || tc.c.amount < best->c.amount || (tc.c.amount == best->c.amount && tc.start < best->start)) best = tc;
  }
  return best;
}

}  // namespace gpurent
