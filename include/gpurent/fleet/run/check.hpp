// SPDX-License-Identifier: MIT
#pragma once
// The placement rules of docs/formats/fleet.md over time (`fleet run --check`): at every instant at which a run
// segment starts, the segments running then ([start, end), zero-length ones hold nothing) are
// checked together by check_gangs (matching/gang/check.hpp, sharing no code with the placer):
// capacity, all members or none, per_node, required, segments, exclusive. A rule can only
// break when something starts, so these instants cover the whole run. It reads only the
// segments and their members, not the loop's bookkeeping, so a test can build a run_result
// from a placements CSV and check that the same way. Node conditions are the cluster's as
// given (a run with node events changes them over time: not checked here).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/core/time.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/run.hpp>
#include <gpurent/matching/gang/check.hpp>

namespace gpurent {

namespace detail {
// check_gangs names "gang K member M": K is the index among the running segments; name the job.
[[nodiscard]] inline std::string run_check_message(const std::string& m, fleet_time t, std::span<const fleet_job> jobs, const run_result& r,
                                                   std::span<const std::uint32_t> running) {
  std::size_t k = 0, at = 5;  // after "gang "
  while (at < m.size() && m[at] >= '0' && m[at] <= '9') k = k * 10 + static_cast<std::size_t>(m[at++] - '0');
  if (!m.starts_with("gang ") || k >= running.size()) return "at " + std::to_string(t.count()) + " s: " + m;
  const run_segment& s = r.segments[running[k]];
  return "at " + std::to_string(t.count()) + " s: job " + jobs[s.job].name + " run " + std::to_string(s.run) + m.substr(at);
}
}  // namespace detail

// The rules at every instant a segment of r starts; `violations` sums the members placed
// against a rule over those instants (0: none at any instant).
[[nodiscard]] inline gang_check_result check_run(const fleet_cluster& c, std::span<const fleet_job> jobs, const run_result& r) {
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < r.segments.size(); ++i)
    if (r.segments[i].end > r.segments[i].start) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return r.segments[x].start < r.segments[y].start; });
  gang_check_result total;
  std::vector<std::uint32_t> running;
  std::vector<gang_request> gangs;
  std::vector<std::vector<placement>> placed;
  for (std::size_t i = 0; i < order.size();) {
    const fleet_time t = r.segments[order[i]].start;
    for (; i < order.size() && r.segments[order[i]].start == t; ++i) running.push_back(order[i]);
    std::erase_if(running, [&](std::uint32_t s) { return r.segments[s].end <= t; });
    gangs.resize(running.size());
    placed.resize(running.size());
    for (std::size_t k = 0; k < running.size(); ++k) {
      const run_segment& s = r.segments[running[k]];
      gangs[k] = jobs[s.job].gang;
      placed[k].assign(r.members.begin() + s.first, r.members.begin() + s.first + s.count);
    }
    const gang_check_result now = check_gangs(c.inv, c.topology, gangs, placed);
    total.violations += now.violations;
    for (const std::string& m : now.messages)
      if (total.messages.size() < gang_check_result::max_messages) total.messages.push_back(detail::run_check_message(m, t, jobs, r, running));
  }
  return total;
}

}  // namespace gpurent
