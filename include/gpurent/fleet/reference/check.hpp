// SPDX-License-Identifier: MIT
#pragma once
// A reference, not part of the tool: `fleet run --check` the simple way, to check the
// incremental check_run (fleet/run/check.hpp) and to measure it against
// (bench/bench_fleet_run.cpp). At every instant a run segment starts, every segment running
// then is checked against every rule by one check_gangs call, and the members placed against
// a rule are added up: the sum over those instants is what check_run must count.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/check.hpp>
#include <gpurent/fleet/run/check_conditions.hpp>
#include <gpurent/fleet/run/run.hpp>
#include <gpurent/matching/gang/check.hpp>

namespace gpurent {

// The rules at every instant a segment of r starts, every running segment checked each time;
// messages "at T s: job NAME run R member M: why". Node events: as check_run.
[[nodiscard]] inline gang_check_result check_run_full(const fleet_cluster& c, std::span<const fleet_job> jobs, const run_result& r,
                                                      const node_history& h = {}) {
  const inventory inv = detail::rules_inventory(c, h);
  const condition_flags conditions = check_run_conditions(c, h, r);
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
    const gang_check_flags now = check_gang_flags(inv, c.topology, gangs, placed, gang_rules::all);
    const auto message = [&](const run_segment& s, std::size_t member, const std::string& why) {
      if (total.messages.size() < gang_check_result::max_messages) total.messages.push_back(run_check_message(t, jobs, s, member, why));
    };
    for (std::size_t k = 0; k < running.size(); ++k) {
      const run_segment& s = r.segments[running[k]];
      for (std::uint32_t m = 0; m < s.count; ++m) {
        const bool against = conditions.flagged(s.first + m);
        if (against && s.start == t) message(s, m, conditions.why(s.first + m));
        if (now.flagged[k][m] || against) ++total.violations;
      }
    }
    for (const gang_check_note& n : now.notes) message(r.segments[running[n.gang]], n.member, n.why);
  }
  return total;
}

}  // namespace gpurent
