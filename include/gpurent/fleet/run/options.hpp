// SPDX-License-Identifier: MIT
#pragma once
// What a `fleet run` is asked for beside its placer and jobs (fleet/run/run.hpp): the
// checkpoint model, the minimum runtime, node events over time, the naive twin's switch, the
// progress callback and the preemption observer.

#include <cstddef>
#include <functional>
#include <span>

#include <gpurent/core/fleet_time.hpp>
#include <gpurent/fleet/run/checkpoint.hpp>
#include <gpurent/matching/observer.hpp>
#include <gpurent/spec/node_condition.hpp>

namespace gpurent {

// A node failing (down: what runs there stops at once), draining (nothing new; what runs
// stays) or coming back up, at an instant.
struct node_event {
  fleet_time time;
  node_index node = 0;
  node_condition condition = node_condition::up;
};

// Where a run stands: the instant reached, the jobs arrived and completed so far, the jobs
// queued now, out of all the jobs.
struct run_progress {
  fleet_time now;
  std::size_t arrived = 0, completed = 0, queued = 0, total = 0;
};

struct run_options {
  checkpoint_model checkpoints;
  seconds min_runtime{0};  // how long a job runs before it may be a victim
  // The naive loop (fleet/reference/rescan.hpp): every queued job tried again at every
  // instant, on every node, as if nothing were remembered. Same decisions, more work.
  bool rescan = false;
  // Node failures and repairs over time, in time order (a stable sort by time is the
  // caller's). At an instant they come after the departures and before the arrivals. A job
  // with a member on a node that goes down stops then, without notice: it keeps its whole
  // checkpoint intervals (checkpoint_every, every class), its segment ends `failed`, and it
  // is queued again at once with its original priority and arrival, its work left plus the
  // restart cost.
  std::span<const node_event> node_events;
  // When set, called every 256 instants with where the run stands (a progress line; the
  // caller decides how often to show it); the loop pays one test per instant without it.
  std::function<void(const run_progress&)> progress;
  preempt_observer observer;  // each preemption (audit); none: nothing is called
};

}  // namespace gpurent
