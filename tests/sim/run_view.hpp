// SPDX-License-Identifier: MIT
#pragma once
// What the run oracle (room_oracle.hpp, work_oracle.hpp) reads: the cluster as the run
// started, the jobs, the node events and the checkpoint model the run was given, and the
// run's result. Nothing of the loop's own bookkeeping: only what `run_fleet` returns.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/fleet/fleet.hpp>

namespace gpurent::sim {

struct run_view {
  const fleet_cluster* cluster = nullptr;  // as the run started: specs, topology, first conditions
  std::span<const fleet_job> jobs;
  std::span<const node_event> events;
  checkpoint_model checkpoints;
  std::int64_t min_runtime = 0;
  bool preempt = false;  // a victim policy ran (false: --victims none)
  const run_result* result = nullptr;

  [[nodiscard]] const run_result& r() const noexcept { return *result; }
  [[nodiscard]] const inventory& inv() const noexcept { return cluster->inv; }
  [[nodiscard]] std::span<const placement> members(const run_segment& s) const noexcept { return {result->members.data() + s.first, s.count}; }
  [[nodiscard]] std::int64_t notice() const noexcept { return checkpoints.notice.count(); }
};

// "job NAME run K": how a message names segment s.
[[nodiscard]] inline std::string segment_name(const run_view& v, const run_segment& s) {
  return "job " + v.jobs[s.job].name + " run " + std::to_string(s.run);
}

// Each job's segments, in run order (the result lists them in the order they were decided).
[[nodiscard]] inline std::vector<std::vector<std::uint32_t>> segments_by_job(const run_view& v) {
  std::vector<std::vector<std::uint32_t>> by(v.jobs.size());
  for (std::uint32_t i = 0; i < v.r().segments.size(); ++i) {
    const run_segment& s = v.r().segments[i];
    if (s.job < by.size()) by[s.job].push_back(i);
  }
  return by;
}

// The instant each segment was placed: its start, or for a preemptor the decision notice
// seconds before (placed then, started when its victims stop). The preemptor's segment is
// the first of its job that starts at decision + notice.
[[nodiscard]] inline std::vector<std::int64_t> placed_at(const run_view& v, const std::vector<std::vector<std::uint32_t>>& by_job) {
  std::vector<std::int64_t> at(v.r().segments.size());
  for (std::size_t i = 0; i < at.size(); ++i) at[i] = v.r().segments[i].start.count();
  for (const run_preemption& p : v.r().preemption_log) {
    if (p.job >= by_job.size()) continue;
    for (const std::uint32_t s : by_job[p.job]) {
      if (v.r().segments[s].start.count() == p.time.count() + v.notice() && at[s] == v.r().segments[s].start.count()) {
        at[s] = p.time.count();
        break;
      }
    }
  }
  return at;
}

}  // namespace gpurent::sim
