// SPDX-License-Identifier: MIT
#pragma once
// The run oracle, second half: what each job did. Written from fleet.md's rules, not from
// the loop (fleet/run/run.hpp) or its checkpoint helper (fleet/run/checkpoint.hpp):
//   - shape: every segment names a job and holds all its members (a gang all or nothing),
//     its gpu_milli is its members' sum; a job's runs are numbered 0, 1, ... in order; per-job
//     vectors have one entry per job;
//   - time: a job's segments do not overlap and the first starts at or after its arrival
//     (first_start says when the first one that began did); nothing ends after the run's end;
//   - work, under the checkpoint model: a job's work left starts at its duration; a segment
//     that ends early (preempted, or failed after it started) ran end - start < work left and
//     saves all of it when the notice covers the checkpoint write (preempted only), else the
//     whole checkpoint intervals in it (none when the job never checkpoints); the next run's
//     work is work - saved + restart (a preemptor that failed before it started: unchanged).
//     A segment that is neither preempted nor failed is the job's last and runs exactly its
//     work left: so a completed job's saved work plus its last run, less the restart cost each
//     restart redoes, is exactly its duration. `completed` is set exactly for those jobs; lost
//     milli-GPU-seconds, evictions and failures add up;
//   - preemptions: none without a victim policy; the preemptor is not preemptible and starts
//     notice seconds after the decision; each victim is preemptible, of lower priority, had
//     run at least min_runtime, and its segment ends in (decision, decision + notice]:
//     preempted exactly at decision + notice, or completed in the window, or failed when its
//     node went down in the window (room_oracle.hpp checks that instant); every preempted
//     segment is some decision's victim.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "run_view.hpp"

namespace gpurent::sim {

// Segments, members and the per-job vectors are well formed.
[[nodiscard]] inline std::string check_shape(const run_view& v, const std::vector<std::vector<std::uint32_t>>& by_job) {
  const run_result& r = v.r();
  const std::size_t n = v.jobs.size();
  if (r.first_start.size() != n || r.completed.size() != n || r.evictions.size() != n || r.lost_milli_s.size() != n)
    return "the per-job vectors do not have one entry per job";
  for (const run_segment& s : r.segments) {
    if (s.job >= n) return "a segment of a job that does not exist";
    if (std::size_t{s.first} + s.count > r.members.size()) return "a segment's members are past the member list";
    if (s.count != v.jobs[s.job].gang.size())
      return segment_name(v, s) + " holds " + std::to_string(s.count) + " members of " + std::to_string(v.jobs[s.job].gang.size());
    std::int64_t milli = 0;
    for (const placement& p : v.members(s)) milli += p.gpu_milli_total();
    if (milli != s.gpu_milli) return segment_name(v, s) + " counts other GPUs than its members hold";
    if (s.end < s.start || s.end > r.end_time) return segment_name(v, s) + " ends before it starts or after the run";
    if (s.preempted && s.failed) return segment_name(v, s) + " is both preempted and failed";
  }
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t k = 0; k < by_job[j].size(); ++k)
      if (r.segments[by_job[j][k]].run != k) return "job " + v.jobs[j].name + "'s runs are not numbered in order";
  return {};
}

// A job's segments one after another, the first at or after its arrival. Its first start is
// that of its first segment, unless that one never began (a preemptor whose node went down
// before its start: failed, zero length): then the next one's.
[[nodiscard]] inline std::string check_times(const run_view& v, const std::vector<std::vector<std::uint32_t>>& by_job) {
  for (std::size_t j = 0; j < v.jobs.size(); ++j) {
    const auto& segs = by_job[j];
    const auto began = std::find_if(segs.begin(), segs.end(), [&](std::uint32_t i) {
      const run_segment& s = v.r().segments[i];
      return !(s.failed && s.end == s.start);
    });
    const std::int64_t first = began == segs.end() ? -1 : v.r().segments[*began].start.count();
    if (v.r().first_start[j].count() != first) return "job " + v.jobs[j].name + ": first_start disagrees with its first segment that began";
    if (!segs.empty() && v.r().segments[segs.front()].start < v.jobs[j].arrival) return "job " + v.jobs[j].name + " starts before it arrives";
    for (std::size_t k = 1; k < segs.size(); ++k)
      if (v.r().segments[segs[k]].start < v.r().segments[segs[k - 1]].end) return "job " + v.jobs[j].name + " runs twice at once";
  }
  return {};
}

namespace detail {

// What one job's runs add up to.
struct job_tally {
  std::int64_t work = 0;  // left for the next run
  std::int64_t lost_milli_s = 0;
  std::uint32_t evictions = 0;
  bool completed = false;
};

// Segment s of job j, given the work left before it: "" or what is wrong, and the tally on.
[[nodiscard]] inline std::string run_work(const run_view& v, const fleet_job& j, const run_segment& s, bool last, job_tally& t) {
  const std::int64_t ran = (s.end - s.start).count();
  if (!s.preempted && !s.failed) {
    if (!last) return segment_name(v, s) + " ended without a preemption or failure, but the job ran again";
    if (ran != t.work)
      return segment_name(v, s) + " completed after " + std::to_string(ran) + " s with " + std::to_string(t.work) + " s of work left";
    t.completed = true;
    return {};
  }
  if (s.failed && ran == 0) return {};  // a preemptor whose node went down before it started
  if (ran >= t.work)
    return segment_name(v, s) + " was stopped after " + std::to_string(ran) + " s, when its " + std::to_string(t.work) + " s of work were done";
  const bool final_checkpoint = s.preempted && v.checkpoints.notice >= v.checkpoints.checkpoint_write;
  const std::int64_t every = j.checkpoint_every.count();
  const std::int64_t saved = final_checkpoint ? ran : every > 0 ? ran / every * every : 0;
  t.lost_milli_s += s.gpu_milli * (ran - saved);
  t.work = t.work - saved + v.checkpoints.restart.count();
  if (s.preempted) ++t.evictions;
  return {};
}

}  // namespace detail

