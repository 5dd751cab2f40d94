// SPDX-License-Identifier: MIT
#pragma once
// The deterministic simulation (TigerBeetle's way: one seed replays a run exactly). It has no
// event loop of its own: it drives the one users run, `run_fleet` (fleet/run/run.hpp), on a seeded
// scenario (scenario.hpp: a cluster with a topology, gangs and one-member jobs arriving over
// time, nodes failing, draining and coming back), six times: under no victim policy, kube's
// and gpurent's, each with the node matcher (on the one-member jobs) and with the gang placer
// (on every job), the placement policies turning with the seed. Each run is checked by the
// run oracle (run_oracle.hpp), written apart from the loop, and its usage (usage_of_run) is
// billed through the usage reader into monthly and sharded meters and checked against what
// the segments ran (billing.hpp).
//
// The digest folds every run's segments (job, run, start, end, how it ended, every member's
// node and GPUs), its preemption decisions (time, preemptor, victims) and every closed month's
// totals and billed seconds per line.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/fleet/run/check.hpp>
#include <gpurent/matching/node/registry.hpp>

#include "billing.hpp"
#include "digest.hpp"
#include "run_oracle.hpp"
#include "scenario.hpp"

namespace gpurent::sim {

struct options {
  std::uint64_t seed = 1;
  std::uint64_t steps = 3000;      // job arrivals in the scenario
  std::uint64_t audit_every = 10;  // delivery batches between billing audits (0: only at the close)
};

enum class placer_kind : std::uint8_t { node, gang };
enum class victims_kind : std::uint8_t { none, kube, gpurent };
inline constexpr std::array<std::string_view, 3> victims_names = {"none", "kube", "gpurent"};

// What a simulation did, and the first violation (empty: none).
struct report {
  std::string violation;
  std::string where;  // the run it broke in: "gang placer <policy>, victims <policy>"
  std::uint64_t digest = 0;
  std::size_t jobs = 0, nodes = 0, node_events = 0, runs = 0;
  std::size_t segments = 0, preemptions = 0, failures = 0, never_started = 0;
  std::size_t usage_records = 0, deliveries = 0, months_billed = 0, audits = 0;
  std::int64_t last_end = 0;  // the latest end of a run, seconds after the epoch
  instant epoch{};
};

// Folds one run's observable events into d.
inline void digest_run(digest& d, std::string_view name, const run_result& r) {
  d.add(name);
  for (const run_segment& s : r.segments) {
    d.add(s.job);
    d.add(s.run);
    d.add(static_cast<std::uint64_t>(s.start.count()));
    d.add(static_cast<std::uint64_t>(s.end.count()));
    d.add((s.preempted ? 1U : 0U) | (s.failed ? 2U : 0U));
    for (std::uint32_t m = 0; m < s.count; ++m) {
      const placement& p = r.members[s.first + m];
      d.add(p.node);
      for (std::size_t g = 0; g < p.count; ++g) d.add(std::uint64_t{p.gpus[g].gpu} << 16 | static_cast<std::uint16_t>(p.gpus[g].milli));
    }
  }
  for (const run_preemption& p : r.preemption_log) {
    d.add(static_cast<std::uint64_t>(p.time.count()));
    d.add(p.job);
    for (std::uint32_t k = 0; k < p.count; ++k) d.add(r.victims[p.first + k].job);
  }
}

class simulation {
 public:
  explicit simulation(options o) : opt_(o), s_(make_scenario(o.seed, o.steps)), node_jobs_(one_member_jobs(s_.jobs)), run_opts_(s_.options()) {}

  // The six runs, each checked and billed; stops at the first violation.
  [[nodiscard]] report run() {
    rep_ = report{};
    rep_.jobs = s_.jobs.size();
    rep_.nodes = s_.cluster.inv.size();
    rep_.node_events = s_.events.size();
    rep_.epoch = s_.epoch;
    for (std::size_t v = 0; v < victims_names.size() && rep_.violation.empty(); ++v) {
      for (const placer_kind k : {placer_kind::node, placer_kind::gang}) {
        if (rep_.violation.empty()) run_one(k, static_cast<victims_kind>(v));
      }
    }
    rep_.digest = d_.value();
    return rep_;
  }

  [[nodiscard]] const scenario& scene() const noexcept { return s_; }

 private:
  // The policy index of run (kind, victims): another policy for each run of a seed.
  [[nodiscard]] std::size_t policy_of(victims_kind v, std::size_t count) const noexcept {
    return static_cast<std::size_t>((opt_.seed * 3 + static_cast<std::uint64_t>(v)) % count);
  }

