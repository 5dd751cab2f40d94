// SPDX-License-Identifier: MIT
#pragma once
// Steps 2 and 4 of the planner for jobs that run alone: the cheapest candidate per job
// (choose), and where and when each runs given what the others hold of the supply
// (decide_alone). Jobs are placed in workload order, each on its cheapest candidate at its
// start when that fits and it has no timing rules, else at its cheapest placement in time
// (planning/timing.hpp). When supply made some job take less than its own best and the
// plan is small, a branch-and-bound search over every job's candidates (each at its
// cheapest start given the jobs before it) replaces the greedy answer with the cheapest,
// within a budget of placements.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/caps.hpp>
#include <gpurent/planning/pricing.hpp>
#include <gpurent/planning/supply.hpp>
#include <gpurent/planning/timing.hpp>

namespace gpurent {

// Per job: the cheapest candidate within its caps, how many options there were, and the
// offers it may not use, per reason (the cap's among them).
struct choice {
  candidate best;
  std::size_t feasible = 0;     // options: candidates within the job's caps
  rejection_counts rejected{};  // offers per offer_rejection (none: allowed)
  candidate capped;             // the cheapest candidate over its max_hourly_cost, if any
  // The options that can cost least at any start (by floor_of, planning/caps.hpp), cheapest
  // first, and the least floor of the others (-1: there are none): what the review
  // (planning/reasons.hpp) looks at before it enumerates everything again.
  std::vector<candidate> shortlist;
  plan_amount rest_floor = -1;
};

namespace detail::plan {

// Keeps the `keep` options of least floor among those offered to it.
class shortlister {
 public:
  explicit shortlister(std::size_t keep) : keep_(keep) {}
  void offer(const plan_context& cx, const candidate& c) {
    pool_.emplace_back(floor_of(cx, c), c);
    if (pool_.size() >= 4 * keep_) trim();
  }
  void finish(choice& out) {
    trim();
    std::ranges::sort(pool_, [](const auto& a, const auto& b) { return better(a.second, b.second); });
    for (auto& p : pool_) out.shortlist.push_back(std::move(p.second));
    out.rest_floor = rest_;
  }

