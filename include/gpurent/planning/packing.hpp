// SPDX-License-Identifier: MIT
#pragma once
// Step 3 of the planner: services whose replicas fit on one GPU may share one rented GPU or
// server (of an on-demand or reserved, untiered offer) for the span of their union. Exact
// over all partitions (subset dynamic programming, 3^n) up to `exact_limit` jobs;
// first-fit-decreasing on the cheapest bin offers beyond; and a lower bound no plan of them
// beats, so the report can state the gap.

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/integer.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/caps.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/pricing.hpp>
#include <gpurent/planning/workload.hpp>
#include <gpurent/spec/mig.hpp>

namespace gpurent {

// A job that may share a GPU: its span and its best amount on its own.
struct pack_item {
  std::size_t job = 0;
  interval span;
  plan_amount standalone = 0;
};

// How a set of jobs shares one unit of a bin offer, when it can.
struct bin_fit {
  bool fits = false;
  bool mig = false;
  std::vector<mig_profile_index> profiles;  // per job (mig)
};

// One rented unit shared by two or more items.
struct bin {
  std::size_t offer = detail::plan::npos;
  std::vector<std::size_t> items;  // indices into the pack items
  bin_fit fit;
  interval span;
  plan_amount amount = 0;
};

struct packing_options {
  std::size_t exact_limit = 12;      // jobs; beyond: first-fit-decreasing (at most 16 exactly)
  std::size_t heuristic_offers = 8;  // cheapest bin offers tried by the heuristic
};

struct packing_result {
  std::vector<pack_item> items;  // jobs that could share a GPU
  std::vector<bin> bins;         // rented units holding two or more of them
  bool exact = true;             // subset DP over all partitions (else first-fit-decreasing)
  plan_amount cost = 0;          // of the items as packed (shared units and the rest alone)
  plan_amount lower_bound = 0;   // no plan of them is cheaper (lower_bound below)
};

namespace detail::plan {

// Fills the GPUs of one unit of o first fit in the given order, each job's replicas on one
// GPU: as MIG slices (isolation) when `mig`, else time-sliced. False when one does not fit.
[[nodiscard]] inline bool fill_unit(const offer& o, std::span<const job* const> jobs, const mig_geometry* g, bool mig, bin_fit& r) {
  struct gpu_state {
    mig_layout layout;
    std::int64_t milli = 0, vram = 0;
  };
  std::vector<gpu_state> state(static_cast<std::size_t>(o.unit == offer_unit::server ? o.gpu_count : 1));
  r.profiles.clear();
  for (const job* x : jobs) {
    const std::int64_t need = service_need(*x, o);
    const std::int64_t vram = x->memory_gib * 1024;
    std::optional<mig_profile_index> p;
    if (mig && !(p = smallest_mig_profile(g, need, vram))) return false;
    const auto fits = [&](gpu_state& s) {
      if (!mig) {
        if (s.milli + need * x->replicas > 1000 || s.vram + vram * x->replicas > o.vram_mib) return false;
        s.milli += need * x->replicas;
        s.vram += vram * x->replicas;
        return true;
      }
      if (x->replicas > mig_max_slices) return false;
      std::array<mig_profile_index, mig_max_slices> want{};
      for (std::int32_t k = 0; k < x->replicas; ++k) want[static_cast<std::size_t>(k)] = *p;
      const auto span = std::span<const mig_profile_index>(want.data(), static_cast<std::size_t>(x->replicas));
      const mig_fit_result f = mig_fit(*g, s.layout, span);
      if (!f.fits()) return false;
      s.layout = mig_apply(s.layout, span, f);
      return true;
    };
    if (std::ranges::none_of(state, fits)) return false;
    if (mig) r.profiles.push_back(*p);
  }
  return true;
}

// MIG first (isolation), then time-slicing when no job is latency-sensitive or asks for
// isolation (a time-sliced GPU keeps no memory apart). The jobs of a bin are one account's
// (packer::same_account), so node isolation needs nothing more here.
[[nodiscard]] inline bin_fit fit_bin(const offer& o, std::span<const job* const> jobs) {
  bin_fit r;
  const mig_geometry* g = find_mig_geometry(o.gpu);
  if (g != nullptr && fill_unit(o, jobs, g, true, r)) {
    r.fits = r.mig = true;
    return r;
  }
  if (std::ranges::any_of(jobs, [](const job* x) { return x->latency_sensitive || x->isolation >= isolation_level::gpu; })) return bin_fit{};
  if (fill_unit(o, jobs, g, false, r)) {
    r.fits = true;
    return r;
  }
  return bin_fit{};
}

// Packing's shared state: the items, the offers a bin may be rented from, and their jobs.
struct packer {
  const plan_context& cx;
  std::vector<pack_item> items;
  std::vector<std::size_t> bin_offers;

