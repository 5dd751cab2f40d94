// SPDX-License-Identifier: MIT
#pragma once
// The run oracle, third part: what waits could not start. The loop makes one pass over its
// queue at every instant, with no head-of-line blocking (fleet.md), so once an instant is
// over, every job still waiting fits nowhere (without preempting). Checked here for runs of
// one-member jobs without topology rules (the node matcher's runs): under the gang placer,
// whether a gang fits is a search of its own, and exclusive blocks keep one-member jobs out.
//
// The room at an instant is rebuilt from the segments, never from the loop: a segment holds
// its members from the instant it was placed (a preemptor: its decision) to its end, a
// victim to the end of its notice window even when it completed sooner (the loop holds its
// room for the preemptor until then). Where the loop knows more than the segments say, the
// oracle takes the side that fits less, so it never blames a wait the rules allow:
//   - a GPU in use is open to a stranger only while every user since it was last empty asked
//     for no isolation, and to a request that asks for isolation not at all (the loop lets a
//     tenant's isolated work join its own GPU: not credited here); a GPU a preemption touched
//     (a victim's or a preemptor's) counts as closed (the room held for a preemptor is the
//     anonymous tenant's);
//   - a node with work that asked for node isolation takes nothing more, and a request for
//     node isolation only an empty node; network isolation is not checked (no scenario asks
//     for it).
// A job waits at instant t from its arrival, and from the end of each run that did not
// finish it, until its next run is placed; a node may take it when it is up then, its spec
// admits it (room_oracle.hpp's spec_admissible), and CPU, memory and num_gpu GPUs of one
// locality group have room. A job found not to fit can only fit later on a node that gave
// room back or came up since (placements only take), so after the instant it starts
// waiting, only those nodes are tried again.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "oracle.hpp"
#include "room_oracle.hpp"
#include "run_view.hpp"
#include "work_oracle.hpp"

namespace gpurent::sim {

namespace detail {

// One node's room as the oracle keeps it: what the segments holding it add up to.
struct wait_node {
  milli_cpu cpu{0};
  mebibytes memory{0};
  std::int32_t members = 0, isolating = 0;  // isolating: members that asked for node isolation or more
  std::array<std::int32_t, max_gpus_per_node> milli{}, users{};
  std::array<bool, max_gpus_per_node> closed{};  // some user since the GPU was last empty asked for isolation

