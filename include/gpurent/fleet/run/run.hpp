// SPDX-License-Identifier: MIT
#pragma once
// `fleet run` (docs/formats/fleet.md): a cluster over time. At each instant:
// departures (and preempted jobs coming back to the queue) first, then arrivals in file
// order, then one scheduling pass over the queue (priority descending, arrival, name), each
// job placed if it fits, no head-of-line blocking. A job that does not fit and is not
// preemptible may, under a victim policy, preempt preemptible jobs of lower priority
// (matching/preempt/: the search, its candidate domains and the holds are matching's): the
// victims get the notice window, the freed resources are held for the preemptor (placed
// now, started at t + notice), the victims lose what the checkpoint model says
// (run/checkpoint.hpp) and come back at their stop instant with their original priority and
// arrival. The run ends when nothing is left to happen. The loop takes any Placer
// (matching/placer.hpp): the node matcher for pods, the gang placer for gangs.
//
// Speed: a queued job is tried again only after something was released since it last
// failed (placements only take, so it cannot fit sooner; removing every candidate victim
// then leaves no more room than before either), a one-member job only on the nodes
// released since, a gang required inside a domain only in their domains; with a minimum
// runtime, waiting jobs retry preemption at every pass since victims become eligible with
// time; queued jobs of one shape fail together (fleet/run/shape_memo.hpp), so a pass tries
// each failing shape once. Events are a heap; segments and their members go to flat
// vectors: nothing allocates per event once grown.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>
#include <span>
#include <string>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/checkpoint.hpp>
#include <gpurent/fleet/run/notice.hpp>
#include <gpurent/fleet/run/options.hpp>
#include <gpurent/fleet/run/queue.hpp>
#include <gpurent/fleet/run/result.hpp>
#include <gpurent/fleet/run/retry_log.hpp>
#include <gpurent/fleet/run/shape_memo.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/node/policy.hpp>
#include <gpurent/matching/observer.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/preempt/preemptor.hpp>
#include <gpurent/matching/preempt/running.hpp>
#include <gpurent/matching/preempt/victims.hpp>

namespace gpurent {

namespace detail {
// A completion; a preempted job back in the queue.
enum class run_event_kind : std::uint8_t { done, back };
struct run_event {
  fleet_time time;
  run_event_kind what;
  std::uint32_t job;
  std::uint32_t segment;
  friend bool operator>(const run_event& a, const run_event& b) noexcept {
    return a.time != b.time ? a.time > b.time : a.job != b.job ? a.job > b.job : a.what > b.what;
  }
};
}  // namespace detail

// The loop over Placer B with victim policy VP; Preempt false: --victims none. The loop
// keeps the clock, the queue, the retry log and the results; where jobs run and the
// preemption search with its holds are matching's (running_jobs, preemptor).
template <Placer B, VictimPolicy VP, bool Preempt>
class fleet_runner {
 public:
  fleet_runner(B& placer, std::span<const fleet_job> jobs, const run_options& o)
      : b_(&placer), jobs_(jobs), o_(o), running_(placer.inv().size()), pre_(placer, running_) {
    init();
  }

  [[nodiscard]] run_result run() {
    std::size_t next_arrival = 0;
    while (next_arrival < by_arrival_.size() || !events_.empty() || next_node_ < o_.node_events.size() || pre_.next_expiry() != pre_.never_ends) {
      fleet_time t = next_arrival < by_arrival_.size() ? jobs_[by_arrival_[next_arrival]].arrival : fleet_time::max();
      if (!events_.empty()) t = std::min(t, events_.top().time);
      if (next_node_ < o_.node_events.size()) t = std::min(t, o_.node_events[next_node_].time);
      t = std::min(t, pre_.next_expiry());
      now_ = t;
      departures(t);
      node_changes(t);
      for (; next_arrival < by_arrival_.size() && jobs_[by_arrival_[next_arrival]].arrival == t; ++next_arrival)
        queue_.enqueue(by_arrival_[next_arrival]);
      pass(t);
      if (o_.progress && (++instants_ & 0xFF) == 0) o_.progress(run_progress{t, next_arrival, completed_, queue_.size(), jobs_.size()});
    }
    GPURENT_ASSERT(running_.all().empty() && queue_empty_or_stuck());        // nothing runs; what waits can never start
    GPURENT_ASSERT(b_->inv().gpu_allocated_milli() == allocated_at_start_);  // every run and every hold released
    r_.end_time = now_;
    return std::move(r_);
  }

