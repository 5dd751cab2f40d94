// SPDX-License-Identifier: MIT
#pragma once
// Step 1 of the planner: every feasible way to run one job on one offer (a candidate), with
// its exact amount. A candidate is a set of records on the offer: n_a of length len_a then
// n_b of length len_b, all of one quantity, back to back from the job's start (sequential:
// a spot run between interruptions, an experiment machine) or all at its start (replicas,
// parallel machines). The model per job kind is stated in docs/planning.md.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <gpurent/core/enum.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/failures.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/pricing.hpp>
#include <gpurent/planning/throughput.hpp>
#include <gpurent/planning/workload.hpp>
#include <gpurent/spec/mig.hpp>

namespace gpurent {

namespace detail::plan {
inline constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

[[nodiscard]] inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }

// Compute in milli-GPUs of an offer's model for `share_milli` milli-GPUs of the reference GPU.
[[nodiscard]] inline std::int64_t scaled_milli(std::int64_t share_milli, std::int64_t ref_gflops, std::int64_t gflops) {
  return ((int128(share_milli) * ref_gflops + gflops - 1) / gflops).convert_to<std::int64_t>();
}

// Seconds of `ref_milli_seconds` milli GPU-seconds of reference work on `n` GPUs of `gflops` each (up).
[[nodiscard]] inline seconds scaled_seconds(const int128& ref_milli_seconds, std::int64_t ref_gflops, std::int64_t gflops, std::int64_t n) {
  const int128 den = int128(1000) * gflops * n;
  return seconds(((ref_milli_seconds * ref_gflops + den - 1) / den).convert_to<std::int64_t>());
}

// A service replica's compute need on offer `o`, in milli-GPUs of its model.
[[nodiscard]] inline std::int64_t service_need(const job& j, const offer& o) {
  return scaled_milli(j.gpu_share.raw().convert_to<std::int64_t>(), j.reference_gflops, o.gflops);
}

[[nodiscard]] inline bool name_in(std::span<const std::string> names, std::string_view s) {
  return names.empty() || std::ranges::any_of(names, [&](const std::string& n) { return n == s; });
}

}  // namespace detail::plan

// Why job j may not use offer o at all, by the first rule that says no: its mode (spot,
// reserved), GPU model, residency (region, zone, jurisdiction: an offer that does not state
// one is outside every list of them), provider, isolation; and, counted by the planner
// (choose, planning/assignment.hpp), cap: every way to run the job on the offer costs more
// per hour than the job's max_hourly_cost (planning/caps.hpp).
enum class offer_rejection : std::uint8_t { none, mode, gpu, residency, provider, isolation, cap };
inline constexpr std::size_t offer_rejection_count = 7;
using rejection_counts = std::array<std::size_t, offer_rejection_count>;

template <>
struct enum_names<offer_rejection> {
  static constexpr enum_entry<offer_rejection> entries[] = {{offer_rejection::none, "none"},
                                                            {offer_rejection::mode, "mode"},
                                                            {offer_rejection::gpu, "gpu"},
                                                            {offer_rejection::residency, "residency"},
                                                            {offer_rejection::provider, "provider"},
                                                            {offer_rejection::isolation, "isolation"},
                                                            {offer_rejection::cap, "cap"}};
};

