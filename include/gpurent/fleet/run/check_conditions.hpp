// SPDX-License-Identifier: MIT
#pragma once
// The node conditions a run went through, for `fleet run --check` with node events
// (fleet/run/check.hpp): every segment that ran was placed on nodes that were up then (at
// its start; a preemptor at its decision, the notice before its start) and ended by the first
// instant after that at which one of its nodes went down. At an instant the node events come
// after the departures and before the placements (run_options::node_events), so a segment
// may end at the instant its node goes down, and one placed at an instant sees that
// instant's events. It reads the cluster's first conditions, the events, the notice and the
// run's segments and preemption log, nothing of the loop's bookkeeping.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/run/options.hpp>
#include <gpurent/fleet/run/result.hpp>

namespace gpurent {

// What a run with node events adds to its check: the events as the run had them (in time
// order) and its notice window. No events: the cluster's conditions hold throughout.
struct node_history {
  std::span<const node_event> events;
  seconds notice{0};
};

// Each node's condition over time: the cluster's first, then each event's.
class condition_timeline {
 public:
  condition_timeline(const inventory& inv, std::span<const node_event> events) : first_(inv.size()), changes_(inv.size()) {
    for (node_index n = 0; n < inv.size(); ++n) first_[n] = inv.condition(n);
    for (const node_event& e : events)
      if (e.node < inv.size()) changes_[e.node].emplace_back(e.time, e.condition);
  }

  // Node n at instant t, that instant's events applied.
  [[nodiscard]] node_condition at(node_index n, fleet_time t) const {
    const auto& c = changes_[n];
    const auto it = std::upper_bound(c.begin(), c.end(), t, [](fleet_time x, const change& y) { return x < y.first; });
    return it == c.begin() ? first_[n] : std::prev(it)->second;
  }

  // The first instant in (after, before) at which node n goes down, or `before` if none.
  [[nodiscard]] fleet_time first_down(node_index n, fleet_time after, fleet_time before) const {
    const auto& c = changes_[n];
    auto it = std::upper_bound(c.begin(), c.end(), after, [](fleet_time x, const change& y) { return x < y.first; });
    for (; it != c.end() && it->first < before; ++it)
      if (it->second == node_condition::down) return it->first;
    return before;
  }

 private:
  using change = std::pair<fleet_time, node_condition>;
  std::vector<node_condition> first_;
  std::vector<std::vector<change>> changes_;
};

// A member that ran against the conditions: its index in run_result::members, and why.
struct condition_note {
  std::uint32_t index = 0;
  std::string why;
};

// The members of segments that ran against the conditions: bad[i] for member i of
// run_result::members (empty: no events, nothing flagged), and why, by index.
struct condition_flags {
  std::vector<std::uint8_t> bad;
  std::vector<condition_note> notes;  // ascending index

  [[nodiscard]] bool flagged(std::size_t i) const noexcept { return i < bad.size() && bad[i] != 0; }
  [[nodiscard]] const std::string& why(std::uint32_t i) const {
    const auto it = std::lower_bound(notes.begin(), notes.end(), i, [](const condition_note& n, std::uint32_t x) { return n.index < x; });
    GPURENT_ASSERT(it != notes.end() && it->index == i);
    return it->why;
  }
};

namespace detail {

// The instant each segment was placed: its start, or for a preemptor its decision.
[[nodiscard]] inline std::vector<fleet_time> placed_instants(const run_result& r, seconds notice) {
  std::vector<fleet_time> at(r.segments.size());
  std::vector<std::vector<std::uint32_t>> by_job;
  for (std::uint32_t i = 0; i < r.segments.size(); ++i) {
    at[i] = r.segments[i].start;
    if (r.segments[i].job >= by_job.size()) by_job.resize(r.segments[i].job + std::size_t{1});
    by_job[r.segments[i].job].push_back(i);
  }
  for (const run_preemption& p : r.preemption_log) {
    if (p.job >= by_job.size()) continue;
    for (const std::uint32_t s : by_job[p.job])
      if (r.segments[s].start == p.time + notice && at[s] == r.segments[s].start) {
        at[s] = p.time;
        break;
      }
  }
  return at;
}

// Why a member on node n (named `name`), placed at `placed` and running until `end`, ran
// against the conditions, or "".
[[nodiscard]] inline std::string against_conditions(const condition_timeline& log, const std::string& name, node_index n, fleet_time placed,
                                                    fleet_time end) {
  if (const node_condition now = log.at(n, placed); now != node_condition::up) {
    const std::string was = now == node_condition::drain ? "drained" : std::string(to_string(now));
    return "placed at " + std::to_string(placed.count()) + " s on node " + name + ", which was " + was;
  }
  if (const fleet_time d = log.first_down(n, placed, end); d < end)
    return "ran until " + std::to_string(end.count()) + " s on node " + name + ", which went down at " + std::to_string(d.count()) + " s";
  return {};
}

}  // namespace detail

// Every member of a segment that ran on a node not up when the segment was placed, or past
// its node going down. Empty `bad` (no events): nothing to flag.
[[nodiscard]] inline condition_flags check_run_conditions(const fleet_cluster& c, const node_history& h, const run_result& r) {
  condition_flags out;
  if (h.events.empty()) return out;
  out.bad.assign(r.members.size(), 0);
  const condition_timeline log(c.inv, h.events);
  const std::vector<fleet_time> placed = detail::placed_instants(r, h.notice);
  for (std::uint32_t i = 0; i < r.segments.size(); ++i) {
    const run_segment& s = r.segments[i];
    if (s.end <= s.start) continue;  // held nothing
    for (std::uint32_t m = 0; m < s.count; ++m) {
      const node_index n = r.members[s.first + m].node;
      if (n >= c.inv.size()) continue;  // check_gangs' "no such node"
      std::string why = detail::against_conditions(log, c.inv.spec(n).name, n, placed[i], s.end);
      if (why.empty()) continue;
      out.bad[s.first + m] = 1;
      out.notes.push_back({s.first + m, std::move(why)});
    }
  }
  std::sort(out.notes.begin(), out.notes.end(), [](const condition_note& a, const condition_note& b) { return a.index < b.index; });
  return out;
}

}  // namespace gpurent
