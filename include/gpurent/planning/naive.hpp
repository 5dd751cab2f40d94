// SPDX-License-Identifier: MIT
#pragma once
// The baseline a plan is compared with: every job on exclusive whole GPUs of the cheapest
// on-demand offer, billed by the started hour, every experiment run separately, the minimum
// GPU count for training. Priced through the same rating functions as the plan
// (planning/pricing.hpp), under an hourly rule.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <gpurent/core/integer.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/pricing.hpp>
#include <gpurent/planning/workload.hpp>

namespace gpurent {

struct naive_choice {
  std::size_t offer = detail::plan::npos;  // npos: no offer runs the job naively
  plan_amount amount = 0;
};

namespace detail::plan {

// What job j needs naively on o: GPUs, records and their length; false when o cannot.
[[nodiscard]] inline bool naive_shape(const job& j, const offer& o, std::int64_t& gpus, std::int64_t& records, seconds& len) {
  records = 1;
  switch (j.kind) {
    case job_kind::training:
      gpus = std::max<std::int64_t>(1, ceil_div(j.memory_gib * 1024, o.vram_mib));
      if (gpus > j.max_gpus) return false;
      len = scaled_seconds(j.gpu_hours.raw() * 3600, j.reference_gflops, o.gflops, gpus);
      break;
    case job_kind::service:
      gpus = j.replicas * std::max({ceil_div(service_need(j, o), 1000), ceil_div(j.memory_gib * 1024, o.vram_mib), std::int64_t{1}});
      len = j.duration;
      break;
    case job_kind::experiments:
      if (ceil_div(j.memory_gib * 1024, j.gpus_per_run) > o.vram_mib) return false;
      gpus = j.gpus_per_run;
      records = j.runs;
      len = scaled_seconds(int128(j.run_duration.count()) * 1000, j.reference_gflops, o.gflops, 1);
      break;
  }
  return len.count() > 0;
}

}  // namespace detail::plan

// The naive choice for job j: the cheapest on-demand whole-GPU offer, hourly.
[[nodiscard]] inline naive_choice naive_cost(const plan_context& cx, const job& j) {
  naive_choice best;
  for (std::size_t oi = 0; oi < cx.cat.size(); ++oi) {
    const offer& o = cx.cat[oi];
    if (o.mode != offer_mode::on_demand || (o.unit != offer_unit::gpu && o.unit != offer_unit::server)) continue;
    if (o.tiered() || 1000 % o.gpu_count != 0 || !detail::plan::allowed(j, o)) continue;
    std::int64_t gpus = 0, records = 0;
    seconds len{0};
    if (!detail::plan::naive_shape(j, o, gpus, records, len)) continue;
    const std::int64_t per_gpu = o.unit == offer_unit::server ? 1000 / o.gpu_count : 1000;  // one GPU, in 10^-3 units
    const plan_amount a = cx.pricer.hourly(oi, unit_quantity::from_raw(int128(per_gpu * gpus)), len) * records;
    if (best.offer == detail::plan::npos || a < best.amount) best = naive_choice{oi, a};
  }
  return best;
}

// ---- The cheapest offer for a demand of whole GPUs ----------------------------------------
// `gpus` whole GPUs of at least `vram_mib` each, all on one server unless an offer allows
// several (multi_node), for `duration` seconds from the pricer's window start, as one record
// per unit. Spot offers only when asked. Ties go to the earlier offer. The matcher's
// placement constraints are not applied: a quick quote, and the planner benchmark's baseline.
struct gpu_demand {
  std::int32_t gpus = 1;
  std::int64_t vram_mib = 0;
  seconds duration{3600};
  bool allow_spot = false;
  bool allow_reserved = true;
};
struct offer_choice {
  std::size_t offer = 0;   // index in the catalog
  std::int32_t units = 0;  // servers or GPUs rented
  plan_amount amount = 0;  // exact (planning/pricing.hpp)
};

// How many units of `o` hold `gpus` whole GPUs; 0 when it cannot.
[[nodiscard]] inline std::int32_t units_for_gpus(const offer& o, std::int32_t gpus) noexcept {
  if (o.unit == offer_unit::server) {
    const std::int32_t n = (gpus + o.gpu_count - 1) / o.gpu_count;
    return (n > 1 && !o.multi_node) || n > o.max_units ? 0 : n;
  }
  if (o.unit == offer_unit::gpu) return (gpus > o.gpu_count && !o.multi_node) || gpus > o.max_units ? 0 : gpus;
  return 0;
}

[[nodiscard]] inline std::optional<offer_choice> cheapest_offer(const plan_pricer& pricer, const gpu_demand& d) {
  const offer_catalog& cat = pricer.catalog();
  std::optional<offer_choice> best;
  for (std::size_t i = 0; i < cat.size(); ++i) {
    const offer& o = cat[i];
    if ((o.mode == offer_mode::spot && !d.allow_spot) || (o.mode == offer_mode::reserved && !d.allow_reserved)) continue;
    if (o.vram_mib < d.vram_mib) continue;
    const std::int32_t n = units_for_gpus(o, d.gpus);
    if (n == 0) continue;
    const plan_amount a = pricer.record(i, unit_quantity(n), pricer.window().begin(), d.duration);
    if (!best || a < best->amount) best = offer_choice{i, n, a};
  }
  return best;
}

}  // namespace gpurent