namespace detail::plan {
[[nodiscard]] inline offer_rejection rejection_of(const job& j, const offer& o) {
  if (o.mode == offer_mode::spot && !j.allows_spot()) return offer_rejection::mode;
  if (o.mode == offer_mode::reserved && !j.constraints.reserved) return offer_rejection::mode;
  if (!j.constraints.gpus.empty() && std::ranges::none_of(j.constraints.gpus, [&](const std::string& g) { return same_model_name(g, o.gpu); }))
    return offer_rejection::gpu;
  const job_constraints& c = j.constraints;
  if (!name_in(c.regions, o.region) || !name_in(c.zones, o.zone) || !name_in(c.jurisdictions, o.jurisdiction)) return offer_rejection::residency;
  if (!name_in(c.providers, o.provider)) return offer_rejection::provider;
  if (offer_isolation(o) < j.isolation) return offer_rejection::isolation;
  return offer_rejection::none;
}

// Whether job j may use offer o at all.
[[nodiscard]] inline bool allowed(const job& j, const offer& o) { return rejection_of(j, o) == offer_rejection::none; }

// The smallest MIG profile (fewest compute slices, then least memory) of a model with at
// least `milli` compute and `vram_mib` memory; none when the model has no MIG or none fits.
[[nodiscard]] inline std::optional<mig_profile_index> smallest_mig_profile(const mig_geometry* g, std::int64_t milli, std::int64_t vram_mib) {
  if (g == nullptr) return std::nullopt;
  std::optional<mig_profile_index> best;
  for (std::size_t i = 0; i < g->profiles.size(); ++i) {
    const mig_profile& p = g->profiles[i];
    if (p.media_extensions) continue;
    if (std::int64_t{p.compute_slices} * 1000 / g->compute_slices < milli || mig_profile_mib(p) < vram_mib) continue;
    if (!best || std::pair(p.compute_slices, p.memory_slices) < std::pair(g->profiles[*best].compute_slices, g->profiles[*best].memory_slices))
      best = static_cast<mig_profile_index>(i);
  }
  return best;
}
}  // namespace detail::plan

struct candidate {
  std::size_t offer = detail::plan::npos;
  plan_amount amount = 0;
  std::int64_t units = 0;
  std::int32_t gpus = 0;
  unit_quantity qty{};
  seconds wall{0};
  std::int64_t n_a = 0;
  seconds len_a{0};
  std::int64_t n_b = 0;
  seconds len_b{0};
  bool sequential = false;
  std::int64_t machines = 0;  // experiments: parallel machines
  std::optional<spot_estimate> spot;
  std::optional<training_speed> speed;       // training where storage or network changed the speed
  std::optional<seconds> checkpoint;         // training on spot or with failures: the write time used
  std::optional<seconds> restart;            // training on spot: the restart time used
  std::optional<failure_estimate> failures;  // a long training run: what hardware failures cost it
  [[nodiscard]] bool valid() const noexcept { return offer != detail::plan::npos; }
  [[nodiscard]] std::int64_t records() const noexcept { return n_a + n_b; }
  // The k-th record's length (the n_a longer ones first) and start.
  [[nodiscard]] seconds length(std::int64_t k) const noexcept { return k < n_a ? len_a : len_b; }
  template <class F>
  void for_each_record(instant start, F&& f) const {
    instant t = start;
    for (std::int64_t k = 0; k < records(); ++k) {
      f(k, t, length(k));
      if (sequential) t += length(k);
    }
  }
};

// Cheaper first; then shorter; then the earlier offer.
[[nodiscard]] inline bool better(const candidate& a, const candidate& b) {
  if (!b.valid()) return true;
  if (a.amount != b.amount) return a.amount < b.amount;
  if (a.wall != b.wall) return a.wall < b.wall;
  return a.offer < b.offer;
}

// What candidate generation sees: the workload, the offers, the period and the pricer.
struct plan_context {
  const workload& w;
  const offer_catalog& cat;
  const plan_pricer& pricer;
  [[nodiscard]] const interval& window() const noexcept { return pricer.window(); }
  [[nodiscard]] instant start_of(const job& j) const { return window().begin() + j.start; }
  // The longest a job may run: its deadline, and its records must end inside the period.
  [[nodiscard]] seconds limit_of(const job& j) const {
    const seconds room = window().end() - start_of(j);
    return j.deadline ? std::min(*j.deadline, room) : room;
  }
};

