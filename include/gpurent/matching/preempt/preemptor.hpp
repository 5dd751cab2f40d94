// SPDX-License-Identifier: MIT
#pragma once
// Preemption on a Placer (placer.hpp): for a job that does not fit, the running jobs whose
// removal makes it fit, chosen by a VictimPolicy (victims.hpp) over candidate domains, and
// the holds that keep the victims' room while they run out their notice window.
//
// Candidate domains (kube-scheduler's candidate node, generalized):
//  - a one-member job without topology rules: each node with running jobs, fit tested by the
//    placement constraints on that node alone (after a limited retry, only the nodes freed
//    since the job last failed, in node order, as a full scan meets them);
//  - a job required inside one domain of a topology level: each domain of that level, with
//    the jobs that have a member there (each small set searched exactly); on a Placer that
//    counts a gang's room per domain (DomainPlacer), a set must make room for the job inside
//    the domain, and the domains are visited in the plan's order (plan.hpp: domains that
//    cannot give a set, or only a dearer one than found, are not searched);
//  - on such a Placer, a gang of segments with no required level: composed block by block
//    (by_segments);
//  - any other job: the whole cluster, with every running job.
// set_exhaustive visits every domain in order (the slow twin). A fit test releases the
// flagged candidates through the Placer, asks it, and restores them exactly. After the
// caller stops the victims, place() puts the preemptor in their room (by the Placer's
// policy, as any placement) and hold_for() keeps what the victims still hold until they stop
// (holds.hpp). Nothing allocates once grown.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/fleet_time.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/preempt/domains.hpp>
#include <gpurent/matching/preempt/holds.hpp>
#include <gpurent/matching/preempt/plan.hpp>
#include <gpurent/matching/preempt/running.hpp>
#include <gpurent/matching/preempt/victims.hpp>

namespace gpurent {

template <Placer Pl, VictimPolicy VP>
class preemptor {
 public:
  preemptor(Pl& placer, const running_jobs& running) : pl_(&placer), running_(&running), domains_(placer) {}
  preemptor(const preemptor&) = delete;  // holds_ points into domains_
  preemptor& operator=(const preemptor&) = delete;

  // Chooses victims for job g (id j), or false. candidate(v) is running job v as a victim
  // now (nullopt: not eligible); members(v) its placements; gang(v) its request. `freed`,
  // when not null (a limited retry: the nodes freed since the job last failed, when every
  // other node only filled up and so still cannot make room): a one-member job's candidate
  // nodes are these alone, a gang required inside a domain's the domains holding them.
  template <class Candidate, class Members, class GangOf>
  [[nodiscard]] bool choose(const gang_request& g, gang_id j, const std::span<const node_index>* freed, Candidate&& candidate, Members&& members,
                            GangOf&& gang) {
    sel_.reset();
    // Does test() hold with the candidates flagged in m released? They are restored after.
    const auto trial = [&](std::span<const victim> cands, victim_mask m, auto&& test) {
      for (std::size_t i = 0; i < cands.size(); ++i)
        if (m[i] != 0) pl_->release(cands[i].job, members(cands[i].job));
      const bool ok = test();
      for (std::size_t i = cands.size(); i-- > 0;)
        if (m[i] != 0) pl_->restore(gang(cands[i].job), cands[i].job, members(cands[i].job));
      return ok;
    };
    const auto search = [&](std::uint32_t domain, std::span<const victim> cands, auto&& test) {
      sel_.consider(domain, cands, [&](victim_mask m) { return trial(cands, m, test); });
    };
    const auto consider = [&](std::uint32_t domain, std::span<const std::uint32_t> ids, auto&& test) {
      collect(ids, candidate);
      search(domain, cand_, test);
    };
    const auto fits = [&] { return pl_->fits(g, j); };
    if (g.node_local()) {
      const auto on_node = [&](node_index n) {
        if (!running_->on(n).empty()) consider(n, running_->on(n), [&] { return pl_->admits(n, g, j); });
      };
      if (freed != nullptr) {
        sorted_.assign(freed->begin(), freed->end());
        std::sort(sorted_.begin(), sorted_.end());  // domains in node order, as a full scan meets them
        for (const node_index n : sorted_) on_node(n);
      } else {
        for (node_index n = 0; n < running_->node_count(); ++n) on_node(n);
      }
    } else if constexpr (DomainPlacer<Pl>) {
      if (!by_domains(g, j, freed, candidate, members, search) && !by_segments(g, j, candidate, members, trial, search))
        consider(0, running_->all(), fits);
    } else if (!domains_.for_each(g.required, *running_, [&](std::uint32_t d, std::span<const std::uint32_t> ids) { consider(d, ids, fits); })) {
      consider(0, running_->all(), fits);
    }
    return sel_.found();
  }