 private:
  using kind = detail::run_event_kind;
  using event = detail::run_event;
  struct job_state {
    seconds work_left{0};
    std::uint32_t segment = 0;
    std::uint32_t runs = 0;
    std::size_t failed_at = never;  // the retry log's position when it last failed to start
  };
  static constexpr std::size_t never = ~std::size_t{0};
  static constexpr std::size_t scan_limit = 64;  // beyond this many freed nodes, a retry scans all

  void init() {
    const std::size_t n = jobs_.size();
    r_.first_start.assign(n, not_started);
    r_.completed.assign(n, 0);
    r_.evictions.assign(n, 0);
    r_.lost_milli_s.assign(n, 0);
    st_.resize(n);
    by_arrival_.resize(n);
    std::iota(by_arrival_.begin(), by_arrival_.end(), std::uint32_t{0});
    std::stable_sort(by_arrival_.begin(), by_arrival_.end(), [&](std::uint32_t a, std::uint32_t b) { return jobs_[a].arrival < jobs_[b].arrival; });
    rank_ = detail::queue_ranks(jobs_, by_arrival_);
    queue_ = run_queue(rank_);
    for (std::uint32_t j = 0; j < n; ++j) st_[j].work_left = jobs_[j].duration;
    allocated_at_start_ = b_->inv().gpu_allocated_milli();
    const bool network = std::ranges::any_of(jobs_, [](const fleet_job& x) { return x.gang.member.isolation == isolation_level::network; });
    log_ = retry_log(b_->inv(), network);
    pre_.set_exhaustive(o_.rescan);  // the naive twin visits every candidate domain
    memo_ = shape_memo(jobs_);
  }

  // The run's end: nothing runs, and what waits could never start (no release is left).
  [[nodiscard]] bool queue_empty_or_stuck() const noexcept {
    return std::ranges::all_of(queue_.jobs(), [&](std::uint32_t j) { return st_[j].failed_at == log_.position() || o_.rescan; });
  }

  // Completions and jobs back from preemption at t, then the holds that end at t.
  void departures(fleet_time t) {
    while (!events_.empty() && events_.top().time == t) {
      const event e = events_.top();
      events_.pop();
      if (e.what == kind::back) {
        if (r_.segments[e.segment].end == e.time) queue_.enqueue(e.job);  // else it failed in its notice and came back then
        continue;
      }
      if (!running_.running(e.job) || st_[e.job].segment != e.segment) continue;  // stopped by a preemption since
      stop_running(e.job);
      r_.completed[e.job] = 1;
      ++completed_;
    }
    pre_.expire(
        t, [&](const placement& h) { log_.freed(h); }, [&](node_index n) { log_.freed(n); });
  }

  // The job leaves the cluster: its resources released, something may fit again.
  void stop_running(std::uint32_t j) {
    const auto members = members_of(r_.segments[st_[j].segment]);
    b_->release(j, members);
    running_.remove(j, members);
    ++version_;
    for (const placement& p : members) log_.freed(p);
  }

  // The node events at t: conditions set; the jobs on a node that went down stopped and
  // queued again; a node back up is room freed (queued jobs try it).
  void node_changes(fleet_time t) {
    for (; next_node_ < o_.node_events.size() && o_.node_events[next_node_].time <= t; ++next_node_) {
      const node_event& e = o_.node_events[next_node_];
      b_->set_condition(e.node, e.condition);
      ++version_;
      if (e.condition == node_condition::up) log_.freed(e.node);
      if (e.condition != node_condition::down) continue;
      failing_.assign(running_.on(e.node).begin(), running_.on(e.node).end());
      for (const std::uint32_t j : failing_) fail_job(j, t);
      notice_.on_down(
          e.node, t, [&](const stopping_victim& v) { return members_of(r_.segments[v.segment]); },
          [&](const stopping_victim& v) { fail_stopping(v, t); });
    }
  }

  // Job j stops at t without notice (its node failed) and is queued again.
  void fail_job(std::uint32_t j, fleet_time t) {
    run_segment& seg = r_.segments[st_[j].segment];
    stop_running(j);
    if (t > seg.start) {
      book_failure(j, seg, st_[j].work_left, t);
      return;
    }
    // Placed after a preemption, not started yet: nothing ran, nothing lost.
    seg.end = seg.start;
    pre_.hold_placed(members_of(seg), seg.start);  // its victims may still run there until then
    if (seg.run == 0) r_.first_start[j] = not_started;
    requeue_failed(j, seg);
  }

  // Job j's run `seg`, with `work_left` when it started, stops failed at t: what its
  // checkpoints saved is kept (stop_on_failure), the rest lost; j is queued again.
  void book_failure(std::uint32_t j, run_segment& seg, seconds work_left, fleet_time t) {
    const stop_outcome o = stop_on_failure(o_.checkpoints, seg.start, work_left, jobs_[j].checkpoint_every, t);
    seg.end = t;
    r_.lost_milli_s[j] += seg.gpu_milli * o.lost.count();
    st_[j].work_left = o.work_left;
    requeue_failed(j, seg);
  }

