// SPDX-License-Identifier: MIT
#pragma once
// The run oracle: everything a `run_fleet` result must satisfy (work_oracle.hpp: what each
// job did; room_oracle.hpp: where things ran; wait_oracle.hpp: that what waited could not
// start), that the placer holds nothing once the run is over, and the usage truth the
// billing must reproduce, computed from the segments alone.

#include <algorithm>
#include <cstdint>
#include <string>

#include <gpurent/core/calendar.hpp>
#include <gpurent/tariff/rate.hpp>

#include "billing.hpp"
#include "room_oracle.hpp"
#include "run_view.hpp"
#include "wait_oracle.hpp"
#include "work_oracle.hpp"

namespace gpurent::sim {

// Every check of the run, in order; the first violation, or "".
[[nodiscard]] inline std::string oracle_check_run(const run_view& v) {
  const auto by_job = segments_by_job(v);
  if (auto bad = check_shape(v, by_job); !bad.empty()) return bad;
  if (auto bad = check_times(v, by_job); !bad.empty()) return bad;
  if (auto bad = check_work(v, by_job); !bad.empty()) return bad;
  if (auto bad = check_preemptions(v, by_job); !bad.empty()) return bad;
  if (auto bad = check_admissible(v); !bad.empty()) return bad;
  const auto placed = placed_at(v, by_job);
  if (auto bad = check_conditions(v, placed); !bad.empty()) return bad;
  if (auto bad = check_room(v); !bad.empty()) return bad;
  if (auto bad = check_waits(v, by_job, placed); !bad.empty()) return bad;
  return check_gang_rules(v);
}

// The placer's inventory after the run: every job gone and every hold released.
[[nodiscard]] inline std::string check_released(const inventory& inv) {
  for (node_index n = 0; n < inv.size(); ++n) {
    const node_spec& spec = inv.spec(n);
    const node_state& s = inv.state(n);
    bool idle = s.cpu_free == spec.cpu_milli && s.memory_free == spec.memory_mib;
    for (std::size_t g = 0; g < spec.gpu_count; ++g) idle = idle && s.idle[g] == 1000 && s.users[g] == 0;
    if (!idle) return "node " + spec.name + " still holds something after the run";
  }
  return {};
}

// What every month's invoice must show: per (account, resource, mode), the seconds each
// member holding GPUs ran inside the month and how many members' segments touch it, by
// fleet.md's mapping (account hp or spot, resource gpu/<the node's model>, mode on_demand or
// spot), on the clock that starts at `epoch`.
[[nodiscard]] inline month_truth usage_truth(const run_view& v, instant epoch, const tariff& t) {
  month_truth out;
  for (const run_segment& s : v.r().segments) {
    if (s.end <= s.start) continue;
    const fleet_job& j = v.jobs[s.job];
    const instant b = epoch + s.start.since_zero(), e = epoch + s.end.since_zero();
    for (const placement& p : v.members(s)) {
      if (p.gpu_milli_total() <= 0) continue;
      const line_key key{j.preemptible ? "spot" : "hp", "gpu/" + v.inv().model(v.inv().spec(p.node).model).name,
                         j.preemptible ? "spot" : "on_demand"};
      for (date::year_month ym = month_of(t.zone(), b); ym <= month_of(t.zone(), e - seconds(1)); ym += date::months(1)) {
        const interval m = t.month(ym);
        const instant x = std::max(b, m.begin()), y = std::min(e, m.end());
        if (x >= y) continue;
        line_truth& l = out[ym][key];
        l.used += (y - x).count();
        ++l.records;
      }
    }
  }
  return out;
}

}  // namespace gpurent::sim