  void run_one(placer_kind k, victims_kind v) {
    if (k == placer_kind::node) {
      builtin_policies::visit(builtin_policies::names[policy_of(v, builtin_policies::names.size())], [&]<class P>() {
        fleet_cluster c = s_.cluster;
        const shape_distribution shapes = shapes_of(node_jobs_);
        matcher<P> m(c.inv, policy_context{&shapes, s_.seed});
        check_and_bill("node matcher " + std::string(P::name), m, c, node_jobs_, v);
      });
    } else {
      builtin_gang_policies::visit(builtin_gang_policies::names[policy_of(v, builtin_gang_policies::names.size())], [&]<class GP>() {
        fleet_cluster c = s_.cluster;
        gang_placer<GP> g(c.inv, c.topology, context_of(s_.jobs, c));
        check_and_bill("gang placer " + std::string(GP::name), g, c, s_.jobs, v);
      });
    }
  }

  template <Placer B>
  [[nodiscard]] run_result run_with(B& b, std::span<const fleet_job> jobs, victims_kind v) const {
    if (v == victims_kind::none) return run_fleet<victim_policy_kube, false>(b, jobs, run_opts_);
    if (v == victims_kind::kube) return run_fleet<victim_policy_kube, true>(b, jobs, run_opts_);
    return run_fleet<victim_policy_gpurent, true>(b, jobs, run_opts_);
  }

  // One run: the loop, the oracle, the digest, the billing.
  template <Placer B>
  void check_and_bill(std::string name, B& b, const fleet_cluster& c, std::span<const fleet_job> jobs, victims_kind v) {
    name += ", victims " + std::string(victims_names[static_cast<std::size_t>(v)]);
    ++rep_.runs;
    const run_result r = run_with(b, jobs, v);
    const run_view view{&s_.cluster, jobs, s_.events, s_.checkpoints, s_.min_runtime, v != victims_kind::none, &r};
    std::string bad = oracle_check_run(view);
    if (bad.empty()) bad = check_released(c.inv);
    if (bad.empty()) bad = tool_check(jobs, r);
    digest_run(d_, name, r);
    if (bad.empty()) bad = bill(view, c);
    tally(r);
    if (!bad.empty()) {
      rep_.violation = bad;
      rep_.where = name;
    }
  }

  // What `fleet run --check` says of the run (fleet/run/check.hpp, with the node events):
  // nothing, once the oracle found nothing. A violation it reports is a false alarm.
  [[nodiscard]] std::string tool_check(std::span<const fleet_job> jobs, const run_result& r) const {
    const gang_check_result g = check_run(s_.cluster, jobs, r, node_history{s_.events, run_opts_.checkpoints.notice});
    if (g.violations == 0) return {};
    return "check_run counts " + std::to_string(g.violations) +
           " violations where the oracle found none: " + (g.messages.empty() ? std::string() : g.messages.front());
  }

  // The run's usage through the meters (billing.hpp), against the segments' truth.
  [[nodiscard]] std::string bill(const run_view& view, const fleet_cluster& c) {
    auto usage = usage_of_run(view.jobs, view.r(), c.inv, s_.epoch);
    if (!usage) return "usage_of_run failed: " + usage.error().describe();
    billing b(opt_.seed, opt_.audit_every);
    sim_rng rng(opt_.seed ^ (0x9e3779b97f4a7c15ULL * rep_.runs));
    const std::string bad = b.run(*usage, usage_truth(view, s_.epoch, b.tariff_used()), rng, d_);
    rep_.usage_records += usage->size();
    rep_.deliveries += b.deliveries();
    rep_.audits += b.audits();
    rep_.months_billed += b.months_billed();
    return bad;
  }

  void tally(const run_result& r) {
    rep_.segments += r.segments.size();
    rep_.preemptions += r.preemptions;
    rep_.failures += r.failures;
    for (const fleet_time f : r.first_start) rep_.never_started += f == not_started ? 1U : 0U;
    rep_.last_end = std::max(rep_.last_end, r.end_time.count());
  }

  options opt_;
  scenario s_;
  std::vector<fleet_job> node_jobs_;
  run_options run_opts_;
  report rep_;
  digest d_;
};

// The simulation of o: its report (violation empty when every check held).
[[nodiscard]] inline report simulate(const options& o) {
  simulation s(o);
  return s.run();
}

}  // namespace gpurent::sim
