// SPDX-License-Identifier: MIT
#pragma once
// `fleet run` (../shared/protocols/fleet.md): a cluster over time. At each instant:
// departures (and preempted jobs coming back to the queue) first, then arrivals in file
// order, then one scheduling pass over the queue (priority descending, arrival, name), each
// job placed if it fits, no head-of-line blocking. A job that does not fit and is not
// preemptible may, under a victim policy, preempt preemptible jobs of lower priority
// (matching/preempt.hpp): the victims get the notice window, the freed resources are held
// for the preemptor (placed now, started at t + notice), the victims lose what the
// checkpoint model says (run_checkpoint.hpp) and come back at their stop instant with their
// original priority and arrival. The run ends when nothing is left to happen.
//
// Speed: a queued job is tried again only after something was released since it last
// failed (placements only take, so it cannot fit sooner; removing every candidate victim
// then leaves no more room than before either), and a one-member job only on the nodes
// released since; with a minimum runtime, waiting jobs retry preemption at every pass
// since victims become eligible with time. Events are a heap;
// segments and their members go to flat vectors: nothing allocates per event once grown.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <span>
#include <string>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/policy.hpp>
#include <gpurent/fleet/run_checkpoint.hpp>
#include <gpurent/matching/preempt.hpp>

namespace gpurent {

namespace detail {
// A one-member job on node n, if it fits there (the GPUs picked tightest, as gangs do).
template <Placer B>
[[nodiscard]] bool place_on_node(B& b, node_index n, const placement_request& r, std::vector<placement>& out) {
  out.clear();
  if (!default_constraints::admits(b.inv(), n, r)) return false;
  gpu_pick pick;
  choose_tightest(b.inv(), n, r, pick);
  if (pick.count != static_cast<std::size_t>(r.num_gpu)) return false;
  const placement p = inventory::make_placement(n, r, pick);
  b.hold(p);
  out.push_back(p);
  return true;
}
}  // namespace detail

// A node failing (down: what runs there stops at once), draining (nothing new; what runs
// stays) or coming back up, at an instant (seconds).
struct node_event {
  std::int64_t time = 0;
  node_index node = 0;
  node_condition condition = node_condition::up;
};

struct run_options {
  checkpoint_model checkpoints;
  std::int64_t min_runtime = 0;  // seconds a job runs before it may be a victim
  // The naive loop (fleet/reference/rescan.hpp): every queued job tried again at every
  // instant, on every node, as if nothing were remembered. Same decisions, more work.
  bool rescan = false;
  // Node failures and repairs over time, in time order (a stable sort by time is the
  // caller's). At an instant they come after the departures and before the arrivals. A job
  // with a member on a node that goes down stops then, without notice: it keeps its whole
  // checkpoint intervals (checkpoint_every, every class), its segment ends `failed`, and it
  // is queued again at once with its original priority and arrival, its work left plus the
  // restart cost.
  std::span<const node_event> node_events;
  // When set, called every 2^14 instants with the instant reached and the jobs arrived so
  // far (out of all): a progress line; the loop pays one test per instant without it.
  std::function<void(std::int64_t now, std::size_t arrived, std::size_t total)> progress;
  preempt_observer observer;  // each preemption (audit); none: nothing is called
};

// One run of one job: its members' placements are members[first, first + count).
struct run_segment {
  std::uint32_t job = 0;
  std::uint32_t run = 0;  // 0-based per job
  std::int64_t start = 0;
  std::int64_t end = 0;
  bool preempted = false;  // end_reason: preempted (else done)
  bool failed = false;     // end_reason: failed (its node went down)
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  std::int64_t gpu_milli = 0;  // all members
};

// One preemption decision: the preemptor, its victims (victims[first, first + count)) and
// the next-best set the policy turned down (victims[other_first, other_first + other_count)),
// for the explanation (victim_explanation) and the audit trail.
struct run_preemption {
  std::int64_t time = 0;
  std::uint32_t job = 0;
  std::uint32_t first = 0, count = 0;
  std::uint32_t other_first = 0, other_count = 0;
};

// A job that never started, and why it could never fit (the placer's explanation with its
// counts); explain_never_started fills them.
struct run_never_started {
  std::uint32_t job = 0;
  std::string why;
};

struct run_result {
  std::vector<run_segment> segments;  // in the order they were decided
  std::vector<placement> members;
  std::vector<std::int64_t> first_start;       // per job; -1: never started
  std::vector<std::uint8_t> completed;         // per job
  std::vector<std::uint32_t> evictions;        // per job
  std::vector<std::int64_t> lost_milli_s;      // per job: milli-GPU-seconds of work lost
  std::size_t preemptions = 0;                 // decisions that evicted
  std::size_t failures = 0;                    // segments stopped by a node going down
  std::vector<run_preemption> preemption_log;  // one per decision, in order
  std::vector<victim> victims;                 // what preemption_log points into
  std::int64_t end_time = 0;
  std::vector<run_never_started> never_started;  // in job order, after explain_never_started
};

// The loop over backend B (RunBackend) with victim policy VP; Preempt false: --victims none.
template <Placer B, VictimPolicy VP, bool Preempt>
class fleet_runner {
 public:
  fleet_runner(B& backend, std::span<const fleet_job> jobs, const run_options& o) : b_(&backend), jobs_(jobs), o_(o) { init(); }

