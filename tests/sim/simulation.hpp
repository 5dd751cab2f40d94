// SPDX-License-Identifier: MIT
#pragma once
// A deterministic simulation of a GPU rental cluster and its billing (TigerBeetle-style: one
// seed replays a run exactly). Each step advances a simulated clock and does some of: jobs
// arrive and wait; pending jobs are matched (the policy cycles through every built-in one);
// MIG jobs get a slice on a pool of MIG-mode H100s; running jobs checkpoint, finish, are
// preempted on spot nodes (checkpoint in the notice window, then requeued) or lose their
// work since the last checkpoint when their node fails (the node is drained until it is
// repaired); nodes are drained for maintenance. Running jobs emit usage records, which are
// delivered late, out of order and twice, with instants written in UTC or in local offsets
// of zones that change DST during the run, as CSV through the usage reader, into one meter
// per calendar month of the tariff's zone and into three shard meters that are merged.
//
// Checked after every step: no CPU, memory or GPU share over capacity and the inventory
// equal to capacity minus the live placements (oracle.hpp); every placement admissible and
// every refusal justified; every MIG layout valid and equal to its jobs' instances; no job
// both placed and pending. Checked at every audit (every `audit_every` steps) and when a
// month closes: the merged shard invoice equals the unsharded one; each line's used seconds
// and record count equal the seconds the jobs were placed (every second billed once and
// only once); billed >= used; lines sum to totals; credit and due consistent; no negative
// amounts.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <date/date.h>
#include <date/tz.h>

#include <gpurent/core/core.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/matching/matching.hpp>
#include <gpurent/metering/metering.hpp>
#include <gpurent/spec/mig.hpp>

#include "oracle.hpp"

namespace gpurent::sim {

struct options {
  std::uint64_t seed = 1;
  std::uint64_t audit_every = 500;  // steps between billing audits (0: only at month close)
};

// FNV-1a over the run's observable events: the digest of a run.
class digest {
 public:
  void add(std::uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i) {
      h_ ^= (v >> (8 * i)) & 0xffU;
      h_ *= 0x100000001b3ULL;
    }
  }
  void add(std::string_view s) noexcept {
    for (const char c : s) {
      h_ ^= static_cast<unsigned char>(c);
      h_ *= 0x100000001b3ULL;
    }
    add(s.size());
  }
  [[nodiscard]] std::uint64_t value() const noexcept { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

// A violated invariant: the step and what broke.
struct violation {
  std::uint64_t step = 0;
  std::string what;
};

namespace detail {

inline constexpr std::array<std::string_view, 4> accounts = {"acme", "bolt", "cyan", "delta"};  // tenant i + 1
inline constexpr std::array<std::string_view, 3> models = {"H100-80GB", "A100-80GB", "T4"};
// Zones whose local offsets the usage emitters write instants in (DST changes during the run).
inline constexpr std::array<std::string_view, 4> emitter_zones = {"UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe"};
inline constexpr int shards = 3;

// "2026-11-01T01:30:00-04:00": the instant in the local offset of `zone` (UTC as "Z").
inline std::string format_local(instant t, const date::time_zone* zone) {
  if (zone == nullptr) return format_instant(t);
  const auto info = zone->get_info(t);
  const auto off = std::chrono::duration_cast<seconds>(info.offset).count();
  std::string s = format_instant(t + seconds(off));
  s.pop_back();  // the "Z"
  const long long a = off < 0 ? -off : off;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%c%02lld:%02lld", off < 0 ? '-' : '+', a / 3600, (a % 3600) / 60);
  return s + buf;
}

// The tariff: every (resource, mode) the cluster can produce, with per-second, per-minute
// and hourly increments, a minimum, graduated and volume tiers and spot price changes.
inline std::string tariff_json(const mig_geometry& g, std::string_view rounding_point) {
  std::string rates;
  const auto add = [&](const std::string& r) { rates += (rates.empty() ? "" : ",\n") + r; };
  add(R"({"resource": "gpu/H100-80GB", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s"})");
  add(R"({"resource": "gpu/H100-80GB", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s",
          "price_changes": [{"from": "2026-11-01T06:00:00Z", "unit_price": "0.87"}, {"from": "2026-11-03T00:00:00Z", "unit_price": "1.333333333"}]})");
  add(R"({"resource": "gpu/A100-80GB", "mode": "on_demand", "per": "1h", "increment": "1s",
          "tiers": {"mode": "graduated", "steps": [{"up_to": "100", "unit_price": "1.60"}, {"up_to": null, "unit_price": "1.15"}]}})");
  add(R"({"resource": "gpu/A100-80GB", "mode": "spot", "unit_price": "0.77", "per": "1h", "increment": "15min"})");
  add(R"({"resource": "gpu/T4", "mode": "on_demand", "unit_price": "0.35", "per": "1h", "increment": "1h"})");
  add(R"({"resource": "gpu/T4", "mode": "spot", "per": "1h", "increment": "1s",
          "tiers": {"mode": "volume", "steps": [{"up_to": "10", "unit_price": "0.20"}, {"up_to": null, "unit_price": "0.13"}]}})");
  for (const auto m : models) {
    for (const auto mode : {"on_demand", "spot"}) {
      add(R"({"resource": "share/)" + std::string(m) + R"(", "mode": ")" + mode + R"(", "unit_price": "3.07", "per": "1h", "increment": "1s"})");
    }
  }
  for (const auto mode : {"on_demand", "spot"}) {
    add(R"({"resource": "server/cpu", "mode": ")" + std::string(mode) +
        R"(", "unit_price": "0.0425", "per": "1h", "increment": "1s", "minimum": "5min"})");
  }
  for (const mig_profile& p : g.profiles) {
    add(R"({"resource": "mig/H100-80GB/)" + std::string(p.name) + R"(", "mode": "on_demand", "unit_price": "0.)" +
        std::to_string(30 + p.memory_slices * 7) + R"(", "per": "1h", "increment": "1s"})");
  }
  return R"({"currency": "USD", "timezone": "America/New_York", "rounding": "half_even", "rounding_point": ")" + std::string(rounding_point) +
         R"(", "rates": [)" + rates + R"(], "credits": [{"account": "acme", "amount": "100.00"}, {"account": "cyan", "amount": "0.01"}]})";
}

}  // namespace detail