  void requeue_failed(std::uint32_t j, run_segment& seg) {
    seg.failed = true;
    ++r_.failures;
    st_[j].failed_at = never;
    queue_.enqueue(j);
  }

  // A victim in its notice window whose node went down at t: it stops now, failed instead
  // of preempted (or completed), and is queued again now, not when the notice ends. Its room
  // stays held until then (holds.hpp), as the preemption arranged.
  void fail_stopping(const stopping_victim& v, fleet_time t) {
    run_segment& seg = r_.segments[v.segment];
    if (v.completes) {
      r_.completed[v.job] = 0;
      --completed_;
    } else {
      --r_.evictions[v.job];
      r_.lost_milli_s[v.job] -= v.lost_milli_s;
    }
    seg.preempted = false;
    book_failure(v.job, seg, v.work_left, t);
  }

  [[nodiscard]] std::span<const placement> members_of(const run_segment& s) const noexcept { return {r_.members.data() + s.first, s.count}; }

  // Job j holds `placed` from now and runs from `start`.
  void start_running(std::uint32_t j, fleet_time start) {
    job_state& s = st_[j];
    run_segment seg;
    seg.job = j;
    seg.run = s.runs++;
    seg.start = start;
    seg.end = start + s.work_left;
    seg.first = static_cast<std::uint32_t>(r_.members.size());
    seg.count = static_cast<std::uint32_t>(placed_.size());
    for (const placement& p : placed_) {
      r_.members.push_back(p);
      seg.gpu_milli += p.gpu_milli_total();
    }
    s.segment = static_cast<std::uint32_t>(r_.segments.size());
    r_.segments.push_back(seg);
    running_.add(j, placed_, jobs_[j].preemptible);
    ++version_;
    if (r_.first_start[j] == not_started) r_.first_start[j] = start;
    events_.push(event{seg.end, kind::done, j, s.segment});
  }

  void pass(fleet_time t) {
    queue_.pass(
        log_.position(), o_.rescan || o_.min_runtime > seconds{0}, [&](std::uint32_t j) { return try_start(j, t); }, [&] { return log_.position(); });
  }

  // A job that failed before is tried again only where something was freed since: a
  // one-member job only on those nodes, a gang required inside a domain only in those
  // nodes' domains, placed or with victims (elsewhere nodes only filled up: what evicting
  // every candidate there frees is no more than when it failed, since the victim rule does
  // not change with time without a minimum runtime), any other job when anything was freed.
  [[nodiscard]] bool try_start(std::uint32_t j, fleet_time t) {
    job_state& s = st_[j];
    const fleet_job& job = jobs_[j];
    const bool may_preempt = Preempt && !job.preemptible;
    const std::size_t at = log_.position();
    const bool memo = !o_.rescan;  // the naive twin tries every job
    bool limited = false;
    if (s.failed_at != never && memo && !(may_preempt && o_.min_runtime > seconds{0})) {
      if (s.failed_at == at) return false;
      limited = retried_near<B>(job.gang) && at - s.failed_at <= scan_limit;
    }
    const bool place = !(memo && memo_.place_fails(j, at));
    const bool preempt = may_preempt && !(memo && memo_.preempt_fails(j, t, at, version_));
    if (!place && !preempt) {  // its shape failed both here already
      s.failed_at = at;
      return false;
    }
    if (limited) scan_ = log_.since(s.failed_at);
    if (place && (!limited || freed_room_fits(*b_, job.gang, j, scan_, seen_)) && b_->place(job.gang, j, placed_)) {
      start_running(j, t);
      return true;
    }
    memo_.place_failed(j, at);  // a limited retry fails everywhere too (see above)
    if (preempt) {
      if (preempt_for(j, t, limited)) return true;
      memo_.preempt_failed(j, t, at, version_);
    }
    s.failed_at = log_.position();
    return false;
  }