  [[nodiscard]] run_result run() {
    std::size_t next_arrival = 0;
    while (next_arrival < by_arrival_.size() || !events_.empty() || next_node_ < o_.node_events.size()) {
      std::int64_t t = next_arrival < by_arrival_.size() ? jobs_[by_arrival_[next_arrival]].arrival : never_time;
      if (!events_.empty()) t = std::min(t, events_.top().time);
      if (next_node_ < o_.node_events.size()) t = std::min(t, o_.node_events[next_node_].time);
      now_ = t;
      departures(t);
      node_changes(t);
      for (; next_arrival < by_arrival_.size() && jobs_[by_arrival_[next_arrival]].arrival == t; ++next_arrival) enqueue(by_arrival_[next_arrival]);
      pass(t);
      if (o_.progress && (++instants_ & 0x3FFF) == 0) o_.progress(t, next_arrival, by_arrival_.size());
    }
    r_.end_time = now_;
    return std::move(r_);
  }

 private:
  // A completion; a preempted job back in the queue; the end of a hold (hold_leftovers); the
  // end of a victim's hold on its exclusive blocks (hold_victims_blocks).
  enum class kind : std::uint8_t { done, back, hold, blocks };
  struct event {
    std::int64_t time;
    kind what;
    std::uint32_t job;
    std::uint32_t segment;
    friend bool operator>(const event& a, const event& b) noexcept {
      return a.time != b.time ? a.time > b.time : a.job != b.job ? a.job > b.job : a.what > b.what;
    }
  };
  struct job_state {
    std::int64_t work_left = 0;
    std::uint32_t segment = 0;
    std::uint32_t runs = 0;
    std::size_t failed_at = never;    // freed_.size() when it last failed to start
    std::uint32_t running_at = none;  // position in running_
    bool running = false;
  };
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  static constexpr std::size_t never = ~std::size_t{0};
  static constexpr std::int64_t never_time = std::numeric_limits<std::int64_t>::max();
  static constexpr std::size_t scan_limit = 64;  // beyond this many freed nodes, a retry scans all