// The checkpoint model replayed over each job's runs.
[[nodiscard]] inline std::string check_work(const run_view& v, const std::vector<std::vector<std::uint32_t>>& by_job) {
  std::size_t failures = 0;
  for (std::size_t j = 0; j < v.jobs.size(); ++j) {
    detail::job_tally t;
    t.work = v.jobs[j].duration.count();
    for (std::size_t k = 0; k < by_job[j].size(); ++k) {
      const run_segment& s = v.r().segments[by_job[j][k]];
      failures += s.failed ? 1 : 0;
      if (auto bad = detail::run_work(v, v.jobs[j], s, k + 1 == by_job[j].size(), t); !bad.empty()) return bad;
    }
    const std::string job = "job " + v.jobs[j].name;
    if ((v.r().completed[j] != 0) != t.completed)
      return job + (t.completed ? " did all its work but is not completed" : " is completed without doing all its work");
    if (v.r().lost_milli_s[j] != t.lost_milli_s)
      return job + " lost " + std::to_string(v.r().lost_milli_s[j]) + " milli-GPU-s, the model says " + std::to_string(t.lost_milli_s);
    if (v.r().evictions[j] != t.evictions) return job + "'s evictions disagree with its preempted segments";
  }
  if (v.r().failures != failures) return "the run counts " + std::to_string(v.r().failures) + " failures, its segments " + std::to_string(failures);
  return {};
}

namespace detail {

// The segment of a victim (its segments `segs`) that decision time t stopped: running at t
// (started by then, ending after t, or at t under a notice of 0) and ending within the
// notice; the first such one no other decision took.
[[nodiscard]] inline std::ptrdiff_t victim_segment(const run_view& v, const std::vector<std::uint32_t>& segs, std::int64_t t,
                                                   const std::vector<std::uint8_t>& taken) {
  for (const std::uint32_t i : segs) {
    const std::int64_t start = v.r().segments[i].start.count(), end = v.r().segments[i].end.count();
    if (taken[i] == 0 && start <= t && end <= t + v.notice() && (end > t || end == t + v.notice())) return i;
  }
  return -1;
}

// One preemption decision p: the preemptor and its victims.
[[nodiscard]] inline std::string check_decision(const run_view& v, const std::vector<std::vector<std::uint32_t>>& by_job, const run_preemption& p,
                                                std::vector<std::uint8_t>& victim_of) {
  if (p.job >= v.jobs.size() || std::size_t{p.first} + p.count > v.r().victims.size()) return "a preemption names a job or victims that do not exist";
  const fleet_job& pj = v.jobs[p.job];
  const std::int64_t t = p.time.count();
  const std::string at = "the preemption at " + std::to_string(t) + " s for job " + pj.name;
  if (pj.preemptible) return at + ": a preemptible job preempted others";
  if (p.count == 0) return at + " has no victim";
  const auto& mine = by_job[p.job];
  if (std::none_of(mine.begin(), mine.end(), [&](std::uint32_t i) { return v.r().segments[i].start.count() == t + v.notice(); }))
    return at + ": the preemptor does not start when the notice ends";
  for (std::uint32_t k = 0; k < p.count; ++k) {
    const std::uint32_t vj = v.r().victims[p.first + k].job;
    if (vj >= v.jobs.size()) return at + ": a victim that does not exist";
    const fleet_job& victim = v.jobs[vj];
    if (!victim.preemptible || victim.priority >= pj.priority) return at + ": victim " + victim.name + " is not preemptible or not of lower priority";
    const std::ptrdiff_t i = victim_segment(v, by_job[vj], t, victim_of);
    if (i < 0) return at + ": victim " + victim.name + " was not running then, or did not stop within the notice";
    const run_segment* s = &v.r().segments[static_cast<std::size_t>(i)];
    if (t - s->start.count() < v.min_runtime) return at + ": victim " + victim.name + " had not run its minimum runtime";
    if (s->preempted && s->end.count() != t + v.notice()) return at + ": victim " + victim.name + " stopped before its notice ended";
    victim_of[static_cast<std::size_t>(i)] = 1;
  }
  return {};
}

}  // namespace detail

// Preemptions: none without a victim policy; each decision's preemptor and victims right;
// every preempted segment some decision's victim.
[[nodiscard]] inline std::string check_preemptions(const run_view& v, const std::vector<std::vector<std::uint32_t>>& by_job) {
  const run_result& r = v.r();
  if (!v.preempt && (!r.preemption_log.empty() || r.preemptions != 0)) return "a run without a victim policy preempted";
  if (r.preemptions != r.preemption_log.size()) return "the run counts other preemptions than it logs";
  std::vector<std::uint8_t> victim_of(r.segments.size(), 0);
  for (const run_preemption& p : r.preemption_log)
    if (auto bad = detail::check_decision(v, by_job, p, victim_of); !bad.empty()) return bad;
  for (std::size_t i = 0; i < r.segments.size(); ++i)
    if (r.segments[i].preempted && victim_of[i] == 0) return segment_name(v, r.segments[i]) + " is marked preempted, but no decision chose it";
  return {};
}

}  // namespace gpurent::sim
