// SPDX-License-Identifier: MIT
#pragma once
// A workload's budget: the period's total the plan may spend, in the offers' currency
// (planning/workload.hpp). The plan spends the larger of its total and the meter's billed
// total (plan_result::spend); an owned pool's fixed cost is paid whatever the plan does and
// is not part of it.
//
// When the cheapest plan spends more, check_budget says by how much and computes what would
// fit, greedily, each step re-planned (supply, packing and prices interact, so every saving
// stated is the difference between two real plans):
//   1. move a job that does not allow spot to spot, when its cheapest spot option is cheaper
//      than its cost in the plan: the largest such saving first (the work is kept);
//   2. then drop (or postpone to the next period) a job: the one whose cost in the plan
//      covers the excess with the least to spare, else the dearest, until the plan fits.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/calendar.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/planning/assignment.hpp>
#include <gpurent/planning/planner.hpp>

namespace gpurent {

enum class budget_action : std::uint8_t { spot, drop };
template <>
struct enum_names<budget_action> {
  static constexpr enum_entry<budget_action> entries[] = {{budget_action::spot, "spot"}, {budget_action::drop, "drop"}};
};

// One step of what would fit: the job, what to do with it, what that saves (the plan before
// minus the plan after) and what the plan then spends.
struct budget_step {
  std::string job;
  budget_action action = budget_action::drop;
  money_value saving;
  money_value spend_after;
};

// A budget the cheapest plan does not fit.
struct budget_report {
  decimal<9> budget;
  money_value cheapest;            // what the cheapest plan spends
  ratio<> over;                    // cheapest - budget
  std::vector<budget_step> steps;  // what would fit, in order
  money_value spend_after;         // the plan with every step
  std::size_t jobs = 0;            // in the workload
};

namespace detail::budget {

[[nodiscard]] inline ratio<> exact(const money_value& m) { return ratio<>(m.minor_units(), detail::pow10<int128>(m.currency_value().minor_units)); }
[[nodiscard]] inline bool fits(const money_value& spend, const decimal<9>& budget) { return exact(spend) <= ratio<>(budget); }

// The job of `w` whose move to spot saves the most by its own estimate (its cost in `p`
// minus its cheapest spot option), if any saves; jobs named in `tried` are not tried again.
[[nodiscard]] inline std::optional<std::size_t> best_spot_move(const workload& w, const offer_catalog& cat, const plan_result& p,
                                                               const std::vector<std::string>& tried) {
  const plan_pricer pricer(cat, p.window);
  std::optional<std::size_t> best;
  int128 best_saving = 0;
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    if (w.jobs[i].allows_spot() || std::ranges::find(tried, w.jobs[i].name) != tried.end()) continue;
    workload one{w.period, w.timezone, w.account, {w.jobs[i]}, std::nullopt};
    one.jobs[0].constraints.spot = true;
    const plan_context cx{one, cat, pricer};
    const auto c = detail::plan::choose(cx, 0);
    if (!c || cat[c->best.offer].mode != offer_mode::spot) continue;
    const int128 saving = p.jobs[i].expected_cost.minor_units() - pricer.round(c->best.amount).minor_units();
    if (saving > best_saving) {
      best_saving = saving;
      best = i;
    }
  }
  return best;
}

// The job to drop: the one whose cost covers the excess with the least to spare, else the dearest.
[[nodiscard]] inline std::size_t job_to_drop(const plan_result& p, const ratio<>& excess) {
  std::optional<std::size_t> covers;
  std::size_t dearest = 0;
  for (std::size_t i = 0; i < p.jobs.size(); ++i) {
    const money_value& c = p.jobs[i].expected_cost;
    if (c.minor_units() > p.jobs[dearest].expected_cost.minor_units()) dearest = i;
    if (exact(c) >= excess && (!covers || c.minor_units() < p.jobs[*covers].expected_cost.minor_units())) covers = i;
  }
  return covers.value_or(dearest);
}

}  // namespace detail::budget

// Checks plan `p` of workload `w` on `cat` against the workload's budget: none when there is
// no budget or the plan fits it; else the report, with what would fit.
[[nodiscard]] inline expected<std::optional<budget_report>> check_budget(const workload& w, const offer_catalog& cat, const plan_result& p,
                                                                         const plan_options& opt = {}) {
  using namespace detail::budget;
  if (!w.budget || fits(p.spend(), *w.budget)) return std::optional<budget_report>{};
  budget_report r{*w.budget, p.spend(), exact(p.spend()) - ratio<>(*w.budget), {}, p.spend(), w.jobs.size()};
  workload cur = w;
  plan_result now = p;
  std::vector<std::string> tried;  // moved to spot, or found no cheaper there once re-planned
  while (!fits(now.spend(), *w.budget) && !cur.jobs.empty()) {
    budget_step step{{}, budget_action::spot, money_value(p.ccy, 0), money_value(p.ccy, 0)};
    workload before = cur;
    if (const auto move = best_spot_move(cur, cat, now, tried)) {
      step.job = cur.jobs[*move].name;
      tried.push_back(step.job);
      cur.jobs[*move].constraints.spot = true;
    } else {
      const std::size_t i = job_to_drop(now, exact(now.spend()) - ratio<>(*w.budget));
      step.job = cur.jobs[i].name;
      step.action = budget_action::drop;
      cur.jobs.erase(cur.jobs.begin() + static_cast<std::ptrdiff_t>(i));
    }
    GPURENT_TRY(next, plan(cur, cat, opt));
    if (step.action == budget_action::spot && next->spend().minor_units() >= now.spend().minor_units()) {
      cur = std::move(before);  // the supply or the other jobs took the spot saving back: not a step
      continue;
    }
    step.saving = now.spend() - next->spend();
    step.spend_after = next->spend();
    now = std::move(*next);
    r.steps.push_back(std::move(step));
  }
  r.spend_after = now.spend();
  return std::optional<budget_report>(std::move(r));
}

}  // namespace gpurent