  void init() {
    const std::size_t n = jobs_.size();
    r_.first_start.assign(n, -1);
    r_.completed.assign(n, 0);
    r_.evictions.assign(n, 0);
    r_.lost_milli_s.assign(n, 0);
    st_.resize(n);
    by_arrival_.resize(n);
    std::iota(by_arrival_.begin(), by_arrival_.end(), std::uint32_t{0});
    std::stable_sort(by_arrival_.begin(), by_arrival_.end(), [&](std::uint32_t a, std::uint32_t b) { return jobs_[a].arrival < jobs_[b].arrival; });
    std::vector<std::uint32_t> order(by_arrival_);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const fleet_job &x = jobs_[a], &y = jobs_[b];
      if (x.priority != y.priority) return x.priority > y.priority;
      return x.arrival != y.arrival ? x.arrival < y.arrival : x.name < y.name;
    });
    rank_.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) rank_[order[i]] = i;
    for (std::uint32_t j = 0; j < n; ++j) st_[j].work_left = jobs_[j].duration;
    on_node_.resize(b_->inv().size());
    seen_.assign(b_->inv().size(), 0);
    job_seen_.assign(n, 0);
    network_jobs_ = std::ranges::any_of(jobs_, [](const fleet_job& x) { return x.gang.member.isolation == isolation_level::network; });
    for (node_index k = 0; k < b_->inv().size(); ++k) {
      const segment_id sg = b_->inv().spec(k).segment;
      if (sg == no_segment) continue;
      if (segment_nodes_.size() < sg) segment_nodes_.resize(sg);
      segment_nodes_[sg - 1].push_back(k);
    }
  }

  // Room freed by releasing p: its node, and when some job asks for network isolation, every
  // node of p's segment (the release may have opened the whole segment to a network job, or
  // to others when p held it), so that waiting jobs try them all.
  void note_freed(const placement& p) {
    freed_.push_back(p.node);
    if (!network_jobs_) return;
    if (const segment_id sg = b_->inv().spec(p.node).segment; sg != no_segment && sg <= segment_nodes_.size())
      freed_.insert(freed_.end(), segment_nodes_[sg - 1].begin(), segment_nodes_[sg - 1].end());
  }

  void enqueue(std::uint32_t j) {
    const auto at = std::lower_bound(queue_.begin(), queue_.end(), j, [&](std::uint32_t a, std::uint32_t b) { return rank_[a] < rank_[b]; });
    queue_.insert(at, j);
  }

  void departures(std::int64_t t) {
    while (!events_.empty() && events_.top().time == t) {
      const event e = events_.top();
      events_.pop();
      job_state& s = st_[e.job];
      if (e.what == kind::back) {
        enqueue(e.job);
        continue;
      }
      if (e.what == kind::hold) {
        b_->unhold(holds_[e.segment]);
        note_freed(holds_[e.segment]);
        continue;
      }
      if (e.what == kind::blocks) {
        unhold_victim_blocks(e.job, e.segment);
        continue;
      }
      if (!s.running || s.segment != e.segment) continue;  // stopped by a preemption since
      stop_running(e.job);
      r_.completed[e.job] = 1;
    }
  }

  // The job leaves the cluster: its resources released, something may fit again.
  void stop_running(std::uint32_t j) {
    job_state& s = st_[j];
    const run_segment& seg = r_.segments[s.segment];
    b_->release(j, members_of(seg));
    for (const placement& p : members_of(seg)) {
      auto& v = on_node_[p.node];
      if (const auto it = std::find(v.begin(), v.end(), j); it != v.end()) v.erase(it);  // once per node
    }
    const std::uint32_t last = running_.back();
    running_[s.running_at] = last;
    st_[last].running_at = s.running_at;
    running_.pop_back();
    s.running = false;
    s.running_at = none;
    for (const placement& p : members_of(seg)) note_freed(p);
  }

  // The node events at t: conditions set; the jobs on a node that went down stopped and
  // queued again; a node back up is room freed (queued jobs try it).
  void node_changes(std::int64_t t) {
    for (; next_node_ < o_.node_events.size() && o_.node_events[next_node_].time <= t; ++next_node_) {
      const node_event& e = o_.node_events[next_node_];
      b_->set_condition(e.node, e.condition);
      if (e.condition == node_condition::up) freed_.push_back(e.node);
      if (e.condition != node_condition::down) continue;
      failing_ = on_node_[e.node];
      for (const std::uint32_t j : failing_) fail_job(j, t);
    }
  }

  // Job j stops at t without notice (its node failed) and is queued again.
  void fail_job(std::uint32_t j, std::int64_t t) {
    job_state& s = st_[j];
    run_segment& seg = r_.segments[s.segment];
    stop_running(j);
    seg.failed = true;
    ++r_.failures;
    if (t <= seg.start) {  // placed after a preemption, not started yet: nothing ran, nothing lost
      seg.end = seg.start;
    } else {
      checkpoint_model at_once = o_.checkpoints;
      at_once.notice = seconds{0};
      at_once.checkpoint_write = std::max(at_once.checkpoint_write, seconds{1});  // no final checkpoint on a failure
      const stop_outcome o = stop_segment(at_once, seg.start, s.work_left, jobs_[j].checkpoint_every, t);
      seg.end = t;
      r_.lost_milli_s[j] += seg.gpu_milli * o.lost_s;
      s.work_left = o.work_left;
    }
    s.failed_at = never;
    enqueue(j);
  }

  [[nodiscard]] std::span<const placement> members_of(const run_segment& s) const noexcept { return {r_.members.data() + s.first, s.count}; }

  // Job j holds `placed` from now and runs from `start`.
  void start_running(std::uint32_t j, std::int64_t start) {
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
      auto& v = on_node_[p.node];
      if (std::find(v.begin(), v.end(), j) == v.end()) v.push_back(j);
    }
    s.segment = static_cast<std::uint32_t>(r_.segments.size());
    r_.segments.push_back(seg);
    s.running = true;
    s.running_at = static_cast<std::uint32_t>(running_.size());
    running_.push_back(j);
    if (r_.first_start[j] < 0) r_.first_start[j] = start;
    events_.push(event{seg.end, kind::done, j, s.segment});
  }

  void pass(std::int64_t t) {
    std::size_t keep = 0;
    for (std::size_t i = 0; i < queue_.size(); ++i) {
      const std::uint32_t j = queue_[i];
      if (!try_start(j, t)) queue_[keep++] = j;
    }
    queue_.resize(keep);
  }

  // A job that failed before is tried again only where something was freed since: a
  // one-member job only on those nodes (elsewhere nodes only filled up, and their candidate
  // victims are the ones it could not use then), any other job when anything was freed.
  [[nodiscard]] bool try_start(std::uint32_t j, std::int64_t t) {
    job_state& s = st_[j];
    const fleet_job& job = jobs_[j];
    const bool may_preempt = Preempt && !job.preemptible;
    const bool node_local = job.gang.size() == 1 && !job.gang.topology_bound() && !job.gang.picks_segment();
    bool limited = false;
    if (s.failed_at != never && !o_.rescan && !(may_preempt && o_.min_runtime > 0)) {
      if (s.failed_at == freed_.size()) return false;
      limited = node_local && freed_.size() - s.failed_at <= scan_limit;
    }
    if (limited) freed_nodes(s.failed_at);
    if ((!limited || any_admits(job)) && b_->place(job.gang, j, placed_)) {
      start_running(j, t);
      return true;
    }
    if (may_preempt && preempt_for(j, t, limited)) return true;
    s.failed_at = freed_.size();
    return false;
  }

  // The distinct nodes freed since log position `from`, into scan_.
  void freed_nodes(std::size_t from) {
    scan_.clear();
    if (++stamp_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0U);
      stamp_ = 1;
    }
    for (std::size_t i = from; i < freed_.size(); ++i)
      if (seen_[freed_[i]] != stamp_) {
        seen_[freed_[i]] = stamp_;
        scan_.push_back(freed_[i]);
      }
  }
  [[nodiscard]] bool any_admits(const fleet_job& job) const noexcept {
    return std::any_of(scan_.begin(), scan_.end(), [&](node_index n) { return default_constraints::admits(b_->inv(), n, job.gang.member); });
  }

  // The candidates a domain offers: eligible running jobs (of `ids`), as victims now.
  template <class Ids>
  void collect(const fleet_job& for_job, const Ids& ids, std::int64_t t) {
    cand_.clear();
    for (const std::uint32_t v : ids) {
      const fleet_job& vj = jobs_[v];
      const job_state& vs = st_[v];
      const run_segment& seg = r_.segments[vs.segment];
      if (!eligible_victim(vj.preemptible, vj.priority, seg.start, for_job.priority, t, o_.min_runtime)) continue;
      cand_.push_back(victim_of(o_.checkpoints, v, vj.priority, seg.gpu_milli, seg.start, vs.work_left, vj.checkpoint_every, t));
    }
  }

  // Releases the flagged candidates, asks test(), puts them back.
  template <class Test>
  [[nodiscard]] bool trial(victim_mask m, Test&& test) {
    for (std::size_t i = 0; i < cand_.size(); ++i)
      if (m[i] != 0) b_->release(cand_[i].job, members_of(r_.segments[st_[cand_[i].job].segment]));
    const bool ok = test();
    for (std::size_t i = cand_.size(); i-- > 0;)
      if (m[i] != 0) b_->restore(jobs_[cand_[i].job].gang, cand_[i].job, members_of(r_.segments[st_[cand_[i].job].segment]));
    return ok;
  }

  // Victims for job j under VP; `limited`: only on the nodes in scan_.
  [[nodiscard]] bool preempt_for(std::uint32_t j, std::int64_t t, bool limited) {
    const fleet_job& job = jobs_[j];
    sel_.reset();
    const bool per_node = job.gang.size() == 1 && !job.gang.topology_bound() && !job.gang.picks_segment();
    if (per_node) {
      const auto consider = [&](node_index n) {
        if (on_node_[n].empty()) return;
        collect(job, on_node_[n], t);
        sel_.consider(n, cand_, [&](victim_mask m) { return trial(m, [&] { return default_constraints::admits(b_->inv(), n, job.gang.member); }); });
      };
      if (limited) {
        std::sort(scan_.begin(), scan_.end());  // domains in node order, as a full scan meets them
        for (const node_index n : scan_) consider(n);
      } else {
        for (node_index n = 0; n < on_node_.size(); ++n) consider(n);
      }
    } else if (!consider_required_domains(j, t)) {
      collect(job, running_, t);
      sel_.consider(0, cand_, [&](victim_mask m) { return trial(m, [&] { return b_->fits(job.gang, j); }); });
    }
    if (!sel_.found()) return false;
    log_preemption(j, t);
    evict(t);
    const bool ok = per_node ? detail::place_on_node(*b_, sel_.domain(), job.gang.member, placed_) : b_->place(job.gang, j, placed_).has_value();
    GPURENT_ASSERT(ok);  // the trial found room
    if (o_.observer) [[unlikely]]
      o_.observer(preempt_decision{b_->inv(), t, j, victims_, placed_});
    hold_leftovers(t + o_.checkpoints.notice.count());
    hold_victims_tenancy();
    hold_victims_blocks();
    start_running(j, t + o_.checkpoints.notice.count());
    ++r_.preemptions;
    return true;
  }

  // A gang required inside one domain of a level (fleet.md's `required`) fits inside one
  // domain or not at all: each domain of that level is a candidate domain of its own, with
  // the jobs that have a member there (kube-scheduler's candidate node, for gangs). The
  // policy then searches each small set exactly instead of the whole cluster's at once.
  // False when the job has no required level or the backend no topology.
  [[nodiscard]] bool consider_required_domains(std::uint32_t j, std::int64_t t) {
    const fleet_job& job = jobs_[j];
    if constexpr (requires(B & b) { b.topology(); }) {
      if (job.gang.required == no_level) return false;
      const auto& domains = nodes_by_domain(b_->topology(), job.gang.required);
      for (domain_index d = 0; d < domains.size(); ++d) {
        if (++job_stamp_ == 0) {
          std::fill(job_seen_.begin(), job_seen_.end(), 0U);
          job_stamp_ = 1;
        }
        in_domain_.clear();
        for (const node_index n : domains[d])
          for (const std::uint32_t v : on_node_[n])
            if (job_seen_[v] != job_stamp_) {
              job_seen_[v] = job_stamp_;
              in_domain_.push_back(v);
            }
        collect(job, in_domain_, t);
        sel_.consider(d, cand_, [&](victim_mask m) { return trial(m, [&] { return b_->fits(job.gang, j); }); });
      }
      return true;
    } else {
      return false;
    }
  }

  // The nodes of each domain of level l, listed once per level (the topology never changes).
  [[nodiscard]] const std::vector<std::vector<node_index>>& nodes_by_domain(const cluster_topology& topo, level_index l) {
    if (by_level_.size() <= l) by_level_.resize(l + 1);
    auto& domains = by_level_[l];
    if (domains.empty() && topo.domain_count(l) > 0) {
      domains.resize(topo.domain_count(l));
      for (node_index n = 0; n < topo.node_count(); ++n)
        if (const domain_index d = topo.domain_of(n, l); d != outside_topology) domains[d].push_back(n);
    }
    return domains;
  }

  void log_preemption(std::uint32_t j, std::int64_t t) {
    run_preemption p;
    p.time = t;
    p.job = j;
    p.first = static_cast<std::uint32_t>(r_.victims.size());
    p.count = static_cast<std::uint32_t>(sel_.victims().size());
    r_.victims.insert(r_.victims.end(), sel_.victims().begin(), sel_.victims().end());
    p.other_first = static_cast<std::uint32_t>(r_.victims.size());
    p.other_count = static_cast<std::uint32_t>(sel_.runner_up().size());
    r_.victims.insert(r_.victims.end(), sel_.runner_up().begin(), sel_.runner_up().end());
    r_.preemption_log.push_back(p);
  }

  // What the victims hold beyond the preemptor's placements stays taken until they stop:
  // per node, max(0, victims' - preemptor's) of each GPU, CPU and memory, as one placement
  // released at `until` (so nothing else lands on a victim that still runs its notice).
  void hold_leftovers(std::int64_t until) {
    if (until <= now_) return;
    for (const placement& p : placed_) take_back(p, -1);
    for (const auto& [n, acc] : leftover_) {
      placement h;
      h.node = n;
      h.cpu_milli = std::max<std::int64_t>(0, acc.cpu);
      h.memory_mib = std::max<std::int64_t>(0, acc.memory);
      for (std::size_t g = 0; g < max_gpus_per_node; ++g)
        if (acc.milli[g] > 0) h.gpus[h.count++] = gpu_take{static_cast<std::uint8_t>(g), static_cast<std::int16_t>(acc.milli[g]), -1, 0};
      if (h.count == 0 && h.cpu_milli == 0 && h.memory_mib == 0) continue;
      b_->hold(h);
      holds_.push_back(h);
      events_.push(event{until, kind::hold, 0, static_cast<std::uint32_t>(holds_.size() - 1)});
    }
    leftover_.clear();
  }
  // A victim still runs in its notice window: its tenancy stays on its nodes, and so on their
  // segments, as a hold of no resources until it stops, so that an isolated victim keeps
  // strangers off, and an isolated newcomer does not land beside a victim still running.
  void hold_victims_tenancy() {
    for (const victim& v : victims_) {
      const run_segment& seg = r_.segments[st_[v.job].segment];
      if (seg.end <= now_) continue;
      for (const placement& p : members_of(seg)) {
        placement h;
        h.node = p.node;
        h.tenant = p.tenant;
        h.isolation = p.isolation;
        b_->hold(h);
        holds_.push_back(h);
        events_.push(event{seg.end, kind::hold, 0, static_cast<std::uint32_t>(holds_.size() - 1)});
      }
    }
  }
  // An exclusive victim still runs in its notice window: no other gang may land in its base
  // blocks until it stops (gang backends; the preemptor is placed already).
  void hold_victims_blocks() {
    for (const victim& v : victims_) {
      const std::uint32_t segment = st_[v.job].segment;
      const run_segment& seg = r_.segments[segment];
      if (seg.end <= now_ || !jobs_[v.job].gang.exclusive) continue;
      b_->hold_blocks(v.job, members_of(seg));
      events_.push(event{seg.end, kind::blocks, v.job, segment});
    }
  }
  // Every node of those blocks may take a job again: all go to the retry log.
  void unhold_victim_blocks(std::uint32_t j, std::uint32_t segment) {
    const auto members = members_of(r_.segments[segment]);
    b_->unhold_blocks(j, members);
    if constexpr (requires(B & b) { b.topology(); }) {
      const cluster_topology& topo = b_->topology();
      const auto& blocks = nodes_by_domain(topo, topo.block_level());
      for (std::size_t i = 0; i < members.size(); ++i) {
        const domain_index b = topo.block_of(members[i].node);
        const bool first = std::none_of(members.begin(), members.begin() + static_cast<std::ptrdiff_t>(i),
                                        [&](const placement& p) { return topo.block_of(p.node) == b; });
        if (b != outside_topology && first) freed_.insert(freed_.end(), blocks[b].begin(), blocks[b].end());
      }
    }
  }

  // Adds (sign 1) or subtracts (-1) p into its node's leftover.
  void take_back(const placement& p, int sign) {
    auto it = std::find_if(leftover_.begin(), leftover_.end(), [&](const auto& x) { return x.first == p.node; });
    if (it == leftover_.end()) {
      if (sign < 0) return;  // the preemptor on a node no victim held
      leftover_.emplace_back(p.node, held_room{});
      it = leftover_.end() - 1;
    }
    it->second.cpu += sign * p.cpu_milli;
    it->second.memory += sign * p.memory_mib;
    for (std::size_t g = 0; g < p.count; ++g) it->second.milli[p.gpus[g].gpu] += sign * p.gpus[g].milli;
  }

  // The chosen victims stop at t + notice (or complete before); their room goes now.
  void evict(std::int64_t t) {
    victims_.assign(sel_.victims().begin(), sel_.victims().end());
    leftover_.clear();
    for (const victim& v : victims_)
      for (const placement& p : members_of(r_.segments[st_[v.job].segment])) take_back(p, 1);
    for (const victim& v : victims_) {
      job_state& s = st_[v.job];
      const fleet_job& vj = jobs_[v.job];
      run_segment& seg = r_.segments[s.segment];
      const stop_outcome o = stop_segment(o_.checkpoints, seg.start, s.work_left, vj.checkpoint_every, t);
      stop_running(v.job);
      seg.end = o.stop;
      if (o.completes) {
        r_.completed[v.job] = 1;
        continue;
      }
      seg.preempted = true;
      ++r_.evictions[v.job];
      r_.lost_milli_s[v.job] += seg.gpu_milli * o.lost_s;
      s.work_left = o.work_left;
      events_.push(event{o.stop, kind::back, v.job, s.segment});
    }
  }

  B* b_;
  std::span<const fleet_job> jobs_;
  run_options o_;
  run_result r_;
  std::vector<job_state> st_;
  std::vector<std::uint32_t> by_arrival_;
  std::vector<std::uint32_t> rank_;
  std::vector<std::uint32_t> queue_;
  std::vector<std::uint32_t> running_;
  std::vector<std::vector<std::uint32_t>> on_node_;
  std::priority_queue<event, std::vector<event>, std::greater<>> events_;
  std::vector<placement> placed_;
  std::vector<victim> cand_;
  std::vector<victim> victims_;
  struct held_room {
    std::int64_t cpu = 0, memory = 0;
    std::array<std::int32_t, max_gpus_per_node> milli{};
  };
  std::vector<std::pair<node_index, held_room>> leftover_;
  std::vector<placement> holds_;
  victim_selector<VP> sel_;
  std::vector<node_index> freed_;                       // every node a release touched, in order (the retry log)
  std::vector<std::vector<node_index>> segment_nodes_;  // per segment id - 1: its nodes
  bool network_jobs_ = false;                           // some job asks for network isolation
  std::vector<node_index> scan_;
  std::vector<std::uint32_t> seen_;
  std::uint32_t stamp_ = 0;
  std::int64_t now_ = 0;
  std::uint64_t instants_ = 0;
  std::size_t next_node_ = 0;
  std::vector<std::uint32_t> failing_;
  std::vector<std::vector<std::vector<node_index>>> by_level_;  // nodes_by_domain
  std::vector<std::uint32_t> job_seen_;                         // per job: job_stamp_ when listed
  std::vector<std::uint32_t> in_domain_;
  std::uint32_t job_stamp_ = 0;
};

// Runs jobs on backend b under victim policy VP (Preempt false: no preemption).
template <VictimPolicy VP, bool Preempt, Placer B>
[[nodiscard]] run_result run_fleet(B& b, std::span<const fleet_job> jobs, const run_options& o) {
  fleet_runner<B, VP, Preempt> r(b, jobs, o);
  return r.run();
}

// Why each job that never started could never fit, into r.never_started: the placer's
// explanation with its counts, asked of backend b as the run left it (a run ends when no
// queued job can ever fit, every other job gone; down nodes still down). Apart from the run,
// so that the run's loop allocates nothing for it.
template <Placer B>
void explain_never_started(B& b, std::span<const fleet_job> jobs, run_result& r) {
  r.never_started.clear();
  for (std::size_t j = 0; j < jobs.size() && j < r.first_start.size(); ++j)
    if (r.first_start[j] < 0) r.never_started.push_back({static_cast<std::uint32_t>(j), b.explain(jobs[j].gang).summary()});
}

}  // namespace gpurent
