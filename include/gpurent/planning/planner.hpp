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
//   2. choice: the cheapest candidate per job within its caps (planning/assignment.hpp,
//      planning/caps.hpp); the naive baseline, a plan of its own (planning/naive.hpp);
//   3. packing (planning/packing.hpp): exact subset search, first-fit-decreasing, lower bound;
//   4. assignment: shared units, then each job alone against the supply (planning/
//      assignment.hpp), reviewed against every other decision (planning/reasons.hpp); each
//      job's records, cost, price (planning/provenance.hpp) and rationale;
//   5. rating: the plan's usage through the meter, as `gpurent meter` rates it.
// A workload's budget is checked against the plan by planning/budget.hpp.
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
#include <gpurent/planning/plan_result.hpp>
#include <gpurent/planning/pricing.hpp>
#include <gpurent/planning/provenance.hpp>
#include <gpurent/planning/rationale.hpp>
#include <gpurent/planning/reasons.hpp>
#include <gpurent/planning/supply.hpp>
#include <gpurent/planning/timing.hpp>
#include <gpurent/planning/workload.hpp>
#include <gpurent/sharing/rental.hpp>

namespace gpurent {

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

// Step 4 for a job alone, once decided (planning/assignment.hpp) and reviewed
// (planning/reasons.hpp): its units reserved, its plan, records, cost, price and rationale.
inline void commit_alone(const plan_context& cx, plan_supply& supply, std::size_t i, const placed& d, const job_review& review, plan_result& out) {
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
  p.why = explain(cx, j, c, d.ch.feasible, review);
  if (p.delay != delay_cause::none) p.why.delay = rationale::delayed{p.delay, p.delayed};
  p.rejected = d.ch.rejected;
  p.price = price_record_of(o, p.start, p.end);
  emit_alone(cx, j, c, d.start, p, out);
}

// Step 4 for a shared unit: one record for the unit, its rounded cost split over its jobs
// by compute x time (largest remainders, so the shares add up exactly).
[[nodiscard]] inline expected<void> assign_bin(const plan_context& cx, const packing_result& pr, std::span<const choice> chosen, std::size_t bi,
                                               std::size_t number, plan_result& out) {
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
    p.price = price_record_of(o, b.span.begin(), b.span.end());
    p.rejected = chosen[pr.items[b.items[t]].job].rejected;
    for (std::size_t u = 0; u < b.items.size(); ++u)
      if (u != t) p.shares_with.push_back(cx.w.jobs[pr.items[b.items[u]].job].name);
    p.why = rationale{packed_rationale{p.shares_with, o.unit, o.id, profile, b.span.length(), cost, b.items.size(), cx.pricer.round(alone)},
                      0,
                      {},
                      {},
                      {},
                      {},
                      {},
                      {}};
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

// Step 3's report: an exact packing's cost is the optimum (its own lower bound, no gap); a
// heuristic one is compared with packing.hpp's lower bound, on the plan's grain, where every
// amount is an integer.
[[nodiscard]] inline packing_report packing_of(const plan_context& cx, const packing_result& pr) {
  packing_report r{pr.items.size(), pr.bins.size(), pr.exact, cx.pricer.round(pr.cost), cx.pricer.round(pr.exact ? pr.cost : pr.lower_bound), 0.0, 0};
  const plan_amount cost = pr.cost / plan_pricer::milli_grain, lower = pr.lower_bound / plan_pricer::milli_grain;
  if (!pr.exact && lower > 0) r.gap = static_cast<double>((cost - lower).convert_to<long double>() / lower.convert_to<long double>());
  return r;
}

// Shared units first, each holding one unit of its offer for its span; one the supply
// cannot hold is dissolved and its jobs run alone. Returns the jobs packed, and names what
// each unit holds (for the reasons of the jobs alone).
[[nodiscard]] inline expected<std::vector<bool>> assign_bins(const plan_context& cx, plan_supply& supply, const packing_result& pr,
                                                             std::span<const choice> chosen, std::vector<holding>& held, plan_result& out) {
  std::vector<bool> packed(cx.w.jobs.size(), false);
  for (std::size_t bi = 0; bi < pr.bins.size(); ++bi) {
    const bin& b = pr.bins[bi];
    if (!supply.fits(b.offer, 1, b.span.begin(), b.span.end())) {
      ++out.packing.dissolved;
      continue;
    }
    supply.reserve(b.offer, 1, b.span.begin(), b.span.end());
    GPURENT_TRY(assign_bin(cx, pr, chosen, bi, bi + 1 - out.packing.dissolved, out));
    holding h{{}, b.offer, 1, b.span};
    for (std::size_t k : b.items) {
      packed[pr.items[k].job] = true;
      h.name += (h.name.empty() ? "" : "+") + cx.w.jobs[pr.items[k].job].name;
    }
    held.push_back(std::move(h));
  }
  out.packing.bins -= out.packing.dissolved;
  return packed;
}

// Steps 3 and 4: pack, then decide, review and commit every job (packed or alone); the totals.
// `naive_held` gets, per job, whether its naive option does not fit beside the others.
[[nodiscard]] inline expected<void> assign(const plan_context& cx, plan_supply& supply, std::span<const choice> chosen, const naive_plan& naive,
                                           const plan_options& opt, std::vector<bool>& naive_held, plan_result& out) {
  std::vector<candidate> best;
  for (const choice& c : chosen) best.push_back(c.best);
  const packing_result pr = opt.pack ? pack(cx, best, packing_options{opt.exact_packing_limit, opt.heuristic_bin_offers}) : packing_result{};
  out.packing = packing_of(cx, pr);
  std::vector<holding> held;
  GPURENT_TRY(packed, assign_bins(cx, supply, pr, chosen, held, out));
  std::vector<std::size_t> alone;
  for (std::size_t i = 0; i < cx.w.jobs.size(); ++i)
    if (!(*packed)[i]) alone.push_back(i);
  GPURENT_TRY(decided, decide_alone(cx, supply, chosen, alone, opt.exact_supply_limit));
  out.supply = decided->report;
  const std::vector<job_review> reviews = review_alone(cx, supply, std::move(held), alone, decided->jobs, naive);
  naive_held.assign(cx.w.jobs.size(), false);
  for (std::size_t k = 0; k < alone.size(); ++k) {
    commit_alone(cx, supply, alone[k], decided->jobs[k], reviews[k], out);
    naive_held[alone[k]] = reviews[k].naive_held;
  }
  out.total_cost = money_value(out.ccy, 0);
  for (const job_plan& p : out.jobs) out.total_cost += p.expected_cost;
  return {};
}

// The naive baseline in the plan: per job its cost and offer, the total, and a note on a job
// that costs more than there (its naive option held by others, or its share of a shared unit).
inline void report_naive(const plan_context& cx, const naive_plan& naive, const std::vector<bool>& naive_held, plan_result& out) {
  if (!naive.feasible()) {
    out.naive = baseline_report{std::nullopt, cx.w.jobs[*naive.stuck].name, naive.no_option};
    return;
  }
  out.naive = baseline_report{cx.pricer.round(naive.total), {}, false};
  for (std::size_t i = 0; i < out.jobs.size(); ++i) {
    job_plan& p = out.jobs[i];
    const naive_job& n = naive.jobs[i];
    p.naive_cost = cx.pricer.round(n.amount);
    p.naive_offer = cx.cat[n.c.offer].id;
    if (p.expected_cost.minor_units() > p.naive_cost->minor_units())
      p.why.above_naive = dearer_than_naive{p.naive_offer, *p.naive_cost, naive_held[i]};
  }
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
                  {},
                  zero,
                  {},
                  packing_report{0, 0, true, zero, zero, 0.0, 0},
                  {},
                  {},
                  zero,
                  w.budget,
                  {}};
  out.set_aside.assign(cat.set_aside().begin(), cat.set_aside().end());
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
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      at = "jobs[" + std::to_string(i) + "]";
      GPURENT_TRY(c, choose(cx, i));
      chosen.push_back(std::move(*c));
      out.jobs[i].name = w.jobs[i].name;
      out.jobs[i].kind = w.jobs[i].kind;
    }
    at.clear();
    const naive_plan naive = naive_baseline(cx);
    std::vector<bool> naive_held;
    GPURENT_TRY(assign(cx, supply, chosen, naive, opt, naive_held, out));
    report_naive(cx, naive, naive_held, out);
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

}  // namespace gpurent
