// SPDX-License-Identifier: MIT
#pragma once
// The checkpoint and notice model of `fleet run` (docs/formats/fleet.md): a
// preemptible job checkpoints every `checkpoint_every` of work after the start of
// each run segment. Stopped at t + notice with a notice of at least the checkpoint write
// time, it writes a final checkpoint and loses nothing; with less, it loses the work since
// its last checkpoint, the notice window's included. It then re-enters the queue with its
// work left minus what it saved plus the restart cost. A job whose work ends inside the
// notice window simply completes.

#include <algorithm>
#include <cstdint>

#include <gpurent/core/time.hpp>
#include <gpurent/matching/preempt/victims.hpp>

namespace gpurent {

struct checkpoint_model {
  seconds notice{30};            // from the preemption decision to the stop
  seconds checkpoint_write{60};  // a final checkpoint needs this much notice
  seconds restart{120};          // work a restarted job does again (loading, warm-up)
};

// What stopping a run segment costs.
struct stop_outcome {
  fleet_time stop;         // the instant the segment ends
  bool completes = false;  // its work ends by then: not a preemption
  seconds ran{0};          // work done in the segment
  seconds saved{0};        // of it, kept by checkpoints
  seconds lost{0};         // ran - saved
  seconds work_left{0};    // work of the next run (work - saved + restart); 0 when it completes
};

// A segment that started at `start` with `work` to do, checkpointing every `every` of work
// (0: never), told at `t` to stop.
[[nodiscard]] constexpr stop_outcome stop_segment(const checkpoint_model& m, fleet_time start, seconds work, seconds every, fleet_time t) noexcept {
  stop_outcome o;
  o.stop = t + m.notice;
  if (o.stop - start >= work) {
    o.stop = start + work;
    o.completes = true;
    o.ran = o.saved = work;
    return o;
  }
  o.ran = o.stop - start;
  o.saved = m.notice >= m.checkpoint_write ? o.ran : every > seconds{0} ? o.ran / every * every : seconds{0};
  o.lost = o.ran - o.saved;
  o.work_left = work - o.saved + m.restart;
  return o;
}

// The same segment when its node fails at `t`: it stops at once, without a final checkpoint,
// and keeps its whole checkpoint intervals (docs/fleet.md, "Node events").
[[nodiscard]] constexpr stop_outcome stop_on_failure(checkpoint_model m, fleet_time start, seconds work, seconds every, fleet_time t) noexcept {
  m.notice = seconds{0};
  m.checkpoint_write = std::max(m.checkpoint_write, seconds{1});
  return stop_segment(m, start, work, every, t);
}

// The job as a victim: what stopping it now would cost (victim::cost).
[[nodiscard]] constexpr victim victim_of(const checkpoint_model& m, std::uint32_t job, std::int32_t priority, std::int64_t gpu_milli,
                                         fleet_time start, seconds work, seconds every, fleet_time t) noexcept {
  const stop_outcome o = stop_segment(m, start, work, every, t);
  victim v;
  v.job = job;
  v.priority = priority;
  v.start = start;
  v.gpu_milli = gpu_milli;
  v.lost = o.lost;
  v.restart = o.completes ? seconds{0} : m.restart;
  v.since_checkpoint = every > seconds{0} ? (t - start) % every : t - start;
  return v;
}

}  // namespace gpurent
