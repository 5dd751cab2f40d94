// SPDX-License-Identifier: MIT
#pragma once
// Printing plans: a plan's rationale in English, durations as people write them ("1d13h",
// "45min27s"), and a plain-text table of a plan, readable at a terminal. The planning enums
// print through their name tables (core/enum.hpp, core/format.hpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include <gpurent/core/format.hpp>
#include <gpurent/planning/budget.hpp>
#include <gpurent/planning/planner.hpp>
#include <gpurent/planning/rationale.hpp>
#include <gpurent/sharing/rental.hpp>

namespace gpurent {

namespace detail::plan_text {

[[nodiscard]] inline std::string money(const money_value& m) { return m.to_string() + " " + std::string(m.currency_value().code); }
[[nodiscard]] inline std::string secs(double s) { return format_duration(seconds(static_cast<std::int64_t>(s))); }
// "0.95", "2": a decimal without trailing fractional zeros.
template <int S>
[[nodiscard]] std::string decimal_text(const decimal<S>& d) {
  return format_exact(ratio<>(d));
}

// An exact decimal amount with at least the currency's minor digits ("12.40", "0.000123",
// "-4.00"), as the input wrote it: never rounded.
[[nodiscard]] inline std::string exact_text(const ratio<>& r, int minor_digits) { return exact_decimal_text(r, minor_digits); }
template <int S>
[[nodiscard]] std::string exact_text(const decimal<S>& d, int minor_digits) {
  return exact_text(ratio<>(d), minor_digits);
}
[[nodiscard]] inline std::string price_decimal(nano_price p, int minor_digits) {
  return exact_text(ratio<>(int128(p.raw()), int128(detail::nano_one)), minor_digits);
}

// "1.25": a figure of an estimate, to two decimals.
[[nodiscard]] inline std::string two(double v) { return fmt::format("{:.2f}", v); }

// What storage and network did to a training run's speed.
[[nodiscard]] inline std::string speed_text(const training_speed& s) {
  std::string r;
  if (s.storage_cap) r += "; storage reads hold each GPU to " + two(*s.storage_cap) + "x the reference GPU's speed";
  if (s.allreduce_s)
    r += "; all-reduce across " + std::to_string(s.servers) + " servers takes " + two(*s.allreduce_s) + " s per " + two(s.step_s) + " s step, " +
         two(*s.exposed_s) + " s of it exposed (" + two((s.factor - 1) * 100) + "% longer)";
  return r;
}

[[nodiscard]] inline std::string text(const training_rationale& t) {
  std::string r = std::to_string(t.gpus) + " x " + t.gpu + " for " + format_duration(t.wall);
  if (t.servers > 1) r += ", multi-node: " + std::to_string(t.servers) + " servers x " + std::to_string(t.gpus_per_server) + " GPUs";
  if (t.speed) r += speed_text(*t.speed);
  if (!t.spot) return r;
  const spot_estimate& e = t.spot->estimate;
  r += "; spot with checkpoints: ";
  if (e.notice_fits_checkpoint)
    r += "the " + format_duration(t.spot->notice) + " notice fits a " + format_duration(t.spot->checkpoint) +
         " checkpoint, so checkpoint on notice (Daly interval " + secs(e.daly_s) + " as fallback)";
  else
    r += "checkpoint every " + secs(e.daly_s) + " (Daly; Young " + secs(e.young_s) + "), " + secs(e.rework_per_interruption_s) +
         " rework per interruption";
  return r + ", " + std::to_string(e.interruptions) + " expected interruption(s)";
}

[[nodiscard]] inline std::string text(const service_rationale& s) {
  std::string r = std::to_string(s.replicas) + " replica(s) for " + format_duration(s.duration) + " on " + to_string(s.sharing) + " of " + s.gpu;
  if (s.reservation_minimum) r += "; a reservation (minimum " + format_duration(*s.reservation_minimum) + ") pays at this duty";
  return r;
}

[[nodiscard]] inline std::string text(const experiments_rationale& x) {
  const std::int64_t per = x.runs / x.machines;
  std::string r = std::to_string(x.runs) + " runs on " + std::to_string(x.machines) + " machine(s), " + std::to_string(per) +
                  (x.runs % x.machines ? "-" + std::to_string(per + 1) : std::string()) + " back to back each, done in " + format_duration(x.wall);
  r += "; billed per " + format_duration(x.increment);
  if (x.one_run_alone.billed > x.one_run_alone.used)
    r += " (one " + format_duration(x.one_run) + " run alone would pay " + format_duration(x.one_run_alone.billed) + ")";
  if (x.uninterrupted_run)
    r +=
        "; on spot an interrupted run starts over: " + format_duration(x.one_run) + " expected per " + format_duration(*x.uninterrupted_run) + " run";
  return r;
}

[[nodiscard]] inline std::string text(const packed_rationale& p) {
  std::string others;
  for (const std::string& o : p.others) others += (others.empty() ? "" : ", ") + o;
  const std::string how = p.mig_profile ? "mig:" + *p.mig_profile + " MIG slice" : std::string("time-sliced share");
  return "packed with " + others + " on one rented " + (p.unit == offer_unit::server ? "server" : "GPU") + " of " + p.offer + " (" + how + ") for " +
         format_duration(p.span) + ": " + money(p.together) + " for all " + std::to_string(p.jobs) + " instead of " + money(p.apart) +
         " apart; this job's share by compute x time";
}

// "a, b and c"
[[nodiscard]] inline std::string names(const std::vector<std::string>& xs) {
  std::string out;
  for (std::size_t i = 0; i < xs.size(); ++i) out += (i == 0 ? "" : i + 1 == xs.size() ? " and " : ", ") + xs[i];
  return out;
}

// "1.97e-05": a rate, to three significant digits.
[[nodiscard]] inline std::string rate_text(double v) { return fmt::format("{:.3g}", v); }

// What hardware failures cost a long run (planning/failures.hpp).
[[nodiscard]] inline std::string text(const failure_estimate& f) {
  std::string r = "; failures: " + std::to_string(f.gpus) + " GPUs at " + rate_text(f.rate.per_gpu_hour) + " per GPU-hour (" +
                  (f.rate.from_offer ? std::string("the offer's rate") : std::string("Llama 3 405B's: 419 in 54 days on 16,384 H100s")) +
                  ") expect " + two(f.expected_failures) + " over the run, so ";
  if (f.checkpointed)
    r += "it checkpoints every " + secs(f.interval_s) + " (Daly), " + secs(f.rework_per_failure_s) + " rework per failure";
  else
    r += "with no checkpoint stated a failure restarts it from the beginning";
  return r + ": " + format_duration(f.wall - f.solve) + " longer than without failures";
}

// The limit a ruled-out option found full, and who held it.
[[nodiscard]] inline std::string text(const ruled_out_option& o) {
  std::string r = o.offer + " (" + std::string(to_string(o.mode)) + ", " + std::to_string(o.units) + " unit(s)) at " + money(o.cost) + ": ";
  switch (o.cause) {
    case ruled_out_cause::supply: {
      std::string limit = "its supply";
      if (o.full && o.full->quota)
        limit = "the " + std::to_string(o.full->capacity) + "-GPU quota of " +
                (o.full->provider.empty() ? "region " + o.full->region : o.full->provider + (o.full->region.empty() ? "" : " in " + o.full->region));
      else if (o.full)
        limit = "its " + std::to_string(o.full->capacity) + " unit(s)";
      if (o.held_by.empty()) return r + "supply: larger than " + limit;
      return r + "supply: " + limit + " held by " + names(o.held_by) + " then";
    }
    case ruled_out_cause::cap:
      return r + o.hourly->to_string() + "/h over the " + exact_text(*o.cap, o.hourly->currency_value().minor_units) + " max_hourly_cost";
    case ruled_out_cause::spot_price: return r + "its spot price is over the job's maximum whenever it could run";
  }
  return r;
}

// A job dearer than in the naive plan, and why.
[[nodiscard]] inline std::string text(const dearer_than_naive& d, bool packed) {
  std::string r = "; costs more than its naive option (" + d.naive_offer + " at " + money(d.naive_cost) + ")";
  if (packed) return r + ": its share of the shared unit, which costs less than the jobs on it apart";
  return r + (d.held_by_others ? ": that capacity is held by other jobs of this plan" : ": priced at another start");
}

}  // namespace detail::plan_text

// The rationale in English: what was chosen and why, the options, the runner-up, what ruled
// out the cheaper ones.
[[nodiscard]] inline std::string to_string(const rationale& r) {
  namespace pt = detail::plan_text;
  std::string s = std::visit([](const auto& c) { return pt::text(c); }, r.choice);
  const bool packed = std::holds_alternative<packed_rationale>(r.choice);
  if (packed) return r.above_naive ? s + pt::text(*r.above_naive, true) : s;
  if (r.failures) s += pt::text(*r.failures);
  s += "; the cheapest it could take of " + std::to_string(r.feasible) + " option(s)";
  if (r.next)
    s += ", next " + r.next->offer + " (" + std::string(to_string(r.next->mode)) + ", " + std::to_string(r.next->units) + " unit(s)) at " +
         pt::money(r.next->cost);
  for (std::size_t k = 0; k < r.ruled_out.size(); ++k) s += (k == 0 ? "; cheaper but ruled out: " : "; ") + pt::text(r.ruled_out[k]);
  if (r.max_spot_price) s += "; on spot only while its price stays at or under " + pt::decimal_text(*r.max_spot_price) + " per GPU-hour";
  if (r.delay) {
    s += "; starts " + format_duration(r.delay->by) + " after its requested start";
    s += r.delay->cause == delay_cause::capacity ? ": every cheaper option is full until then" : ": the price is lower then";
  }
  if (r.above_naive) s += pt::text(*r.above_naive, false);
  return s;
}

namespace detail::plan_text {

// "31.46/h", "120.00/1d": a unit price per its period (a tiered price: its first step).
[[nodiscard]] inline std::string price_text(const price_record& r, int minor_digits) {
  return price_decimal(r.unit_price, minor_digits) + "/" + (r.per == seconds(3600) ? std::string("h") : format_duration(r.per)) +
         (r.tiers.empty() ? "" : " (tiered)");
}

// What one unit is: a server, a GPU, a MIG slice, or a GPU sold in fractions (its price is
// per whole GPU).
[[nodiscard]] inline std::string_view unit_word(offer_unit u) {
  switch (u) {
    case offer_unit::server: return "server";
    case offer_unit::gpu: return "GPU";
    case offer_unit::mig_slice: return "MIG slice";
    case offer_unit::fraction: return "whole GPU (sold in fractions)";
  }
  return "unit";
}

// Where a plan line's price came from: "source X, seen T, terms Y" (what is stated).
[[nodiscard]] inline std::string provenance_text(const price_record& r, int minor_digits) {
  std::string s = "source " + (r.source.empty() ? std::string("not stated") : r.source);
  s += ", seen " + (r.seen ? format_instant(*r.seen) : std::string("not stated"));
  if (!r.terms_source.empty()) s += ", terms " + r.terms_source;
  for (const price_change& c : r.changes) s += "; " + price_decimal(c.unit_price, minor_digits) + " from " + format_instant(c.from);
  return s;
}

// The savings line: against the naive plan when there is one (with a sentence when it is
// negative), else why there is none.
[[nodiscard]] inline std::string savings_text(const plan_result& p) {
  const std::string ccy(p.ccy.code);
  if (!p.naive.total)
    return fmt::format("no savings line: the naive plan (whole GPUs on demand, held for whole hours) cannot run job {} on this supply ({})\n",
                       p.naive.stuck_job,
                       p.naive.no_option ? "no whole on-demand GPUs or servers it may use run it" : "none of them has room for it");
  const money_value saved = *p.savings();
  return fmt::format("saved against the naive plan (whole GPUs on demand, each record held for whole hours, the same supply{}): {} {}\n",
                     p.owned.empty() ? "" : " and owned pools", saved.to_string(), ccy);
}

}  // namespace detail::plan_text

// Why a plan costs more than its naive baseline, when it does: the jobs that cost more
// there, and why (planning/reasons.hpp). Empty when the savings are not negative.
[[nodiscard]] inline std::string savings_note(const plan_result& p) {
  const auto saved = p.savings();
  if (!saved || saved->minor_units() >= 0) return {};
  std::vector<std::string> dearer;
  for (const job_plan& j : p.jobs)
    if (j.why.above_naive) dearer.push_back(j.name);
  if (dearer.empty()) return "the plan costs more than the naive plan only by rounding: each job's cost is rounded on its own, the naive total once";
  return "the plan costs more than the naive plan: " + detail::plan_text::names(dearer) +
         " cost more than their naive options, whose capacity other jobs of this plan hold; so a cheaper plan exists here (the naive "
         "one), and the order in which this plan placed its jobs missed it";
}

// Owned pools in a plan's table: each pool's use and cost, then the totals with their fixed
// cost, the plan's and the naive plan's (the same pools, the same fixed cost). Nothing when
// the plan has none.
[[nodiscard]] inline std::string owned_text(const plan_result& p) {
  if (p.owned.empty()) return {};
  const std::string ccy(p.ccy.code);
  std::string out;
  for (const owned_pool_report& r : p.owned) {
    const double used = static_cast<double>(r.utilization.num().convert_to<long double>() / r.utilization.den().convert_to<long double>());
    out += fmt::format("owned: {} ({} units) {:.1f}% used, fixed {} + marginal {} {}", r.offer, r.units, used * 100.0, r.fixed_cost.to_string(),
                       r.marginal_cost.to_string(), ccy);
    out += r.cost_per_gpu_hour ? fmt::format(", {} {} per delivered GPU-hour\n", r.cost_per_gpu_hour->to_string(), ccy) : std::string(", unused\n");
  }
  const money_value all = p.total_cost + p.owned_fixed_cost;
  out += fmt::format("total with the owned pools' fixed cost: {} {}", all.to_string(), ccy);
  if (p.naive.total) out += fmt::format(" (the naive plan with the same pools: {} {})", (*p.naive.total + p.owned_fixed_cost).to_string(), ccy);
  return out + "\n";
}

// The packing line: an exact packing is the optimum; a heuristic one against its bound.
[[nodiscard]] inline std::string packing_text(const plan_result& p) {
  const std::string ccy(p.ccy.code);
  const packing_report& k = p.packing;
  std::string out = fmt::format("packing: {} job(s) could share a GPU, {} shared unit(s)", k.items, k.bins);
  if (k.exact) return out + fmt::format(", exact over all partitions: {} {} is the optimum\n", k.cost.to_string(), ccy);
  return out + fmt::format(
                   ", first-fit-decreasing heuristic: {} {}; a lower bound is {} {} (each job's compute or memory share of the cheapest "
                   "unit that could hold it, billed by the unit's rule; gap {:.1f}%)\n",
                   k.cost.to_string(), ccy, k.lower_bound.to_string(), ccy, k.gap * 100.0);
}

// The budget line, when the workload has one (a plan over it is planning/budget.hpp's).
[[nodiscard]] inline std::string budget_line(const plan_result& p) {
  if (!p.budget) return {};
  const ratio<> left = ratio<>(*p.budget) - ratio<>(p.spend().minor_units(), detail::pow10<int128>(p.ccy.minor_units));
  return fmt::format("budget: {} {}, {} left\n", detail::plan_text::exact_text(*p.budget, p.ccy.minor_units), std::string(p.ccy.code),
                     detail::plan_text::exact_text(left, p.ccy.minor_units));
}

// The plan as a table: one row per job (with the unit price it was decided at), totals,
// savings, packing, owned pools, each job's reason, and where each price came from.
// Offers the plan could not weigh, one line each (none: nothing).
[[nodiscard]] inline std::string set_aside_text(const plan_result& p) {
  std::string out;
  for (const set_aside_offer& o : p.set_aside) out += fmt::format("set aside: {} ({}), GPU \"{}\": {}\n", o.id, to_string(o.mode), o.gpu, o.reason);
  return out;
}

[[nodiscard]] inline std::string format_plan_table(const plan_result& p) {
  const std::vector<std::string> head = {"job", "kind", "offer", "mode", "sharing", "count", "price", "expected", "naive"};
  std::vector<std::vector<std::string>> rows;
  for (const job_plan& j : p.jobs)
    rows.push_back({j.name, std::string(to_string(j.kind)), j.offer, std::string(to_string(j.mode)), to_string(j.sharing), std::to_string(j.count),
                    detail::plan_text::price_text(j.price, p.ccy.minor_units), j.expected_cost.to_string(),
                    j.naive_cost ? j.naive_cost->to_string() : "-"});
  rows.push_back({"total", "", "", "", "", "", "", p.total_cost.to_string(), p.naive.total ? p.naive.total->to_string() : "-"});
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      s += c >= 5 ? fmt::format("{:>{}}", cells[c], width[c]) : fmt::format("{:<{}}", cells[c], width[c]);  // numbers right-aligned
      s += c + 1 < cells.size() ? "  " : "";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::size_t total_width = 0;
  for (std::size_t w : width) total_width += w + 2;
  const std::string rule = std::string(total_width - 2, '-') + "\n";
  const std::string ccy(p.ccy.code);
  std::string out = fmt::format("gpurent plan: {} jobs in {} ({}), amounts in {}\n\n", p.jobs.size(), p.period, p.timezone, ccy) + line(head) + rule;
  for (std::size_t i = 0; i < rows.size(); ++i) out += (i + 1 == rows.size() ? rule : std::string()) + line(rows[i]);
  out += fmt::format("\nbilled total (the meter's rules, one rounding per line): {} {}\n", p.billed_total.to_string(), ccy);
  out += budget_line(p) + detail::plan_text::savings_text(p);
  if (const std::string note = savings_note(p); !note.empty()) out += note + "\n";
  out += packing_text(p) + owned_text(p) + set_aside_text(p) + "\nwhy:\n";
  for (const job_plan& j : p.jobs) out += fmt::format("  {}: {}\n", j.name, to_string(j.why));
  out += "\nprices (as planned: what a later report of this plan uses):\n";
  for (const job_plan& j : p.jobs)
    out += fmt::format("  {}: {} {} per {} of {} ({}); {}\n", j.name, detail::plan_text::price_text(j.price, p.ccy.minor_units), ccy,
                       detail::plan_text::unit_word(j.price.unit), j.price.offer, to_string(j.price.mode),
                       detail::plan_text::provenance_text(j.price, p.ccy.minor_units));
  return out;
}

// A budget the cheapest plan does not fit (planning/budget.hpp), in English: the budget, the
// cheapest plan's spend, the excess, and what would fit, step by step with each saving.
[[nodiscard]] inline std::string budget_text(const budget_report& r) {
  namespace pt = detail::plan_text;
  const std::string ccy(r.cheapest.currency_value().code);
  const ratio<> cheapest = detail::budget::exact(r.cheapest);
  const ratio<> part = cheapest.num() == 0 ? ratio<>() : ratio<>(r.budget) * ratio<>(cheapest.den(), cheapest.num());
  const double covers = static_cast<double>(part.num().convert_to<long double>() / part.den().convert_to<long double>());
  const int minor = r.cheapest.currency_value().minor_units;
  std::string out =
      fmt::format("budget {} {}: the cheapest plan spends {} {}, {} {} over (the budget covers {:.1f}% of it)", pt::exact_text(r.budget, minor), ccy,
                  r.cheapest.to_string(), ccy, pt::exact_text(r.over, minor), ccy, covers * 100.0);
  if (r.steps.empty()) return out;
  std::size_t dropped = 0;
  out += ". What would fit: ";
  for (std::size_t k = 0; k < r.steps.size(); ++k) {
    const budget_step& s = r.steps[k];
    dropped += s.action == budget_action::drop ? 1 : 0;
    out += (k == 0 ? "" : "; ") +
           std::string(s.action == budget_action::spot ? "move " + s.job + " to spot" : "drop (or postpone to the next period) " + s.job);
    out += ", saving " + pt::money(s.saving);
  }
  out += "; the plan then spends " + pt::money(r.spend_after);
  if (dropped == r.jobs) out += " (every job would have to go: the budget is below what any job costs with the others gone)";
  return out;
}

}  // namespace gpurent