  [[nodiscard]] std::vector<const job*> jobs_of(std::span<const std::size_t> idx) const {
    std::vector<const job*> js;
    for (std::size_t k : idx) js.push_back(&cx.w.jobs[items[k].job]);
    return js;
  }
  [[nodiscard]] const std::string& account_of(std::size_t k) const {
    const job& x = cx.w.jobs[items[k].job];
    return x.account.empty() ? cx.w.account : x.account;
  }
  [[nodiscard]] bool same_account(std::span<const std::size_t> idx) const {
    return std::ranges::all_of(idx, [&](std::size_t k) { return account_of(k) == account_of(idx.front()); });
  }
  [[nodiscard]] plan_amount alone(std::span<const std::size_t> idx) const {
    plan_amount a = 0;
    for (std::size_t k : idx) a += items[k].standalone;
    return a;
  }
  [[nodiscard]] interval union_span(std::span<const std::size_t> idx) const {
    instant lo = instant::max(), hi = instant::min();
    for (std::size_t k : idx) {
      lo = std::min(lo, items[k].span.begin());
      hi = std::max(hi, items[k].span.end());
    }
    return *interval::make(lo, hi);
  }
  // One unit of offer oi for a span.
  [[nodiscard]] plan_amount unit_amount(std::size_t oi, const interval& span) const {
    return cx.pricer.record(oi, unit_quantity(1), span.begin(), span.length());
  }

