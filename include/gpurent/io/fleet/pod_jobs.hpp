// SPDX-License-Identifier: MIT
#pragma once
// The Alibaba trace as `fleet run` jobs (docs/formats/fleet.md, "The Alibaba trace"):
// the pod list read (io/fleet/trace_csv.hpp), each pod's request checked against the cluster's
// inventory and by check_pod (qos, times), arrivals compressed K-fold (fleet/run/pods.hpp).
// The file must have the columns fleet run needs (pod_run_columns). An error names file and
// line.

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/fleet/run/pods.hpp>
#include <gpurent/io/fleet/trace_csv.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/matching/inventory.hpp>

namespace gpurent::io {

// The pods of a pod list's text (`file` names it in errors), as jobs.
[[nodiscard]] inline expected<pod_jobs> read_pod_jobs(std::string text, const std::string& file, const inventory& inv, std::int64_t compress) {
  if (compress < 1) return make_error(error_code::invalid_argument, "compress", "must be >= 1, got " + std::to_string(compress));
  std::istringstream in(std::move(text));
  GPURENT_TRY(pods, read_trace_pods(in, file, pod_run_columns));
  std::vector<pod_times> times;
  times.reserve(pods->size());
  for (const trace_pod& p : *pods) {
    auto r = trace_pod_request(p, inv);
    if (!r) return unexpected<error>(r.error().at(file, p.line));
    times.push_back(pod_times{p.name, *r, p.qos, p.creation_time, p.scheduled_time, p.deletion_time});
    if (auto ok = check_pod(times.back()); !ok) return unexpected<error>(ok.error().at(file, p.line));
  }
  return jobs_of_pods(times, compress);
}

[[nodiscard]] inline expected<pod_jobs> read_pod_jobs_file(const std::string& path, const inventory& inv, std::int64_t compress) {
  GPURENT_TRY(text, read_file(path));
  return read_pod_jobs(std::move(*text), path, inv, compress);
}

}  // namespace gpurent::io
