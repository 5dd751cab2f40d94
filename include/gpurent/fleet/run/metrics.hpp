// SPDX-License-Identifier: MIT
#pragma once
// The metrics of `fleet run` (docs/formats/fleet.md), per class (hp: not
// preemptible; spot: preemptible): arrivals, completions, jobs that never started, the
// delay from arrival to first start (nearest-rank percentiles over the jobs that started),
// evictions and lost GPU-seconds; over the run: the offered load and the allocation inside
// the loaded window (the 1st to the 99th percentile of arrival times), against the GPUs of
// the nodes that are not down. The offered load is the work that would run inside the
// window if every job started at its arrival: each job's GPUs x [arrival, arrival +
// duration) clipped to the window (a job running for months counts only its part inside).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <span>
#include <vector>

#include <gpurent/core/time.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/run.hpp>

namespace gpurent {

struct delay_stats {
  double mean = 0;  // seconds
  seconds p50{0}, p95{0}, p99{0};
};

struct class_metrics {
  std::size_t arrived = 0, completed = 0, never_started = 0;
  delay_stats delay;
  std::size_t evictions = 0;
  double lost_gpu_s = 0;
};

struct run_metrics {
  std::int64_t gpus_total = 0;
  double offered_load_pct = 0;
  double allocation_pct = 0;
  double gpu_s = 0;  // GPU-seconds of every segment (what --emit-usage bills)
  fleet_time window_begin, window_end;
  class_metrics hp, spot;
};

// The nearest-rank percentile p (0 < p <= 100) of sorted values (not empty).
template <std::ranges::random_access_range R>
[[nodiscard]] std::ranges::range_value_t<R> nearest_rank(const R& sorted, double p) noexcept {
  const auto n = static_cast<double>(sorted.size());
  auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(p / 100.0 * n - 1e-9)));
  return sorted[std::min(k, sorted.size()) - 1];
}

namespace detail {
[[nodiscard]] inline delay_stats delays_of(std::vector<seconds>& d) {
  delay_stats s;
  if (d.empty()) return s;
  std::sort(d.begin(), d.end());
  double sum = 0;
  for (const seconds x : d) sum += static_cast<double>(x.count());
  s.mean = sum / static_cast<double>(d.size());
  s.p50 = nearest_rank(d, 50);
  s.p95 = nearest_rank(d, 95);
  s.p99 = nearest_rank(d, 99);
  return s;
}

inline void class_counts(std::span<const fleet_job> jobs, const run_result& r, bool spot, class_metrics& c) {
  std::vector<seconds> delays;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (jobs[j].preemptible != spot) continue;
    ++c.arrived;
    c.completed += r.completed[j];
    c.evictions += r.evictions[j];
    c.lost_gpu_s += static_cast<double>(r.lost_milli_s[j]) / 1000.0;
    if (r.first_start[j] == not_started) {
      ++c.never_started;
    } else {
      delays.push_back(r.first_start[j] - jobs[j].arrival);
    }
  }
  c.delay = delays_of(delays);
}
}  // namespace detail

[[nodiscard]] inline run_metrics metrics_of(std::span<const fleet_job> jobs, const run_result& r, std::int64_t gpus_total) {
  run_metrics m;
  m.gpus_total = gpus_total;
  std::vector<fleet_time> arrivals;
  arrivals.reserve(jobs.size());
  for (const fleet_job& j : jobs) arrivals.push_back(j.arrival);
  std::sort(arrivals.begin(), arrivals.end());
  if (!arrivals.empty()) {
    m.window_begin = nearest_rank(arrivals, 1);
    m.window_end = std::max(nearest_rank(arrivals, 99), m.window_begin + seconds{1});  // equal: one second long
  }
  // GPU-seconds of [from, from + length) inside the window, at milli-GPUs g.
  const auto inside_window = [&](std::int64_t g, fleet_time from, seconds length) {
    const fleet_time a = std::max(from, m.window_begin), b = std::min(from + std::max(length, seconds{0}), m.window_end);
    return b > a ? static_cast<double>(g) / 1000.0 * static_cast<double>((b - a).count()) : 0.0;
  };
  const double capacity = static_cast<double>(gpus_total) * static_cast<double>((m.window_end - m.window_begin).count());
  double work = 0, inside = 0;
  for (const fleet_job& j : jobs) work += inside_window(j.gpu_milli_demand(), j.arrival, j.duration);
  for (const run_segment& s : r.segments) {
    m.gpu_s += static_cast<double>(s.gpu_milli) / 1000.0 * static_cast<double>((s.end - s.start).count());
    inside += inside_window(s.gpu_milli, s.start, s.end - s.start);
  }
  if (capacity > 0) {
    m.offered_load_pct = 100.0 * work / capacity;
    m.allocation_pct = 100.0 * inside / capacity;
  }
  detail::class_counts(jobs, r, false, m.hp);
  detail::class_counts(jobs, r, true, m.spot);
  return m;
}

}  // namespace gpurent
