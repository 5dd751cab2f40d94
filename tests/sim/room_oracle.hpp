// SPDX-License-Identifier: MIT
#pragma once
// The run oracle, first half: where things ran. Written from the documented rules
// (fleet.md, matching/request.hpp, sharing/isolation.hpp), reading only the run's result,
// never the loop's or the placer's code:
//   - every member is admissible on its node's spec: exactly its request (CPU, memory,
//     tenant, isolation, num_gpu distinct GPUs of the node at the requested share, no MIG
//     slot), an allowed model meeting the minimums, the required labels and residency, the
//     node's tenant reservation and spot rule, its network segment, the topology for gangs
//     with topology rules;
//   - conditions over time (the node events replayed): each segment's nodes are up at the
//     instant it was placed (its start, or its preemption decision), and a segment that ran
//     ends no later than the first instant one of its nodes goes down after that; a segment
//     marked failed ended at such an instant;
//   - room at every instant (a segment holds its members over [start, end), so a victim
//     keeps its room until its segment ends): no node's CPU or memory, no GPU's 1000 milli
//     over capacity; no GPU used by two tenants unless all its users asked for no
//     isolation; no stranger on a node held in node isolation;
//   - gang rules at every instant something starts: matching/gang/check.hpp's check_gangs
//     (a checker written apart from the placer) over the segments running then, tenancy
//     included (GPU, node and network segment; a victim in its notice is running then).
// Each check returns "" when it holds, else a sentence naming the job and the instant.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/matching/gang/check.hpp>

#include "oracle.hpp"
#include "run_view.hpp"

namespace gpurent::sim {

namespace detail {

// The GPUs of p against request r on node spec s: "" or what is wrong.
[[nodiscard]] inline std::string gpus_admissible(const node_spec& s, const placement_request& r, const placement& p) {
  if (p.count != r.num_gpu) return "holds " + std::to_string(p.count) + " GPUs, asked " + std::to_string(r.num_gpu);
  std::uint32_t seen = 0;
  for (std::size_t i = 0; i < p.count; ++i) {
    const gpu_take t = p.gpus[i];
    if (t.gpu >= s.gpu_count || (seen >> t.gpu & 1U) != 0) return "takes GPU " + std::to_string(t.gpu) + " twice or past the node's count";
    seen |= std::uint32_t{1} << t.gpu;
    if (t.milli != r.gpu_milli.count() || t.mig_start >= 0) return "takes another share of GPU " + std::to_string(t.gpu) + " than asked";
    const gpu_locality l = r.num_gpu == 1 ? gpu_locality::same_node : r.locality;
    if (oracle_group(s, t.gpu, l) != oracle_group(s, p.gpus[0].gpu, l)) return "its GPUs are not in one locality group";
  }
  return {};
}

// Request r (of a gang with topology rules or not) on node n's spec, whatever runs there:
// "" or why the node can never take it.
[[nodiscard]] inline std::string spec_admissible(const fleet_cluster& c, const placement_request& r, bool topology_bound, node_index n) {
  const node_spec& s = c.inv.spec(n);
  if (r.num_gpu > s.gpu_count) return "is on " + s.name + ", which has fewer GPUs than asked";
  if (r.num_gpu > 0) {
    if (s.gpu_count == 0 || (r.allowed_models >> s.model & 1U) == 0) return "is on " + s.name + ", whose GPU model the request does not allow";
    const gpu_model_info& m = c.inv.model(s.model);
    if (m.vram < r.min_vram || m.compute < r.min_compute) return "is on " + s.name + ", whose GPUs are below the request's minimums";
  }
  if ((s.labels & r.required_labels) != r.required_labels) return "is on " + s.name + ", which lacks a required label";
  if (r.residency != 0 && (s.labels & r.residency) == 0) return "is on " + s.name + ", outside the request's residency";
  if (s.reserved_for != no_tenant && s.reserved_for != r.tenant) return "is on " + s.name + ", reserved for another tenant";
  if (s.spot && !r.accepts_spot) return "is on spot node " + s.name + " without accepting spot";
  if (r.isolation == isolation_level::network && r.segment != no_segment && s.segment != r.segment)
    return "is on " + s.name + ", outside its network segment";
  if (topology_bound && !c.topology.in_topology(n)) return "has topology rules but is on " + s.name + ", outside the topology";
  return {};
}

// Member p of request r (of a gang with topology rules or not) on its node's spec.
[[nodiscard]] inline std::string member_admissible(const fleet_cluster& c, const placement_request& r, bool topology_bound, const placement& p) {
  if (p.node >= c.inv.size()) return "is on a node that does not exist";
  if (p.cpu_milli != r.cpu_milli || p.memory_mib != r.memory_mib || p.tenant != r.tenant || p.isolation != r.isolation)
    return "holds other CPU, memory, tenant or isolation than asked";
  if (auto bad = gpus_admissible(c.inv.spec(p.node), r, p); !bad.empty()) return bad;
  return spec_admissible(c, r, topology_bound, p.node);
}

// Each node's condition changes, in order, from the cluster's first conditions.
struct condition_log {
  std::vector<std::vector<std::pair<std::int64_t, node_condition>>> changes;  // per node
  std::vector<node_condition> first;

