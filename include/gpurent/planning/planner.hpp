// SPDX-License-Identifier: MIT
#pragma once
// The planner: for each job of a workload, the cheapest feasible (offer, count, sharing mode)
// with its expected cost and the reason; jobs that need less than a GPU packed onto shared
// rented GPUs where that is cheaper; the usage the plan produces, rated by meter.md's rules.
//
// Costs are exact: estimated durations (spot wall time) become whole seconds, rounded up;
// every amount is then an exact integer count of the catalog's amount units (see
// matching/offers.hpp) and is rounded once. The model, stated:
// - Training scales linearly with the number of GPUs and with dense FP16 TFLOPS relative to
//   the reference GPU; it needs ceil(memory / VRAM) GPUs at least; several servers only on
//   offers sold for multi-node use. Spot only with checkpoints (Young/Daly, planning/
//   checkpoint.hpp); the spot scenario billed is the expected wall time, split into
//   (expected interruptions + 1) back-to-back records.
// - Services hold their replicas for `duration`: on whole GPUs, servers, a MIG slice each
//   (the smallest profile with enough compute slices and memory) or time-sliced fractions
//   (not for latency-sensitive ones).
// - Experiments run `runs` runs on k parallel machines, each machine running its share back
//   to back as one record; k is chosen with the runs (per-second billing favours many
//   machines, hourly billing few) and the deadline.
// - Packing: services whose replicas fit on one GPU may share one rented GPU (or server) for
//   the span of their union; exact over all partitions (subset dynamic programming) up to
//   `exact_packing_limit` jobs, first-fit-decreasing on the cheapest bin offers beyond, with
//   the gap to a lower bound (each job's compute or memory share of the cheapest GPU time) reported.

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/calendar.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/matching/offers.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/granularity.hpp>
#include <gpurent/planning/workload.hpp>
#include <gpurent/spec/mig.hpp>

