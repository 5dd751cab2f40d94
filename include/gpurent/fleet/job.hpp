// SPDX-License-Identifier: MIT
#pragma once
// A job of a fleet (a row of the jobs CSV, docs/formats/fleet.md): a gang of
// identical members with its topology rules, and what `fleet run` needs to schedule it over
// time (priority, preemptible, arrival, work, checkpoints).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/core/time.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/matching/gang/policy.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/node/fragmentation.hpp>

namespace gpurent {

struct fleet_job {
  std::string name;
  gang_request gang;          // homogeneous: gang.member x gang.workers
  std::int32_t priority = 0;  // higher first in fleet run's queue
  bool preemptible = false;
  fleet_time arrival;              // on fleet run's clock
  seconds duration{-1};            // work; -1 s: not given (fleet pack needs none)
  seconds checkpoint_every{1800};  // work between checkpoints (preemptible jobs)
  std::string tenant;              // the jobs file's tenant name (gang.member.tenant is its id); empty: none

  // The GPUs all members ask for, in milli-GPU.
  [[nodiscard]] std::int64_t gpu_milli_demand() const noexcept { return static_cast<std::int64_t>(gang.size()) * gang.member.gpu_request_milli(); }
};

// The workload as gpurent's gang policy sees it (gang_context::of over the jobs' gangs), on
// the cluster's most common node size.
[[nodiscard]] inline gang_context context_of(std::span<const fleet_job> jobs, const fleet_cluster& c) {
  std::vector<gang_request> gangs;
  gangs.reserve(jobs.size());
  for (const fleet_job& j : jobs) gangs.push_back(j.gang);
  return gang_context::of(gangs, c.common_gpus_per_node(), c.topology.block_level());
}

// The workload a node placement policy plans for (policy_context::shapes; fgd, gpurent):
// the members of the jobs. It must outlive the matcher built on it.
[[nodiscard]] inline shape_distribution shapes_of(std::span<const fleet_job> jobs) {
  std::vector<placement_request> members;
  members.reserve(jobs.size());
  for (const fleet_job& j : jobs) members.push_back(j.gang.member);
  return shape_distribution::of(members);
}

}  // namespace gpurent