namespace detail::plan {

// The exact amount of a candidate's records, each rated on its own.
[[nodiscard]] inline plan_amount amount_of(const plan_context& cx, const candidate& c, instant start) {
  if (!c.sequential) {
    plan_amount a = 0;
    if (c.n_a > 0) a += cx.pricer.record(c.offer, c.qty, start, c.len_a) * c.n_a;
    if (c.n_b > 0) a += cx.pricer.record(c.offer, c.qty, start, c.len_b) * c.n_b;
    return a;
  }
  plan_amount a = 0;
  c.for_each_record(start, [&](std::int64_t, instant t, seconds len) { a += cx.pricer.record(c.offer, c.qty, t, len); });
  return a;
}

// `wall` seconds split into m back-to-back records as evenly as whole seconds allow.
inline void split_sequential(candidate& c, seconds wall, std::int64_t m) {
  c.n_a = wall.count() % m;
  c.len_a = seconds(wall.count() / m + 1);
  c.n_b = m - c.n_a;
  c.len_b = seconds(wall.count() / m);
  c.sequential = true;
}

// The solve time of job j on n GPUs of `units` units of o: the reference work scaled by
// TFLOPS and GPUs, exactly when nothing else is stated; with storage and network figures,
// by planning/throughput.hpp's speed and all-reduce factor.
[[nodiscard]] inline seconds training_solve(const job& j, const offer& o, std::int64_t units, std::int64_t n, candidate& c) {
  const training_speed s = speed_of(j, o, units, n);
  if (!s.storage_cap && !s.allreduce_s) return scaled_seconds(j.gpu_hours.raw() * 3600, j.reference_gflops, o.gflops, n);
  c.speed = s;
  const double work_s = static_cast<double>(j.gpu_hours.raw().convert_to<std::int64_t>()) * 3.6;  // milli GPU-hours -> GPU-seconds
  return seconds(static_cast<std::int64_t>(std::ceil(work_s / (static_cast<double>(n) * s.speed) * s.factor)));
}

// Training on `units` units of o (n GPUs): on demand, or on spot with checkpoints (their
// write and restart times from the job, or from its size and the offer's storage); a long
// run on several GPUs with the failure model (planning/failures.hpp). False when the run
// cannot be: spot without a checkpoint time, an unusable estimate, or disks too small for
// the data and checkpoints.
[[nodiscard]] inline bool training_run(const job& j, const offer& o, std::int64_t units, std::int64_t n, candidate& c) {
  if (!disk_holds(j, o, units)) return false;
  c.units = units;
  c.gpus = static_cast<std::int32_t>(n);
  c.qty = unit_quantity(units);
  const seconds solve = training_solve(j, o, units, n, c);
  const std::optional<seconds> write = checkpoint_write(j, o, units);
  const seconds restart = restart_time(j, o, units);
  failure_outcome f = estimate_failures(o, n, solve, write, restart);
  if (!f.feasible) return false;
  if (f.estimate) {
    c.checkpoint = write;
    c.restart = restart;
  }
  if (o.mode != offer_mode::spot) {
    c.failures = f.estimate;
    c.wall = f.estimate ? f.estimate->wall : solve;
    c.n_b = 1;
    c.len_b = c.wall;
    return true;
  }
  if (!write) return false;
  c.checkpoint = write;
  c.restart = restart;
  const spot_estimate e =
      estimate_spot_with_failures(solve, *write, restart, o.notice, o.interruptions_per_hour * static_cast<double>(units), f.estimate);
  if (!e.feasible || e.interruptions > 1000) return false;
  c.failures = f.estimate;
  c.wall = e.wall;
  split_sequential(c, e.wall, e.interruptions + 1);
  c.spot = e;
  return true;
}

// Training: the fewest GPUs memory allows, then doubling, whole servers.
template <class F>
void training_candidates(const plan_context& cx, const job& j, std::size_t oi, F&& finish) {
  const offer& o = cx.cat[oi];
  if (o.unit != offer_unit::server && o.unit != offer_unit::gpu) return;
  const std::int64_t n_min = std::max<std::int64_t>(1, ceil_div(j.memory_gib * 1024, o.vram_mib));
  if (n_min > j.max_gpus) return;
  const seconds limit = cx.limit_of(j);
  const std::int64_t step = o.unit == offer_unit::server ? o.gpu_count : 1;
  for (std::int64_t units = ceil_div(n_min, step); units <= o.max_units; units *= 2) {
    const std::int64_t n = std::min<std::int64_t>(units * step, j.max_gpus);
    if (units > 1 && !o.multi_node && (o.unit == offer_unit::server || n > o.gpu_count)) break;
    candidate c;
    if (!training_run(j, o, units, n, c)) {
      if (units * step >= j.max_gpus) break;
      continue;
    }
    if (c.wall <= limit && c.wall.count() > 0) finish(c);
    if (units * step >= j.max_gpus) break;
  }
}

// A service's units on o: whole GPUs or servers, a MIG slice per replica, or fractions.
// False when o cannot hold it.
[[nodiscard]] inline bool service_units(const job& j, const offer& o, candidate& c) {
  const std::int64_t need = service_need(j, o);
  const std::int64_t vram = j.memory_gib * 1024;
  switch (o.unit) {
    case offer_unit::gpu:
    case offer_unit::server: {
      const std::int64_t per_replica = std::max({ceil_div(need, 1000), ceil_div(vram, o.vram_mib), std::int64_t{1}});
      if (per_replica > o.gpu_count) return false;
      c.gpus = static_cast<std::int32_t>(per_replica);
      c.units = o.unit == offer_unit::gpu ? per_replica * j.replicas : ceil_div(j.replicas, o.gpu_count / per_replica);
      return true;
    }
    case offer_unit::mig_slice: {
      auto s = mig_slice_of(o.gpu, o.mig_profile);
      if (!s || s->milli_gpu < need || s->vram_mib < vram) return false;
      c.units = j.replicas;
      return true;
    }
    case offer_unit::fraction: {
      if (j.latency_sensitive) return false;
      const std::int64_t step = o.fraction_step.raw().convert_to<std::int64_t>();
      const std::int64_t k = std::max({ceil_div(need, step), ceil_div(vram * 1000, o.vram_mib * step), std::int64_t{1}});
      if (k * step > 1000) return false;
      c.units = j.replicas * k;  // steps
      return true;
    }
  }
  return false;
}

// A service holds its units for its duration; on spot it is replaced at each interruption:
// the same seconds, in pieces.
template <class F>
void service_candidates(const plan_context& cx, const job& j, std::size_t oi, F&& finish) {
  const offer& o = cx.cat[oi];
  if (j.duration > cx.window().end() - cx.start_of(j)) return;
  candidate c;
  c.wall = j.duration;
  if (!service_units(j, o, c) || c.units > o.max_units) return;
  c.qty = o.unit == offer_unit::fraction ? unit_quantity::from_raw(int128(c.units) * o.fraction_step.raw()) : unit_quantity(c.units);
  if (o.mode == offer_mode::spot) {
    const double expected = o.interruptions_per_hour * static_cast<double>(c.units) * static_cast<double>(j.duration.count()) / 3600.0;
    split_sequential(c, j.duration, std::min<std::int64_t>(1000, static_cast<std::int64_t>(expected + 0.5)) + 1);
  } else {
    c.n_b = 1;
    c.len_b = j.duration;
  }
  finish(c);
}

// Experiments on k machines: `runs` runs of `d`, r or r+1 back to back on each.
[[nodiscard]] inline bool experiment_machines(const job& j, const offer& o, std::int64_t k, seconds d, candidate& c) {
  const std::int64_t r = j.runs / k, extra = j.runs % k;
  c.machines = k;
  c.wall = d * (r + (extra > 0 ? 1 : 0));
  c.gpus = j.gpus_per_run;
  if (o.unit == offer_unit::gpu) {
    if (k * j.gpus_per_run > o.max_units) return false;
    c.units = k * j.gpus_per_run;
    c.qty = unit_quantity(j.gpus_per_run);
    c.n_a = extra;
    c.n_b = k - extra;
  } else {
    const std::int64_t slots = o.gpu_count / j.gpus_per_run;
    const std::int64_t servers = ceil_div(k, slots);
    if (servers > o.max_units) return false;
    c.units = servers;
    c.qty = unit_quantity(1);
    c.n_a = ceil_div(extra, slots);
    c.n_b = servers - c.n_a;
  }
  c.len_a = d * (r + 1);
  c.len_b = d * r;
  return true;
}

// One run of `d` on spot, restarted from scratch at each interruption (a short run keeps no
// checkpoint): (e^(lambda d) - 1)(1/lambda + restart) expected, lambda the machine's
// interruption rate; rounded up to whole seconds. Nothing when it does not converge.
[[nodiscard]] inline std::optional<seconds> spot_run(const job& j, const offer& o, seconds d) {
  const double per_hour = o.interruptions_per_hour * static_cast<double>(o.unit == offer_unit::gpu ? j.gpus_per_run : 1);
  if (per_hour <= 0) return d;
  const double lambda = per_hour / 3600.0;
  const double expected = std::expm1(lambda * static_cast<double>(d.count())) * (1.0 / lambda + static_cast<double>(j.restart.count()));
  if (!std::isfinite(expected) || expected > 1e9) return std::nullopt;
  return seconds(static_cast<std::int64_t>(std::ceil(expected)));
}

// Experiments: machines in powers of two, all runs at once, and the fewest that meet the
// deadline (per-second billing favours many machines, hourly billing few). On spot only
// when the job allows it (constraints.spot), each run at its expected length with restarts.
template <class F>
void experiment_candidates(const plan_context& cx, const job& j, std::size_t oi, F&& finish) {
  const offer& o = cx.cat[oi];
  if (o.unit != offer_unit::server && o.unit != offer_unit::gpu) return;
  if (j.gpus_per_run > o.gpu_count) return;
  if (ceil_div(j.memory_gib * 1024, j.gpus_per_run) > o.vram_mib) return;
  seconds d = scaled_seconds(int128(j.run_duration.count()) * 1000, j.reference_gflops, o.gflops, 1);
  if (o.mode == offer_mode::spot) {
    const auto expected = spot_run(j, o, d);
    if (!expected) return;
    d = *expected;
  }
  const seconds limit = cx.limit_of(j);
  const std::int64_t per_machine_max = limit / d;
  if (per_machine_max <= 0) return;
  std::array<std::int64_t, 40> ks{};
  std::size_t nk = 0;
  for (std::int64_t k = 1; k < j.runs && nk < 32; k *= 2) ks[nk++] = k;
  ks[nk++] = j.runs;
  ks[nk++] = std::min<std::int64_t>(j.runs, ceil_div(j.runs, per_machine_max));
  for (std::size_t t = 0; t < nk; ++t) {
    candidate c;
    if (experiment_machines(j, o, ks[t], d, c) && c.wall <= limit) finish(c);
  }
}

}  // namespace detail::plan