  void add(const placement& p, bool preempting) {
    cpu += p.cpu_milli;
    memory += p.memory_mib;
    ++members;
    isolating += p.isolation >= isolation_level::node ? 1 : 0;
    for (std::size_t i = 0; i < p.count; ++i) {
      const std::size_t g = p.gpus[i].gpu;
      milli[g] += p.gpus[i].milli;
      ++users[g];
      closed[g] = closed[g] || preempting || p.isolation != isolation_level::none;
    }
  }
  void remove(const placement& p) {
    cpu -= p.cpu_milli;
    memory -= p.memory_mib;
    --members;
    isolating -= p.isolation >= isolation_level::node ? 1 : 0;
    for (std::size_t i = 0; i < p.count; ++i) {
      const std::size_t g = p.gpus[i].gpu;
      milli[g] -= p.gpus[i].milli;
      if (--users[g] == 0) closed[g] = false;
    }
  }
  // Room for r on node spec s (its spec already admits r).
  [[nodiscard]] bool fits(const node_spec& s, const placement_request& r) const {
    if (cpu + r.cpu_milli > s.cpu_milli || memory + r.memory_mib > s.memory_mib || isolating > 0) return false;
    if (r.isolation >= isolation_level::node && members > 0) return false;
    if (r.num_gpu == 0) return true;
    const gpu_locality l = r.num_gpu == 1 ? gpu_locality::same_node : r.locality;
    std::array<std::int32_t, 256> per_group{};
    for (std::size_t g = 0; g < s.gpu_count; ++g) {
      const bool open = users[g] == 0 || (r.isolation == isolation_level::none && !closed[g]);
      if (open && milli[g] + r.gpu_milli.count() <= 1000 && ++per_group[oracle_group(s, g, l)] >= r.num_gpu) return true;
    }
    return false;
  }
};

// When a segment holds its room: [from, to).
struct held_span {
  std::int64_t from = 0, to = 0;
  bool preempting = false;  // a victim or a preemptor
};

// Each segment's span: placed (placed_at) to its end, a victim's to the end of its notice.
[[nodiscard]] inline std::vector<held_span> held_spans(const run_view& v, const std::vector<std::vector<std::uint32_t>>& by_job,
                                                       std::span<const std::int64_t> placed) {
  std::vector<held_span> out(v.r().segments.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {placed[i], v.r().segments[i].end.count(), placed[i] < v.r().segments[i].start.count()};
  std::vector<std::uint8_t> taken(out.size(), 0);
  for (const run_preemption& p : v.r().preemption_log)
    for (std::uint32_t k = 0; k < p.count; ++k) {
      const std::uint32_t job = v.r().victims[p.first + k].job;
      if (job >= by_job.size()) continue;
      const std::ptrdiff_t i = victim_segment(v, by_job[job], p.time.count(), taken);
      if (i < 0) continue;
      taken[static_cast<std::size_t>(i)] = 1;
      held_span& h = out[static_cast<std::size_t>(i)];
      h.to = std::max(h.to, p.time.count() + v.notice());
      h.preempting = true;
    }
  return out;
}

// The instants a job waits: [from, to) spans, from its arrival and each unfinished run's end
// to the next run's placement (or past the run's end).
[[nodiscard]] inline std::vector<std::pair<std::int64_t, std::int64_t>> waits_of(const run_view& v, std::size_t j,
                                                                                 const std::vector<std::uint32_t>& segs,
                                                                                 std::span<const std::int64_t> placed) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  std::int64_t from = v.jobs[j].arrival.count();
  for (const std::uint32_t i : segs) {
    if (from < placed[i]) out.emplace_back(from, placed[i]);
    const run_segment& s = v.r().segments[i];
    from = s.preempted || s.failed ? std::max(s.end.count(), placed[i]) : -1;
  }
  if (from >= 0) out.emplace_back(from, v.r().end_time.count() + 1);
  return out;
}

// The sweep over the run's instants: the room the segments hold, the jobs waiting.
class wait_sweep {
 public:
  wait_sweep(const run_view& v, const std::vector<std::vector<std::uint32_t>>& by_job, std::span<const std::int64_t> placed)
      : v_(v), log_(*v.cluster, v.events), nodes_(v.inv().size()), released_(v.inv().size(), 0), waiting_(v.jobs.size(), 0) {
    spans_ = held_spans(v, by_job, placed);
    for (std::uint32_t i = 0; i < spans_.size(); ++i) {
      if (spans_[i].to <= spans_[i].from) continue;
      adds_.push_back({spans_[i].from, i});
      removes_.push_back({spans_[i].to, i});
    }
    for (std::uint32_t j = 0; j < v.jobs.size(); ++j)
      for (const auto& w : waits_of(v, j, by_job[j], placed)) {
        starts_.push_back({w.first, j});
        ends_.push_back({w.second, j});
      }
    for (auto* q : {&adds_, &removes_, &starts_, &ends_})
      std::stable_sort(q->begin(), q->end(), [](const mark& a, const mark& b) { return a.time < b.time; });
    for (auto* q : {&adds_, &removes_, &starts_})
      std::transform(q->begin(), q->end(), std::back_inserter(times_), [](const mark& m) { return m.time; });
    for (const node_event& e : v.events) times_.push_back(e.time.count());
    std::sort(times_.begin(), times_.end());
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
    spec_ok_.resize(v.jobs.size() * nodes_.size());
    for (std::size_t j = 0; j < v.jobs.size(); ++j)
      for (node_index n = 0; n < nodes_.size(); ++n)
        spec_ok_[j * nodes_.size() + n] = spec_admissible(*v.cluster, v.jobs[j].gang.at(0), false, n).empty() ? 1 : 0;
  }

