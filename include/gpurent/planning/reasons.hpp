// SPDX-License-Identifier: MIT
#pragma once
// Why a job alone runs where it runs, true against the plan as made (step 4 of the planner).
// Once every job is decided, each job alone is reviewed against the supply that every other
// decision holds (the shared units and the other jobs alone): what it could have taken
// instead if it alone changed.
// - The runner-up is the cheapest option on another offer that fits there, priced at its
//   cheapest start: an option the planner could actually have taken.
// - Each cheaper option it could not take is ruled out by the supply (the offer's units or a
//   quota held by named jobs of the plan then, or an allocation larger than the limit), by
//   the job's max_hourly_cost, or by its max_spot_price in every window it could run; the
//   cheapest per cause is named.
// - When an option cheaper than the choice does fit (the exact supply search stopped at its
//   budget, or a price window the search did not try), the plan takes it: after the review
//   no job alone can move to a cheaper option by itself.
// The review also says whether a job's naive option (planning/naive.hpp) is held by others,
// which is why a job can cost more than in the naive plan.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/time.hpp>
#include <gpurent/planning/assignment.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/caps.hpp>
#include <gpurent/planning/granularity.hpp>
#include <gpurent/planning/naive.hpp>
#include <gpurent/planning/rationale.hpp>
#include <gpurent/planning/supply.hpp>
#include <gpurent/planning/timing.hpp>

