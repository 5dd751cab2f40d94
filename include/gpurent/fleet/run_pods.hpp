// SPDX-License-Identifier: MIT
#pragma once
// The Alibaba trace as `fleet run` jobs (../shared/protocols/fleet.md): each pod that ran is
// a one-member job arriving at max(0, creation_time - t0) / K (rounded down; K the
// compression, t0 the 1st percentile, nearest rank, of creation_time over the pods that
// ran), working deletion_time - scheduled_time seconds; pods never scheduled are left out
// and counted. qos gives the class: LS and Guaranteed priority 100, Burstable 50, BE
// priority 0 and preemptible.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run_metrics.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// A pod as the mapping reads it (the trace reader's fields; times -1 when absent).
struct pod_times {
  std::string name;
  placement_request request;
  std::string qos;
  std::int64_t creation_time = -1, scheduled_time = -1, deletion_time = -1;
};

struct pod_jobs {
  std::vector<fleet_job> jobs;
  std::size_t never_scheduled = 0;
  std::int64_t t0 = 0;
};

// The priority and class of a qos (an unknown qos: priority 0, not preemptible).
inline void classify_qos(std::string_view qos, fleet_job& j) noexcept {
  j.preemptible = qos == "BE";
  j.priority = qos == "LS" || qos == "Guaranteed" ? 100 : qos == "Burstable" ? 50 : 0;
}

[[nodiscard]] inline pod_jobs jobs_of_pods(std::span<const pod_times> pods, std::int64_t compress) {
  pod_jobs out;
  std::vector<std::int64_t> created;
  for (const pod_times& p : pods)
    if (p.scheduled_time >= 0) created.push_back(std::max<std::int64_t>(0, p.creation_time));
  std::sort(created.begin(), created.end());
  out.t0 = created.empty() ? 0 : nearest_rank(created, 1);
  const std::int64_t k = std::max<std::int64_t>(1, compress);
  out.jobs.reserve(created.size());
  for (const pod_times& p : pods) {
    if (p.scheduled_time < 0) {
      ++out.never_scheduled;
      continue;
    }
    fleet_job j;
    j.name = p.name;
    j.gang.member = p.request;
    j.gang.workers = 1;
    classify_qos(p.qos, j);
    j.arrival = std::max<std::int64_t>(0, p.creation_time - out.t0) / k;
    j.duration = std::max<std::int64_t>(0, p.deletion_time - p.scheduled_time);
    out.jobs.push_back(std::move(j));
  }
  return out;
}

}  // namespace gpurent