  // The first job waiting while a node had room for it, or "".
  [[nodiscard]] std::string run() {
    std::size_t add = 0, remove = 0, start = 0, end = 0, event = 0;
    for (const std::int64_t t : times_) {
      std::fill(released_.begin(), released_.end(), 0);
      for (; remove < removes_.size() && removes_[remove].time == t; ++remove) apply(removes_[remove].index, false);
      for (; add < adds_.size() && adds_[add].time == t; ++add) apply(adds_[add].index, true);
      for (; event < v_.events.size() && v_.events[event].time.count() <= t; ++event)
        if (v_.events[event].condition == node_condition::up && v_.events[event].node < nodes_.size()) released_[v_.events[event].node] = 1;
      for (; end < ends_.size() && ends_[end].time <= t; ++end) waiting_[ends_[end].index] = 0;
      std::erase_if(list_, [&](std::uint32_t j) { return waiting_[j] == 0; });
      for (; start < starts_.size() && starts_[start].time == t; ++start) {
        if (waiting_[starts_[start].index] != 0) continue;
        waiting_[starts_[start].index] = 2;  // waiting since t: every node is tried
        list_.push_back(starts_[start].index);
      }
      if (auto bad = check(t); !bad.empty()) return bad;
    }
    return {};
  }

 private:
  struct mark {
    std::int64_t time;
    std::uint32_t index;  // a segment (adds, removes) or a job (starts, ends)
  };

  void apply(std::uint32_t seg, bool add) {
    const run_segment& s = v_.r().segments[seg];
    for (const placement& p : v_.members(s)) {
      if (p.node >= nodes_.size()) continue;
      if (add) {
        nodes_[p.node].add(p, spans_[seg].preempting);
      } else {
        nodes_[p.node].remove(p);
        released_[p.node] = 1;
      }
    }
  }

  [[nodiscard]] std::string check(std::int64_t t) {
    for (const std::uint32_t j : list_) {
      const bool all = waiting_[j] == 2;
      waiting_[j] = 1;
      for (node_index n = 0; n < nodes_.size(); ++n) {
        if (!all && released_[n] == 0) continue;
        if (spec_ok_[j * nodes_.size() + n] == 0 || log_.at(n, t) != node_condition::up) continue;
        if (nodes_[n].fits(v_.inv().spec(n), v_.jobs[j].gang.at(0)))
          return "job " + v_.jobs[j].name + " waits at " + std::to_string(t) + " s, though node " + v_.inv().spec(n).name + " has room for it";
      }
    }
    return {};
  }

  const run_view& v_;
  condition_log log_;
  std::vector<wait_node> nodes_;
  std::vector<std::uint8_t> released_;
  std::vector<std::uint8_t> waiting_;  // per job: 0 no, 1 yes, 2 since this instant
  std::vector<std::uint32_t> list_;    // the jobs waiting
  std::vector<held_span> spans_;
  std::vector<mark> adds_, removes_, starts_, ends_;
  std::vector<std::int64_t> times_;
  std::vector<std::uint8_t> spec_ok_;  // per job and node: the spec admits the job
};

}  // namespace detail

// Every job waiting at an instant fits on no node then (runs of one-member jobs without
// topology rules and without network isolation; others pass unchecked).
[[nodiscard]] inline std::string check_waits(const run_view& v, const std::vector<std::vector<std::uint32_t>>& by_job,
                                             std::span<const std::int64_t> placed) {
  for (const fleet_job& j : v.jobs)
    if (j.gang.size() != 1 || j.gang.topology_bound() || j.gang.at(0).isolation == isolation_level::network) return {};
  detail::wait_sweep sweep(v, by_job, placed);
  return sweep.run();
}

}  // namespace gpurent::sim
