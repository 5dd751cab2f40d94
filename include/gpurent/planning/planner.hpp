// SPDX-License-Identifier: MIT
#pragma once
// The planner: for each job of a workload, the cheapest feasible (offer, count, sharing)
// with its expected cost and the reason; services that need less than a GPU packed onto
// shared rented units where that is cheaper; the usage the plan produces, rated by the
// meter (metering/meter.hpp) under the tariff the offers make.
//
// A pipeline of named steps, each in its own header:
//   1. candidates (planning/candidates.hpp): every feasible way to run a job on an offer,
//      priced by metering's rating functions (planning/pricing.hpp);
//   2. choice: the cheapest candidate per job, the runner-up, the naive baseline
//      (planning/naive.hpp);
//   3. packing (planning/packing.hpp): exact subset search, first-fit-decreasing, lower bound;
//   4. assignment: each job's records, cost and rationale (planning/rationale.hpp);
//   5. rating: the plan's usage through the meter, as `gpurent meter` rates it.
//
// Costs are exact: estimated durations (spot wall time) become whole seconds, rounded up;
// every amount is then an exact integer (planning/pricing.hpp) and is rounded once.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/calendar.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/usage.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/granularity.hpp>
#include <gpurent/planning/naive.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/packing.hpp>
#include <gpurent/planning/pricing.hpp>
#include <gpurent/planning/rationale.hpp>
#include <gpurent/planning/supply.hpp>
#include <gpurent/planning/timing.hpp>
#include <gpurent/planning/workload.hpp>
#include <gpurent/sharing/rental.hpp>

