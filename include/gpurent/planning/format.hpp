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
#include <gpurent/planning/planner.hpp>
#include <gpurent/planning/rationale.hpp>
#include <gpurent/sharing/rental.hpp>

namespace gpurent {

// "4d", "1d13h", "3h7min", "45min27s", "30s": the two largest units, days with hours only.
[[nodiscard]] inline std::string duration_text(seconds s) {
  const std::int64_t n = s.count();
  const std::int64_t d = n / 86400, h = n % 86400 / 3600, m = n % 3600 / 60, sec = n % 60;
  std::string out;
  if (d > 0) out += std::to_string(d) + "d";
  if (h > 0) out += std::to_string(h) + "h";
  if (m > 0 && d == 0) out += std::to_string(m) + "min";
  if ((sec > 0 && d == 0 && h == 0) || out.empty()) out += std::to_string(sec) + "s";
  return out;
}

namespace detail::plan_text {

[[nodiscard]] inline std::string money(const money_value& m) { return m.to_string() + " " + std::string(m.currency_value().code); }
[[nodiscard]] inline std::string secs(double s) { return duration_text(seconds(static_cast<std::int64_t>(s))); }
// "0.95", "2": a decimal without trailing fractional zeros.
template <int S>
[[nodiscard]] std::string decimal_text(const decimal<S>& d) {
  return format_exact(ratio<>(d));
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
  std::string r = std::to_string(t.gpus) + " x " + t.gpu + " for " + duration_text(t.wall);
  if (t.servers > 1) r += ", multi-node: " + std::to_string(t.servers) + " servers x " + std::to_string(t.gpus_per_server) + " GPUs";
  if (t.speed) r += speed_text(*t.speed);
  if (!t.spot) return r;
  const spot_estimate& e = t.spot->estimate;
  r += "; spot with checkpoints: ";
  if (e.notice_fits_checkpoint)
    r += "the " + duration_text(t.spot->notice) + " notice fits a " + duration_text(t.spot->checkpoint) +
         " checkpoint, so checkpoint on notice (Daly interval " + secs(e.daly_s) + " as fallback)";
  else
    r += "checkpoint every " + secs(e.daly_s) + " (Daly; Young " + secs(e.young_s) + "), " + secs(e.rework_per_interruption_s) +
         " rework per interruption";
  return r + ", " + std::to_string(e.interruptions) + " expected interruption(s)";
}

[[nodiscard]] inline std::string text(const service_rationale& s) {
  std::string r = std::to_string(s.replicas) + " replica(s) for " + duration_text(s.duration) + " on " + to_string(s.sharing) + " of " + s.gpu;
  if (s.reservation_minimum) r += "; a reservation (minimum " + duration_text(*s.reservation_minimum) + ") pays at this duty";
  return r;
}

[[nodiscard]] inline std::string text(const experiments_rationale& x) {
  const std::int64_t per = x.runs / x.machines;
  std::string r = std::to_string(x.runs) + " runs on " + std::to_string(x.machines) + " machine(s), " + std::to_string(per) +
                  (x.runs % x.machines ? "-" + std::to_string(per + 1) : std::string()) + " back to back each, done in " + duration_text(x.wall);
  r += "; billed per " + duration_text(x.increment);
  if (x.one_run_alone.billed > x.one_run_alone.used)
    r += " (one " + duration_text(x.one_run) + " run alone would pay " + duration_text(x.one_run_alone.billed) + ")";
  if (x.uninterrupted_run)
    r += "; on spot an interrupted run starts over: " + duration_text(x.one_run) + " expected per " + duration_text(*x.uninterrupted_run) + " run";
  return r;
}

[[nodiscard]] inline std::string text(const packed_rationale& p) {
  std::string others;
  for (const std::string& o : p.others) others += (others.empty() ? "" : ", ") + o;
  const std::string how = p.mig_profile ? "mig:" + *p.mig_profile + " MIG slice" : std::string("time-sliced share");
  return "packed with " + others + " on one rented " + (p.unit == offer_unit::server ? "server" : "GPU") + " of " + p.offer + " (" + how + ") for " +
         duration_text(p.span) + ": " + money(p.together) + " for all " + std::to_string(p.jobs) + " instead of " + money(p.apart) +
         " apart; this job's share by compute x time";
}

}  // namespace detail::plan_text

// The rationale in English: what was chosen and why, the options, the runner-up.
[[nodiscard]] inline std::string to_string(const rationale& r) {
  std::string s = std::visit([](const auto& c) { return detail::plan_text::text(c); }, r.choice);
  if (std::holds_alternative<packed_rationale>(r.choice)) return s;
  s += "; cheapest of " + std::to_string(r.feasible) + " feasible option(s)";
  if (r.next) s += ", next " + r.next->offer + " (" + std::string(to_string(r.next->mode)) + ") at " + detail::plan_text::money(r.next->cost);
  if (r.max_spot_price)
    s += "; on spot only while its price stays at or under " + detail::plan_text::decimal_text(*r.max_spot_price) + " per GPU-hour";
  if (r.delay) {
    s += "; starts " + duration_text(r.delay->by) + " after its requested start";
    s += r.delay->cause == delay_cause::capacity ? ": every cheaper option is full until then" : ": the price is lower then";
  }
  return s;
}

// Owned pools in a plan's table: each pool's use and cost, then the total with their fixed
// cost and what it saves against the naive plan. Nothing when the plan has none.
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
  return out + fmt::format("total with the owned pools' fixed cost: {} {} (saves {} {} against the naive plan)\n", all.to_string(), ccy,
                           (p.naive_cost - all).to_string(), ccy);
}

// The plan as a table: one row per job, totals, packing, then each job's reason.
[[nodiscard]] inline std::string format_plan_table(const plan_result& p) {
  const std::vector<std::string> head = {"job", "kind", "offer", "mode", "sharing", "count", "expected", "naive"};
  std::vector<std::vector<std::string>> rows;
  for (const job_plan& j : p.jobs)
    rows.push_back({j.name, std::string(to_string(j.kind)), j.offer, std::string(to_string(j.mode)), to_string(j.sharing), std::to_string(j.count),
                    j.expected_cost.to_string(), j.naive_cost.to_string()});
  rows.push_back({"total", "", "", "", "", "", p.total_cost.to_string(), p.naive_cost.to_string()});
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
  out += fmt::format("\nbilled total (meter.md rules, one rounding per line): {} {}\n", p.billed_total.to_string(), ccy);
  out +=
      fmt::format("saved against the naive plan (exclusive whole GPUs, hourly, on demand): {} {}\n", (p.naive_cost - p.total_cost).to_string(), ccy);
  out += fmt::format("packing: {} job(s) could share a GPU, {} shared unit(s), {}; cost {} {}, lower bound {} {} (gap {:.1f}%)\n", p.packing.items,
                     p.packing.bins, p.packing.exact ? "exact over all partitions" : "first-fit-decreasing heuristic", p.packing.cost.to_string(),
                     ccy, p.packing.lower_bound.to_string(), ccy, p.packing.gap * 100.0);
  out += owned_text(p);
  out += "\nwhy:\n";
  for (const job_plan& j : p.jobs) out += fmt::format("  {}: {}\n", j.name, to_string(j.why));
  return out;
}

}  // namespace gpurent