class simulation {
 public:
  // The matchers and meters point into the simulation: it stays where it was made.
  simulation(const simulation&) = delete;
  simulation& operator=(const simulation&) = delete;

  explicit simulation(options o) : opt_(o), rng_(o.seed) {
    geometry_ = find_mig_geometry("H100-SXM5-80GB");
    GPURENT_ASSERT(geometry_ != nullptr);
    static constexpr std::array<std::string_view, 3> points = {"line", "record", "invoice"};
    auto t = io::parse_tariff_json(detail::tariff_json(*geometry_, points[o.seed % 3]), "sim-tariff.json");
    if (!t) {
      std::fprintf(stderr, "simulation tariff: %s\n", t.error().describe().c_str());
      GPURENT_ASSERT(t.has_value());
    }
    tariff_ = std::make_unique<tariff>(std::move(*t));
    for (std::size_t i = 0; i < detail::emitter_zones.size(); ++i) {
      zones_[i] = i == 0 ? nullptr : *find_zone(detail::emitter_zones[i]);
    }
    build_cluster();
    // Start two days before the end of October in New York, a few hours apart per seed, so
    // a short run crosses a month boundary and the end of DST (2026-11-01 06:00 UTC).
    now_ = instant(date::sys_days(date::year(2026) / 10 / 30)) + seconds(below(48 * 3600));
    for (std::size_t p = 0; p < builtin_policies::names.size(); ++p) {
      builtin_policies::visit(builtin_policies::names[p], [&]<class P>() { policies_.push_back(make_policy<P>()); });
    }
  }

  // One step; a violated invariant is returned (the run should stop there).
  [[nodiscard]] std::optional<violation> step() {
    ++step_;
    advance_clock();
    random_events();
    arrivals();
    if (auto v = place_pending()) return fail(*v);
    progress_jobs();
    deliver(false);
    if (auto v = check_cluster()) return fail(*v);
    if (auto v = close_months()) return fail(*v);
    if (opt_.audit_every != 0 && step_ % opt_.audit_every == 0) {
      if (auto v = audit_open_months()) return fail(*v);
    }
    return std::nullopt;
  }

  // Ends the run: every job stops, every record is delivered, every month is billed.
  [[nodiscard]] std::optional<violation> finish() {
    std::vector<std::uint64_t> ids;
    for (const auto& [id, j] : jobs_) ids.push_back(id);
    for (const auto id : ids) {
      job& j = jobs_.at(id);
      if (j.placed) stop(j, true);
    }
    jobs_.clear();
    pending_.clear();
    deliver(true);
    if (auto v = check_cluster()) return fail(*v);
    while (!months_.empty()) {
      if (auto v = close_month(months_.begin()->first)) return fail(*v);
    }
    d_.add(placements_);
    d_.add(records_emitted_);
    return std::nullopt;
  }