  // The cheapest single bin for a set of items among `offers`, if any beats `limit`.
  [[nodiscard]] bin best_bin(const std::vector<std::size_t>& idx, const plan_amount& limit, std::span<const std::size_t> offers) const {
    bin b;
    const auto js = jobs_of(idx);
    const interval span = union_span(idx);
    for (std::size_t oi : offers) {
      const offer& o = cx.cat[oi];
      if (!std::ranges::all_of(js, [&](const job* x) { return allowed(*x, o); })) continue;
      const plan_amount a = unit_amount(oi, span);
      if (a >= limit || (b.offer != npos && a >= b.amount)) continue;
      bin_fit f = fit_bin(o, js);
      if (!f.fits) continue;
      b = bin{oi, idx, std::move(f), span, a};
    }
    return b;
  }
};

// Exact: the cheapest partition of the items into bins (singletons stand alone).
inline void pack_exact(const packer& pk, packing_result& out) {
  const std::size_t m = pk.items.size();
  const std::uint32_t full = (1U << m) - 1U;
  std::vector<std::optional<bin>> single(full + 1);
  std::vector<plan_amount> cost(full + 1, -1);
  for (std::uint32_t s = 1; s <= full; ++s) {
    std::vector<std::size_t> idx;
    for (std::size_t k = 0; k < m; ++k)
      if ((s >> k) & 1U) idx.push_back(k);
    const plan_amount alone = pk.alone(idx);
    if (idx.size() == 1) {
      cost[s] = alone;
      continue;
    }
    if (!pk.same_account(idx)) continue;
    bin b = pk.best_bin(idx, alone, pk.bin_offers);
    if (b.offer != npos) {
      cost[s] = b.amount;
      single[s] = std::move(b);
    }
  }
  std::vector<plan_amount> f(full + 1, 0);
  std::vector<std::uint32_t> pick(full + 1, 0);
  for (std::uint32_t s = 1; s <= full; ++s) {
    const std::uint32_t low = s & (~s + 1U);
    bool any = false;
    for (std::uint32_t t = s; t != 0; t = (t - 1) & s) {
      if ((t & low) == 0 || cost[t] < 0) continue;
      const plan_amount v = cost[t] + f[s & ~t];
      if (!any || v < f[s]) {
        f[s] = v;
        pick[s] = t;
        any = true;
      }
    }
  }
  for (std::uint32_t s = full; s != 0; s &= ~pick[s])
    if (single[pick[s]]) out.bins.push_back(*single[pick[s]]);
  out.cost = f[full];
  out.exact = true;
}

// First-fit-decreasing (by compute share) of the items into bins of offer oi; a job joins a
// bin when the bin's extra cost (a longer span) is below what the job costs on its own. A
// window of the most recent bins keeps this linear.
[[nodiscard]] inline std::vector<std::vector<std::size_t>> first_fit(const packer& pk, std::size_t oi, std::span<const std::size_t> order) {
  std::vector<std::vector<std::size_t>> open;
  std::vector<interval> spans;
  const offer& o = pk.cx.cat[oi];
  for (std::size_t k : order) {
    bool placed = false;
    for (std::size_t b = open.size() > 16 ? open.size() - 16 : 0; b < open.size() && !placed; ++b) {
      std::vector<std::size_t> trial = open[b];
      trial.push_back(k);
      if (!pk.same_account(trial)) continue;
      const interval wider = *interval::make(std::min(spans[b].begin(), pk.items[k].span.begin()), std::max(spans[b].end(), pk.items[k].span.end()));
      if (pk.unit_amount(oi, wider) - pk.unit_amount(oi, spans[b]) >= pk.items[k].standalone) continue;
      const auto js = pk.jobs_of(trial);
      if (std::ranges::all_of(js, [&](const job* x) { return allowed(*x, o); }) && fit_bin(o, js).fits) {
        open[b] = std::move(trial);
        spans[b] = wider;
        placed = true;
      }
    }
    if (!placed) {
      open.push_back({k});
      spans.push_back(pk.items[k].span);
    }
  }
  return open;
}

// Heuristic: first-fit-decreasing into bins of each of the cheapest bin offers; a bin that
// does not beat its jobs standing alone is dissolved; the cheapest offer's packing wins.
inline void pack_heuristic(const packer& pk, const packing_options& opt, packing_result& out) {
  out.exact = false;
  std::vector<std::size_t> cheap = pk.bin_offers;
  std::ranges::sort(cheap, [&](std::size_t a, std::size_t b) { return pk.cx.cat[a].gpu_hour_price() < pk.cx.cat[b].gpu_hour_price(); });
  if (cheap.size() > opt.heuristic_offers) cheap.resize(opt.heuristic_offers);
  std::vector<std::size_t> order(pk.items.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) {
    const job& x = pk.cx.w.jobs[pk.items[a].job];
    const job& y = pk.cx.w.jobs[pk.items[b].job];
    return x.gpu_share.raw() * x.replicas > y.gpu_share.raw() * y.replicas;
  });
  plan_amount best_total = -1;
  for (std::size_t oi : cheap) {
    const std::size_t one[] = {oi};
    std::vector<bin> kept;
    plan_amount total = 0;
    for (auto& idx : first_fit(pk, oi, order)) {
      const plan_amount alone = pk.alone(idx);
      bin b = idx.size() >= 2 ? pk.best_bin(idx, alone, one) : bin{};
      total += b.offer != npos ? b.amount : alone;
      if (b.offer != npos) kept.push_back(std::move(b));
    }
    if (best_total < 0 || total < best_total) {
      best_total = total;
      out.bins = std::move(kept);
    }
  }
  out.cost = best_total;
}

// The share of one unit of o that job j takes in any shared unit, per dimension, in
// millionths (down): compute (time-sliced: its need; MIG: its smallest profile's compute
// slices over the GPU's) and memory (its memory over the GPU's; MIG: the profile's memory
// slices over the GPU's), each the lesser of the two ways where both are open to it (a
// latency-sensitive or isolated job is MIG only). Nothing when o cannot hold it.
struct unit_share {
  std::int64_t compute = 0;
  std::int64_t memory = 0;
};
[[nodiscard]] inline std::optional<unit_share> share_of(const job& j, const offer& o) {
  constexpr std::int64_t ppm = 1'000'000;
  const std::int64_t g = o.unit == offer_unit::server ? o.gpu_count : 1, n = j.replicas;
  const std::int64_t need = service_need(j, o), vram = j.memory_gib * 1024;
  std::optional<unit_share> s;
  const mig_geometry* geo = find_mig_geometry(o.gpu);
  if (const auto p = smallest_mig_profile(geo, need, vram)) {
    const mig_profile& pr = geo->profiles[*p];
    s = unit_share{std::int64_t{pr.compute_slices} * ppm * n / (std::int64_t{geo->compute_slices} * g),
                   std::int64_t{pr.memory_slices} * ppm * n / (std::int64_t{geo->memory_slices} * g)};
  }
  if (!j.latency_sensitive && j.isolation < isolation_level::gpu) {
    const unit_share t{need * 1000 * n / g, vram * ppm * n / (o.vram_mib * g)};
    s = s ? unit_share{std::min(s->compute, t.compute), std::min(s->memory, t.memory)} : t;
  }
  return s;
}

// The least one unit of oi costs over [start, start + length): its own billing (increment
// and minimum) when its price is constant; else at its lowest price in force then, flat.
[[nodiscard]] inline plan_amount least_unit_cost(const packer& pk, std::size_t oi, const interval& span) {
  const offer& o = pk.cx.cat[oi];
  if (o.pricing.price.changes().empty()) return pk.unit_amount(oi, span);
  return pk.cx.pricer.flat_at(oi, nano_price(lowest_price_in(o, span).nano), span.length());
}

// A rented unit costs at least its price for the span it holds, billed by its own rule, and
// the jobs on it use at most all of its compute and all of its memory (per GPU: MIG compute
// and memory slices, or milli-GPUs and MiB) over that span. So each job pays at least its
// compute share (or, separately, its memory share) of the cheapest unit that could hold it,
// billed for the job's own span (increment and minimum included: a unit's billed time only
// grows with its span), or its own best standalone; both sums are bounds, the larger is
// reported. Shares are floored to the plan's grain (pricing.hpp).
[[nodiscard]] inline plan_amount lower_bound(const packer& pk) {
  plan_amount lower_compute = 0, lower_memory = 0;
  const int128 den = int128(1'000'000) * plan_pricer::milli_grain;
  for (const pack_item& it : pk.items) {
    const job& j = pk.cx.w.jobs[it.job];
    plan_amount lc = it.standalone, lv = it.standalone;
    for (std::size_t oi : pk.bin_offers) {
      const offer& o = pk.cx.cat[oi];
      if (!allowed(j, o)) continue;
      const auto share = share_of(j, o);
      if (!share) continue;
      const plan_amount whole = least_unit_cost(pk, oi, it.span);
      lc = std::min(lc, plan_amount(whole * share->compute / den * plan_pricer::milli_grain));
      lv = std::min(lv, plan_amount(whole * share->memory / den * plan_pricer::milli_grain));
    }
    lower_compute += lc;
    lower_memory += lv;
  }
  return std::max(lower_compute, lower_memory);
}

// The items: services that could share a GPU with another job on some bin offer, worth it
// only when the job leaves room (less than one GPU of compute).
inline void collect_items(packer& pk, std::span<const candidate> best) {
  for (std::size_t oi = 0; oi < pk.cx.cat.size(); ++oi) {
    const offer& o = pk.cx.cat[oi];
    if ((o.unit == offer_unit::gpu || o.unit == offer_unit::server) && o.mode != offer_mode::spot && !o.tiered()) pk.bin_offers.push_back(oi);
  }
  for (std::size_t i = 0; i < pk.cx.w.jobs.size(); ++i) {
    const job& j = pk.cx.w.jobs[i];
    if (j.kind != job_kind::service) continue;
    const job* one[] = {&j};
    const bool packable = std::ranges::any_of(pk.bin_offers, [&](std::size_t oi) {
      const offer& o = pk.cx.cat[oi];
      return allowed(j, o) && service_need(j, o) * j.replicas < 1000 && fit_bin(o, one).fits;
    });
    if (packable) pk.items.push_back(pack_item{i, *interval::make(pk.cx.start_of(j), pk.cx.start_of(j) + j.duration), best[i].amount});
  }
}

}  // namespace detail::plan

// Packs the services that can share a rented unit; `best` holds each job's best candidate
// on its own (its standalone amount).
[[nodiscard]] inline packing_result pack(const plan_context& cx, std::span<const candidate> best, const packing_options& opt) {
  detail::plan::packer pk{cx, {}, {}};
  detail::plan::collect_items(pk, best);
  packing_result out;
  const std::size_t m = pk.items.size();
  if (m >= 2 && m <= std::min<std::size_t>(opt.exact_limit, 16)) {
    detail::plan::pack_exact(pk, out);
  } else if (m > 1) {
    detail::plan::pack_heuristic(pk, opt, out);
  } else if (m == 1) {
    out.cost = pk.items.front().standalone;
  }
  out.lower_bound = detail::plan::lower_bound(pk);
  out.items = std::move(pk.items);
  return out;
}

}  // namespace gpurent
