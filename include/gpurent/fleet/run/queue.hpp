// SPDX-License-Identifier: MIT
#pragma once
// fleet run's queue: the jobs waiting to start, in queue order (priority, then arrival, then
// name: the rank), and a pass that tries them in that order. A job that failed at the retry
// log's position p fails again until the log grows past p (fleet/run/retry_log.hpp), so when
// nothing was freed since the last pass only the jobs queued since are tried; once one of
// them frees room (its preemption evicted victims), the rest of the queue is tried as in a
// full pass. The naive twin (run_options::rescan) and a minimum runtime (victims become
// eligible with time) always take the full pass.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/fleet/job.hpp>

namespace gpurent {

namespace detail {
// Each job's place in queue order (priority descending, arrival, name), from the jobs in
// arrival order.
[[nodiscard]] inline std::vector<std::uint32_t> queue_ranks(std::span<const fleet_job> jobs, std::span<const std::uint32_t> by_arrival) {
  std::vector<std::uint32_t> order(by_arrival.begin(), by_arrival.end());
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const fleet_job &x = jobs[a], &y = jobs[b];
    if (x.priority != y.priority) return x.priority > y.priority;
    return x.arrival != y.arrival ? x.arrival < y.arrival : x.name < y.name;
  });
  std::vector<std::uint32_t> rank(jobs.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  return rank;
}
}  // namespace detail

class run_queue {
 public:
  // Over jobs ranked by `rank` (a job's place in queue order; the caller keeps it alive).
  explicit run_queue(std::span<const std::uint32_t> rank = {}) : rank_(rank) {}

  void enqueue(std::uint32_t j) {
    queue_.insert(find(j), j);
    fresh_.push_back(j);
  }
  [[nodiscard]] std::span<const std::uint32_t> jobs() const noexcept { return queue_; }
  [[nodiscard]] std::size_t size() const noexcept { return queue_.size(); }

  // One pass at the retry log's position `at` (`full`: every job, whatever was freed):
  // try_start(j) true starts j, which leaves the queue; position() is the log's now.
  template <class TryStart, class Position>
  void pass(std::size_t at, bool full, TryStart&& try_start, Position&& position) {
    const bool quiet = at == passed_at_ && !full;
    passed_at_ = at;
    std::size_t from = 0;
    if (quiet) {
      std::sort(fresh_.begin(), fresh_.end(), [&](std::uint32_t a, std::uint32_t b) { return rank_[a] < rank_[b]; });
      for (const std::uint32_t j : fresh_) {
        const auto it = find(j);
        GPURENT_ASSERT(it != queue_.end() && *it == j);
        from = static_cast<std::size_t>(it - queue_.begin());
        if (try_start(j))
          queue_.erase(it);
        else
          ++from;
        if (position() != at) break;  // room freed: the rest of the queue may start
      }
      if (position() == at) from = queue_.size();
    }
    fresh_.clear();
    std::size_t keep = from;
    for (std::size_t i = from; i < queue_.size(); ++i) {
      const std::uint32_t j = queue_[i];
      if (!try_start(j)) queue_[keep++] = j;
    }
    queue_.resize(keep);
  }

 private:
  static constexpr std::size_t never = ~std::size_t{0};
  [[nodiscard]] std::vector<std::uint32_t>::iterator find(std::uint32_t j) {
    return std::lower_bound(queue_.begin(), queue_.end(), j, [&](std::uint32_t a, std::uint32_t b) { return rank_[a] < rank_[b]; });
  }

  std::span<const std::uint32_t> rank_;
  std::vector<std::uint32_t> queue_;
  std::vector<std::uint32_t> fresh_;  // jobs queued since the last pass
  std::size_t passed_at_ = never;     // the log's position when the last pass began
};

}  // namespace gpurent