  // Visit every candidate domain in order, without skipping any (preempt/plan.hpp): the slow
  // twin that the fleet's naive loop uses to check the plan.
  void set_exhaustive(bool on) noexcept { exhaustive_ = on; }

  [[nodiscard]] const victim_selector<VP>& selection() const noexcept { return sel_; }

  // Places job g (id j) once the chosen victims are released, by the Placer's own policy
  // (fleet run's --policy), as any other placement: the trial showed that it fits.
  [[nodiscard]] bool place(const gang_request& g, gang_id j, std::vector<placement>& out) { return pl_->place(g, j, out).has_value(); }

  // What the stopped victims still hold at `now`: beyond the preemptor's `placed`, their
  // resources until `until` (the notice's end); their tenancy and exclusive blocks until
  // each stops (holds.hpp).
  void hold_for(fleet_time now, fleet_time until, std::span<const placement> placed, std::span<const stopped_victim> victims) {
    holds_.hold_for(now, until, placed, victims);
  }
  // Gives back every hold that ends at or before t: freed_room(h) for held room,
  // freed_node(n) for each node of a block that is open again.
  template <class FreedRoom, class FreedNode>
  void expire(fleet_time t, FreedRoom&& freed_room, FreedNode&& freed_node) {
    holds_.expire(t, freed_room, freed_node);
  }
  // The earliest instant a hold ends (never_ends: none).
  static constexpr fleet_time never_ends = victim_holds<Pl>::never_ends;
  [[nodiscard]] fleet_time next_expiry() const noexcept { return holds_.next_expiry(); }

 private:
  // A gang of like members required inside one domain of a level: each domain of the level
  // a candidate of its own, a set one that makes room for the whole gang inside it, the
  // domains searched in the plan's order (plan.hpp). False: not such a gang.
  template <class Candidate, class Members, class Search>
  [[nodiscard]] bool by_domains(const gang_request& g, gang_id j, const std::span<const node_index>* freed, Candidate& candidate, Members& members,
                                Search& search) {
    if (!domain_searched(g) || g.required == no_level) return false;
    const level_index level = g.required;
    const std::int64_t size = g.units();
    if (freed != nullptr) domains_.domains_of(level, *freed, near_);
    plan_level(g, level, candidate, members, freed != nullptr ? &near_ : nullptr);
    for (const domain_plan::entry& e : plan_.entries()) {
      if (!exhaustive_ && sel_.found() && cost_ranked && e.bound > std::get<0>(sel_.rank())) break;
      const node_index in = domains_.nodes(level, e.domain).front();
      search(e.domain, plan_.victims(e), [&] { return pl_->units(g, j, level, in) >= size; });
    }
    return true;
  }

  // A gang of segments with no required level (a training gang on NVL72 blocks): each segment
  // goes inside one block, so its victims compose block by block. Each block's set that lets
  // it take one more segment than now (the policy's choice among the block's jobs, in the
  // plan's order, which stops once `missing` blocks were found and the next bound is dearer
  // than the missing-th best); the best `missing` blocks by the policy's rank (ties: block
  // order) joined; the set then chosen among the jobs of that union for the whole gang, by the
  // policy, as any domain. False: not such a gang, or the union gave no set (the whole
  // cluster is searched then).
  template <class Candidate, class Members, class Trial, class Search>
  [[nodiscard]] bool by_segments(const gang_request& g, gang_id j, Candidate& candidate, Members& members, Trial& trial, Search& search) {
    if (!domain_searched(g) || g.segment <= 0 || g.required != no_level) return false;
    const auto missing =
        static_cast<std::size_t>(std::max<std::int64_t>(0, static_cast<std::int64_t>(g.size()) / g.segment - pl_->units(g, j, no_level, 0)));
    if (missing == 0) return false;  // room for the segments: it fails for another reason
    const level_index block = pl_->topology().block_level();
    gang_request one = g;
    one.workers = g.segment;
    plan_level(one, block, candidate, members);
    picks_.clear();
    picked_.clear();
    for (const domain_plan::entry& e : plan_.entries()) {
      if (!exhaustive_ && cost_ranked && picks_.size() >= missing && e.bound > std::get<0>(picks_[missing - 1].rank)) break;
      const node_index in = domains_.nodes(block, e.domain).front();
      const std::int64_t now = pl_->units(one, j, block, in);
      const std::span<const victim> cands = plan_.victims(e);
      if (!VP::select(
              cands, [&](victim_mask m) { return trial(cands, m, [&] { return pl_->units(one, j, block, in) > now; }); }, mask_, order_))
        continue;
      pick(e.domain, cands);
    }
    if (picks_.size() < missing) return false;
    joined_.clear();
    for (std::size_t k = 0; k < missing; ++k)
      for (const victim& v : std::span<const victim>(picked_.data() + picks_[k].first, picks_[k].count))
        if (std::none_of(joined_.begin(), joined_.end(), [&](const victim& w) { return w.job == v.job; })) joined_.push_back(v);
    search(0, joined_, [&] { return pl_->fits(g, j); });
    return sel_.found();
  }

