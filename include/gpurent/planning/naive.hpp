// SPDX-License-Identifier: MIT
#pragma once
// The baseline a plan is compared with, the naive plan: every job on exclusive whole GPUs or
// servers of an on-demand offer (or of the team's own pool), each record held for whole hours
// at the offer's own prices and terms, no spot, no reservations, no sharing; the fewest GPUs
// that meet the deadline for training, one machine per run for experiments (as many as the
// offer has), whole GPUs per replica for a service; on the offer where the first of these costs
// least, the first the supply has room for (else the next offer). It is a plan anyone could
// run: each job obeys its own rules (GPUs, residency, isolation, disks, deadline, caps) and the
// failure model, and the jobs are placed in workload order against the same supply (every
// offer's units, the quotas, the owned pools), each at its cheapest start as the planner places
// one (planning/timing.hpp). It pays the same owned pools' fixed cost as the plan. When some
// job has no naive option that the supply can hold, there is no baseline (and no savings).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/integer.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/caps.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/pricing.hpp>
#include <gpurent/planning/supply.hpp>
#include <gpurent/planning/timing.hpp>
#include <gpurent/planning/workload.hpp>

namespace gpurent {

// One job of the naive plan.
struct naive_job {
  candidate c;  // what it rents (priced exactly at `start`)
  instant start{};
  plan_amount amount = 0;  // its records held for whole hours
};

struct naive_plan {
  std::vector<naive_job> jobs;  // in workload order (all of them when feasible)
  plan_amount total = 0;
  std::optional<std::size_t> stuck;  // the first job with no naive option the supply holds: no baseline
  bool no_option = false;            // stuck: no naive option at all (else: none with room)
  [[nodiscard]] bool feasible() const noexcept { return !stuck.has_value(); }
};

namespace detail::plan {

// An offer the naive renter rents: whole GPUs or servers, on demand or owned.
[[nodiscard]] inline bool naive_offer(const offer& o) {
  return (o.mode == offer_mode::on_demand || o.mode == offer_mode::owned) && (o.unit == offer_unit::gpu || o.unit == offer_unit::server);
}

// The naive ways to run j on offer oi (within its caps), the naive renter's first choice
// first: the fewest GPUs for training, the most machines for experiments, the one way for a
// service. Unpriced: the naive plan prices only the one it keeps, by whole hours.
[[nodiscard]] inline std::vector<candidate> naive_options(const plan_context& cx, const job& j, std::size_t oi) {
  std::vector<candidate> out;
  const bool capped = cap_on(j, cx.cat[oi]).has_value();
  for_each_candidate<false>(cx, j, oi, [&](const candidate& c) {
    if (!capped || !over_cap_always(cx, j, c)) out.push_back(c);
  });
  std::ranges::stable_sort(
      out, [&](const candidate& a, const candidate& b) { return j.kind == job_kind::experiments ? a.machines > b.machines : a.gpus < b.gpus; });
  return out;
}

// Candidate c's records from `start`, each held for whole hours.
[[nodiscard]] inline plan_amount naive_amount(const plan_context& cx, const candidate& c, instant start) {
  plan_amount a = 0;
  c.for_each_record(start, [&](std::int64_t, instant t, seconds len) { a += cx.pricer.whole_hours(c.offer, c.qty, t, len); });
  return a;
}

// Job i's naive job against `supply`: the offers in order of what their first naive option
// costs held for whole hours from the job's start; on the first with room for one of its
// options (in preference order), that option at its cheapest start. None when none has room
// (`any` says whether the job had a naive option at all).
[[nodiscard]] inline std::optional<naive_job> naive_one(const plan_context& cx, const plan_supply& supply, std::size_t i, bool& any) {
  const job& j = cx.w.jobs[i];
  struct shop {
    plan_amount first = 0;
    std::vector<candidate> options;
  };
  std::vector<shop> shops;
  for (std::size_t oi = 0; oi < cx.cat.size(); ++oi) {
    if (!naive_offer(cx.cat[oi]) || !allowed(j, cx.cat[oi])) continue;
    std::vector<candidate> options = naive_options(cx, j, oi);
    if (options.empty()) continue;
    const plan_amount first = naive_amount(cx, options.front(), cx.start_of(j));
    shops.push_back(shop{first, std::move(options)});
  }
  any = !shops.empty();
  std::ranges::stable_sort(shops, [](const shop& a, const shop& b) { return a.first < b.first; });
  for (shop& s : shops) {
    for (candidate& c : s.options) {
      c.amount = amount_of(cx, c, cx.start_of(j));  // place_in_time compares starts by the exact amount
      if (const auto t = place_in_time(cx, supply, j, c)) return naive_job{t->c, t->start, naive_amount(cx, t->c, t->start)};
    }
  }
  return std::nullopt;
}

}  // namespace detail::plan

// The naive plan of the workload (see above).
[[nodiscard]] inline naive_plan naive_baseline(const plan_context& cx) {
  naive_plan out;
  plan_supply supply(cx.cat);
  for (std::size_t i = 0; i < cx.w.jobs.size(); ++i) {
    bool any = false;
    auto n = detail::plan::naive_one(cx, supply, i, any);
    if (!n) {
      out.stuck = i;
      out.no_option = !any;
      return out;
    }
    supply.reserve(n->c.offer, n->c.units, n->start, n->start + n->c.wall);
    out.total += n->amount;
    out.jobs.push_back(std::move(*n));
  }
  return out;
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