namespace gpurent {

struct job_plan {
  std::string name;
  job_kind kind = job_kind::training;
  std::string offer;                  // the offer's id
  offer_mode mode = offer_mode::on_demand;
  job_sharing sharing;                // what is rented and how the job holds it
  std::int64_t count = 0;             // units rented (servers, GPUs, slices, fractions, shared units)
  std::int32_t gpus = 0;              // whole GPUs a training run or experiment machine uses
  seconds wall{0};                    // expected time from start to finish
  instant start{};                    // when it starts (its requested start unless delayed)
  instant end{};                      // start + wall
  delay_cause delay = delay_cause::none;  // why it starts later than asked, by `delayed`
  seconds delayed{0};
  money_value expected_cost;
  money_value naive_cost;             // exclusive whole GPUs billed hourly, on demand
  std::string naive_offer;
  rationale why;
  granularity_waste waste;            // record seconds: used vs billed
  std::optional<spot_estimate> spot;
  std::vector<std::string> shares_with;  // packed: the other jobs on the same rented unit
};

struct packing_report {
  std::size_t items = 0;      // jobs that could share a GPU
  std::size_t bins = 0;       // rented units holding two or more of them
  bool exact = true;          // subset DP over all partitions (else first-fit-decreasing)
  money_value cost;           // of the packable jobs as planned
  money_value lower_bound;    // no plan of them is cheaper
  double gap = 0;             // (cost - lower_bound) / lower_bound
  std::size_t dissolved = 0;  // shared units the supply could not hold (their jobs run alone)
};

struct plan_result {
  currency ccy;
  std::string period;
  std::string timezone;
  interval window;
  std::vector<job_plan> jobs;          // in workload order
  std::vector<usage_record> usage;     // what the plan produces (meter.md's usage)
  tariff prices;                       // the rates the usage is priced with (the offers used)
  money_value total_cost;              // sum of the jobs' expected costs
  money_value naive_cost;              // every job naive, rounded once
  money_value billed_total;            // the usage rated by the meter (per-line rounding)
  invoice billed;                      // the meter's invoice of the usage
  packing_report packing;
};

struct plan_options {
  std::size_t exact_packing_limit = 12;  // jobs; beyond: first-fit-decreasing
  std::size_t heuristic_bin_offers = 8;  // cheapest bin offers tried by the heuristic
  bool pack = true;
};

namespace detail::plan {

// Step 2: per job, the cheapest candidate, the cheapest on another offer, and how many.
struct choice {
  candidate best;
  candidate second;
  std::size_t feasible = 0;
};

[[nodiscard]] inline expected<choice> choose(const plan_context& cx, std::size_t i) {
  const job& j = cx.w.jobs[i];
  choice c;
  for (std::size_t oi = 0; oi < cx.cat.size(); ++oi) {
    if (!allowed(j, cx.cat[oi])) continue;
    for_each_candidate(cx, j, oi, [&](const candidate& k) {
      ++c.feasible;
      if (better(k, c.best)) {
        if (c.best.valid() && c.best.offer != k.offer) c.second = c.best;
        c.best = k;
      } else if (k.offer != c.best.offer && better(k, c.second)) {
        c.second = k;
      }
    });
  }
  if (!c.best.valid())
    return make_error(error_code::not_found, "jobs[" + std::to_string(i) + "]",
                      "no offer can run job \"" + j.name + "\" (check its GPUs, memory, deadline, constraints and the period end)");
  return c;
}

[[nodiscard]] inline const std::string& account_of(const plan_context& cx, const job& j) { return j.account.empty() ? cx.w.account : j.account; }

[[nodiscard]] inline usage_record make_record(std::string id, const std::string& account, const offer& o, const unit_quantity& q, instant start, instant end) {
  usage_record r;
  r.id = std::move(id);
  r.account = account;
  r.resource = o.resource();
  r.mode = std::string(to_string(o.mode));
  r.quantity = q.raw().convert_to<std::int64_t>() * 1'000'000;  // 10^-3 units -> nano units
  r.start = start;
  r.end = end;
  return r;
}

// A job's records from `start`, its waste and its expected cost: its records as one line,
// rounded once.
inline void emit_alone(const plan_context& cx, const job& j, const candidate& c, instant start, job_plan& p, plan_result& out) {
  const offer& o = cx.cat[c.offer];
  std::vector<priced_record> mine;
  c.for_each_record(start, [&](std::int64_t k, instant t, seconds len) {
    out.usage.push_back(make_record(j.name + "-" + std::to_string(k + 1), account_of(cx, j), o, c.qty, t, t + len));
    mine.push_back({c.qty, t, len});
    p.waste.used += len;
    p.waste.billed += cx.pricer.billed(c.offer, len);
  });
  p.expected_cost = cx.pricer.round(cx.pricer.line(c.offer, mine));
}

// Why job j alone runs on candidate c (`second`: the best on another offer, if any).
[[nodiscard]] rationale explain(const plan_context& cx, const job& j, const candidate& c, const candidate& second, std::size_t feasible);

// Step 4a with a full search: every candidate of job i placed in time (planning/timing.hpp),
// the cheapest (then the earliest to end), and the best on another offer.
[[nodiscard]] inline choice search_in_time(const plan_context& cx, const plan_supply& supply, std::size_t i, instant& start) {
  const job& j = cx.w.jobs[i];
  choice out;
  std::optional<timed_candidate> best, second;
  const auto earlier = [](const timed_candidate& a, const timed_candidate& b) {
    if (a.c.amount != b.c.amount) return a.c.amount < b.c.amount;
    return a.end() != b.end() ? a.end() < b.end() : a.c.offer < b.c.offer;
  };
  for (std::size_t oi = 0; oi < cx.cat.size(); ++oi) {
    if (!allowed(j, cx.cat[oi])) continue;
    for_each_candidate(cx, j, oi, [&](const candidate& k) {
      ++out.feasible;
      const auto t = place_in_time(cx, supply, j, k);
      if (!t) return;
      if (!best || earlier(*t, *best)) {
        if (best && best->c.offer != t->c.offer) second = best;
        best = t;
      } else if (t->c.offer != best->c.offer && (!second || earlier(*t, *second))) {
        second = t;
      }
    });
  }
  if (best) {
    out.best = best->c;
    start = best->start;
  }
  if (second) out.second = second->c;
  return out;
}

// Step 4 for a job alone: when and where it runs (its cheapest candidate at its start when
// that fits the supply and it has no timing rules; else the search), its records, cost
// and rationale; its units reserved in the supply.
[[nodiscard]] inline expected<void> assign_alone(const plan_context& cx, plan_supply& supply, std::size_t i, const choice& ch, plan_result& out) {
  const job& j = cx.w.jobs[i];
  instant start = cx.start_of(j);
  const bool simple = j.start_slack.count() == 0 && !j.max_spot_price;
  const choice found = simple && supply.fits(ch.best.offer, ch.best.units, start, start + ch.best.wall) ? ch : search_in_time(cx, supply, i, start);
  if (!found.best.valid())
    return make_error(error_code::not_found, "jobs[" + std::to_string(i) + "]",
                      "no offer has room for job \"" + j.name + "\" before its deadline and the period end (every one that can run it is full" +
                          (j.max_spot_price ? " or over its maximum spot price)" : ")"));
  const candidate& c = found.best;
  const offer& o = cx.cat[c.offer];
  const instant asked = cx.start_of(j);
  job_plan& p = out.jobs[i];
  if (start != asked) p.delay = supply.fits(c.offer, c.units, asked, asked + c.wall) ? delay_cause::price : delay_cause::capacity;
  supply.reserve(c.offer, c.units, start, start + c.wall);
  p.offer = o.id;
  p.mode = o.mode;
  p.sharing = o.sharing();
  p.count = c.units;
  p.gpus = c.gpus;
  p.wall = c.wall;
  p.spot = c.spot;
  p.start = start;
  p.end = start + c.wall;
  p.why = explain(cx, j, c, found.second, found.feasible);
  p.delayed = start - asked;
  if (p.delay != delay_cause::none) p.why.delay = rationale::delayed{p.delay, p.delayed};
  emit_alone(cx, j, c, start, p, out);
  return {};
}

// Step 4 for a shared unit: one record for the unit, its rounded cost split over its jobs
// by compute x time (largest remainders, so the shares add up exactly).
[[nodiscard]] inline expected<void> assign_bin(const plan_context& cx, const packing_result& pr, std::size_t bi, std::size_t number, plan_result& out) {
  const bin& b = pr.bins[bi];
  const offer& o = cx.cat[b.offer];
  const job& first = cx.w.jobs[pr.items[b.items.front()].job];
  out.usage.push_back(make_record("shared-" + std::to_string(number), account_of(cx, first), o, unit_quantity(1), b.span.begin(), b.span.end()));
  const money_value cost = cx.pricer.round(b.amount);
  std::vector<int128> weights;
  plan_amount alone = 0;
  for (std::size_t k : b.items) {
    const job& j = cx.w.jobs[pr.items[k].job];
    weights.push_back(j.gpu_share.raw() * j.replicas * int128(j.duration.count()));
    alone += pr.items[k].standalone;
  }
  GPURENT_TRY(parts, allocate(cost.minor_units(), weights));
  const mig_geometry* geo = find_mig_geometry(o.gpu);
  for (std::size_t t = 0; t < b.items.size(); ++t) {
    const job& j = cx.w.jobs[pr.items[b.items[t]].job];
    job_plan& p = out.jobs[pr.items[b.items[t]].job];
    std::optional<std::string> profile;
    if (b.fit.mig && geo != nullptr) profile = std::string(geo->profiles[b.fit.profiles[t]].name);
    p.offer = o.id;
    p.mode = o.mode;
    p.sharing = job_sharing{o.unit, exclusive{}, true};
    if (profile) p.sharing.mode = *mig_slice::make(*profile);
    p.count = 1;
    p.wall = j.duration;
    p.start = cx.start_of(j);
    p.end = p.start + j.duration;
    p.expected_cost = money_value(cx.cat.currency_value(), (*parts)[t]);
    p.waste = billing_waste(o.pricing.time, b.span.length());
    for (std::size_t u = 0; u < b.items.size(); ++u)
      if (u != t) p.shares_with.push_back(cx.w.jobs[pr.items[b.items[u]].job].name);
    p.why = rationale{packed_rationale{p.shares_with, o.unit, o.id, profile, b.span.length(), cost, b.items.size(), cx.pricer.round(alone)}, 0, {}, {}, {}};
  }
  return {};
}

// Step 5: the offers the usage uses, as a tariff, and the usage through the meter.
[[nodiscard]] inline expected<void> rate_through_meter(const plan_context& cx, plan_result& out) {
  std::vector<std::size_t> used;
  for (std::size_t oi = 0; oi < cx.cat.size(); ++oi) {
    const offer& o = cx.cat[oi];
    const std::string_view mode = to_string(o.mode);
    if (std::ranges::any_of(out.usage, [&](const usage_record& r) { return r.resource == o.id && r.mode == mode; })) used.push_back(oi);
  }
  GPURENT_TRY(t, offers_tariff(cx.cat, out.timezone, used));
  out.prices = std::move(*t);
  meter m(out.prices, out.window, out.period);
  for (const usage_record& r : out.usage) GPURENT_TRY(m.add(r));
  GPURENT_TRY(inv, m.finish());
  out.billed = std::move(*inv);
  out.billed_total = money_value(out.ccy, 0);
  for (const invoice_account& a : out.billed.accounts) out.billed_total += a.total;
  return {};
}

// Steps 3 and 4: pack, then assign every job (packed or alone) and the totals.
[[nodiscard]] inline expected<void> assign(const plan_context& cx, plan_supply& supply, std::span<const choice> chosen, const plan_options& opt, plan_result& out) {
  std::vector<candidate> best;
  for (const choice& c : chosen) best.push_back(c.best);
  packing_result pr = opt.pack ? pack(cx, best, packing_options{opt.exact_packing_limit, opt.heuristic_bin_offers}) : packing_result{};
  out.packing = packing_report{pr.items.size(), pr.bins.size(), pr.exact, cx.pricer.round(pr.cost), cx.pricer.round(pr.lower_bound), 0.0};
  // The gap on the plan's grain (pricing.hpp), where every amount is an integer.
  const plan_amount cost = pr.cost / plan_pricer::milli_grain, lower = pr.lower_bound / plan_pricer::milli_grain;
  if (lower > 0) out.packing.gap = static_cast<double>((cost - lower).convert_to<long double>() / lower.convert_to<long double>());
  // Shared units first, each holding one unit of its offer for its span; one the supply
  // cannot hold is dissolved and its jobs run alone.
  std::vector<bool> packed(cx.w.jobs.size(), false);
  for (std::size_t bi = 0; bi < pr.bins.size(); ++bi) {
    const bin& b = pr.bins[bi];
    if (!supply.fits(b.offer, 1, b.span.begin(), b.span.end())) {
      ++out.packing.dissolved;
      continue;
    }
    supply.reserve(b.offer, 1, b.span.begin(), b.span.end());
    GPURENT_TRY(assign_bin(cx, pr, bi, bi + 1 - out.packing.dissolved, out));
    for (std::size_t k : b.items) packed[pr.items[k].job] = true;
  }
  out.packing.bins -= out.packing.dissolved;
  for (std::size_t i = 0; i < cx.w.jobs.size(); ++i)
    if (!packed[i]) GPURENT_TRY(assign_alone(cx, supply, i, chosen[i], out));
  out.total_cost = money_value(out.ccy, 0);
  for (const job_plan& p : out.jobs) out.total_cost += p.expected_cost;
  return {};
}

}  // namespace detail::plan

// Plans a validated workload (see validate) on a catalog. A job no offer can run is an
// error with code not_found naming it.
[[nodiscard]] inline expected<plan_result> plan(const workload& w, const offer_catalog& cat, const plan_options& opt = {}) {
  using namespace detail::plan;
  auto ym = parse_year_month(w.period);
  if (!ym) return unexpected<error>(ym.error().in_field("period"));
  auto zone = find_zone(w.timezone);
  if (!zone) return unexpected<error>(zone.error().in_field("timezone"));
  plan_result out{cat.currency_value(), w.period, w.timezone, month_period(*zone, *ym), {}, {}, {}, money_value(cat.currency_value(), 0),
                  money_value(cat.currency_value(), 0), money_value(cat.currency_value(), 0), {}, {}};
  const plan_pricer pricer(cat, out.window);
  const plan_context cx{w, cat, pricer};
  plan_supply supply(cat);
  out.jobs.resize(w.jobs.size());
  try {
    std::vector<choice> chosen;
    plan_amount naive_total = 0;
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      GPURENT_TRY(c, choose(cx, i));
      chosen.push_back(std::move(*c));
      const naive_choice n = naive_cost(cx, w.jobs[i]);
      out.jobs[i].name = w.jobs[i].name;
      out.jobs[i].kind = w.jobs[i].kind;
      out.jobs[i].naive_cost = n.offer == npos ? money_value(cat.currency_value(), 0) : pricer.round(n.amount);
      if (n.offer != npos) out.jobs[i].naive_offer = cat[n.offer].id;
      naive_total += n.amount;
    }
    out.naive_cost = pricer.round(naive_total);
    GPURENT_TRY(assign(cx, supply, chosen, opt, out));
  } catch (const exception& e) {
    return unexpected<error>(e.err());
  }
  GPURENT_TRY(rate_through_meter(cx, out));
  return out;
}

// ---- Why: the rationale of a job alone -------------------------------------------------

namespace detail::plan {

inline rationale explain(const plan_context& cx, const job& j, const candidate& c, const candidate& second, std::size_t feasible) {
  const offer& o = cx.cat[c.offer];
  rationale r;
  r.feasible = feasible;
  if (second.valid()) r.next = runner_up{cx.cat[second.offer].id, cx.cat[second.offer].mode, cx.pricer.round(second.amount)};
  if (o.mode == offer_mode::spot && j.max_spot_price) r.max_spot_price = *j.max_spot_price;
  switch (j.kind) {
    case job_kind::training: {
      training_rationale t{c.gpus, o.gpu, c.wall, o.unit == offer_unit::server ? c.units : 1, o.unit == offer_unit::server ? o.gpu_count : 1, {}};
      if (c.spot) t.spot = training_rationale::spot_plan{o.notice, *j.checkpoint, *c.spot};
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
      r.choice = experiments_rationale{j.runs, c.machines, c.wall, o.pricing.time.increment(), one, billing_waste(o.pricing.time, one)};
      break;
    }
  }
  return r;
}

}  // namespace detail::plan

}  // namespace gpurent
