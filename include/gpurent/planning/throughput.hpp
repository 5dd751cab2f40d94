// SPDX-License-Identifier: MIT
#pragma once
// How fast a training job runs on an offer once storage and network are counted, where the
// job and the offer state them (docs/planning.md, "Storage and network"):
//
// - Checkpoints: size S = parameters x state bytes per parameter (16 for mixed-precision
//   Adam: weights, gradients' master copy and two moments). Shards are written and read in
//   parallel by every unit, so writing takes S / (units x write bandwidth) and restoring
//   S / (units x read bandwidth); restoring adds to the job's restart time. The spot and
//   Young/Daly estimates use these in place of a typed-in checkpoint time.
// - Data loading: each GPU reads `read_mb_per_s_per_gpu` at the reference GPU's speed, in
//   proportion to its speed; when a unit's g GPUs need more than the unit's storage read
//   bandwidth B, they run at B / (g x rate) of the reference instead: speed = min(compute,
//   storage).
// - All-reduce across k servers (k >= 2): a ring moves 2 (k - 1) / k x G bytes per step per
//   server, G = parameters x gradient bytes per parameter, at the inter-node bandwidth; what
//   the step's computation (step_seconds at the reference, scaled by speed) does not hide
//   (overlap x step) lengthens every step: wall = solve x (step + exposed) / step.
// Estimates use double and become whole seconds rounded up, like the spot estimates.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include <gpurent/core/quantity.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/workload.hpp>

namespace gpurent {

struct training_speed {
  double speed = 1;                   // per GPU, relative to the reference GPU
  std::optional<double> storage_cap;  // set when data loading bounds `speed`
  std::int64_t servers = 1;
  std::optional<double> allreduce_s;  // per step, across servers
  std::optional<double> exposed_s;    // of it, not hidden behind computation
  double step_s = 0;                  // a step's computation on this offer (0: not stated)
  double factor = 1;                  // wall / solve time from all-reduce
};

// The checkpoint's size (none: the job does not state its model), by planning/checkpoint.hpp's
// rule.
[[nodiscard]] inline std::optional<bytes> checkpoint_size(const job& j) {
  if (j.model.parameters <= 0) return std::nullopt;
  auto b = model_state_bytes(j.model.parameters, j.model.state_bytes_per_parameter);
  return b ? std::optional<bytes>(*b) : std::nullopt;
}

// Moving the checkpoint through `units` units of `bandwidth_mb_s` each (shards in parallel),
// whole seconds up (planning/checkpoint.hpp's transfer_time).
[[nodiscard]] inline std::optional<seconds> checkpoint_transfer(const job& j, std::int64_t units, std::int64_t bandwidth_mb_s) {
  const auto size = checkpoint_size(j);
  if (!size || bandwidth_mb_s <= 0 || units <= 0) return std::nullopt;
  auto t = transfer_time(*size, mb_per_s(bandwidth_mb_s * units));
  return t ? std::optional<seconds>(*t) : std::nullopt;
}

// The checkpoint write time of j on `units` of o: the job's own figure, else size / bandwidth.
[[nodiscard]] inline std::optional<seconds> checkpoint_write(const job& j, const offer& o, std::int64_t units) {
  if (j.checkpoint) return j.checkpoint;
  return checkpoint_transfer(j, units, o.storage_write_mb_per_s);
}

// The restart after an interruption: provisioning and loading (the job's restart), plus
// reading the checkpoint back when its size and the read bandwidth are known.
[[nodiscard]] inline seconds restart_time(const job& j, const offer& o, std::int64_t units) {
  return j.restart + checkpoint_transfer(j, units, o.storage_read_mb_per_s).value_or(seconds(0));
}

// The speed of `n` GPUs of o on `units` units for job j.
[[nodiscard]] inline training_speed speed_of(const job& j, const offer& o, std::int64_t units, std::int64_t n) {
  training_speed s;
  s.speed = static_cast<double>(o.gflops) / static_cast<double>(j.reference_gflops);
  const std::int64_t gpus_per_unit = o.unit == offer_unit::server ? o.gpu_count : 1;
  if (j.model.read_mb_per_s_per_gpu > 0 && o.storage_read_mb_per_s > 0) {
    const double cap = static_cast<double>(o.storage_read_mb_per_s) / (static_cast<double>(gpus_per_unit) * j.model.read_mb_per_s_per_gpu);
    if (cap < s.speed) s.storage_cap = s.speed = cap;
  }
  s.servers = o.unit == offer_unit::server ? units : (n + o.gpu_count - 1) / o.gpu_count;
  if (j.model.step_seconds > 0) s.step_s = j.model.step_seconds / s.speed;
  if (s.servers >= 2 && s.step_s > 0 && o.internode_gbit_per_s > 0 && j.model.parameters > 0) {
    const double k = static_cast<double>(s.servers);
    const double grad = static_cast<double>(j.model.parameters) * static_cast<double>(j.model.gradient_bytes_per_parameter);
    s.allreduce_s = 2.0 * (k - 1.0) / k * grad / (static_cast<double>(o.internode_gbit_per_s) * 1e9 / 8.0);
    s.exposed_s = std::max(0.0, *s.allreduce_s - j.model.overlap * s.step_s);
    s.factor = (s.step_s + *s.exposed_s) / s.step_s;
  }
  return s;
}

// Whether the units' disks hold the dataset and two checkpoints (the one being written and
// the last good one); true when the job or the offer does not say.
[[nodiscard]] inline bool disk_holds(const job& j, const offer& o, std::int64_t units) {
  const double state = static_cast<double>(checkpoint_size(j).value_or(bytes(0)).count());
  if (o.disk_gib <= 0 || (j.model.dataset_gib <= 0 && state <= 0)) return true;
  const double need = static_cast<double>(j.model.dataset_gib) * 1073741824.0 + 2.0 * state;
  return static_cast<double>(o.disk_gib) * static_cast<double>(units) * 1073741824.0 >= need;
}

}  // namespace gpurent
