// SPDX-License-Identifier: MIT
#pragma once
// Failures are not only spot's: a long run on many GPUs is interrupted by the hardware too,
// with no notice, on demand as on spot. Meta's Llama 3 405B pre-training saw 419 unexpected
// interruptions in a 54-day window on 16,384 H100 GPUs ("The Llama 3 Herd of Models", 2024,
// section 3.3.4; 78% of them hardware), which is 419 / (54 x 24 x 16,384) = 1.97e-5
// failures per GPU-hour: the default rate here. An offer's `failures_per_gpu_hour`
// overrides it (0 turns the model off for the offer).
//
// A training run on n >= 2 GPUs is "long" when it expects at least `long_run_failures`
// (0.1) failures over its failure-free solve time: one such run in ten meets one. Below
// that, and on one GPU, the plan is unchanged. A long run is planned with the checkpoint
// model of planning/checkpoint.hpp at the allocation's failure rate lambda = n x rate:
// - with a checkpoint write time (the job's `checkpoint`, or its state's size over the
//   offer's write bandwidth), it checkpoints every Daly interval and its expected wall time
//   is Daly's, restart (the job's `restart` plus reading the checkpoint back) included;
// - without one, a failure restarts it from the beginning: (e^(lambda Ts) - 1)(1/lambda + R).
// On spot the two kinds of interruption add: when the notice holds a checkpoint, spot
// reclaims cost a write and a restart each on top of the failure-driven wall time
// (T = T_f / (1 - lambda_s (delta + R))); otherwise every interruption is unannounced and
// Daly runs at the sum of both rates. A failure replaces hardware inside the allocation, so
// only spot reclaims start a new record (a new instance with its own minimum).
//
// Estimates use double and become whole seconds rounded up, like the spot estimates.

#include <cmath>
#include <cstdint>
#include <optional>

#include <gpurent/core/time.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/offer.hpp>

namespace gpurent {

// Llama 3 405B: 419 unexpected interruptions in 54 days on 16,384 H100s.
inline constexpr std::int64_t llama3_interruptions = 419;
inline constexpr std::int64_t llama3_days = 54;
inline constexpr std::int64_t llama3_gpus = 16384;
// Expected failures over a run from which it counts as long.
inline constexpr double long_run_failures = 0.1;

[[nodiscard]] inline double default_failures_per_gpu_hour() noexcept {
  return static_cast<double>(llama3_interruptions) / (static_cast<double>(llama3_days) * 24.0 * static_cast<double>(llama3_gpus));
}

// The failure rate of one GPU of offer o per hour, and whether the offer states it.
struct failure_rate {
  double per_gpu_hour = 0;
  bool from_offer = false;
};
[[nodiscard]] inline failure_rate failure_rate_of(const offer& o) {
  if (!o.failures_per_gpu_hour) return {default_failures_per_gpu_hour(), false};
  return {static_cast<double>(o.failures_per_gpu_hour->raw().convert_to<std::int64_t>()) / 1e9, true};
}

// What failures do to one long run.
struct failure_estimate {
  failure_rate rate;
  std::int64_t gpus = 0;
  double expected_failures = 0;     // over the expected wall time
  bool checkpointed = false;        // periodic checkpoints (else a failure restarts it from the beginning)
  double interval_s = 0;            // Daly's interval at the failure rate (checkpointed)
  double rework_per_failure_s = 0;  // expected work lost per failure
  seconds solve{0};                 // the run without failures
  seconds wall{0};                  // with them (before any spot reclaims)
};

// The run of `solve` on `gpus` GPUs of o: its failure estimate when it is long, none when
// it is not (or the offer's rate is 0). `write` is the checkpoint write time, if any;
// `restart` the time to resume. The estimate's wall is infinite-safe: `feasible` false when
// failures come faster than progress.
struct failure_outcome {
  bool feasible = true;
  std::optional<failure_estimate> estimate;
};
[[nodiscard]] inline failure_outcome estimate_failures(const offer& o, std::int64_t gpus, seconds solve, std::optional<seconds> write,
                                                       seconds restart) {
  const failure_rate rate = failure_rate_of(o);
  const double lambda = rate.per_gpu_hour * static_cast<double>(gpus) / 3600.0;  // per second, the allocation
  const double ts = static_cast<double>(solve.count());
  if (gpus < 2 || lambda <= 0 || lambda * ts < long_run_failures) return {};
  failure_estimate f{rate, gpus, 0, write.has_value(), 0, 0, solve, seconds(0)};
  const double mtbf = 1.0 / lambda, r = static_cast<double>(restart.count());
  double wall = 0;
  if (write) {
    const double delta = static_cast<double>(write->count());
    f.interval_s = daly_interval(delta, mtbf);
    if (f.interval_s <= 0) return {false, {}};
    f.rework_per_failure_s = expected_rework(f.interval_s, delta, mtbf);
    wall = daly_expected_wall(ts, f.interval_s, delta, r, mtbf);
  } else {
    wall = std::expm1(lambda * ts) * (mtbf + r);
    f.rework_per_failure_s = expected_rework(ts, 0.0, mtbf);  // the work done before a failure that comes before the end
  }
  if (!std::isfinite(wall) || wall > 1e12) return {false, {}};
  f.wall = seconds(static_cast<std::int64_t>(std::ceil(wall)));
  f.expected_failures = lambda * wall;
  return {true, f};
}

// Spot reclaims on top of failures (see above): `f` the run's failure estimate, if long.
// Without one, estimate_spot alone. The estimate's interruptions are the spot reclaims (each
// a new record); the failures are f's.
[[nodiscard]] inline spot_estimate estimate_spot_with_failures(seconds solve, seconds write, seconds restart, seconds notice, double spot_per_hour,
                                                               std::optional<failure_estimate>& f) {
  if (!f) return estimate_spot(solve, write, restart, notice, spot_per_hour);
  const double fail_per_hour = f->rate.per_gpu_hour * static_cast<double>(f->gpus);
  if (notice >= write) {
    spot_estimate e = estimate_spot(f->wall, write, restart, notice, spot_per_hour);
    f->expected_failures = fail_per_hour * e.expected_wall_s / 3600.0;
    return e;
  }
  spot_estimate e = estimate_spot(solve, write, restart, notice, spot_per_hour + fail_per_hour);
  if (!e.feasible) return e;
  e.expected_interruptions *= spot_per_hour / (spot_per_hour + fail_per_hour);
  e.interruptions = static_cast<std::int64_t>(std::floor(e.expected_interruptions + 0.5));
  f->expected_failures = fail_per_hour * e.expected_wall_s / 3600.0;
  return e;
}

}  // namespace gpurent
