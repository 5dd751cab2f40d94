// SPDX-License-Identifier: MIT
#pragma once
// The time series of a `fleet run` for plotting (`--timeline OUT.csv`): every `step`
// seconds from 0 to the run's end, the GPUs allocated (milli-GPU), and the jobs running
// and waiting per class (hp: not preemptible; spot: preemptible). Computed from the run's
// segments after the run, so the event loop pays nothing for it: a job waits from its
// arrival to its first start and from the end of a preempted segment to its next start;
// one that never starts waits until the run ends. A sample at t counts what holds at t
// (a segment [start, end) runs at t when start <= t < end).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/core/time.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/run.hpp>

namespace gpurent {

struct timeline_sample {
  fleet_time time;
  std::int64_t gpu_milli = 0;  // allocated to running segments
  std::int64_t running_hp = 0, running_spot = 0;
  std::int64_t waiting_hp = 0, waiting_spot = 0;
};

namespace detail {
// A change at an instant: +/- GPUs, running and waiting of one class.
struct timeline_delta {
  fleet_time time;
  std::int64_t gpu_milli;
  std::int32_t running;
  std::int32_t waiting;
  bool spot;
};

inline void timeline_deltas(std::span<const fleet_job> jobs, const run_result& r, std::vector<timeline_delta>& out) {
  for (std::size_t j = 0; j < jobs.size(); ++j) out.push_back({jobs[j].arrival, 0, 0, 1, jobs[j].preemptible});
  for (const run_segment& s : r.segments) {
    const bool spot = jobs[s.job].preemptible;
    out.push_back({s.start, s.gpu_milli, 1, -1, spot});
    out.push_back({s.end, -s.gpu_milli, -1, s.preempted || s.failed ? 1 : 0, spot});
  }
  std::stable_sort(out.begin(), out.end(), [](const timeline_delta& a, const timeline_delta& b) { return a.time < b.time; });
}
}  // namespace detail

// The most rows timeline_of gives (about 400 MB of CSV): a run spanning 2^40 s at the
// default 60 s step would ask for 1.8e10. Callers check timeline_rows first.
inline constexpr std::int64_t timeline_row_limit = 10'000'000;

// The number of samples timeline_of gives for a run ending at end_time (0 when step <= 0).
[[nodiscard]] constexpr std::int64_t timeline_rows(fleet_time end_time, seconds step) noexcept {
  return step <= seconds{0} || end_time < fleet_time{} ? 0 : end_time.since_zero() / step + 1;
}

// The smallest step at which a run ending at end_time gives at most timeline_row_limit rows.
[[nodiscard]] constexpr seconds timeline_min_step(fleet_time end_time) noexcept {
  return seconds(end_time < fleet_time{} ? 1 : end_time.count() / (timeline_row_limit - 1) + 1);
}

// Samples at 0, step, 2 step, ... up to the run's end (inclusive when it falls on a step);
// none when there would be more than timeline_row_limit of them.
[[nodiscard]] inline std::vector<timeline_sample> timeline_of(std::span<const fleet_job> jobs, const run_result& r, seconds step) {
  std::vector<timeline_sample> out;
  if (step <= seconds{0} || timeline_rows(r.end_time, step) > timeline_row_limit) return out;
  out.reserve(static_cast<std::size_t>(timeline_rows(r.end_time, step)));
  std::vector<detail::timeline_delta> d;
  d.reserve(jobs.size() + 2 * r.segments.size());
  detail::timeline_deltas(jobs, r, d);
  timeline_sample now;
  std::size_t i = 0;
  for (fleet_time t; t <= r.end_time; t += step) {
    for (; i < d.size() && d[i].time <= t; ++i) {
      now.gpu_milli += d[i].gpu_milli;
      (d[i].spot ? now.running_spot : now.running_hp) += d[i].running;
      (d[i].spot ? now.waiting_spot : now.waiting_hp) += d[i].waiting;
    }
    now.time = t;
    out.push_back(now);
  }
  return out;
}

}  // namespace gpurent