  // Victims for job j under VP (`limited`: only near the nodes in scan_); when found, they
  // stop at t + notice, the job is placed in their room now and starts then.
  [[nodiscard]] bool preempt_for(std::uint32_t j, fleet_time t, bool limited) {
    const fleet_job& job = jobs_[j];
    const auto candidate = [&](std::uint32_t v) -> std::optional<victim> {
      const fleet_job& vj = jobs_[v];
      const run_segment& seg = r_.segments[st_[v].segment];
      if (!eligible_victim(vj.preemptible, vj.priority, seg.start, job.priority, t, o_.min_runtime)) return std::nullopt;
      return victim_of(o_.checkpoints, v, vj.priority, seg.gpu_milli, seg.start, st_[v].work_left, vj.checkpoint_every, t);
    };
    const auto members = [&](std::uint32_t v) { return members_of(r_.segments[st_[v].segment]); };
    const auto gang = [&](std::uint32_t v) -> const gang_request& { return jobs_[v].gang; };
    if (!pre_.choose(job.gang, j, limited ? &scan_ : nullptr, candidate, members, gang)) return false;
    detail::log_preemption(r_, pre_.selection(), j, t);
    evict(t);
    const bool ok = pre_.place(job.gang, j, placed_);
    GPURENT_ASSERT(ok);  // the trial found room
    if (o_.observer) [[unlikely]]
      o_.observer(preempt_decision{b_->inv(), t, j, pre_.selection().victims(), placed_});
    pre_.hold_for(now_, t + o_.checkpoints.notice, placed_, stopped_);
    start_running(j, t + o_.checkpoints.notice);
    ++r_.preemptions;
    return true;
  }

  // The chosen victims stop at t + notice (or complete before); their room goes now. Each
  // goes to stopped_ for the holds.
  void evict(fleet_time t) {
    stopped_.clear();
    for (const victim& v : pre_.selection().victims()) {
      job_state& s = st_[v.job];
      const fleet_job& vj = jobs_[v.job];
      run_segment& seg = r_.segments[s.segment];
      const stop_outcome o = stop_segment(o_.checkpoints, seg.start, s.work_left, vj.checkpoint_every, t);
      if (o.stop > t && !o_.node_events.empty())  // only a node going down cuts a notice short
        notice_.add(stopping_victim{v.job, s.segment, o.stop, s.work_left, seg.gpu_milli * o.lost.count(), o.completes});
      stop_running(v.job);
      seg.end = o.stop;
      stopped_.push_back(stopped_victim{v.job, members_of(seg), seg.end, vj.gang.exclusive});
      if (o.completes) {
        r_.completed[v.job] = 1;
        ++completed_;
        continue;
      }
      seg.preempted = true;
      ++r_.evictions[v.job];
      r_.lost_milli_s[v.job] += seg.gpu_milli * o.lost.count();
      s.work_left = o.work_left;
      events_.push(event{o.stop, kind::back, v.job, s.segment});
    }
  }

  B* b_;
  std::span<const fleet_job> jobs_;
  run_options o_;
  run_result r_;
  running_jobs running_;
  preemptor<B, VP> pre_;
  std::vector<job_state> st_;
  std::vector<std::uint32_t> by_arrival_;
  std::vector<std::uint32_t> rank_;
  run_queue queue_;
  std::priority_queue<event, std::vector<event>, std::greater<>> events_;
  std::vector<placement> placed_;
  std::vector<stopped_victim> stopped_;
  notice_window notice_;  // victims running out their notice
  retry_log log_;
  std::span<const node_index> scan_;  // a limited retry: the nodes freed since the job failed
  std::vector<domain_index> seen_;    // freed_room_fits' scratch
  fleet_time now_;
  std::uint64_t instants_ = 0;
  std::size_t completed_ = 0;  // jobs completed so far (progress)
  std::size_t next_node_ = 0;
  std::vector<std::uint32_t> failing_;
  std::int64_t allocated_at_start_ = 0;
  shape_memo memo_;            // queued jobs of one shape fail together
  std::uint64_t version_ = 0;  // the running set's changes (starts, stops, node conditions)
};

// Runs jobs on Placer b under victim policy VP (Preempt false: no preemption).
template <VictimPolicy VP, bool Preempt, Placer B>
[[nodiscard]] run_result run_fleet(B& b, std::span<const fleet_job> jobs, const run_options& o) {
  fleet_runner<B, VP, Preempt> r(b, jobs, o);
  return r.run();
}

// Why each job that never started could never fit, into r.never_started, and why each that
// started but was left queued (stopped by a failure, unable to start again) could not, into
// r.unfinished: the placer's explanation with its counts, asked of backend b as the run left
// it (a run ends when no queued job can ever fit, every other job gone; down nodes still
// down). Apart from the run, so that the run's loop allocates nothing for it.
template <Placer B>
void explain_never_started(B& b, std::span<const fleet_job> jobs, run_result& r) {
  r.never_started.clear();
  r.unfinished.clear();
  for (std::size_t j = 0; j < jobs.size() && j < r.first_start.size(); ++j) {
    if (r.completed[j] != 0) continue;
    auto& list = r.first_start[j] == not_started ? r.never_started : r.unfinished;
    list.push_back({static_cast<std::uint32_t>(j), b.explain(jobs[j].gang).summary()});
  }
}

}  // namespace gpurent