  // Keeps block d's chosen set (mask_ over cands) among the picks, in (rank, block) order.
  void pick(std::uint32_t d, std::span<const victim> cands) {
    const block_pick p{VP::rank(cands, victim_mask(mask_)), d, static_cast<std::uint32_t>(picked_.size()), 0};
    const auto at = std::upper_bound(picks_.begin(), picks_.end(), p, [](const block_pick& x, const block_pick& y) {
      return std::tie(x.rank, x.domain) < std::tie(y.rank, y.domain);
    });
    auto it = picks_.insert(at, p);
    for (std::size_t i = 0; i < cands.size(); ++i)
      if (mask_[i] != 0) {
        picked_.push_back(cands[i]);
        ++it->count;
      }
  }

  // A gang whose room the domains of a level can count (DomainPlacer::units).
  [[nodiscard]] bool domain_searched(const gang_request& g) const noexcept { return pl_->topology().level_count() > 0 && g.counted_by_domain(); }

  // The plan of level l's domains for g: each domain's eligible candidates with the GPUs
  // they hold inside it, against what g needs there beyond the domain's idle GPUs. A domain
  // whose preemptible jobs hold less than that is left out before its jobs are listed (the
  // plan would leave it out too); the exhaustive twin lists every domain.
  template <class Candidate, class Members>
  void plan_level(const gang_request& g, level_index l, Candidate& candidate, Members& members, const std::vector<domain_index>* only = nullptr) {
    const cluster_topology& topo = pl_->topology();
    const std::int64_t demand = g.member.is_mig() ? 0 : static_cast<std::int64_t>(g.size()) * g.member.gpu_request_milli();
    plan_.clear();
    typename candidate_domains<Pl>::room at;  // of the domain keep() was asked about last: the one f() lists
    const auto keep = [&](domain_index d) {
      at = domains_.room_of(l, d, pl_->inv(), *running_);
      return exhaustive_ || at.preemptible >= demand - at.idle;
    };
    domains_.for_each(
        l, *running_,
        [&](std::uint32_t d, std::span<const std::uint32_t> ids) {
          plan_.begin(d);
          for (const std::uint32_t v : ids) {
            const std::optional<victim> c = candidate(v);
            if (!c) continue;
            std::int64_t inside = 0;
            for (const placement& p : members(v))
              if (topo.domain_of(p.node, l) == d) inside += p.gpu_milli_total();
            plan_.add(*c, inside);
          }
          plan_.end(demand - at.idle, !exhaustive_, cost_ranked && !exhaustive_);
        },
        only, keep);
    if (!exhaustive_) plan_.order();
  }

  static constexpr bool cost_ranked = requires { VP::cost_ranked; };
  struct block_pick {
    victim_rank rank;
    std::uint32_t domain;
    std::uint32_t first, count;  // its victims: picked_[first, first + count)
  };

  template <class Candidate>
  void collect(std::span<const std::uint32_t> ids, Candidate& candidate) {
    cand_.clear();
    for (const std::uint32_t v : ids)
      if (const std::optional<victim> c = candidate(v)) cand_.push_back(*c);
  }

  Pl* pl_;
  const running_jobs* running_;
  candidate_domains<Pl> domains_;
  domain_plan plan_;
  bool exhaustive_ = false;
  std::vector<block_pick> picks_;  // by_segments: each block's set, best first
  std::vector<victim> picked_;
  std::vector<victim> joined_;
  std::vector<std::uint8_t> mask_;
  std::vector<std::uint32_t> order_;
  victim_selector<VP> sel_;
  std::vector<victim> cand_;
  std::vector<node_index> sorted_;
  std::vector<domain_index> near_;  // by_domains: the domains of the freed nodes
  victim_holds<Pl> holds_{*pl_, domains_};
};

}  // namespace gpurent