  [[nodiscard]] std::uint64_t digest_value() const noexcept { return d_.value(); }
  [[nodiscard]] std::uint64_t steps() const noexcept { return step_; }
  [[nodiscard]] std::uint64_t placements() const noexcept { return placements_; }
  [[nodiscard]] std::uint64_t records_emitted() const noexcept { return records_emitted_; }
  [[nodiscard]] std::uint64_t deliveries() const noexcept { return deliveries_; }
  [[nodiscard]] std::uint64_t months_billed() const noexcept { return months_billed_; }
  [[nodiscard]] std::uint64_t preemptions() const noexcept { return preemptions_; }
  [[nodiscard]] std::uint64_t failures() const noexcept { return failures_; }
  [[nodiscard]] std::uint64_t audits() const noexcept { return audits_; }
  [[nodiscard]] std::uint64_t abandoned() const noexcept { return abandoned_; }
  [[nodiscard]] instant now() const noexcept { return now_; }

 private:
  enum class kind : std::uint8_t { whole, share, cpu, mig };

  struct job {
    std::uint64_t id = 0;
    tenant_id tenant = 1;
    kind k = kind::whole;
    placement_request req;
    mig_profile_index profile = 0;
    std::int64_t remaining = 0;         // seconds of work left
    std::int64_t since_checkpoint = 0;  // seconds of work a failure would lose
    std::int64_t checkpoint_every = 0;  // seconds; 0: never checkpoints
    bool placed = false;
    placement where{};
    std::size_t mig_gpu = 0;
    mig_instance instance{};
    instant segment_start{};  // start of the usage not yet emitted
    std::string resource;
    std::string mode;
    std::int64_t quantity = 0;  // nano units
    std::uint32_t segments = 0;
    std::uint32_t attempts = 0;  // placement attempts since it last became pending
  };

  // One usage record as emitted, with the truth the meters must reproduce.
  struct record {
    std::string id;
    std::string account;
    std::string resource;
    std::string mode;
    std::int64_t quantity = 0;
    instant start{};
    instant end{};
    bool delivered = false;
  };

  struct in_flight {
    std::size_t record = 0;  // index into records_ (offset by records_base_)
    std::uint64_t due = 0;   // step at which it is delivered
    std::uint8_t zone = 0;   // the emitter's offset zone
  };

  struct month_book {
    interval span{};
    std::string name;
    std::unique_ptr<meter> whole;
    std::array<std::unique_ptr<meter>, detail::shards> shard;
  };

  // The matcher of one policy, behind a small type-erased face (the simulation cycles
  // through policies at run time; each matcher is still compiled for its policy).
  struct policy_slot {
    std::string_view name;
    std::function<std::optional<placement>(const placement_request&)> place;
    std::function<void(const placement&)> release;
    std::shared_ptr<void> keep;
  };

  template <class P>
  policy_slot make_policy() {
    auto m = std::make_shared<matcher<P>>(inv_, policy_context{&shapes_, opt_.seed});
    return policy_slot{P::name, [m](const placement_request& r) { return m->place(r); }, [m](const placement& p) { m->release(p); }, m};
  }

  // ---- the cluster --------------------------------------------------------------------