namespace gpurent {

// A decision that holds supply: a job alone, or a shared unit (its jobs' names joined by "+").
struct holding {
  std::string name;
  std::size_t offer = 0;
  std::int64_t units = 0;
  interval span;
};

// What the review found for one job alone.
struct job_review {
  std::optional<timed_candidate> next;      // the runner-up
  std::vector<ruled_out_option> ruled_out;  // cheapest per cause, cheapest first
  std::optional<timed_candidate> cheaper;   // a cheaper option that fits (the plan takes it)
  bool naive_held = false;                  // its naive option does not fit beside the others
};

namespace detail::plan {

// Every candidate of job j on the offers it may use (the caps' too), cheapest first.
[[nodiscard]] inline std::vector<candidate> all_options(const plan_context& cx, const job& j) {
  std::vector<candidate> out;
  for (std::size_t oi = 0; oi < cx.cat.size(); ++oi)
    if (allowed(j, cx.cat[oi])) for_each_candidate(cx, j, oi, [&](const candidate& k) { out.push_back(k); });
  std::ranges::sort(out, [](const candidate& a, const candidate& b) { return better(a, b); });
  return out;
}

[[nodiscard]] inline bool same_option(const candidate& a, const candidate& b) {
  return a.offer == b.offer && a.units == b.units && a.gpus == b.gpus && a.machines == b.machines && a.wall == b.wall;
}

[[nodiscard]] inline ruled_out_option option_named(const plan_context& cx, const candidate& k, ruled_out_cause cause) {
  const offer& o = cx.cat[k.offer];
  ruled_out_option r{o.id, o.mode, k.units, cx.pricer.round(k.amount), cause, {}, {}, {}, {}};
  return r;
}

// The limit that is full for k over [from, to) in `supply`, and the holdings (other than job
// j's) that hold it then.
inline void name_the_full(const plan_context& cx, const plan_supply& supply, std::span<const holding> held, const job& j, const candidate& k,
                          instant from, ruled_out_option& r) {
  const instant to = from + k.wall;
  const auto full = supply.first_full(k.offer, k.units, from, to);
  if (!full) return;
  const offer& o = cx.cat[k.offer];
  if (full->quota) {
    const offer_quota& q = cx.cat.quotas()[full->index];
    r.full = ruled_out_option::limit{true, q.provider, q.region, q.max_gpus};
  } else {
    r.full = ruled_out_option::limit{false, {}, {}, o.max_units};
  }
  for (const holding& h : held) {
    if (h.name == j.name || h.span.end() <= from || h.span.begin() >= to) continue;
    const bool touches = full->quota ? cx.cat.quotas()[full->index].covers(cx.cat[h.offer]) : h.offer == k.offer;
    if (touches) r.held_by.push_back(h.name);
  }
}

// Why job j cannot take k beside the plan's other decisions (`supply` holds them).
[[nodiscard]] inline ruled_out_option ruled_out_by(const plan_context& cx, const plan_supply& supply, std::span<const holding> held, const job& j,
                                                   const candidate& k) {
  const plan_supply empty(cx.cat);
  const instant start = cx.start_of(j);
  if (const auto alone = place_in_time(cx, empty, j, k)) {  // the rules allow a window: others hold it
    ruled_out_option r = option_named(cx, k, ruled_out_cause::supply);
    name_the_full(cx, supply, held, j, k, alone->start, r);
    return r;
  }
  if (!empty.fits(k.offer, k.units, start, start + k.wall)) {  // larger than the limit itself
    ruled_out_option r = option_named(cx, k, ruled_out_cause::supply);
    name_the_full(cx, empty, held, j, k, start, r);
    return r;
  }
  const offer& o = cx.cat[k.offer];
  if (!cap_holds(j, o, k, start)) {
    ruled_out_option r = option_named(cx, k, ruled_out_cause::cap);
    r.hourly = money_value::round(cx.cat.currency_value(), allocation_hourly_cost(o, k, price_in_force(o, start)), cx.cat.rounding());
    r.cap = *cap_on(j, o);
    return r;
  }
  return option_named(cx, k, ruled_out_cause::spot_price);
}

// Keeps the first (cheapest) ruled-out option of each cause.
inline void keep_first(std::vector<ruled_out_option>& out, ruled_out_option r) {
  if (std::ranges::none_of(out, [&](const ruled_out_option& x) { return x.cause == r.cause; })) out.push_back(std::move(r));
}

}  // namespace detail::plan

namespace detail::plan {

// One option k of job j weighed against the choice `mine` beside the others (`supply`): a
// runner-up, a cheaper option that fits, or a cheaper one ruled out.
inline void weigh(const plan_context& cx, const plan_supply& supply, std::span<const holding> held, const job& j, const candidate& mine,
                  const candidate& k, job_review& r) {
  if (same_option(k, mine)) return;
  const bool below = k.amount < mine.amount, other = k.offer != mine.offer;
  if (over_cap_always(cx, j, k)) {
    if (!below) return;
    ruled_out_option x = option_named(cx, k, ruled_out_cause::cap);
    x.hourly = lowest_hourly_cost(cx, k);
    x.cap = *cap_on(j, cx.cat[k.offer]);
    keep_first(r.ruled_out, std::move(x));
    return;
  }
  // Beyond the choice's amount only a runner-up can still matter; where the price changes
  // over time, a later start may cost less, down to floor_of's bound.
  const plan_amount floor = floor_of(cx, k);
  if (floor >= mine.amount && !(other && (!r.next || floor < r.next->c.amount))) return;
  if (const auto t = place_in_time(cx, supply, j, k)) {
    if (t->c.amount < mine.amount && (!r.cheaper || cheaper(*t, *r.cheaper))) r.cheaper = t;
    if (other && (!r.next || cheaper(*t, *r.next))) r.next = t;
  } else if (below) {
    keep_first(r.ruled_out, ruled_out_by(cx, supply, held, j, k));
  }
}

}  // namespace detail::plan

// Job i alone, decided as `d`, against `supply` holding every other decision (not its own):
// its shortlist first (choice::shortlist); every option again only when one outside it could
// still be cheaper than the choice or than the runner-up found there.
[[nodiscard]] inline job_review review_job(const plan_context& cx, const plan_supply& supply, std::span<const holding> held, std::size_t i,
                                           const placed& d, const naive_job* naive) {
  using namespace detail::plan;
  const job& j = cx.w.jobs[i];
  const candidate& mine = d.ch.best;
  job_review r;
  for (const candidate& k : d.ch.shortlist) weigh(cx, supply, held, j, mine, k, r);
  if (d.ch.capped.valid()) weigh(cx, supply, held, j, mine, d.ch.capped, r);
  const plan_amount rest = d.ch.rest_floor;
  const bool complete = !d.ch.shortlist.empty() && (rest < 0 || (rest >= mine.amount && r.next && rest >= r.next->c.amount));
  if (!complete) {
    r = job_review{};
    for (const candidate& k : all_options(cx, j)) weigh(cx, supply, held, j, mine, k, r);
  }
  std::ranges::stable_sort(r.ruled_out,
                           [](const ruled_out_option& a, const ruled_out_option& b) { return a.cost.minor_units() < b.cost.minor_units(); });
  if (naive != nullptr) r.naive_held = !same_option(naive->c, mine) && !place_in_time(cx, supply, j, naive->c);
  return r;
}

// Reviews every job alone (`alone`, decided as `decided`) against the others; a job with a
// cheaper option that fits takes it, and the review repeats until none moves (at most 16
// passes). `base` holds the shared units, `held` names them.
[[nodiscard]] inline std::vector<job_review> review_alone(const plan_context& cx, const plan_supply& base, std::vector<holding> held,
                                                          std::span<const std::size_t> alone, std::vector<placed>& decided, const naive_plan& naive) {
  plan_supply supply = base;
  const std::size_t first = held.size();
  for (std::size_t k = 0; k < alone.size(); ++k) {
    const candidate& c = decided[k].ch.best;
    supply.reserve(c.offer, c.units, decided[k].start, decided[k].start + c.wall);
    held.push_back(holding{cx.w.jobs[alone[k]].name, c.offer, c.units, *interval::make(decided[k].start, decided[k].start + c.wall)});
  }
  std::vector<job_review> out(alone.size());
  for (int pass = 0; pass < 16; ++pass) {
    bool moved = false;
    for (std::size_t k = 0; k < alone.size(); ++k) {
      placed& d = decided[k];
      supply.release(d.ch.best.offer, d.ch.best.units, d.start, d.start + d.ch.best.wall);
      const naive_job* n = naive.feasible() ? &naive.jobs[alone[k]] : nullptr;
      out[k] = review_job(cx, supply, held, alone[k], d, n);
      for (int step = 0; out[k].cheaper && step < 16; ++step) {
        d.ch.best = out[k].cheaper->c;
        d.start = out[k].cheaper->start;
        held[first + k].offer = d.ch.best.offer;
        held[first + k].units = d.ch.best.units;
        held[first + k].span = *interval::make(d.start, d.start + d.ch.best.wall);
        moved = true;
        out[k] = review_job(cx, supply, held, alone[k], d, n);
      }
      supply.reserve(d.ch.best.offer, d.ch.best.units, d.start, d.start + d.ch.best.wall);
    }
    if (!moved) break;
  }
  return out;
}

// Why job j alone runs on candidate c: what it runs, the options, the runner-up and the
// cheaper options ruled out (review), what failures cost it.
[[nodiscard]] inline rationale explain(const plan_context& cx, const job& j, const candidate& c, std::size_t feasible, const job_review& review) {
  const offer& o = cx.cat[c.offer];
  rationale r;
  r.feasible = feasible;
  if (review.next) {
    const offer& n = cx.cat[review.next->c.offer];
    r.next = runner_up{n.id, n.mode, review.next->c.units, cx.pricer.round(review.next->c.amount)};
  }
  r.ruled_out = review.ruled_out;
  r.failures = c.failures;
  if (o.mode == offer_mode::spot && j.max_spot_price) r.max_spot_price = *j.max_spot_price;
  switch (j.kind) {
    case job_kind::training: {
      training_rationale t{c.gpus, o.gpu, c.wall, o.unit == offer_unit::server ? c.units : 1, o.unit == offer_unit::server ? o.gpu_count : 1, {}, {}};
      if (c.spot) t.spot = training_rationale::spot_plan{o.notice, *c.checkpoint, *c.spot};
      t.speed = c.speed;
      r.choice = std::move(t);
      break;
    }
    case job_kind::service: {
      service_rationale s{j.replicas, j.duration, o.sharing(), o.gpu, {}};
      if (o.mode == offer_mode::reserved) s.reservation_minimum = o.pricing.time.minimum();
      r.choice = std::move(s);
      break;
    }
    case job_kind::experiments: {
      const std::int64_t per = j.runs / c.machines;
      const seconds one = c.len_b.count() > 0 ? c.len_b / std::max<std::int64_t>(1, per) : c.len_a;
      experiments_rationale x{j.runs, c.machines, c.wall, o.pricing.time.increment(), one, billing_waste(o.pricing.time, one), {}};
      if (o.mode == offer_mode::spot)
        x.uninterrupted_run = detail::plan::scaled_seconds(int128(j.run_duration.count()) * 1000, j.reference_gflops, o.gflops, 1);
      r.choice = std::move(x);
      break;
    }
  }
  return r;
}

}  // namespace gpurent
