// SPDX-License-Identifier: MIT
#pragma once
// A reference, not part of the loop: `fleet run` the naive way, to check the fast loop
// decision for decision and to measure it against (bench/bench_fleet_run.cpp). Every
// queued job is tried again at every instant (run_options::rescan: no retry log, no shape memo), each
// one-member job through the full-scan matcher (matching/reference/full_scan.hpp: every
// node scored for every decision, no candidate index). The choices are the fast loop's:
// the retry log skips only jobs that cannot fit, the index only nodes that cannot win.

#include <cstdint>
#include <span>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/run.hpp>
#include <gpurent/matching/reference/full_scan.hpp>

namespace gpurent {

// The naive run of one-member jobs: full scans, every queued job at every instant.
template <PlacementPolicy P, VictimPolicy VP, bool Preempt>
[[nodiscard]] run_result run_fleet_rescan(fleet_cluster& c, std::span<const fleet_job> jobs, run_options o) {
  o.rescan = true;
  const shape_distribution shapes = shapes_of(jobs);  // the workload, as the fast loop's matcher plans for it
  full_scan_matcher<P> m(c.inv, policy_context{&shapes, 0});
  return run_fleet<VP, Preempt>(m, jobs, o);
}

}  // namespace gpurent