 private:
  void trim() {
    if (pool_.size() <= keep_) return;
    const auto by_floor = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::ranges::nth_element(pool_, pool_.begin() + static_cast<std::ptrdiff_t>(keep_), by_floor);
    for (std::size_t k = keep_; k < pool_.size(); ++k)
      if (rest_ < 0 || pool_[k].first < rest_) rest_ = pool_[k].first;
    pool_.resize(keep_);
  }
  std::size_t keep_;
  std::vector<std::pair<plan_amount, candidate>> pool_;
  plan_amount rest_ = -1;
};

}  // namespace detail::plan

// A decided job: its choice (priced at its start) and the start.
struct placed {
  choice ch;
  instant start{};
};

// How the jobs that run alone shared contested supply.
enum class supply_method : std::uint8_t { uncontested, greedy, exact, budget };
template <>
struct enum_names<supply_method> {
  static constexpr enum_entry<supply_method> entries[] = {{supply_method::uncontested, "uncontested"},
                                                          {supply_method::greedy, "greedy in workload order"},
                                                          {supply_method::exact, "exact (branch and bound)"},
                                                          {supply_method::budget, "branch and bound, stopped at its budget"}};
};
struct supply_report {
  supply_method method = supply_method::uncontested;
  std::size_t displaced = 0;  // jobs not on their own cheapest candidate at their start
};

namespace detail::plan {

// Every option of job j: the candidates on the offers it may use, within its caps.
template <class F>
void for_each_option(const plan_context& cx, const job& j, F&& f) {
  for (std::size_t oi = 0; oi < cx.cat.size(); ++oi) {
    if (!allowed(j, cx.cat[oi])) continue;
    for_each_candidate(cx, j, oi, [&](const candidate& k) {
      if (!over_cap_always(cx, j, k)) f(k);
    });
  }
}

// "no offer can run job ..." naming what stood in the way.
[[nodiscard]] inline unexpected<error> no_option(const plan_context& cx, std::size_t i, const choice& c) {
  const job& j = cx.w.jobs[i];
  std::string msg = "no offer can run job \"" + j.name + "\"";
  if (c.capped.valid()) {
    const offer& o = cx.cat[c.capped.offer];
    const money_value h = lowest_hourly_cost(cx, c.capped);
    msg += " within its max_hourly_cost: the cheapest, " + std::to_string(c.capped.units) + " unit(s) of " + o.id + " (" +
           std::string(to_string(o.mode)) + "), costs " + h.to_string() + "/h over the " +
           exact_decimal_text(ratio<>(*cap_on(j, o)), cx.cat.currency_value().minor_units) + " cap";
  } else {
    msg += " (check its GPUs, memory, deadline, constraints and the period end)";
  }
  return make_error(error_code::not_found, "jobs[" + std::to_string(i) + "]", msg);
}

// Step 2 for job i: its options at its start, ignoring the supply; the offers it may not
// use, per reason.
[[nodiscard]] inline expected<choice> choose(const plan_context& cx, std::size_t i) {
  const job& j = cx.w.jobs[i];
  choice c;
  shortlister shortlist(16);
  for (std::size_t oi = 0; oi < cx.cat.size(); ++oi) {
    const offer_rejection why = rejection_of(j, cx.cat[oi]);
    if (why != offer_rejection::none) {
      ++c.rejected[static_cast<std::size_t>(why)];
      continue;
    }
    std::size_t all = 0, within = 0;
    for_each_candidate(cx, j, oi, [&](const candidate& k) {
      ++all;
      if (over_cap_always(cx, j, k)) {
        if (better(k, c.capped)) c.capped = k;
        return;
      }
      ++within;
      if (better(k, c.best)) c.best = k;
      shortlist.offer(cx, k);
    });
    c.feasible += within;
    ++c.rejected[static_cast<std::size_t>(all > 0 && within == 0 ? offer_rejection::cap : offer_rejection::none)];
  }
  if (!c.best.valid()) return no_option(cx, i, c);
  shortlist.finish(c);
  return c;
}

// Cheaper first; then the earlier end; then the earlier offer.
[[nodiscard]] inline bool cheaper(const timed_candidate& a, const timed_candidate& b) {
  if (a.c.amount != b.c.amount) return a.c.amount < b.c.amount;
  return a.end() != b.end() ? a.end() < b.end() : a.c.offer < b.c.offer;
}

// Every option of job i placed in time: the cheapest.
[[nodiscard]] inline placed search_in_time(const plan_context& cx, const plan_supply& supply, std::size_t i, const choice& own) {
  const job& j = cx.w.jobs[i];
  placed out;
  std::optional<timed_candidate> best;
  for_each_option(cx, j, [&](const candidate& k) {
    const auto t = place_in_time(cx, supply, j, k);
    if (t && (!best || cheaper(*t, *best))) best = t;
  });
  if (best) {
    out = placed{own, best->start};
    out.ch.best = best->c;
  }
  return out;
}

// Job i given what the supply holds: its own best at its start when that fits and it has
// no timing rules, else the search.
[[nodiscard]] inline placed decide_one(const plan_context& cx, const plan_supply& supply, std::size_t i, const choice& own) {
  const job& j = cx.w.jobs[i];
  const instant start = cx.start_of(j);
  const bool simple = j.start_slack.count() == 0 && !j.max_spot_price && !j.max_hourly_cost.any();
  if (simple && supply.fits(own.best.offer, own.best.units, start, start + own.best.wall)) return placed{own, start};
  return search_in_time(cx, supply, i, own);
}

// Branch and bound over the jobs' candidates, in workload order, each at its cheapest
// start given the jobs before it; `bound[k]` is a lower bound of jobs k.. together.
struct exact_search {
  const plan_context& cx;
  std::span<const std::size_t> jobs;
  std::vector<std::vector<candidate>> options;
  std::vector<plan_amount> bound;
  std::vector<timed_candidate> current, best;
  plan_amount best_total = -1;
  std::size_t budget = 200'000;  // placements tried