  void build_cluster() {
    for (const auto m : detail::models) {
      const bytes vram = m == "T4" ? gib(16) : gib(80);
      (void)inv_.add_model({std::string(m), vram, gflops(m == "T4" ? 8100 : 60000)});
    }
    const std::uint64_t n = 12 + below(13);
    for (std::uint64_t i = 0; i < n; ++i) {
      node_spec s;
      s.name = "node-" + std::to_string(i);
      const std::uint64_t shape = below(10);
      if (shape < 4) {  // 8 x H100 in one NVLink domain
        s.gpu_count = 8;
        s.model = 0;
      } else if (shape < 7) {  // 8 x A100 in two NVLink domains of 4
        s.gpu_count = 8;
        s.model = 1;
        for (std::size_t g = 0; g < 8; ++g) s.nvlink_domain[g] = static_cast<std::uint8_t>(g / 4);
      } else if (shape < 9) {  // 4 x T4, PCIe only
        s.gpu_count = 4;
        s.model = 2;
        for (std::size_t g = 0; g < 4; ++g) s.nvlink_domain[g] = static_cast<std::uint8_t>(g);
      }
      for (std::size_t g = 0; g < max_gpus_per_node; ++g) s.pcie_switch[g] = static_cast<std::uint8_t>(g / 2);
      s.cpu_milli = s.gpu_count == 0 ? 64000 : std::int64_t{16000} * s.gpu_count;
      s.memory_mib = s.gpu_count == 0 ? 262144 : std::int64_t{65536} * s.gpu_count;
      s.spot = below(4) == 0;
      s.reserved_for = (i == 0) ? tenant_id{1} : no_tenant;
      (void)inv_.add_node(std::move(s));
    }
    broken_until_.assign(inv_.size(), instant{});
    maintenance_until_.assign(inv_.size(), instant{});
    mig_layouts_.assign(2 + below(3), mig_layout{});
    std::vector<placement_request> typical(3);
    typical[0].num_gpu = 1;
    typical[0].gpu_milli = whole_gpu;
    typical[0].cpu_milli = 8000;
    typical[1].num_gpu = 1;
    typical[1].gpu_milli = milli_gpu(500);
    typical[1].cpu_milli = 4000;
    typical[2].cpu_milli = 4000;
    shapes_ = shape_distribution::of(typical);
  }

  // ---- randomness ------------------------------------------------------------------------