  condition_log(const fleet_cluster& c, std::span<const node_event> events) : changes(c.inv.size()), first(c.inv.size()) {
    for (node_index n = 0; n < c.inv.size(); ++n) first[n] = c.inv.condition(n);
    for (const node_event& e : events)
      if (e.node < changes.size()) changes[e.node].emplace_back(e.time.count(), e.condition);
  }
  // The condition of n at t, once the events at t have happened.
  [[nodiscard]] node_condition at(node_index n, std::int64_t t) const {
    node_condition c = first[n];
    for (const auto& [when, what] : changes[n]) {
      if (when > t) break;
      c = what;
    }
    return c;
  }
  // The first instant in (after, until] at which n goes down; -1 when none.
  [[nodiscard]] std::int64_t first_down(node_index n, std::int64_t after, std::int64_t until) const {
    for (const auto& [when, what] : changes[n])
      if (when > after && when <= until && what == node_condition::down) return when;
    return -1;
  }
};

// The use of one node at an instant, rebuilt from the members holding it then.
struct node_use {
  milli_cpu cpu{0};
  mebibytes memory{0};
  std::array<std::int32_t, max_gpus_per_node> milli{};
  std::array<std::int32_t, max_gpus_per_node> users{};
  std::array<tenant_id, max_gpus_per_node> owner{};
  std::array<bool, max_gpus_per_node> closed{};  // a user asked for isolation
  tenant_id node_holder = no_tenant;             // a tenant holding the node in node isolation
  bool node_held = false;
};

}  // namespace detail

// Every member admissible on its node's spec.
[[nodiscard]] inline std::string check_admissible(const run_view& v) {
  for (const run_segment& s : v.r().segments) {
    const gang_request& g = v.jobs[s.job].gang;
    const auto ms = v.members(s);
    for (std::size_t m = 0; m < ms.size(); ++m) {
      const auto bad = detail::member_admissible(*v.cluster, g.at(g.homogeneous() ? 0 : m), g.topology_bound(), ms[m]);
      if (!bad.empty()) return segment_name(v, s) + " member " + std::to_string(m) + " " + bad;
    }
  }
  return {};
}

// Nodes up when a segment is placed; a segment that ran ends by the first instant one of its
// nodes goes down after that; one marked failed ended at such an instant (or, a preemptor that
// never started, lost a node between its placement and its start).
[[nodiscard]] inline std::string check_conditions(const run_view& v, std::span<const std::int64_t> placed) {
  const detail::condition_log log(*v.cluster, v.events);
  for (std::size_t i = 0; i < v.r().segments.size(); ++i) {
    const run_segment& s = v.r().segments[i];
    std::int64_t down = -1;  // the first instant in (placed, end] a member's node goes down
    for (const placement& p : v.members(s)) {
      if (p.node >= log.first.size()) return segment_name(v, s) + " is on a node that does not exist";
      if (const node_condition c = log.at(p.node, placed[i]); c != node_condition::up)
        return segment_name(v, s) + " was placed at " + std::to_string(placed[i]) + " s on " + v.inv().spec(p.node).name + ", which was " +
               std::string(to_string(c)) + " then";
      const std::int64_t d = log.first_down(p.node, placed[i], s.end.count());
      if (d >= 0 && (down < 0 || d < down)) down = d;
    }
    const bool ran = s.end > s.start;
    if (ran && down >= 0 && down < s.end.count())
      return segment_name(v, s) + " ran until " + std::to_string(s.end.count()) + " s, past its node going down at " + std::to_string(down) + " s";
    // A segment that ran may also end at the instant its node goes down (done or preempted
    // first); one that never started fails exactly when a node of it goes down before its start.
    if (s.failed && (ran ? down != s.end.count() : down < 0))
      return segment_name(v, s) + " is marked failed, but no node of it went down when it ended";
    if (!ran && !s.failed && down >= 0) return segment_name(v, s) + " lost its node before it started, but is not marked failed";
  }
  return {};
}

namespace detail {

// Node n at an instant, from the members holding it: capacity and tenancy.
[[nodiscard]] inline std::string node_room(const run_view& v, node_index n, std::span<const std::pair<std::uint32_t, std::uint32_t>> held,
                                           std::int64_t t) {
  node_use u;
  for (const auto& [seg, m] : held) {
    const placement& p = v.r().members[v.r().segments[seg].first + m];
    u.cpu += p.cpu_milli;
    u.memory += p.memory_mib;
    const bool isolating = p.isolation == isolation_level::node || p.isolation == isolation_level::network;
    if (isolating && u.node_held && u.node_holder != p.tenant) return "two tenants hold node " + v.inv().spec(n).name + " in node isolation";
    if (isolating) u.node_holder = p.tenant, u.node_held = true;
    for (std::size_t i = 0; i < p.count; ++i) {
      const std::size_t g = p.gpus[i].gpu;
      if (g >= max_gpus_per_node) return "a member takes GPU " + std::to_string(g) + " of " + v.inv().spec(n).name;
      const bool closed = u.closed[g] || p.isolation != isolation_level::none;
      if (u.users[g] > 0 && u.owner[g] != p.tenant && closed) return "two tenants share GPU " + std::to_string(g) + " of " + v.inv().spec(n).name;
      u.milli[g] += p.gpus[i].milli;
      ++u.users[g];
      u.owner[g] = p.tenant;
      u.closed[g] = closed;
    }
  }
  if (u.node_held) {
    for (const auto& [seg, m] : held)
      if (v.r().members[v.r().segments[seg].first + m].tenant != u.node_holder)
        return "a stranger runs on " + v.inv().spec(n).name + ", which a tenant holds in node isolation";
  }
  const node_spec& s = v.inv().spec(n);
  if (u.cpu > s.cpu_milli || u.memory > s.memory_mib) return "node " + s.name + " is over its CPU or memory at " + std::to_string(t) + " s";
  for (std::size_t g = 0; g < max_gpus_per_node; ++g)
    if (u.milli[g] > 1000) return "GPU " + std::to_string(g) + " of " + s.name + " holds " + std::to_string(u.milli[g]) + " milli";
  return {};
}

}  // namespace detail

// Room at every instant: a sweep over the segments' [start, end), ends before starts.
[[nodiscard]] inline std::string check_room(const run_view& v) {
  struct edge {
    std::int64_t time;
    bool start;
    std::uint32_t seg;
  };
  std::vector<edge> edges;
  for (std::uint32_t i = 0; i < v.r().segments.size(); ++i) {
    const run_segment& s = v.r().segments[i];
    if (s.end <= s.start) continue;
    edges.push_back({s.start.count(), true, i});
    edges.push_back({s.end.count(), false, i});
  }
  std::stable_sort(edges.begin(), edges.end(), [](const edge& a, const edge& b) { return a.time != b.time ? a.time < b.time : !a.start && b.start; });
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> held(v.inv().size());  // per node: (segment, member)
  std::vector<node_index> touched;
  for (std::size_t i = 0; i < edges.size();) {
    const std::int64_t t = edges[i].time;
    touched.clear();
    for (; i < edges.size() && edges[i].time == t; ++i) {
      const run_segment& s = v.r().segments[edges[i].seg];
      for (std::uint32_t m = 0; m < s.count; ++m) {
        auto& h = held[v.r().members[s.first + m].node];
        if (edges[i].start) {
          h.emplace_back(edges[i].seg, m);
          touched.push_back(v.r().members[s.first + m].node);
        } else {
          std::erase(h, std::pair{edges[i].seg, m});
        }
      }
    }
    for (const node_index n : touched)
      if (auto bad = detail::node_room(v, n, held[n], t); !bad.empty()) return "at " + std::to_string(t) + " s: " + bad;
  }
  return {};
}

// The gang rules at every instant a segment starts, over the segments running then (a rule
// can only break when something starts).
[[nodiscard]] inline std::string check_gang_rules(const run_view& v) {
  inventory all_up = v.inv();  // conditions are check_conditions' business
  for (node_index n = 0; n < all_up.size(); ++n) all_up.set_condition(n, node_condition::up);
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < v.r().segments.size(); ++i)
    if (v.r().segments[i].end > v.r().segments[i].start) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return v.r().segments[a].start < v.r().segments[b].start; });
  std::vector<std::uint32_t> running;
  std::vector<gang_request> gangs;
  std::vector<std::vector<placement>> placed;
  for (std::size_t i = 0; i < order.size();) {
    const fleet_time t = v.r().segments[order[i]].start;
    for (; i < order.size() && v.r().segments[order[i]].start == t; ++i) running.push_back(order[i]);
    std::erase_if(running, [&](std::uint32_t x) { return v.r().segments[x].end <= t; });
    gangs.clear();
    placed.clear();
    for (const std::uint32_t x : running) {
      gangs.push_back(v.jobs[v.r().segments[x].job].gang);
      const auto ms = v.members(v.r().segments[x]);
      placed.emplace_back(ms.begin(), ms.end());
    }
    const gang_check_result g = check_gangs(all_up, v.cluster->topology, gangs, placed);
    if (g.violations > 0)
      return "at " + std::to_string(t.count()) + " s, a gang rule: " + (g.messages.empty() ? std::string("broken") : g.messages.front());
  }
  return {};
}

}  // namespace gpurent::sim
