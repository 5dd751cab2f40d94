// SPDX-License-Identifier: MIT
#pragma once
// Spot with checkpoints: how often to checkpoint, how long a run takes when it can be
// interrupted, and whether the spot notice window is long enough for a final checkpoint.
//
// These are estimates of a random process and use double. What they feed into a cost is the
// expected wall time converted to whole seconds, rounded up; the price of those seconds is
// then computed exactly (planning/pricing.hpp).
//
// - Young (1974): checkpoint interval tau = sqrt(2 delta M), delta the checkpoint write time,
//   M the mean time between interruptions.
// - Daly (2006, "A higher order estimate of the optimum checkpoint interval for restart
//   dumps", FGCS 22): tau = sqrt(2 delta M) [1 + sqrt(delta/(2M))/3 + (delta/(2M))/9] - delta
//   for delta < 2M, else tau = M; expected wall time of a solve time Ts with restart time R:
//   T_w = M e^(R/M) (e^((tau + delta)/M) - 1) Ts / tau.
// - When the notice window holds a whole checkpoint write, nothing is lost at an
//   interruption: write on notice, restart. Each interruption costs delta + R, so
//   T_w = Ts / (1 - lambda (delta + R)), with lambda = 1/M.
// - A checkpoint's write time (and its restore time) is its size over the storage bandwidth,
//   rounded up to whole seconds; a training job's state is its parameters times the bytes
//   each takes with its optimizer state (16 for mixed-precision Adam).

#include <cmath>
#include <cstdint>
#include <limits>

#include <gpurent/core/error.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/core/time.hpp>

namespace gpurent {

// The time to move `size` at `bandwidth` (MB/s, 10^6 bytes a second), rounded up to whole
// seconds: 1.12 TB at 2000 MB/s is 560 s.
[[nodiscard]] inline expected<seconds> transfer_time(bytes size, mb_per_s bandwidth) {
  if (size.count() < 0) return make_error(error_code::invalid_argument, "size", "must not be negative");
  if (bandwidth.count() <= 0) return make_error(error_code::invalid_argument, "bandwidth", "must be positive");
  const std::int64_t per_s = bandwidth.count();
  const std::int64_t mb = size.count() / 1'000'000, rest = size.count() % 1'000'000;  // size = mb 10^6 + rest
  // ceil(size / (per_s 10^6)) without forming per_s 10^6, which may not fit.
  return seconds(mb / per_s + ((mb % per_s != 0 || rest != 0) ? 1 : 0));
}

// A model's training state: parameters x bytes per parameter (weights, gradients and
// optimizer state; 16 for mixed-precision Adam), or an error when it does not fit 63 bits.
[[nodiscard]] inline expected<bytes> model_state_bytes(std::int64_t parameters, std::int64_t bytes_per_parameter) {
  if (parameters < 0) return make_error(error_code::invalid_argument, "parameters", "must not be negative");
  if (bytes_per_parameter <= 0) return make_error(error_code::invalid_argument, "bytes_per_parameter", "must be positive");
  if (parameters > std::numeric_limits<std::int64_t>::max() / bytes_per_parameter)
    return make_error(error_code::overflow, "parameters", "the state is larger than 2^63 bytes");
  return bytes(parameters * bytes_per_parameter);
}

[[nodiscard]] inline double young_interval(double delta_s, double mtbf_s) noexcept { return std::sqrt(2.0 * delta_s * mtbf_s); }

[[nodiscard]] inline double daly_interval(double delta_s, double mtbf_s) noexcept {
  if (delta_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = delta_s / (2.0 * mtbf_s);
  return std::sqrt(2.0 * delta_s * mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

// Daly's expected wall time for `solve_s` seconds of work, checkpointing every tau_s.
[[nodiscard]] inline double daly_expected_wall(double solve_s, double tau_s, double delta_s, double restart_s, double mtbf_s) noexcept {
  return mtbf_s * std::exp(restart_s / mtbf_s) * std::expm1((tau_s + delta_s) / mtbf_s) * solve_s / tau_s;
}

// Expected work lost at an interruption when segments of tau + delta seconds are written
// (the mean of an exponential time cut off at the segment length).
[[nodiscard]] inline double expected_rework(double tau_s, double delta_s, double mtbf_s) noexcept {
  const double len = tau_s + delta_s;
  return mtbf_s - len / std::expm1(len / mtbf_s);
}

struct spot_estimate {
  bool feasible = true;  // false when interruptions come faster than progress
  double mtbf_s = std::numeric_limits<double>::infinity();
  double young_s = 0;                   // Young's interval
  double daly_s = 0;                    // Daly's interval (the one used)
  bool notice_fits_checkpoint = false;  // checkpoint on notice instead of periodically
  double rework_per_interruption_s = 0;
  double expected_wall_s = 0;
  double expected_interruptions = 0;
  seconds wall{0};                 // expected_wall_s rounded up to whole seconds
  std::int64_t interruptions = 0;  // expected_interruptions rounded half up
};

// A run of `solve` seconds of work on spot capacity interrupted `interruptions_per_hour`
// times an hour (the whole allocation), with checkpoint write time `write`, restart time
// `restart` and notice window `notice`.
[[nodiscard]] inline spot_estimate estimate_spot(seconds solve, seconds write, seconds restart, seconds notice,
                                                 double interruptions_per_hour) noexcept {
  spot_estimate e;
  const double ts = static_cast<double>(solve.count());
  const double delta = static_cast<double>(write.count());
  const double r = static_cast<double>(restart.count());
  e.notice_fits_checkpoint = notice >= write;
  if (interruptions_per_hour <= 0) {
    e.expected_wall_s = ts;
    e.wall = solve;
    return e;
  }
  const double lambda = interruptions_per_hour / 3600.0;
  e.mtbf_s = 1.0 / lambda;
  e.young_s = young_interval(delta, e.mtbf_s);
  e.daly_s = daly_interval(delta, e.mtbf_s);
  if (e.notice_fits_checkpoint) {
    const double loss = lambda * (delta + r);
    if (loss >= 1.0) {
      e.feasible = false;
      return e;
    }
    e.expected_wall_s = ts / (1.0 - loss);
  } else {
    if (e.daly_s <= 0) {
      e.feasible = false;
      return e;
    }
    e.rework_per_interruption_s = expected_rework(e.daly_s, delta, e.mtbf_s);
    e.expected_wall_s = daly_expected_wall(ts, e.daly_s, delta, r, e.mtbf_s);
  }
  if (!std::isfinite(e.expected_wall_s) || e.expected_wall_s > 1e12) {
    e.feasible = false;
    return e;
  }
  e.expected_interruptions = lambda * e.expected_wall_s;
  e.wall = seconds(static_cast<std::int64_t>(std::ceil(e.expected_wall_s)));
  e.interruptions = static_cast<std::int64_t>(std::floor(e.expected_interruptions + 0.5));
  return e;
}

}  // namespace gpurent