  void run(plan_supply& supply, std::size_t k, const plan_amount& so_far) {
    if (budget == 0 || (best_total >= 0 && so_far + bound[k] >= best_total)) return;
    if (k == jobs.size()) {
      best_total = so_far;
      best = current;
      return;
    }
    const job& j = cx.w.jobs[jobs[k]];
    for (const candidate& c : options[k]) {
      if (budget == 0) return;
      --budget;
      const auto t = place_in_time(cx, supply, j, c);
      if (!t) continue;
      supply.reserve(c.offer, c.units, t->start, t->end());
      current[k] = *t;
      run(supply, k + 1, so_far + t->c.amount);
      supply.release(c.offer, c.units, t->start, t->end());
    }
  }
};

// The exact search for the jobs `alone` against `supply`, starting from the greedy answer
// when `decided` holds one for every job (else from none). False when the search found
// nothing; `complete` says whether it ran to the end within its budget.
[[nodiscard]] inline bool improve_exactly(const plan_context& cx, const plan_supply& supply, std::span<const choice> chosen,
                                          std::span<const std::size_t> alone, std::vector<placed>& decided, bool& complete) {
  const bool have_greedy = decided.size() == alone.size();
  exact_search s{cx, alone, {}, std::vector<plan_amount>(alone.size() + 1, 0), std::vector<timed_candidate>(alone.size()), {}, have_greedy ? 0 : -1};
  for (std::size_t k = 0; k < alone.size(); ++k) {
    if (have_greedy) {
      s.best_total += decided[k].ch.best.amount;
      s.best.push_back(timed_candidate{decided[k].ch.best, decided[k].start});
    }
    auto& opts = s.options.emplace_back();
    bool changing = false;  // a price that changes over time: a later start may cost less
    for (std::size_t oi = 0; oi < cx.cat.size(); ++oi)
      if (allowed(cx.w.jobs[alone[k]], cx.cat[oi])) changing = changing || !cx.cat[oi].pricing.price.changes().empty();
    for_each_option(cx, cx.w.jobs[alone[k]], [&](const candidate& c) { opts.push_back(c); });
    std::ranges::sort(opts, [](const candidate& a, const candidate& b) { return better(a, b); });
    s.bound[k] = changing ? plan_amount(0) : chosen[alone[k]].best.amount;
  }
  for (std::size_t k = alone.size(); k-- > 0;) s.bound[k] += s.bound[k + 1];
  plan_supply work = supply;
  s.run(work, 0, 0);
  complete = s.budget > 0;
  if (s.best.size() != alone.size()) return false;
  decided.resize(alone.size());
  for (std::size_t k = 0; k < alone.size(); ++k) {
    if (!have_greedy) decided[k].ch = chosen[alone[k]];
    decided[k].ch.best = s.best[k].c;
    decided[k].start = s.best[k].start;
  }
  return true;
}

}  // namespace detail::plan

struct alone_decisions {
  std::vector<placed> jobs;  // in the order of `alone`
  supply_report report;
};

// Decides where and when each job of `alone` (indices, workload order) runs, against the
// supply left by shared units. A job no offer has room for is an error naming it.
[[nodiscard]] inline expected<alone_decisions> decide_alone(const plan_context& cx, const plan_supply& supply, std::span<const choice> chosen,
                                                            std::span<const std::size_t> alone, std::size_t exact_limit) {
  alone_decisions out;
  plan_supply greedy = supply;
  std::optional<std::size_t> stuck;  // the first job greedy order found no room for
  for (std::size_t i : alone) {
    placed d = detail::plan::decide_one(cx, greedy, i, chosen[i]);
    if (!d.ch.best.valid()) {
      stuck = i;
      break;
    }
    const candidate& own = chosen[i].best;
    if (d.ch.best.offer != own.offer || d.ch.best.units != own.units || d.start != cx.start_of(cx.w.jobs[i])) ++out.report.displaced;
    greedy.reserve(d.ch.best.offer, d.ch.best.units, d.start, d.start + d.ch.best.wall);
    out.jobs.push_back(std::move(d));
  }
  if (!stuck && out.report.displaced == 0) return out;
  out.report.method = supply_method::greedy;
  bool complete = false;
  if (alone.size() <= exact_limit && detail::plan::improve_exactly(cx, supply, chosen, alone, out.jobs, complete)) {
    out.report.method = complete ? supply_method::exact : supply_method::budget;
    if (stuck) out.report.displaced = alone.size();  // greedy order had none to compare with
    return out;
  }
  if (!stuck) return out;
  const job& j = cx.w.jobs[*stuck];
  return make_error(error_code::not_found, "jobs[" + std::to_string(*stuck) + "]",
                    "no offer has room for job \"" + j.name + "\" before its deadline and the period end (every one that can run it is full" +
                        (j.max_spot_price ? " or over its maximum spot price)" : ")"));
}

}  // namespace gpurent
