// SPDX-License-Identifier: MIT
#pragma once
// Why the planner chose what it chose, as a value: what a job runs on and for how long, what
// spot with checkpoints costs in interruptions and rework, what billing granularity does to
// short runs, what sharing a unit saves, what failures cost a long run, how many options
// there were, which came next, and which cheaper ones supply, a cap or a price rule ruled
// out. planning/format.hpp writes it in English (`to_string(const rationale&)`); programs
// read the fields.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/failures.hpp>
#include <gpurent/planning/granularity.hpp>
#include <gpurent/planning/throughput.hpp>
#include <gpurent/planning/timing.hpp>
#include <gpurent/sharing/rental.hpp>

namespace gpurent {

// Training on whole GPUs, possibly several servers, possibly on spot with checkpoints.
struct training_rationale {
  std::int32_t gpus = 0;
  std::string gpu;  // the model
  seconds wall{0};
  std::int64_t servers = 0;  // more than one: multi-node
  std::int32_t gpus_per_server = 0;
  struct spot_plan {
    seconds notice{0};
    seconds checkpoint{0};  // the checkpoint write time (the job's, or size / bandwidth)
    spot_estimate estimate;
  };
  std::optional<spot_plan> spot;
  std::optional<training_speed> speed;  // where storage or network changed the speed
};

// A service's replicas on one kind of unit; a reservation pays when its term is used.
struct service_rationale {
  std::int32_t replicas = 0;
  seconds duration{0};
  job_sharing sharing;
  std::string gpu;
  std::optional<seconds> reservation_minimum;  // set on a reserved offer
};

// Experiments spread over parallel machines, and what the billing increment does to a run.
struct experiments_rationale {
  std::int32_t runs = 0;
  std::int64_t machines = 0;
  seconds wall{0};
  seconds increment{0};
  seconds one_run{0};
  granularity_waste one_run_alone;           // one run billed on its own
  std::optional<seconds> uninterrupted_run;  // on spot: one run without interruptions (one_run is the expected length)
};

// A job packed with others on one rented unit; the unit's cost split by compute x time.
struct packed_rationale {
  std::vector<std::string> others;
  offer_unit unit = offer_unit::gpu;  // gpu or server
  std::string offer;
  std::optional<std::string> mig_profile;  // the job's slice; none: time-sliced
  seconds span{0};
  money_value together;  // the unit, for all the jobs on it
  std::size_t jobs = 0;
  money_value apart;  // the same jobs each alone
};

// The option that came next: the cheapest on another offer that the job could have taken,
// given every other decision of the plan (planning/reasons.hpp).
struct runner_up {
  std::string offer;
  offer_mode mode = offer_mode::on_demand;
  std::int64_t units = 0;
  money_value cost;
};

// What ruled out an option cheaper than the choice: the supply (its units or a quota were
// held by the plan's other jobs, or it is larger than the limit), the job's max_hourly_cost,
// or its max_spot_price in every window it could run.
enum class ruled_out_cause : std::uint8_t { supply, cap, spot_price };
template <>
struct enum_names<ruled_out_cause> {
  static constexpr enum_entry<ruled_out_cause> entries[] = {
      {ruled_out_cause::supply, "supply"}, {ruled_out_cause::cap, "cap"}, {ruled_out_cause::spot_price, "spot_price"}};
};

// A cheaper option the planner could not take, and why.
struct ruled_out_option {
  std::string offer;
  offer_mode mode = offer_mode::on_demand;
  std::int64_t units = 0;
  money_value cost;  // priced at the job's start
  ruled_out_cause cause = ruled_out_cause::supply;
  // supply: the limit that was full (the offer's units, or a quota's GPUs), and the plan's
  // jobs holding it then (none: the option is larger than the limit).
  struct limit {
    bool quota = false;
    std::string provider;       // quota
    std::string region;         // quota
    std::int64_t capacity = 0;  // units of the offer, or GPUs of the quota
  };
  std::optional<limit> full;
  std::vector<std::string> held_by;
  // cap: the allocation's lowest hourly cost and the cap it is over.
  std::optional<money_value> hourly;
  std::optional<decimal<9>> cap;
};

// A job that costs more than in the naive baseline, and why: its naive option is held by
// other jobs of this plan (the plan gave that capacity to jobs it saves more on).
struct dearer_than_naive {
  std::string naive_offer;
  money_value naive_cost;
  bool held_by_others = false;
};

struct rationale {
  std::variant<training_rationale, service_rationale, experiments_rationale, packed_rationale> choice;
  std::size_t feasible = 0;  // candidates considered (not for packed jobs)
  std::optional<runner_up> next;
  // A start later than asked, and why (planning/timing.hpp): every cheaper option was full
  // (capacity), or the price was lower later (price).
  struct delayed {
    delay_cause cause = delay_cause::none;
    seconds by{0};
  };
  std::optional<delayed> delay;
  std::optional<decimal<9>> max_spot_price;  // the spot rule that bounded a spot choice
  std::vector<ruled_out_option> ruled_out;   // cheaper options it could not take: the cheapest per cause, cheapest first
  std::optional<failure_estimate> failures;  // a long training run: what hardware failures cost it
  std::optional<dearer_than_naive> above_naive;
};

}  // namespace gpurent
