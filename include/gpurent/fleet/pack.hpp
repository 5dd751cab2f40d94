// SPDX-License-Identifier: MIT
#pragma once
// `fleet pack` (docs/fleet.md): the jobs arrive in order on an empty cluster,
// each placed whole (all members) or not at all, nothing leaves. Occupancy is read right
// after the job at which the arrived GPU demand first reaches the GPUs of the nodes that are
// not down, and after the last job. The placements come back per job, with the gangs as
// placed (without their topology rules under ignore_topology), for check_gangs.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/matching/gang/check.hpp>
#include <gpurent/matching/gang/placer.hpp>
#include <gpurent/matching/gang/policy.hpp>

namespace gpurent {

struct pack_options {
  bool ignore_topology = false;  // drop required, preferred, segment and exclusive
  gang_observer observer;        // each gang decision (audit); none: nothing is called
};

struct pack_result {
  std::size_t jobs = 0;
  std::size_t placed = 0;
  std::int64_t gpus_total = 0;                 // GPUs of the nodes not down
  std::int64_t gpu_milli_allocated = 0;        // after the last job
  std::optional<double> occupancy_pct_at_100;  // none when the demand never reaches 100%
  double occupancy_pct = 0;
  std::size_t preferred_met = 0;                   // placed jobs with a preferred level inside one of its domains
  std::size_t preferred_total = 0;                 // placed jobs with a preferred level
  std::vector<gang_request> gangs;                 // per job, as placed
  std::vector<std::vector<placement>> placements;  // per job, in member order; empty: not placed

  [[nodiscard]] std::size_t failed() const noexcept { return jobs - placed; }
};

// Packs the jobs on cluster c (which must be empty) with a gang placer (gang_placer, or the
// full-scan baseline of reference/full_scan_gang.hpp); ctx feeds gpurent's policy
// (context_of(jobs, c)). Gang ids are the job indices.
template <class Placer>
[[nodiscard]] pack_result pack_with(fleet_cluster& c, std::span<const fleet_job> jobs, const pack_options& o, const gang_context& ctx) {
  pack_result r;
  r.jobs = jobs.size();
  r.gpus_total = c.gpus_up();
  r.gangs.reserve(jobs.size());
  r.placements.resize(jobs.size());
  Placer placer(c.inv, c.topology, ctx);
  placer.set_observer(o.observer);
  const auto occupancy = [&] {
    return r.gpus_total > 0 ? 100.0 * static_cast<double>(c.inv.gpu_allocated_milli()) / (1000.0 * static_cast<double>(r.gpus_total)) : 0.0;
  };
  std::int64_t demand = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    r.gangs.push_back(o.ignore_topology ? jobs[j].gang.without_topology() : jobs[j].gang);
    const gang_request& g = r.gangs.back();
    r.placements[j].reserve(g.size());  // the result's one allocation per job: the decision makes none
    if (const auto out = placer.place(g, static_cast<gang_id>(j), r.placements[j])) {
      ++r.placed;
      if (g.preferred != no_level) {
        ++r.preferred_total;
        r.preferred_met += out->preferred_met ? 1U : 0U;
      }
    }
    demand += jobs[j].gpu_milli_demand();
    if (!r.occupancy_pct_at_100 && demand >= 1000 * r.gpus_total) r.occupancy_pct_at_100 = occupancy();
  }
  r.gpu_milli_allocated = c.inv.gpu_allocated_milli();
  r.occupancy_pct = occupancy();
  return r;
}

// pack_with the gang placer of policy GP.
template <GangPolicy GP>
[[nodiscard]] pack_result pack(fleet_cluster& c, std::span<const fleet_job> jobs, const pack_options& o, const gang_context& ctx) {
  return pack_with<gang_placer<GP>>(c, jobs, o, ctx);
}

}  // namespace gpurent
