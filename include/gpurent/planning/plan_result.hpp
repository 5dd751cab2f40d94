// SPDX-License-Identifier: MIT
#pragma once
// What the planner answers (planning/planner.hpp): per job its offer, sharing, placement in
// time, expected cost, the price it was decided at and the reason; the plan's totals, its
// naive baseline (planning/naive.hpp), packing, supply and owned pools.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/usage.hpp>
#include <gpurent/planning/assignment.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/granularity.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/provenance.hpp>
#include <gpurent/planning/rationale.hpp>
#include <gpurent/planning/timing.hpp>
#include <gpurent/planning/workload.hpp>
#include <gpurent/sharing/rental.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// One job's plan; its amounts are in the plan's currency (there is no default one).
struct job_plan {
  explicit job_plan(const currency& c) : expected_cost(c, 0) {}
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
  price_record price;                     // the price it was decided at, and its source
  std::optional<money_value> naive_cost;  // in the naive baseline (none when there is no baseline)
  std::string naive_offer;
  rationale why;
  granularity_waste waste;  // record seconds: used vs billed
  std::optional<spot_estimate> spot;
  std::vector<std::string> shares_with;  // packed: the other jobs on the same rented unit
  rejection_counts rejected{};           // offers it may not use, per offer_rejection (none: allowed)
};

struct packing_report {
  std::size_t items = 0;      // jobs that could share a GPU
  std::size_t bins = 0;       // rented units holding two or more of them
  bool exact = true;          // subset DP over all partitions: `cost` is the optimum (else first-fit-decreasing)
  money_value cost;           // of the packable jobs as planned
  money_value lower_bound;    // no plan of them is cheaper (exact: the cost itself)
  double gap = 0;             // (cost - lower_bound) / lower_bound; 0 when exact
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

// The naive baseline as the plan reports it: its total, or why there is none.
struct baseline_report {
  std::optional<money_value> total;  // none: no naive plan fits (then no savings either)
  std::string stuck_job;             // the first job the naive plan could not place
  bool no_option = false;            // it has no naive option at all (else: none with room)
};

struct plan_result {
  currency ccy;
  std::string period;
  std::string timezone;
  interval window;
  std::vector<job_plan> jobs;       // in workload order
  std::vector<usage_record> usage;  // what the plan produces (the meter's usage records)
  std::optional<tariff> prices;     // the rates the usage is priced with (the offers used)
  money_value total_cost;           // sum of the jobs' expected costs
  baseline_report naive;            // the naive plan (planning/naive.hpp), rounded once
  money_value billed_total;         // the usage rated by the meter (per-line rounding)
  std::optional<invoice> billed;    // the meter's invoice of the usage
  packing_report packing;
  supply_report supply;                    // how contested supply was shared out
  std::vector<owned_pool_report> owned;    // one per owned offer, in catalog order
  money_value owned_fixed_cost;            // of every owned pool, paid whatever the use (by the naive plan too)
  std::optional<decimal<9>> budget;        // the workload's (planning/budget.hpp checks the plan against it)
  std::vector<set_aside_offer> set_aside;  // offers the plan could not weigh (planning/offer.hpp), in catalog order
  // Against the naive plan: its total minus this plan's (both pay the same owned pools' fixed
  // cost, so it cancels); none when there is no naive plan.
  // What the plan spends against a budget: the larger of its total and the meter's billed
  // total (which rounds per line), so that the invoice fits too.
  [[nodiscard]] money_value spend() const { return billed_total.minor_units() > total_cost.minor_units() ? billed_total : total_cost; }
  [[nodiscard]] std::optional<money_value> savings() const {
    if (!naive.total) return std::nullopt;
    return *naive.total - total_cost;
  }
};

struct plan_options {
  std::size_t exact_packing_limit = 12;  // jobs; beyond: first-fit-decreasing
  std::size_t heuristic_bin_offers = 8;  // cheapest bin offers tried by the heuristic
  bool pack = true;
  std::size_t exact_supply_limit = 10;  // contested plans of up to this many jobs alone: exact search
};

}  // namespace gpurent