namespace gpurent {

struct job_plan {
  std::string name;
  job_kind kind = job_kind::training;
  std::string offer;                  // the offer's id
  offer_mode mode = offer_mode::on_demand;
  offer_unit unit = offer_unit::gpu;
  std::string sharing;                // "server", "gpu", "mig:1g.10gb", "fraction:0.25", "shared-gpu:mig:1g.10gb"
  std::int64_t count = 0;             // units rented (servers, GPUs, slices, fractions, shared bins)
  std::int32_t gpus = 0;              // whole GPUs a training run or experiment machine uses
  seconds wall{0};                    // expected time from start to finish
  money_value expected_cost{currency{"USD", 2}, 0};
  money_value naive_cost{currency{"USD", 2}, 0};  // exclusive whole GPUs billed hourly, on demand
  std::string naive_offer;
  std::string reason;
  granularity_waste waste;            // record seconds: used vs billed
  std::optional<spot_estimate> spot;
  std::vector<std::string> shares_with;  // packed: the other jobs on the same rented unit
};

struct packing_report {
  std::size_t items = 0;      // jobs that could share a GPU
  std::size_t bins = 0;       // rented units holding two or more of them
  bool exact = true;          // subset DP over all partitions (else first-fit-decreasing)
  money_value cost{currency{"USD", 2}, 0};         // of the packable jobs as planned
  money_value lower_bound{currency{"USD", 2}, 0};  // no plan of them is cheaper
  double gap = 0;             // (cost - lower_bound) / lower_bound
};

struct plan_result {
  currency ccy;
  std::string period;
  std::string timezone;
  interval window;
  std::vector<job_plan> jobs;          // in workload order
  std::vector<plan_record> usage;     // what the plan produces, in meter.md's usage format
  std::vector<std::size_t> tariff;     // indices of the offers the usage is rated with, ascending
  money_value total_cost{currency{"USD", 2}, 0};    // sum of the jobs' expected costs
  money_value naive_cost{currency{"USD", 2}, 0};    // every job naive, rounded once
  money_value billed_total{currency{"USD", 2}, 0};  // the usage rated by meter.md's rules (per-line rounding)
  plan_invoice invoice;
  packing_report packing;
};

struct plan_options {
  std::size_t exact_packing_limit = 12;  // jobs; beyond: first-fit-decreasing
  std::size_t heuristic_bin_offers = 8;  // cheapest bin offers tried by the heuristic
  bool pack = true;
};

namespace detail::plan {

inline constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

// A job's records on one offer: n_a of length len_a then n_b of length len_b, all of
// quantity qty; back to back from the job's start (sequential) or all at its start.
struct candidate {
  std::size_t offer = npos;
  int128 amount = 0;
  std::int64_t units = 0;
  std::int32_t gpus = 0;
  unit_quantity qty{};
  seconds wall{0};
  std::int64_t n_a = 0;
  seconds len_a{0};
  std::int64_t n_b = 0;
  seconds len_b{0};
  bool sequential = false;
  std::int64_t machines = 0;   // experiments: parallel machines
  std::optional<spot_estimate> spot;
  [[nodiscard]] bool valid() const noexcept { return offer != npos; }
};

[[nodiscard]] inline bool better(const candidate& a, const candidate& b) {
  if (!b.valid()) return true;
  if (a.amount != b.amount) return a.amount < b.amount;
  if (a.wall != b.wall) return a.wall < b.wall;
  return a.offer < b.offer;
}

[[nodiscard]] inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept { return (a + b - 1) / b; }

[[nodiscard]] inline bool name_in(std::span<const std::string> names, std::string_view s) {
  return names.empty() || std::ranges::any_of(names, [&](const std::string& n) { return n == s; });
}

[[nodiscard]] inline bool allowed(const job& j, const offer& o) {
  if (o.mode == offer_mode::spot && !j.allows_spot()) return false;
  if (o.mode == offer_mode::reserved && !j.constraints.reserved) return false;
  if (!j.constraints.gpus.empty() &&
      std::ranges::none_of(j.constraints.gpus, [&](const std::string& g) { return same_model_name(g, o.gpu); }))
    return false;
  return name_in(j.constraints.regions, o.region) && name_in(j.constraints.providers, o.provider);
}

// The exact amount of a candidate's records, each rated on its own.
[[nodiscard]] inline int128 amount_of(const offer& o, std::int64_t scale, const candidate& c, instant start) {
  if (!c.sequential) {
    int128 a = 0;
    if (c.n_a > 0) a += record_amount(o.billing, scale, c.qty, start, c.len_a) * c.n_a;
    if (c.n_b > 0) a += record_amount(o.billing, scale, c.qty, start, c.len_b) * c.n_b;
    return a;
  }
  int128 a = 0;
  instant t = start;
  for (std::int64_t k = 0; k < c.n_a + c.n_b; ++k) {
    const seconds len = k < c.n_a ? c.len_a : c.len_b;
    a += record_amount(o.billing, scale, c.qty, t, len);
    t += len;
  }
  return a;
}

// Compute in milli-GPUs of `o`'s model for `share_milli` milli-GPUs of the reference GPU.
[[nodiscard]] inline std::int64_t scaled_milli(std::int64_t share_milli, std::int64_t ref_gflops, std::int64_t gflops) {
  return ((int128(share_milli) * ref_gflops + gflops - 1) / gflops).convert_to<std::int64_t>();
}

// Seconds of work `ref_seconds` at the reference GPU on `n` GPUs of `gflops` each (up).
[[nodiscard]] inline seconds scaled_seconds(const int128& ref_milli_seconds, std::int64_t ref_gflops, std::int64_t gflops, std::int64_t n) {
  const int128 den = int128(1000) * gflops * n;
  return seconds(((ref_milli_seconds * ref_gflops + den - 1) / den).convert_to<std::int64_t>());
}

// The smallest MIG profile (fewest compute slices, then least memory) of `o`'s model with at
// least `milli` compute and `vram_mib` memory; none when the model has no MIG or none fits.
[[nodiscard]] inline std::optional<mig_profile_index> smallest_mig_profile(const mig_geometry* g, std::int64_t milli, std::int64_t vram_mib) {
  if (g == nullptr) return std::nullopt;
  std::optional<mig_profile_index> best;
  for (std::size_t i = 0; i < g->profiles.size(); ++i) {
    const mig_profile& p = g->profiles[i];
    if (p.media_extensions) continue;
    if (std::int64_t{p.compute_slices} * 1000 / g->compute_slices < milli || ::gpurent::detail::mig_profile_mib(p) < vram_mib) continue;
    if (!best || std::pair(p.compute_slices, p.memory_slices) < std::pair(g->profiles[*best].compute_slices, g->profiles[*best].memory_slices))
      best = static_cast<mig_profile_index>(i);
  }
  return best;
}

struct context {
  const workload& w;
  const offer_catalog& cat;
  interval window;
};

// Every feasible candidate of job j on offer o, passed to `consider`.
template <class F>
void enumerate(const context& cx, const job& j, std::size_t oi, F&& consider) {
  const offer& o = cx.cat[oi];
  const instant start = cx.window.begin() + j.start;
  const seconds room = cx.window.end() - start;  // records must end inside the period
  const seconds limit = j.deadline ? std::min(*j.deadline, room) : room;
  const std::int64_t scale = cx.cat.scale();
  const auto finish = [&](candidate& c) {
    c.offer = oi;
    c.amount = amount_of(o, scale, c, start);
    consider(c);
  };
  switch (j.kind) {
    case job_kind::training: {
      if (o.unit != offer_unit::server && o.unit != offer_unit::gpu) return;
      const std::int64_t n_min = std::max<std::int64_t>(1, ceil_div(j.memory_gib * 1024, o.vram_mib));
      if (n_min > j.max_gpus) return;
      const int128 work = j.gpu_hours.raw() * 3600;  // milli GPU-seconds at the reference
      const bool spot = o.mode == offer_mode::spot;
      if (spot && !j.checkpoint) return;
      const std::int64_t step = o.unit == offer_unit::server ? o.gpu_count : 1;
      for (std::int64_t units = ceil_div(n_min, step); units <= o.max_units; units *= 2) {
        const std::int64_t n = std::min<std::int64_t>(units * step, j.max_gpus);
        if (units > 1 && !o.multi_node && (o.unit == offer_unit::server || n > o.gpu_count)) break;
        candidate c;
        c.units = units;
        c.gpus = static_cast<std::int32_t>(n);
        c.qty = unit_quantity(units);
        const seconds solve = scaled_seconds(work, j.reference_gflops, o.gflops, n);
        if (spot) {
          const spot_estimate e = estimate_spot(solve, *j.checkpoint, j.restart, o.notice, o.interruptions_per_hour * static_cast<double>(units));
          if (!e.feasible || e.interruptions > 1000) {
            if (units * step >= j.max_gpus) break;
            continue;
          }
          const std::int64_t m = e.interruptions + 1;
          c.wall = e.wall;
          c.n_a = e.wall.count() % m;
          c.len_a = seconds(e.wall.count() / m + 1);
          c.n_b = m - c.n_a;
          c.len_b = seconds(e.wall.count() / m);
          c.sequential = true;
          c.spot = e;
        } else {
          c.wall = solve;
          c.n_b = 1;
          c.len_b = solve;
        }
        if (c.wall <= limit && c.wall.count() > 0) finish(c);
        if (units * step >= j.max_gpus) break;
      }
      return;
    }
    case job_kind::service: {
      if (j.duration > room) return;
      const std::int64_t need = scaled_milli(j.gpu_share.raw().convert_to<std::int64_t>(), j.reference_gflops, o.gflops);
      const std::int64_t vram = j.memory_gib * 1024;
      candidate c;
      c.wall = j.duration;
      switch (o.unit) {
        case offer_unit::gpu:
        case offer_unit::server: {
          const std::int64_t per_replica = std::max({ceil_div(need, 1000), ceil_div(vram, o.vram_mib), std::int64_t{1}});
          if (per_replica > o.gpu_count) return;
          const std::int64_t gpus = per_replica * j.replicas;
          c.gpus = static_cast<std::int32_t>(per_replica);
          c.units = o.unit == offer_unit::gpu ? gpus : ceil_div(j.replicas, o.gpu_count / per_replica);
          break;
        }
        case offer_unit::mig_slice: {
          auto s = mig_slice_of(o.gpu, o.mig_profile);
          if (!s || s->milli_gpu < need || s->vram_mib < vram) return;
          c.units = j.replicas;
          break;
        }
        case offer_unit::fraction: {
          if (j.latency_sensitive) return;
          const std::int64_t step = o.fraction_step.raw().convert_to<std::int64_t>();
          const std::int64_t k = std::max({ceil_div(need, step), ceil_div(vram * 1000, o.vram_mib * step), std::int64_t{1}});
          if (k * step > 1000) return;
          c.units = j.replicas * k;  // steps
          break;
        }
      }
      if (c.units > o.max_units) return;
      c.qty = o.unit == offer_unit::fraction ? unit_quantity::from_raw(int128(c.units) * o.fraction_step.raw()) : unit_quantity(c.units);
      if (o.mode == offer_mode::spot) {
        // A service on spot is replaced at each interruption: the same seconds, in pieces.
        const double expected = o.interruptions_per_hour * static_cast<double>(c.units) * static_cast<double>(j.duration.count()) / 3600.0;
        const std::int64_t m = std::min<std::int64_t>(1000, static_cast<std::int64_t>(expected + 0.5)) + 1;
        c.n_a = j.duration.count() % m;
        c.len_a = seconds(j.duration.count() / m + 1);
        c.n_b = m - c.n_a;
        c.len_b = seconds(j.duration.count() / m);
        c.sequential = true;
      } else {
        c.n_b = 1;
        c.len_b = j.duration;
      }
      finish(c);
      return;
    }
    case job_kind::experiments: {
      if (o.unit != offer_unit::server && o.unit != offer_unit::gpu) return;
      if (o.mode == offer_mode::spot) return;  // a short run interrupted is a run lost: not modelled
      if (j.gpus_per_run > o.gpu_count) return;
      if (ceil_div(j.memory_gib * 1024, j.gpus_per_run) > o.vram_mib) return;
      const seconds d = scaled_seconds(int128(j.run_duration.count()) * 1000, j.reference_gflops, o.gflops, 1);
      const std::int64_t runs = j.runs;
      const std::int64_t slots = o.unit == offer_unit::server ? o.gpu_count / j.gpus_per_run : 1;
      // Machines: powers of two, all runs at once, and the fewest that meet the deadline.
      std::array<std::int64_t, 40> ks{};
      std::size_t nk = 0;
      for (std::int64_t k = 1; k < runs && nk < 32; k *= 2) ks[nk++] = k;
      ks[nk++] = runs;
      const std::int64_t per_machine_max = limit / d;
      if (per_machine_max <= 0) return;
      ks[nk++] = std::min(runs, ceil_div(runs, per_machine_max));
      for (std::size_t t = 0; t < nk; ++t) {
        const std::int64_t k = ks[t];
        const std::int64_t r = runs / k, extra = runs % k;
        const seconds makespan = d * (r + (extra > 0 ? 1 : 0));
        if (makespan > limit) continue;
        candidate c;
        c.machines = k;
        c.wall = makespan;
        c.gpus = j.gpus_per_run;
        if (o.unit == offer_unit::gpu) {
          if ((k * j.gpus_per_run) > o.max_units) continue;
          c.units = k * j.gpus_per_run;
          c.qty = unit_quantity(j.gpus_per_run);
          c.n_a = extra;
          c.n_b = k - extra;
        } else {
          const std::int64_t servers = ceil_div(k, slots);
          if (servers > o.max_units) continue;
          c.units = servers;
          c.qty = unit_quantity(1);
          c.n_a = ceil_div(extra, slots);
          c.n_b = servers - c.n_a;
        }
        c.len_a = d * (r + 1);
        c.len_b = d * r;
        finish(c);
      }
      return;
    }
  }
}

// A job that may share a GPU: its replicas' needs and its span.
struct pack_item {
  std::size_t job = 0;
  interval span;
  int128 standalone = 0;  // the best amount on its own
};

// How a set of items shares one unit of a bin offer, when it can.
struct bin_fit {
  bool fits = false;
  bool mig = false;
  std::vector<mig_profile_index> profiles;  // per item (mig)
};

[[nodiscard]] inline bin_fit fit_bin(const offer& o, std::span<const job* const> jobs) {
  bin_fit r;
  const mig_geometry* g = find_mig_geometry(o.gpu);
  const std::int64_t gpus = o.unit == offer_unit::server ? o.gpu_count : 1;
  // Each job's replicas stay on one GPU; GPUs are filled first fit in the given order.
  struct gpu_state {
    mig_layout layout;
    std::int64_t milli = 0, vram = 0;
  };
  std::vector<gpu_state> state(static_cast<std::size_t>(gpus));
  // MIG first (isolation), then time-slicing when no job is latency-sensitive.
  for (int mode = 0; mode < 2; ++mode) {
    const bool mig = mode == 0;
    if (mig && g == nullptr) continue;
    if (!mig && std::ranges::any_of(jobs, [](const job* x) { return x->latency_sensitive; })) break;
    std::ranges::fill(state, gpu_state{});
    r.profiles.clear();
    bool ok = true;
    for (const job* x : jobs) {
      const std::int64_t need = scaled_milli(x->gpu_share.raw().convert_to<std::int64_t>(), x->reference_gflops, o.gflops);
      const std::int64_t vram = x->memory_gib * 1024;
      std::optional<mig_profile_index> p;
      if (mig && !(p = smallest_mig_profile(g, need, vram))) {
        ok = false;
        break;
      }
      bool placed = false;
      for (gpu_state& s : state) {
        if (mig) {
          std::array<mig_profile_index, mig_max_slices> want{};
          if (x->replicas > mig_max_slices) break;
          for (std::int32_t k = 0; k < x->replicas; ++k) want[static_cast<std::size_t>(k)] = *p;
          const auto span = std::span<const mig_profile_index>(want.data(), static_cast<std::size_t>(x->replicas));
          const mig_fit_result f = mig_fit(*g, s.layout, span);
          if (!f.fits()) continue;
          s.layout = mig_apply(s.layout, span, f);
        } else {
          if (s.milli + need * x->replicas > 1000 || s.vram + vram * x->replicas > o.vram_mib) continue;
          s.milli += need * x->replicas;
          s.vram += vram * x->replicas;
        }
        placed = true;
        break;
      }
      if (!placed) {
        ok = false;
        break;
      }
      if (mig) r.profiles.push_back(*p);
    }
    if (ok) {
      r.fits = true;
      r.mig = mig;
      return r;
    }
  }
  return r;
}

struct bin {
  std::size_t offer = npos;
  std::vector<std::size_t> items;  // indices into the pack items
  bin_fit fit;
  interval span;
  int128 amount = 0;
};

}  // namespace detail::plan


namespace detail::plan {

[[nodiscard]] inline std::string money_text(const offer_catalog& cat, const int128& units) {
  const money_value m = round_amount(cat, units);
  return m.to_string() + " " + std::string(m.currency_value().code);
}

[[nodiscard]] inline std::string duration_text(seconds s) {
  const std::int64_t n = s.count();
  const std::int64_t d = n / 86400, h = n % 86400 / 3600, m = n % 3600 / 60, sec = n % 60;
  std::string out;
  if (d > 0) out += std::to_string(d) + "d";
  if (h > 0) out += std::to_string(h) + "h";
  if (m > 0 && d == 0) out += std::to_string(m) + "min";
  if ((sec > 0 && d == 0 && h == 0) || out.empty()) out += std::to_string(sec) + "s";
  return out;
}

[[nodiscard]] inline std::string sharing_of(const offer& o) {
  switch (o.unit) {
    case offer_unit::server: return "server";
    case offer_unit::gpu: return "gpu";
    case offer_unit::mig_slice: return "mig:" + o.mig_profile;
    case offer_unit::fraction: {
      std::string f = o.fraction_step.to_string();
      while (f.back() == '0') f.pop_back();
      return "fraction:" + f;
    }
  }
  return "?";
}

// Naive: exclusive whole GPUs billed by the started hour, on demand, cheapest such offer.
inline void naive(const context& cx, const job& j, job_plan& out, int128& exact) {
  std::optional<std::pair<int128, std::size_t>> best;
  for (std::size_t oi = 0; oi < cx.cat.size(); ++oi) {
    const offer& o = cx.cat[oi];
    if (o.mode != offer_mode::on_demand || (o.unit != offer_unit::gpu && o.unit != offer_unit::server)) continue;
    if (o.billing.tiers != price_tier_mode::none || 1000 % o.gpu_count != 0) continue;
    if (!allowed(j, o)) continue;
    const std::int64_t per_gpu_qty = o.unit == offer_unit::server ? 1000 / o.gpu_count : 1000;  // quantity of one GPU, 10^-3
    std::int64_t gpus = 0;
    std::int64_t records = 1;
    seconds len{0};
    switch (j.kind) {
      case job_kind::training: {
        gpus = std::max<std::int64_t>(1, ceil_div(j.memory_gib * 1024, o.vram_mib));
        if (gpus > j.max_gpus) continue;
        len = scaled_seconds(j.gpu_hours.raw() * 3600, j.reference_gflops, o.gflops, gpus);
        break;
      }
      case job_kind::service: {
        const std::int64_t need = scaled_milli(j.gpu_share.raw().convert_to<std::int64_t>(), j.reference_gflops, o.gflops);
        gpus = j.replicas * std::max({ceil_div(need, 1000), ceil_div(j.memory_gib * 1024, o.vram_mib), std::int64_t{1}});
        len = j.duration;
        break;
      }
      case job_kind::experiments: {
        if (ceil_div(j.memory_gib * 1024, j.gpus_per_run) > o.vram_mib) continue;
        gpus = j.gpus_per_run;
        records = j.runs;
        len = scaled_seconds(int128(j.run_duration.count()) * 1000, j.reference_gflops, o.gflops, 1);
        break;
      }
    }
    if (len.count() <= 0) continue;
    const std::int64_t hours = ceil_div(len.count(), 3600);
    const int128 a = o.billing.price.raw() * int128(per_gpu_qty * gpus) * int128(hours * 3600) * int128(cx.cat.scale() / o.billing.per.count()) * records;
    if (!best || a < best->first) best = std::pair(a, oi);
  }
  if (best) {
    exact = best->first;
    out.naive_cost = round_amount(cx.cat, best->first);
    out.naive_offer = cx.cat[best->second].id;
  } else {
    exact = 0;
    out.naive_cost = money_value(cx.cat.currency_value(), 0);
  }
}

// Appends the candidate's records to `usage`.
inline void emit(const context& cx, const job& j, const candidate& c, std::vector<plan_record>& usage) {
  const offer& o = cx.cat[c.offer];
  const std::string& account = j.account.empty() ? cx.w.account : j.account;
  instant t = cx.window.begin() + j.start;
  for (std::int64_t k = 0; k < c.n_a + c.n_b; ++k) {
    const seconds len = k < c.n_a ? c.len_a : c.len_b;
    usage.push_back(plan_record{j.name + "-" + std::to_string(k + 1), account, o.resource(), o.mode, c.qty, t, t + len});
    if (c.sequential) t += len;
  }
}

inline std::string explain(const context& cx, const job& j, const candidate& c, const candidate& runner_up, std::size_t feasible) {
  const offer& o = cx.cat[c.offer];
  std::string r;
  switch (j.kind) {
    case job_kind::training: {
      const std::int64_t per_server = o.unit == offer_unit::server ? o.gpu_count : 1;
      r = std::to_string(c.gpus) + " x " + o.gpu + " for " + duration_text(c.wall);
      if (o.unit == offer_unit::server && c.units > 1)
        r += ", multi-node: " + std::to_string(c.units) + " servers x " + std::to_string(per_server) + " GPUs";
      if (c.spot) {
        const spot_estimate& e = *c.spot;
        r += "; spot with checkpoints: ";
        if (e.notice_fits_checkpoint)
          r += "the " + duration_text(o.notice) + " notice fits a " + duration_text(*j.checkpoint) + " checkpoint, so checkpoint on notice (Daly interval " +
               duration_text(seconds(static_cast<std::int64_t>(e.daly_s))) + " as fallback)";
        else
          r += "checkpoint every " + duration_text(seconds(static_cast<std::int64_t>(e.daly_s))) + " (Daly; Young " +
               duration_text(seconds(static_cast<std::int64_t>(e.young_s))) + "), " + duration_text(seconds(static_cast<std::int64_t>(e.rework_per_interruption_s))) +
               " rework per interruption";
        r += ", " + std::to_string(e.interruptions) + " expected interruption(s)";
      }
      break;
    }
    case job_kind::service:
      r = std::to_string(j.replicas) + " replica(s) for " + duration_text(j.duration) + " on " + sharing_of(o) + " of " + o.gpu;
      if (o.mode == offer_mode::reserved) r += "; a reservation (minimum " + duration_text(o.billing.minimum) + ") pays at this duty";
      break;
    case job_kind::experiments: {
      const std::int64_t per = j.runs / c.machines;
      r = std::to_string(j.runs) + " runs on " + std::to_string(c.machines) + " machine(s), " + std::to_string(per) +
          (j.runs % c.machines ? "-" + std::to_string(per + 1) : std::string()) + " back to back each, done in " + duration_text(c.wall);
      r += "; billed per " + duration_text(o.billing.increment);
      const seconds one = c.len_b.count() > 0 ? c.len_b / std::max<std::int64_t>(1, per) : c.len_a;
      const granularity_waste w = billing_waste(o.billing, one);
      if (w.billed > w.used)
        r += " (one " + duration_text(one) + " run alone would pay " + duration_text(w.billed) + ")";
      break;
    }
  }
  r += "; cheapest of " + std::to_string(feasible) + " feasible option(s)";
  if (runner_up.valid()) {
    const offer& ro = cx.cat[runner_up.offer];
    r += ", next " + ro.id + " (" + std::string(to_string(ro.mode)) + ") at " + money_text(cx.cat, runner_up.amount);
  }
  return r;
}

}  // namespace detail::plan

// Plans a validated workload (see validate) on a catalog. A job no offer can run is an
// error with code not_found naming it.
[[nodiscard]] inline expected<plan_result> plan(const workload& w, const offer_catalog& cat, const plan_options& opt = {}) {
  using namespace detail::plan;
  auto ym = parse_year_month(w.period);
  if (!ym) return unexpected<error>(ym.error().in_field("period"));
  auto zone = find_zone(w.timezone);
  if (!zone) return unexpected<error>(zone.error().in_field("timezone"));
  plan_result out;
  out.ccy = cat.currency_value();
  out.period = w.period;
  out.timezone = w.timezone;
  out.window = month_period(*zone, *ym);
  const context cx{w, cat, out.window};
  const std::size_t n = w.jobs.size();
  std::vector<candidate> best(n), second(n);
  std::vector<int128> naive_exact(n);
  out.jobs.resize(n);
  try {
    for (std::size_t i = 0; i < n; ++i) {
      const job& j = w.jobs[i];
      std::size_t feasible = 0;
      for (std::size_t oi = 0; oi < cat.size(); ++oi) {
        if (!allowed(j, cat[oi])) continue;
        enumerate(cx, j, oi, [&](const candidate& c) {
          ++feasible;
          if (better(c, best[i])) {
            if (best[i].valid() && best[i].offer != c.offer) second[i] = best[i];
            best[i] = c;
          } else if (c.offer != best[i].offer && better(c, second[i])) {
            second[i] = c;
          }
        });
      }
      if (!best[i].valid())
        return make_error(error_code::not_found, "jobs[" + std::to_string(i) + "]",
                          "no offer can run job \"" + j.name + "\" (check its GPUs, memory, deadline, constraints and the period end)");
      job_plan& p = out.jobs[i];
      p.name = j.name;
      p.kind = j.kind;
      p.reason = explain(cx, j, best[i], second[i], feasible);
      naive(cx, j, p, naive_exact[i]);
    }

    // Packing: services that could share one rented GPU or server.
    std::vector<pack_item> items;
    std::vector<std::size_t> bin_offers;
    if (opt.pack) {
      for (std::size_t oi = 0; oi < cat.size(); ++oi) {
        const offer& o = cat[oi];
        if ((o.unit == offer_unit::gpu || o.unit == offer_unit::server) && o.mode != offer_mode::spot && o.billing.tiers == price_tier_mode::none)
          bin_offers.push_back(oi);
      }
      for (std::size_t i = 0; i < n; ++i) {
        const job& j = w.jobs[i];
        if (j.kind != job_kind::service) continue;
        const job* one[] = {&j};
        const bool packable = std::ranges::any_of(bin_offers, [&](std::size_t oi) {
          const offer& o = cat[oi];
          if (!allowed(j, o)) return false;
          // Worth sharing only when the job leaves room: less than one GPU of compute.
          const std::int64_t need = scaled_milli(j.gpu_share.raw().convert_to<std::int64_t>(), j.reference_gflops, o.gflops) * j.replicas;
          return need < 1000 && fit_bin(o, one).fits;
        });
        if (packable) {
          const instant s = out.window.begin() + j.start;
          items.push_back(pack_item{i, *interval::make(s, s + j.duration), best[i].amount});
        }
      }
    }
    out.packing.items = items.size();
    const auto jobs_of = [&](const std::vector<std::size_t>& idx) {
      std::vector<const job*> js;
      for (std::size_t k : idx) js.push_back(&w.jobs[items[k].job]);
      return js;
    };
    // The cheapest single bin for a set of items, if any beats `limit`.
    const auto best_bin = [&](const std::vector<std::size_t>& idx, const int128& limit, std::span<const std::size_t> offers_to_try) {
      bin b;
      const auto js = jobs_of(idx);
      instant lo = instant::max(), hi = instant::min();
      for (std::size_t k : idx) {
        lo = std::min(lo, items[k].span.begin());
        hi = std::max(hi, items[k].span.end());
      }
      const interval span = *interval::make(lo, hi);
      for (std::size_t oi : offers_to_try) {
        const offer& o = cat[oi];
        if (!std::ranges::all_of(js, [&](const job* x) { return allowed(*x, o); })) continue;
        const int128 a = record_amount(o.billing, cat.scale(), unit_quantity(1), span.begin(), span.length());
        if (a >= limit || (b.offer != npos && a >= b.amount)) continue;
        bin_fit f = fit_bin(o, js);
        if (!f.fits) continue;
        b = bin{oi, idx, std::move(f), span, a};
      }
      return b;
    };
    std::vector<bin> bins;
    const auto same_account = [&](const std::vector<std::size_t>& idx) {
      const auto acc = [&](std::size_t k) -> const std::string& {
        const job& x = w.jobs[items[k].job];
        return x.account.empty() ? w.account : x.account;
      };
      return std::ranges::all_of(idx, [&](std::size_t k) { return acc(k) == acc(idx.front()); });
    };
    int128 packed_total = 0;
    if (items.size() >= 2 && items.size() <= std::min<std::size_t>(opt.exact_packing_limit, 16)) {
      // Exact: the cheapest partition of the items into bins (singletons stand alone).
      const std::size_t m = items.size();
      const std::uint32_t full = (1U << m) - 1U;
      std::vector<std::optional<bin>> single(full + 1);
      std::vector<int128> cost(full + 1, -1);
      for (std::uint32_t s = 1; s <= full; ++s) {
        std::vector<std::size_t> idx;
        int128 alone = 0;
        for (std::size_t k = 0; k < m; ++k)
          if ((s >> k) & 1U) {
            idx.push_back(k);
            alone += items[k].standalone;
          }
        if (idx.size() == 1) {
          cost[s] = alone;
          continue;
        }
        if (!same_account(idx)) continue;
        bin b = best_bin(idx, alone, bin_offers);
        if (b.offer != npos) {
          cost[s] = b.amount;
          single[s] = std::move(b);
        }
      }
      std::vector<int128> f(full + 1, 0);
      std::vector<std::uint32_t> pick(full + 1, 0);
      for (std::uint32_t s = 1; s <= full; ++s) {
        const std::uint32_t low = s & (~s + 1U);
        bool any = false;
        for (std::uint32_t t = s; t != 0; t = (t - 1) & s) {
          if ((t & low) == 0 || cost[t] < 0) continue;
          const int128 v = cost[t] + f[s & ~t];
          if (!any || v < f[s]) {
            f[s] = v;
            pick[s] = t;
            any = true;
          }
        }
      }
      for (std::uint32_t s = full; s != 0; s &= ~pick[s])
        if (single[pick[s]]) bins.push_back(*single[pick[s]]);
      packed_total = f[full];
      out.packing.exact = true;
    } else if (items.size() > 1) {
      // Heuristic: first-fit-decreasing (by compute share) into bins of each of the cheapest
      // bin offers; a bin that does not beat its jobs standing alone is dissolved.
      out.packing.exact = false;
      std::vector<std::size_t> cheap = bin_offers;
      std::ranges::sort(cheap, [&](std::size_t a, std::size_t b) { return cat[a].gpu_hour_price() < cat[b].gpu_hour_price(); });
      if (cheap.size() > opt.heuristic_bin_offers) cheap.resize(opt.heuristic_bin_offers);
      std::vector<std::size_t> order(items.size());
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) {
        const job& x = w.jobs[items[a].job];
        const job& y = w.jobs[items[b].job];
        return x.gpu_share.raw() * x.replicas > y.gpu_share.raw() * y.replicas;
      });
      int128 best_total = -1;
      for (std::size_t oi : cheap) {
        const std::size_t one[] = {oi};
        std::vector<std::vector<std::size_t>> open;
        std::vector<interval> spans;
        const offer& o = cat[oi];
        const auto span_amount = [&](const interval& iv) { return record_amount(o.billing, cat.scale(), unit_quantity(1), iv.begin(), iv.length()); };
        for (std::size_t k : order) {
          bool placed = false;
          // A window of the most recent bins keeps this linear. A job joins a bin when the
          // bin's extra cost (a longer span) is below what the job costs on its own.
          const std::size_t from = open.size() > 16 ? open.size() - 16 : 0;
          for (std::size_t b = from; b < open.size() && !placed; ++b) {
            std::vector<std::size_t> trial = open[b];
            trial.push_back(k);
            if (!same_account(trial)) continue;
            const interval wider = *interval::make(std::min(spans[b].begin(), items[k].span.begin()), std::max(spans[b].end(), items[k].span.end()));
            if (span_amount(wider) - span_amount(spans[b]) >= items[k].standalone) continue;
            const auto js = jobs_of(trial);
            if (std::ranges::all_of(js, [&](const job* x) { return allowed(*x, o); }) && fit_bin(o, js).fits) {
              open[b] = std::move(trial);
              spans[b] = wider;
              placed = true;
            }
          }
          if (!placed) {
            open.push_back({k});
            spans.push_back(items[k].span);
          }
        }
        std::vector<bin> kept;
        int128 total = 0;
        for (auto& idx : open) {
          int128 alone = 0;
          for (std::size_t k : idx) alone += items[k].standalone;
          if (idx.size() >= 2) {
            bin b = best_bin(idx, alone, one);
            if (b.offer != npos) {
              total += b.amount;
              kept.push_back(std::move(b));
              continue;
            }
          }
          total += alone;
        }
        if (best_total < 0 || total < best_total) {
          best_total = total;
          bins = std::move(kept);
        }
      }
      packed_total = best_total;
    } else if (items.size() == 1) {
      packed_total = items.front().standalone;
    }
    // Lower bound: a rented unit costs at least its price for the span it holds, and the jobs
    // on it use at most all of its compute and all of its memory over that span. So each job
    // pays at least its compute share (or, separately, its memory share) of the cheapest GPU
    // time that could hold it, without increments or minimums, or its own best standalone;
    // both sums are bounds, the larger is reported.
    int128 lower_compute = 0, lower_memory = 0;
    for (const pack_item& it : items) {
      const job& j = w.jobs[it.job];
      int128 lc = it.standalone, lv = it.standalone;
      for (std::size_t oi : bin_offers) {
        const offer& o = cat[oi];
        if (!allowed(j, o)) continue;
        const std::int64_t need = scaled_milli(j.gpu_share.raw().convert_to<std::int64_t>(), j.reference_gflops, o.gflops) * j.replicas;
        // The unit's price for the job's span, per 10^-6 of one of its GPUs (down).
        const int128 per_gpu = o.billing.price.raw() * 1000 * int128(it.span.length().count()) * int128(cat.scale() / o.billing.per.count());
        const int128 den = int128(o.unit_milli_gpu()) * 1000;
        lc = std::min(lc, int128(per_gpu * (need * 1000) / den));
        lv = std::min(lv, int128(per_gpu * (j.memory_gib * 1024 * 1'000'000 * j.replicas / o.vram_mib) / den));
      }
      lower_compute += lc;
      lower_memory += lv;
    }
    const int128 lower = std::max(lower_compute, lower_memory);
    out.packing.cost = round_amount(cat, packed_total);
    out.packing.lower_bound = round_amount(cat, lower);
    out.packing.gap = lower > 0 ? static_cast<double>((packed_total - lower).convert_to<long double>() / lower.convert_to<long double>()) : 0.0;
    out.packing.bins = bins.size();