  // Uniform in [0, n) by rejection: the same on every standard library.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t x = rng_();
    while (x >= limit) x = rng_();
    return x % n;
  }
  bool chance(std::uint64_t per_mille) { return below(1000) < per_mille; }

  // ---- the clock -------------------------------------------------------------------------

  void advance_clock() {
    std::int64_t dt = static_cast<std::int64_t>(1 + below(240));
    if (chance(4)) dt = static_cast<std::int64_t>(3600 + below(5 * 3600));  // a step of hours (a quiet night)
    now_ += seconds(dt);
    dt_ = dt;
  }

  // ---- jobs ----------------------------------------------------------------------------

  void arrivals() {
    if (pending_.size() >= 64 || !chance(450)) return;
    job j;
    j.id = next_job_++;
    j.tenant = static_cast<tenant_id>(1 + below(4));
    const std::uint64_t k = below(20);
    placement_request& r = j.req;
    r.tenant = j.tenant;
    if (k < 8) {
      j.k = kind::whole;
      static constexpr std::array<std::int32_t, 6> counts = {1, 1, 2, 4, 8, 3};
      r.num_gpu = counts[below(counts.size())];
      r.gpu_milli = whole_gpu;
      r.locality = r.num_gpu > 1 && chance(500) ? gpu_locality::same_nvlink_domain : gpu_locality::same_node;
      r.cpu_milli = std::int64_t{4000} * r.num_gpu;
      r.memory_mib = std::int64_t{32768} * r.num_gpu;
    } else if (k < 13) {
      j.k = kind::share;
      r.num_gpu = 1;
      r.gpu_milli = milli_gpu(static_cast<std::int32_t>(125 * (1 + below(6))));
      r.cpu_milli = 2000;
      r.memory_mib = 8192;
    } else if (k < 16) {
      j.k = kind::cpu;
      r.cpu_milli = static_cast<std::int64_t>(1000 * (1 + below(16)));
      r.memory_mib = 4096;
    } else {
      j.k = kind::mig;
      j.profile = static_cast<mig_profile_index>(below(geometry_->profiles.size()));
    }
    if (chance(300)) r.allowed_models = model_mask{1} << below(detail::models.size());
    if (chance(100)) r.min_vram = gib(40);
    r.accepts_spot = chance(400);
    j.remaining = static_cast<std::int64_t>(60 + below(chance(100) ? 3 * 86400 : 4 * 3600));
    j.checkpoint_every = chance(700) ? static_cast<std::int64_t>(600 + below(3000)) : 0;
    const std::uint64_t id = j.id;
    pending_.push_back(id);
    jobs_.emplace(id, std::move(j));
  }

  // Tries up to six pending jobs, oldest first; one that does not fit goes to the back of
  // the queue, and leaves after waiting too long. The policy turns with every attempt.
  std::optional<std::string> place_pending() {
    const std::size_t tries = std::min<std::size_t>(pending_.size(), 6);
    for (std::size_t i = 0; i < tries; ++i) {
      const std::uint64_t id = pending_.front();
      pending_.pop_front();
      job& j = jobs_.at(id);
      if (++j.attempts > 200) {  // gives up and leaves
        ++abandoned_;
        d_.add(3U);
        d_.add(id);
        jobs_.erase(id);
        continue;
      }
      bool ok = false;
      if (j.k == kind::mig) {
        ok = place_mig(j);
      } else {
        const policy_slot& pol = policies_[attempts_++ % policies_.size()];
        const std::vector<node_state> before = snapshot(inv_);
        const auto p = pol.place(j.req);
        if (p) {
          const std::string bad = check_placement(inv_, before, j.req, *p);
          if (!bad.empty()) return bad + " (policy " + std::string(pol.name) + ", job " + std::to_string(id) + ")";
          j.where = *p;
          const node_spec& spec = inv_.spec(p->node);
          j.mode = spec.spot ? "spot" : "on_demand";
          if (j.k == kind::cpu) {
            j.resource = "server/cpu";
            j.quantity = j.req.cpu_milli * 1'000'000;
          } else if (j.k == kind::share) {
            j.resource = "share/" + inv_.model(spec.model).name;
            j.quantity = quantity_of(j.req.gpu_milli).raw();
          } else {
            j.resource = "gpu/" + inv_.model(spec.model).name;
            j.quantity = std::int64_t{j.req.num_gpu} * 1'000'000'000;
          }
          d_.add(id);
          d_.add(p->node);
          for (std::size_t g = 0; g < p->count; ++g) d_.add(p->gpus[g].gpu);
          ok = true;
        } else if (oracle_fits_somewhere(inv_, before, j.req)) {
          return "policy " + std::string(pol.name) + " refused job " + std::to_string(id) + ", which fits";
        }
      }
      if (ok) {
        j.placed = true;
        j.segment_start = now_;
        ++placements_;
      } else {
        pending_.push_back(id);
      }
    }
    return std::nullopt;
  }

  bool place_mig(job& j) {
    const std::array<mig_profile_index, 1> want{j.profile};
    std::size_t best = mig_layouts_.size();
    mig_fit_result best_r;
    for (std::size_t g = 0; g < mig_layouts_.size(); ++g) {
      const mig_fit_result r = mig_fit(*geometry_, mig_layouts_[g], want);
      if (r.fits() && (best == mig_layouts_.size() || r.options > best_r.options)) {
        best = g;
        best_r = r;
      }
    }
    if (best == mig_layouts_.size()) return false;
    j.mig_gpu = best;
    j.instance = {j.profile, best_r.starts[0]};
    mig_layouts_[best] = mig_apply(mig_layouts_[best], want, best_r);
    j.resource = "mig/H100-80GB/" + std::string(geometry_->profiles[j.profile].name);
    j.mode = "on_demand";
    j.quantity = 1'000'000'000;
    d_.add(j.id);
    d_.add(best);
    d_.add(j.instance.start);
    return true;
  }

  // Emits the usage of j since its last record, up to now.
  void emit(job& j) {
    if (now_ <= j.segment_start) return;
    record r;
    r.id = "job" + std::to_string(j.id) + "-" + std::to_string(j.segments++);
    r.account = std::string(detail::accounts[j.tenant - 1]);
    r.resource = j.resource;
    r.mode = j.mode;
    r.quantity = j.quantity;
    r.start = j.segment_start;
    r.end = now_;
    j.segment_start = now_;
    records_.push_back(std::move(r));
    ++records_emitted_;
    const std::size_t idx = records_base_ + records_.size() - 1;
    // Mostly prompt, sometimes late, sometimes twice (a retry after a lost acknowledgement).
    const auto zone = static_cast<std::uint8_t>(below(detail::emitter_zones.size()));
    const std::uint64_t delay = chance(50) ? 20 + below(300) : below(4);
    in_flight_.push_back({idx, step_ + delay, zone});
    if (chance(60)) in_flight_.push_back({idx, step_ + below(400), static_cast<std::uint8_t>(below(detail::emitter_zones.size()))});
  }

  // Stops j (finished, preempted or its node failed): emits its last usage, frees what it holds.
  void stop(job& j, bool finished) {
    emit(j);
    if (j.k == kind::mig) {
      const bool removed = mig_layouts_[j.mig_gpu].remove(j.instance);
      GPURENT_ASSERT(removed);
    } else {
      policies_[0].release(j.where);
    }
    j.placed = false;
    d_.add(finished ? 1U : 2U);
    d_.add(j.id);
  }

  void requeue(job& j, bool lose_work) {
    stop(j, false);
    if (lose_work) j.remaining += j.since_checkpoint;
    j.since_checkpoint = 0;
    j.attempts = 0;
    pending_.push_back(j.id);
  }

  void progress_jobs() {
    std::vector<std::uint64_t> done;
    for (auto& [id, j] : jobs_) {
      if (!j.placed) continue;
      j.remaining -= dt_;
      j.since_checkpoint += dt_;
      if (j.remaining <= 0) {
        done.push_back(id);
        continue;
      }
      // A checkpoint saves the work; usage is reported at least hourly anyway.
      if (j.checkpoint_every > 0 && j.since_checkpoint >= j.checkpoint_every) {
        j.since_checkpoint = 0;
        emit(j);
      } else if (now_ - j.segment_start >= seconds(3600)) {
        emit(j);
      }
    }
    for (const auto id : done) {
      stop(jobs_.at(id), true);
      jobs_.erase(id);
    }
  }

  void random_events() {
    // Repairs and the end of maintenance.
    for (node_index n = 0; n < inv_.size(); ++n) {
      const bool down = broken_until_[n] > now_ || maintenance_until_[n] > now_;
      if (inv_.state(n).drained && !down) inv_.drain(n, false);
    }
    if (chance(8)) {  // spot preemption: every job on one spot node, after a notice
      const auto n = static_cast<node_index>(below(inv_.size()));
      if (inv_.spec(n).spot) {
        ++preemptions_;
        for_jobs_on(n, [&](job& j) {
          j.since_checkpoint = 0;  // the notice window is enough to checkpoint
          requeue(j, false);
        });
      }
    }
    if (chance(3)) {  // a node fails: its jobs lose the work since their last checkpoint
      const auto n = static_cast<node_index>(below(inv_.size()));
      ++failures_;
      inv_.drain(n, true);
      broken_until_[n] = now_ + seconds(600 + below(4 * 3600));
      for_jobs_on(n, [&](job& j) { requeue(j, true); });
    }
    if (chance(3)) {  // maintenance: drained, running jobs stay until they finish
      const auto n = static_cast<node_index>(below(inv_.size()));
      inv_.drain(n, true);
      maintenance_until_[n] = now_ + seconds(1800 + below(6 * 3600));
    }
  }

  template <class F>
  void for_jobs_on(node_index n, F&& f) {
    std::vector<std::uint64_t> ids;
    for (auto& [id, j] : jobs_) {
      if (j.placed && j.k != kind::mig && j.where.node == n) ids.push_back(id);
    }
    for (const auto id : ids) f(jobs_.at(id));
  }

  // ---- invariants of the cluster ---------------------------------------------------------

  std::optional<std::string> check_cluster() {
    std::vector<live_placement> live;
    std::vector<mig_layout> mig(mig_layouts_.size());
    std::size_t pending_jobs = 0;
    for (const auto& [id, j] : jobs_) {
      if (!j.placed) {
        ++pending_jobs;
        continue;
      }
      if (j.k == kind::mig) {
        if (!mig[j.mig_gpu].add(j.instance)) return "more MIG instances than slices on MIG GPU " + std::to_string(j.mig_gpu);
      } else {
        live.push_back({id, j.req, j.where});
      }
    }
    const std::string bad = check_inventory(inv_, live);
    if (!bad.empty()) return bad;
    for (std::size_t g = 0; g < mig_layouts_.size(); ++g) {
      if (!mig_valid(*geometry_, mig_layouts_[g])) return "MIG layout of GPU " + std::to_string(g) + " is invalid";
      if (!(mig[g] == mig_layouts_[g])) return "MIG layout of GPU " + std::to_string(g) + " differs from its jobs' instances";
    }
    // No job both placed and pending: the queue holds exactly the unplaced jobs, once.
    if (pending_.size() != pending_jobs) return "the pending queue and the unplaced jobs differ";
    std::vector<std::uint64_t> q(pending_.begin(), pending_.end());
    std::sort(q.begin(), q.end());
    if (std::adjacent_find(q.begin(), q.end()) != q.end()) return "a job is queued twice";
    for (const auto id : q) {
      auto it = jobs_.find(id);
      if (it == jobs_.end() || it->second.placed) return "job " + std::to_string(id) + " is both placed and pending";
    }
    return std::nullopt;
  }

  // ---- billing ---------------------------------------------------------------------------

  month_book& book_for(date::year_month ym) {
    auto it = months_.find(ym);
    if (it != months_.end()) return it->second;
    month_book b;
    b.span = tariff_->month(ym);
    char name[16];
    std::snprintf(name, sizeof name, "%04d-%02u", static_cast<int>(ym.year()), static_cast<unsigned>(ym.month()));
    b.name = name;
    b.whole = std::make_unique<meter>(*tariff_, b.span, b.name);
    for (auto& s : b.shard) s = std::make_unique<meter>(*tariff_, b.span, b.name);
    return months_.emplace(ym, std::move(b)).first->second;
  }

  // Delivers the due records (all when flushing) in a shuffled order, as CSV, to the meters
  // of every month the record touches.
  void deliver(bool flush) {
    std::vector<in_flight> due;
    std::vector<in_flight> keep;
    for (const auto& f : in_flight_) (flush || f.due <= step_ ? due : keep).push_back(f);
    in_flight_.swap(keep);
    if (due.empty()) return;
    for (std::size_t i = due.size(); i > 1; --i) std::swap(due[i - 1], due[below(i)]);
    // One CSV per (month, meter); the whole meter sees every delivery, each shard some.
    std::map<std::pair<date::year_month, int>, std::string> csv;
    for (const auto& f : due) {
      record& r = records_[f.record - records_base_];
      r.delivered = true;
      ++deliveries_;
      const std::string row = r.id + "," + r.account + "," + r.resource + "," + r.mode + "," + format_nano(r.quantity) + "," +
                              detail::format_local(r.start, zones_[f.zone]) + "," + detail::format_local(r.end, zones_[f.zone]) + "\n";
      const int shard = static_cast<int>(below(detail::shards));
      for (date::year_month ym = month_of(tariff_->zone(), r.start); ym <= month_of(tariff_->zone(), r.end - seconds(1)); ym += date::months(1)) {
        (void)book_for(ym);
        csv[{ym, -1}] += row;
        csv[{ym, shard}] += row;
      }
    }
    for (auto& [key, text] : csv) {
      month_book& b = months_.at(key.first);
      meter& m = key.second < 0 ? *b.whole : *b.shard[static_cast<std::size_t>(key.second)];
      const std::string body = "id,account,resource,mode,quantity,start,end\n" + text;
      // One file name per meter: meter::merge looks each record's source file up linearly
      // among the meter's sources, so a file name per delivery made audits quadratic
      // (finding F2, docs/reliability.md).
      auto ok = io::meter_usage_csv(m, body, "deliveries-" + b.name + ".csv");
      if (!ok) {
        std::fprintf(stderr, "usage rejected: %s\n", ok.error().describe().c_str());
        GPURENT_ASSERT(ok.has_value());
      }
    }
  }

  struct line_truth {
    std::int64_t used = 0;
    std::int64_t records = 0;
  };

  // The merged shards' invoice equals the whole meter's, and both match the records.
  std::optional<std::string> check_month(const month_book& b, bool closing) {
    meter merged = *b.shard[0];
    for (std::size_t s = 1; s < b.shard.size(); ++s) {
      auto ok = merged.merge(*b.shard[s]);
      if (!ok) return "merging shard meters failed: " + ok.error().describe();
    }
    auto whole = b.whole->finish();
    auto from_shards = merged.finish();
    if (!whole) return "invoice " + b.name + " failed: " + whole.error().describe();
    if (!from_shards) return "sharded invoice " + b.name + " failed: " + from_shards.error().describe();
    if (!(*whole == *from_shards)) return "sharded invoice " + b.name + " differs from the unsharded one";
    // Truth: every delivered record's seconds inside the month, once per record id.
    std::map<std::tuple<std::string, std::string, std::string>, line_truth> truth;
    for (const record& r : records_) {
      if (!r.delivered) continue;
      const auto [b1, e1] = std::pair{std::max(r.start, b.span.begin()), std::min(r.end, b.span.end())};
      if (b1 >= e1) continue;
      line_truth& t = truth[{r.account, r.resource, r.mode}];
      t.used += (e1 - b1).count();
      ++t.records;
    }
    std::size_t lines = 0;
    const money_value zero(tariff_->currency_value(), 0);
    for (const invoice_account& a : whole->accounts) {
      money_value sum = zero;
      for (const invoice_line& l : a.lines) {
        ++lines;
        auto it = truth.find({a.account, l.resource, l.mode});
        if (it == truth.end()) return "invoice " + b.name + " bills " + a.account + " " + l.resource + " " + l.mode + ", which nobody used";
        if (l.used_seconds != it->second.used) {
          return "invoice " + b.name + " line " + a.account + " " + l.resource + " " + l.mode + " has " + std::to_string(l.used_seconds) +
                 " used seconds; the jobs were placed for " + std::to_string(it->second.used);
        }
        if (l.records != it->second.records) return "invoice " + b.name + " line " + a.account + " " + l.resource + " counts the wrong records";
        if (l.billed_seconds < l.used_seconds) return "invoice " + b.name + " bills fewer seconds than were used";
        if (l.amount.minor_units() < 0) return "invoice " + b.name + " has a negative line";
        sum = sum + l.amount;
      }
      if (!(sum == a.total)) return "invoice " + b.name + " account " + a.account + ": lines do not sum to the total";
      const int128 credit = tariff_->credit_for(a.account).minor_units();
      const int128 applied = a.total.minor_units() < credit ? a.total.minor_units() : credit;
      if (a.credit_applied.minor_units() != applied) return "invoice " + b.name + " account " + a.account + ": wrong credit applied";
      if (!(a.due == a.total - a.credit_applied)) return "invoice " + b.name + " account " + a.account + ": due is not total - credit";
      if (a.due.minor_units() < 0 || a.total.minor_units() < 0) return "invoice " + b.name + " account " + a.account + ": a negative amount";
      if (closing) {
        d_.add(a.account);
        d_.add(static_cast<std::uint64_t>(a.total.minor_units().convert_to<std::int64_t>()));
      }
    }
    if (lines != truth.size()) return "invoice " + b.name + " lacks a line that was used";
    return std::nullopt;
  }

  std::optional<std::string> audit_open_months() {
    ++audits_;
    for (const auto& [ym, b] : months_) {
      if (auto v = check_month(b, false)) return v;
    }
    return std::nullopt;
  }

  // A month closes 12 hours after it ends (records are reported at least hourly and arrive
  // within the grace, so none can still come); its late records are flushed first.
  std::optional<std::string> close_months() {
    while (!months_.empty()) {
      const auto& [ym, b] = *months_.begin();
      if (now_ < b.span.end() + seconds(12 * 3600)) break;
      deliver(true);
      if (auto v = close_month(ym)) return v;
    }
    return std::nullopt;
  }

  std::optional<std::string> close_month(date::year_month ym) {
    const month_book& b = months_.at(ym);
    if (auto v = check_month(b, true)) return v;
    const instant end = b.span.end();
    months_.erase(ym);
    ++months_billed_;
    // Records wholly before the next open month are no longer needed.
    const instant keep_from = months_.empty() ? instant::max() : months_.begin()->second.span.begin();
    while (!records_.empty() && records_.front().delivered && records_.front().end <= std::min(end, keep_from)) {
      bool flying = false;
      for (const auto& f : in_flight_) flying = flying || f.record == records_base_;
      if (flying) break;
      records_.pop_front();
      ++records_base_;
    }
    return std::nullopt;
  }

  violation fail(std::string what) const { return violation{step_, std::move(what)}; }

  options opt_;
  std::mt19937_64 rng_;
  const mig_geometry* geometry_ = nullptr;
  std::unique_ptr<tariff> tariff_;
  std::array<const date::time_zone*, detail::emitter_zones.size()> zones_{};
  inventory inv_;
  shape_distribution shapes_;
  std::vector<policy_slot> policies_;
  std::vector<mig_layout> mig_layouts_;
  std::vector<instant> broken_until_;
  std::vector<instant> maintenance_until_;
  std::map<std::uint64_t, job> jobs_;
  std::deque<std::uint64_t> pending_;
  std::deque<record> records_;
  std::size_t records_base_ = 0;
  std::vector<in_flight> in_flight_;
  std::map<date::year_month, month_book> months_;
  instant now_{};
  std::int64_t dt_ = 0;
  std::uint64_t step_ = 0;
  std::uint64_t next_job_ = 1;
  std::uint64_t attempts_ = 0;
  std::uint64_t placements_ = 0;
  std::uint64_t records_emitted_ = 0;
  std::uint64_t deliveries_ = 0;
  std::uint64_t months_billed_ = 0;
  std::uint64_t preemptions_ = 0;
  std::uint64_t failures_ = 0;
  std::uint64_t audits_ = 0;
  std::uint64_t abandoned_ = 0;
  digest d_;
};

// Runs `steps` steps and the final billing; the violation, if any.
[[nodiscard]] inline std::optional<violation> run(simulation& s, std::uint64_t steps) {
  for (std::uint64_t i = 0; i < steps; ++i) {
    if (auto v = s.step()) return v;
  }
  return s.finish();
}

}  // namespace gpurent::sim
