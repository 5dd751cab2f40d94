// SPDX-License-Identifier: MIT
#pragma once
// The checkpoint and notice model of `fleet run` (../shared/protocols/fleet.md): a
// preemptible job checkpoints every `checkpoint_every` seconds of work after the start of
// each run segment. Stopped at t + notice with a notice of at least the checkpoint write
// time, it writes a final checkpoint and loses nothing; with less, it loses the work since
// its last checkpoint, the notice window's included. It then re-enters the queue with its
// work left minus what it saved plus the restart cost. A job whose work ends inside the
// notice window simply completes.

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
  std::int64_t stop = 0;       // the instant the segment ends
  bool completes = false;      // its work ends by then: not a preemption
  std::int64_t ran_s = 0;      // work done in the segment
  std::int64_t saved_s = 0;    // of it, kept by checkpoints
  std::int64_t lost_s = 0;     // ran_s - saved_s
  std::int64_t work_left = 0;  // work of the next run (work - saved + restart); 0 when it completes
};

// A segment that started at `start` with `work` seconds of work, checkpointing every
// `every` seconds (0: never), told at `t` to stop.
[[nodiscard]] constexpr stop_outcome stop_segment(const checkpoint_model& m, std::int64_t start, std::int64_t work, std::int64_t every,
                                                  std::int64_t t) noexcept {
  stop_outcome o;
  o.stop = t + m.notice.count();
  if (o.stop - start >= work) {
    o.stop = start + work;
    o.completes = true;
    o.ran_s = o.saved_s = work;
    return o;
  }
  o.ran_s = o.stop - start;
  o.saved_s = m.notice >= m.checkpoint_write ? o.ran_s : every > 0 ? o.ran_s / every * every : 0;
  o.lost_s = o.ran_s - o.saved_s;
  o.work_left = work - o.saved_s + m.restart.count();
  return o;
}

// The job as a victim: what stopping it now would cost (victim::cost).
[[nodiscard]] constexpr victim victim_of(const checkpoint_model& m, std::uint32_t job, std::int32_t priority, std::int64_t gpu_milli,
                                         std::int64_t start, std::int64_t work, std::int64_t every, std::int64_t t) noexcept {
  const stop_outcome o = stop_segment(m, start, work, every, t);
  victim v;
  v.job = job;
  v.priority = priority;
  v.start = start;
  v.gpu_milli = gpu_milli;
  v.lost_s = o.lost_s;
  v.restart_s = o.completes ? 0 : m.restart.count();
  v.since_checkpoint_s = every > 0 ? (t - start) % every : t - start;
  return v;
}

}  // namespace gpurent
