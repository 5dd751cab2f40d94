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
#include <stdexcept>
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
#include <gpurent/planning/assignment.hpp>
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

// One job's plan; its amounts are in the plan's currency (there is no default one).
struct job_plan {
  explicit job_plan(const currency& c) : expected_cost(c, 0), naive_cost(c, 0) {}
  std::string name;
  job_kind kind = job_kind::training;
  std::string offer;  // the offer's id
  offer_mode mode = offer_mode::on_demand;
  job_sharing sharing;                    // what is rented and how the job holds it
  std::int64_t count = 0;                 // units rented (servers, GPUs, slices, fractions, shared units)
  std::int32_t gpus = 0;                  // whole GPUs a training run or experiment machine uses
  seconds wall{0};                        // expected time from start to finish
  instant start{};                        // when it starts (its requested start unless delayed)
  instant end{};                          // start + wall
  delay_cause delay = delay_cause::none;  // why it starts later than asked, by `delayed`
  seconds delayed{0};
  money_value expected_cost;
  money_value naive_cost;  // exclusive whole GPUs billed hourly, on demand
  std::string naive_offer;
  rationale why;
  granularity_waste waste;  // record seconds: used vs billed
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

// An owned pool over the period: its fixed cost whatever the use, the marginal cost of the
// hours the plan uses (metered: its lines of the plan's invoice), how much of it is used,
// and what a delivered GPU-hour costs all told.
struct owned_pool_report {
  std::string offer;
  std::int32_t units = 0;
  money_value fixed_cost;                        // units x the offer's fixed cost per unit and period
  money_value marginal_cost;                     // the pool's lines of the plan's invoice
  ratio<> utilization;                           // used unit-seconds / (units x the period's seconds)
  ratio<> gpu_hours;                             // delivered
  std::optional<money_value> cost_per_gpu_hour;  // (fixed + marginal) / gpu_hours; none when unused
};

struct plan_result {
  currency ccy;
  std::string period;
  std::string timezone;
  interval window;
  std::vector<job_plan> jobs;       // in workload order
  std::vector<usage_record> usage;  // what the plan produces (meter.md's usage)
  std::optional<tariff> prices;     // the rates the usage is priced with (the offers used)
  money_value total_cost;           // sum of the jobs' expected costs
  money_value naive_cost;           // every job naive, rounded once
  money_value billed_total;         // the usage rated by the meter (per-line rounding)
  std::optional<invoice> billed;    // the meter's invoice of the usage
  packing_report packing;
  supply_report supply;                  // how contested supply was shared out
  std::vector<owned_pool_report> owned;  // one per owned offer, in catalog order
  money_value owned_fixed_cost;          // of every owned pool, paid whatever the use
};

struct plan_options {
  std::size_t exact_packing_limit = 12;  // jobs; beyond: first-fit-decreasing
  std::size_t heuristic_bin_offers = 8;  // cheapest bin offers tried by the heuristic
  bool pack = true;
  std::size_t exact_supply_limit = 10;  // contested plans of up to this many jobs alone: exact search
};

namespace detail::plan {

[[nodiscard]] inline const std::string& account_of(const plan_context& cx, const job& j) { return j.account.empty() ? cx.w.account : j.account; }

[[nodiscard]] inline usage_record make_record(std::string id, const std::string& account, const offer& o, const unit_quantity& q, instant start,
                                              instant end) {
  usage_record r;
  r.id = std::move(id);
  r.account = account;
  r.resource = o.resource();
  r.mode = std::string(to_string(o.mode));
  r.quantity = nano_quantity(q.raw().convert_to<std::int64_t>() * 1'000'000);  // 10^-3 units -> nano units
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

// Step 4 for a job alone, once decided (planning/assignment.hpp): its units reserved, its
// plan, records, cost and rationale.
inline void commit_alone(const plan_context& cx, plan_supply& supply, std::size_t i, const placed& d, plan_result& out) {
  const job& j = cx.w.jobs[i];
  const candidate& c = d.ch.best;
  const offer& o = cx.cat[c.offer];
  const instant asked = cx.start_of(j);
  job_plan& p = out.jobs[i];
  if (d.start != asked) p.delay = supply.fits(c.offer, c.units, asked, asked + c.wall) ? delay_cause::price : delay_cause::capacity;
  supply.reserve(c.offer, c.units, d.start, d.start + c.wall);
  p.offer = o.id;
  p.mode = o.mode;
  p.sharing = o.sharing();
  p.count = c.units;
  p.gpus = c.gpus;
  p.wall = c.wall;
  p.spot = c.spot;
  p.start = d.start;
  p.end = d.start + c.wall;
  p.delayed = d.start - asked;
  p.why = explain(cx, j, c, d.ch.second, d.ch.feasible);
  if (p.delay != delay_cause::none) p.why.delay = rationale::delayed{p.delay, p.delayed};
  emit_alone(cx, j, c, d.start, p, out);
}

// Step 4 for a shared unit: one record for the unit, its rounded cost split over its jobs
// by compute x time (largest remainders, so the shares add up exactly).
[[nodiscard]] inline expected<void> assign_bin(const plan_context& cx, const packing_result& pr, std::size_t bi, std::size_t number,
                                               plan_result& out) {
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
    p.why = rationale{
        packed_rationale{p.shares_with, o.unit, o.id, profile, b.span.length(), cost, b.items.size(), cx.pricer.round(alone)}, 0, {}, {}, {}};
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
  meter m(*out.prices, out.window, out.period);
  for (const usage_record& r : out.usage) GPURENT_TRY(m.add(r));
  GPURENT_TRY(inv, m.finish());
  out.billed = std::move(*inv);
  out.billed_total = money_value(out.ccy, 0);
  for (const invoice_account& a : out.billed->accounts) out.billed_total += a.total;
  return {};
}

// Each owned pool's use and cost, from the plan's records and invoice.
inline void report_owned(const plan_context& cx, plan_result& out) {
  for (const offer& o : cx.cat.offers()) {
    if (!o.owned()) continue;
    owned_pool_report r{o.id,
                        o.max_units,
                        cx.pricer.round(plan_amount(o.fixed_cost.raw() * o.max_units) * (cx.pricer.denominator() / int128(decimal<9>::one()))),
                        money_value(out.ccy, 0),
                        {},
                        {},
                        {}};
    int128 used = 0;  // nano unit-seconds
    for (const usage_record& u : out.usage)
      if (u.resource == o.id && u.mode == "owned") used += int128(u.quantity.raw()) * (u.end - u.start).count();
    for (const invoice_account& a : out.billed->accounts)
      for (const invoice_line& l : a.lines)
        if (l.resource == o.id && l.mode == "owned") r.marginal_cost += l.amount;
    const int128 capacity = int128(detail::nano_one) * o.max_units * out.window.length().count();
    r.utilization = capacity > 0 ? ratio<>(used, capacity) : ratio<>{};
    // unit-seconds x (milli-GPUs per unit / 1000) / 3600; a fraction's quantity is of one GPU.
    const std::int64_t milli = o.unit == offer_unit::fraction ? 1000 : o.unit_milli_gpu();
    r.gpu_hours = ratio<>(used * milli, int128(detail::nano_one) * 1000 * 3600);
    if (used > 0) {
      const ratio<> total(r.fixed_cost.minor_units() + r.marginal_cost.minor_units(), detail::pow10<int128>(out.ccy.minor_units));
      r.cost_per_gpu_hour = money_value::round(out.ccy, total * ratio<>(r.gpu_hours.den(), r.gpu_hours.num()), cx.cat.rounding());
    }
    out.owned_fixed_cost += r.fixed_cost;
    out.owned.push_back(std::move(r));
  }
}

// Steps 3 and 4: pack, then assign every job (packed or alone) and the totals.
[[nodiscard]] inline expected<void> assign(const plan_context& cx, plan_supply& supply, std::span<const choice> chosen, const plan_options& opt,
                                           plan_result& out) {
  std::vector<candidate> best;
  for (const choice& c : chosen) best.push_back(c.best);
  packing_result pr = opt.pack ? pack(cx, best, packing_options{opt.exact_packing_limit, opt.heuristic_bin_offers}) : packing_result{};
  out.packing = packing_report{pr.items.size(), pr.bins.size(), pr.exact, cx.pricer.round(pr.cost), cx.pricer.round(pr.lower_bound), 0.0, 0};
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
  std::vector<std::size_t> alone;
  for (std::size_t i = 0; i < cx.w.jobs.size(); ++i)
    if (!packed[i]) alone.push_back(i);
  GPURENT_TRY(decided, decide_alone(cx, supply, chosen, alone, opt.exact_supply_limit));
  out.supply = decided->report;
  for (std::size_t k = 0; k < alone.size(); ++k) commit_alone(cx, supply, alone[k], decided->jobs[k], out);
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
  const money_value zero(cat.currency_value(), 0);
  plan_result out{cat.currency_value(),
                  w.period,
                  w.timezone,
                  month_period(*zone, *ym),
                  {},
                  {},
                  {},
                  zero,
                  zero,
                  zero,
                  {},
                  packing_report{0, 0, true, zero, zero, 0.0, 0},
                  {},
                  {},
                  zero};
  const plan_pricer pricer(cat, out.window);
  const plan_context cx{w, cat, pricer};
  plan_supply supply(cat);
  out.jobs.assign(w.jobs.size(), job_plan(cat.currency_value()));
  // An amount beyond the integers' range (a price or gpu_hours near 2^63) is an error naming
  // the job whose numbers overflowed, never an exception out of the library.
  std::string at;
  const char* const too_large = "its amounts or durations are too large to plan exactly (beyond 128-bit integers)";
  try {
    std::vector<choice> chosen;
    plan_amount naive_total = 0;
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      at = "jobs[" + std::to_string(i) + "]";
      GPURENT_TRY(c, choose(cx, i));
      chosen.push_back(std::move(*c));
      const naive_choice n = naive_cost(cx, w.jobs[i]);
      out.jobs[i].name = w.jobs[i].name;
      out.jobs[i].kind = w.jobs[i].kind;
      out.jobs[i].naive_cost = n.offer == npos ? money_value(cat.currency_value(), 0) : pricer.round(n.amount);
      if (n.offer != npos) out.jobs[i].naive_offer = cat[n.offer].id;
      naive_total += n.amount;
    }
    at.clear();
    out.naive_cost = pricer.round(naive_total);
    GPURENT_TRY(assign(cx, supply, chosen, opt, out));
    GPURENT_TRY(rate_through_meter(cx, out));
    report_owned(cx, out);
  } catch (const exception& e) {
    return unexpected<error>(e.err().field.empty() ? e.err().in_field(at) : e.err());
  } catch (const std::overflow_error&) {
    return make_error(error_code::overflow, at, too_large);
  } catch (const std::range_error&) {
    return make_error(error_code::overflow, at, too_large);
  }
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
      if (o.mode == offer_mode::spot) x.uninterrupted_run = scaled_seconds(int128(j.run_duration.count()) * 1000, j.reference_gflops, o.gflops, 1);
      r.choice = std::move(x);
      break;
    }
  }
  return r;
}

}  // namespace detail::plan

}  // namespace gpurent
