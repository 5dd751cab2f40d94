// SPDX-License-Identifier: MIT
#pragma once
// A reference, not part of the loop: `fleet run` the naive way, to check the fast loop
// decision for decision and to measure it against (bench/bench_fleet_run.cpp). Every
// queued job is tried again at every instant (run_options::rescan: no retry log, no shape memo), each
// one-member job through the full-scan matcher (matching/reference/full_scan.hpp: every
// node scored for every decision, no candidate index), each gang through the gang placer
// without its capacity cache, each preemption over every candidate domain. The choices are
// the fast loop's: the retry log skips only jobs that cannot fit, the index only nodes that
// cannot win, the preemption plan only domains with no set or none cheaper than one found.

#include <cstdint>
#include <span>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/run.hpp>
#include <gpurent/matching/gang/placer.hpp>
#include <gpurent/matching/reference/full_scan.hpp>
#include <gpurent/matching/reference/full_scan_gang.hpp>

namespace gpurent {

// The naive run of one-member jobs: full scans, every queued job at every instant.
template <PlacementPolicy P, VictimPolicy VP, bool Preempt>
[[nodiscard]] run_result run_fleet_rescan(fleet_cluster& c, std::span<const fleet_job> jobs, run_options o) {
  o.rescan = true;
  const shape_distribution shapes = shapes_of(jobs);  // the workload, as the fast loop's matcher plans for it
  full_scan_matcher<P> m(c.inv, policy_context{&shapes, 0});
  return run_fleet<VP, Preempt>(m, jobs, o);
}

// The naive run of gangs: the gang placer counting every node for every decision
// (matching/reference/full_scan_gang.hpp), every queued job at every instant, and every
// candidate domain of a preemption searched in order (no skipped domain, no bound).
template <GangPolicy GP, VictimPolicy VP, bool Preempt>
[[nodiscard]] run_result run_fleet_rescan_gangs(fleet_cluster& c, std::span<const fleet_job> jobs, run_options o) {
  o.rescan = true;
  gang_placer<GP, default_constraints, full_scan_gang_capacity<default_constraints>> b(c.inv, c.topology, context_of(jobs, c));
  return run_fleet<VP, Preempt>(b, jobs, o);
}

}  // namespace gpurent
