// SPDX-License-Identifier: MIT
#pragma once
// The Alibaba trace as `fleet run` jobs (docs/formats/fleet.md): each pod that ran is
// a one-member job arriving at max(0, creation_time - t0) / K (rounded down; K the
// compression, t0 the 1st percentile, nearest rank, of creation_time over the pods that
// ran), working deletion_time - scheduled_time seconds; pods never scheduled are left out
// and counted. qos gives the class: LS and Guaranteed priority 100, Burstable 50, BE
// priority 0 and preemptible. The pod file must have the time columns and qos (a file
// without them would run nothing), and every pod is checked (check_pod) before it maps:
// a known qos; for a pod that ran, a creation_time and a deletion_time not before its
// scheduled_time.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/metrics.hpp>
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

// The pod file's columns fleet run needs besides those of every pod list (the replay needs
// none of these; the openb multigpu* files lack them).
inline constexpr std::string_view pod_run_columns[] = {"creation_time", "scheduled_time", "deletion_time", "qos"};

// The class a qos gives: its priority and whether it is preemptible.
struct pod_class {
  std::int32_t priority = 0;
  bool preemptible = false;
};

// The class of a qos; an error naming `qos` for any other value.
[[nodiscard]] inline expected<pod_class> class_of_qos(std::string_view qos) {
  if (qos == "LS" || qos == "Guaranteed") return pod_class{100, false};
  if (qos == "Burstable") return pod_class{50, false};
  if (qos == "BE") return pod_class{0, true};
  return make_error(error_code::invalid_argument, "qos", "expected LS, Guaranteed, Burstable or BE, got \"" + std::string(qos) + "\"");
}

// A pod jobs_of_pods can map, or an error naming the field: a known qos and, when the pod
// ran (it has a scheduled_time), a creation_time and a deletion_time not before
// scheduled_time (its duration).
[[nodiscard]] inline expected<void> check_pod(const pod_times& p) {
  GPURENT_TRY(class_of_qos(p.qos));
  if (p.scheduled_time < 0) return {};  // never scheduled: left out, counted
  if (p.creation_time < 0) return make_error(error_code::invalid_argument, "creation_time", "missing value (the pod has a scheduled_time)");
  if (p.deletion_time < 0) return make_error(error_code::invalid_argument, "deletion_time", "missing value (the pod has a scheduled_time)");
  if (p.deletion_time < p.scheduled_time)
    return make_error(error_code::invalid_argument, "deletion_time",
                      std::to_string(p.deletion_time) + " is before scheduled_time " + std::to_string(p.scheduled_time));
  return {};
}

// The pods as jobs; every pod has passed check_pod (the reader checks each at its line).
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
    const auto c = class_of_qos(p.qos);
    GPURENT_ASSERT(c && p.creation_time >= 0 && p.deletion_time >= p.scheduled_time);  // check_pod passed
    fleet_job j;
    j.name = p.name;
    j.gang.member = p.request;
    j.gang.workers = 1;
    j.priority = c->priority;
    j.preemptible = c->preemptible;
    j.arrival = fleet_time::at_second(std::max<std::int64_t>(0, p.creation_time - out.t0) / k);
    j.duration = seconds(p.deletion_time - p.scheduled_time);
    out.jobs.push_back(std::move(j));
  }
  return out;
}

}  // namespace gpurent