// Per reason (offer_rejection as index), how many offers of the catalog job j may not use by
// the rules above, which need no pricing (the cap is counted by the planner: job_plan's
// `rejected`): the planner's explanation (an audit line records it).
[[nodiscard]] inline rejection_counts offer_rejections(const job& j, const offer_catalog& cat) {
  rejection_counts n{};
  for (std::size_t i = 0; i < cat.size(); ++i) ++n[static_cast<std::size_t>(detail::plan::rejection_of(j, cat[i]))];
  return n;
}

// Every feasible candidate of job j on offer oi, priced at the job's start (`Priced`; else
// its amount is left 0, for a caller that prices only the ones it keeps), passed to `consider`.
template <bool Priced = true, class F>
void for_each_candidate(const plan_context& cx, const job& j, std::size_t oi, F&& consider) {
  const instant start = cx.start_of(j);
  const auto finish = [&](candidate& c) {
    c.offer = oi;
    if constexpr (Priced) c.amount = detail::plan::amount_of(cx, c, start);
    consider(c);
  };
  switch (j.kind) {
    case job_kind::training: detail::plan::training_candidates(cx, j, oi, finish); return;
    case job_kind::service: detail::plan::service_candidates(cx, j, oi, finish); return;
    case job_kind::experiments: detail::plan::experiment_candidates(cx, j, oi, finish); return;
  }
}

}  // namespace gpurent
