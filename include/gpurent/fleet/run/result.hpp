// SPDX-License-Identifier: MIT
#pragma once
// What `fleet run` (fleet/run/run.hpp) decided: the run segments with their members, per job
// its first start, completion, evictions and lost work, and the preemption decisions with
// their victims.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gpurent/core/fleet_time.hpp>
#include <gpurent/matching/preempt/victims.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// One run of one job: its members' placements are members[first, first + count).
struct run_segment {
  std::uint32_t job = 0;
  std::uint32_t run = 0;  // 0-based per job
  fleet_time start;
  fleet_time end;
  bool preempted = false;  // end_reason: preempted (else done)
  bool failed = false;     // end_reason: failed (its node went down)
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  std::int64_t gpu_milli = 0;  // all members
};

// One preemption decision: the preemptor, its victims (victims[first, first + count)) and
// the next-best set the policy turned down (victims[other_first, other_first + other_count)),
// for the explanation (victim_explanation) and the audit trail.
struct run_preemption {
  fleet_time time;
  std::uint32_t job = 0;
  std::uint32_t first = 0, count = 0;
  std::uint32_t other_first = 0, other_count = 0;
};

// A job that never started, and why it could never fit (the placer's explanation with its
// counts); explain_never_started fills them.
struct run_never_started {
  std::uint32_t job = 0;
  std::string why;
};

// first_start of a job that never started: before any instant a run reaches.
inline constexpr fleet_time not_started = fleet_time::at_second(-1);

struct run_result {
  std::vector<run_segment> segments;  // in the order they were decided
  std::vector<placement> members;
  std::vector<fleet_time> first_start;         // per job; not_started: never started
  std::vector<std::uint8_t> completed;         // per job
  std::vector<std::uint32_t> evictions;        // per job
  std::vector<std::int64_t> lost_milli_s;      // per job: milli-GPU-seconds of work lost
  std::size_t preemptions = 0;                 // decisions that evicted
  std::size_t failures = 0;                    // segments stopped by a node going down
  std::vector<run_preemption> preemption_log;  // one per decision, in order
  std::vector<victim> victims;                 // what preemption_log points into
  fleet_time end_time;
  std::vector<run_never_started> never_started;  // in job order, after explain_never_started
  std::vector<run_never_started> unfinished;     // started, stopped, never able to start again; likewise
};

namespace detail {
// One preemption decision for job j at t, from the selection's victims and runner-up, into r.
template <class Selection>
void log_preemption(run_result& r, const Selection& sel, std::uint32_t j, fleet_time t) {
  run_preemption p;
  p.time = t;
  p.job = j;
  p.first = static_cast<std::uint32_t>(r.victims.size());
  p.count = static_cast<std::uint32_t>(sel.victims().size());
  r.victims.insert(r.victims.end(), sel.victims().begin(), sel.victims().end());
  p.other_first = static_cast<std::uint32_t>(r.victims.size());
  p.other_count = static_cast<std::uint32_t>(sel.runner_up().size());
  r.victims.insert(r.victims.end(), sel.runner_up().begin(), sel.runner_up().end());
  r.preemption_log.push_back(p);
}
}  // namespace detail

}  // namespace gpurent