    // Usage, expected costs and reasons.
    std::vector<bool> in_bin(n, false);
    std::vector<int128> job_exact(n, 0);
    for (std::size_t bi = 0; bi < bins.size(); ++bi) {
      const bin& b = bins[bi];
      const offer& o = cat[b.offer];
      const job& first = w.jobs[items[b.items.front()].job];
      const std::string& account = first.account.empty() ? w.account : first.account;
      out.usage.push_back(plan_record{"shared-" + std::to_string(bi + 1), account, o.resource(), o.mode, unit_quantity(1), b.span.begin(), b.span.end()});
      const money_value cost = round_amount(cat, b.amount);
      std::vector<int128> weights;
      for (std::size_t k : b.items) {
        const job& j = w.jobs[items[k].job];
        weights.push_back(j.gpu_share.raw() * j.replicas * int128(j.duration.count()));
      }
      auto parts = allocate(cost.minor_units(), weights);
      if (!parts) return unexpected<error>(parts.error());
      int128 alone = 0;
      for (std::size_t k : b.items) alone += items[k].standalone;
      for (std::size_t t = 0; t < b.items.size(); ++t) {
        const std::size_t i = items[b.items[t]].job;
        const job& j = w.jobs[i];
        in_bin[i] = true;
        job_plan& p = out.jobs[i];
        p.offer = o.id;
        p.mode = o.mode;
        p.unit = o.unit;
        p.count = 1;
        p.wall = j.duration;
        p.expected_cost = money_value(cat.currency_value(), (*parts)[t]);
        p.waste = billing_waste(o.billing, b.span.length());
        const mig_geometry* geo = find_mig_geometry(o.gpu);
        const std::string how = b.fit.mig && geo != nullptr ? "mig:" + std::string(geo->profiles[b.fit.profiles[t]].name) : "time-sliced";
        p.sharing = std::string(o.unit == offer_unit::server ? "shared-server:" : "shared-gpu:") + how;
        std::string others;
        for (std::size_t u = 0; u < b.items.size(); ++u)
          if (u != t) {
            p.shares_with.push_back(w.jobs[items[b.items[u]].job].name);
            others += (others.empty() ? "" : ", ") + p.shares_with.back();
          }
        p.reason = "packed with " + others + " on one rented " + (o.unit == offer_unit::server ? "server" : "GPU") + " of " + o.id + " (" +
                   (b.fit.mig ? how + " MIG slice" : std::string("time-sliced share")) + ") for " + duration_text(b.span.length()) + ": " +
                   money_text(cat, b.amount) + " for all " + std::to_string(b.items.size()) + " instead of " + money_text(cat, alone) +
                   " apart; this job's share by compute x time";
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (in_bin[i]) continue;
      const job& j = w.jobs[i];
      const candidate& c = best[i];
      const offer& o = cat[c.offer];
      job_plan& p = out.jobs[i];
      p.offer = o.id;
      p.mode = o.mode;
      p.unit = o.unit;
      p.sharing = sharing_of(o);
      p.count = c.units;
      p.gpus = c.gpus;
      p.wall = c.wall;
      p.spot = c.spot;
      const std::size_t first = out.usage.size();
      emit(cx, j, c, out.usage);
      // The job's own records as one line: its expected cost, rounded once.
      std::vector<const plan_record*> mine;
      for (std::size_t k = first; k < out.usage.size(); ++k) {
        mine.push_back(&out.usage[k]);
        p.waste.used += out.usage[k].length();
        p.waste.billed += billed_seconds(o.billing, out.usage[k].length());
      }
      job_exact[i] = line_amount(o.billing, cat.scale(), mine);
      p.expected_cost = round_amount(cat, job_exact[i]);
    }
    out.total_cost = money_value(cat.currency_value(), 0);
    int128 naive_total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      out.total_cost += out.jobs[i].expected_cost;
      naive_total += naive_exact[i];
    }
    out.naive_cost = round_amount(cat, naive_total);
  } catch (const exception& e) {
    return unexpected<error>(e.err());
  }
  std::vector<bool> used(cat.size(), false);
  for (const plan_record& r : out.usage)
    for (std::size_t oi = 0; oi < cat.size(); ++oi)
      if (cat[oi].id == r.resource && cat[oi].mode == r.mode) used[oi] = true;
  for (std::size_t oi = 0; oi < cat.size(); ++oi)
    if (used[oi]) out.tariff.push_back(oi);
  auto rated = rate_plan_usage(cat, out.usage);
  if (!rated) return unexpected<error>(rated.error());
  out.invoice = std::move(*rated);
  out.billed_total = out.invoice.total;
  return out;
}

}  // namespace gpurent
