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
// flagged candidates through the Placer, asks it, and restores them exactly; a test on one
// node or inside one domain releases only their members there (trial_parts; the slow twin
// releases every member). After the caller stops the victims, place() puts the preemptor
// in their room (by the Placer's policy, as any placement) and hold_for() keeps what the
// victims still hold until they stop (holds.hpp). Nothing allocates once grown.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <tuple>
#include <type_traits>
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
    const bool scoped = !exhaustive_ && pl_->inv().held_segments() == 0 && !g.network_isolated();  // see trial_parts
    // Does test() hold with the candidates flagged in m released? They are restored after.
    // Only the members on nodes where inside(n) are released (trial_parts).
    const auto trial = [&](std::span<const victim> cands, victim_mask m, auto&& test, auto&& inside) {
      trial_parts(cands, m, members, inside, scoped);
      for (std::size_t i = 0; i < cands.size(); ++i)
        if (m[i] != 0) pl_->release(cands[i].job, part(i, members(cands[i].job)));
      const bool ok = test();
      for (std::size_t i = cands.size(); i-- > 0;)
        if (m[i] != 0) pl_->restore(gang(cands[i].job), cands[i].job, part(i, members(cands[i].job)));
      return ok;
    };
    const auto search = [&](std::uint32_t domain, std::span<const victim> cands, auto&& test, auto&& inside) {
      sel_.consider(domain, cands, [&](victim_mask m) { return trial(cands, m, test, inside); });
    };
    const auto consider = [&](std::uint32_t domain, std::span<const std::uint32_t> ids, auto&& test, auto&& inside) {
      collect(ids, candidate);
      search(domain, cand_, test, inside);
    };
    const auto fits = [&] { return pl_->fits(g, j); };
    if (g.node_local()) {
      const auto on_node = [&](node_index n) {
        if (!running_->on(n).empty())
          consider(
              n, running_->on(n), [&] { return pl_->admits(n, g, j); }, [n](node_index x) { return x == n; });
      };
      if (freed != nullptr) {
        sorted_.assign(freed->begin(), freed->end());
        std::sort(sorted_.begin(), sorted_.end());  // domains in node order, as a full scan meets them
        for (const node_index n : sorted_) on_node(n);
      } else {
        for (node_index n = 0; n < running_->node_count(); ++n) on_node(n);
      }
    } else if constexpr (DomainPlacer<Pl>) {
      if (!by_domains(g, j, freed, candidate, search) && !by_segments(g, j, candidate, trial, search))
        consider(0, running_->all(), fits, everywhere{});
    } else if (!domains_.for_each(g.required, *running_, [&](std::uint32_t d, std::span<const std::uint32_t> ids, std::span<const std::int64_t>) {
                 consider(d, ids, fits, everywhere{});
               })) {
      consider(0, running_->all(), fits, everywhere{});
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
  // A preemptor that leaves before it starts: its room held until `until` (holds.hpp).
  void hold_placed(std::span<const placement> placed, fleet_time until) { holds_.hold_placed(placed, until); }
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
  template <class Candidate, class Search>
  [[nodiscard]] bool by_domains(const gang_request& g, gang_id j, const std::span<const node_index>* freed, Candidate& candidate, Search& search) {
    if (!domain_searched(g) || g.required == no_level) return false;
    const level_index level = g.required;
    const std::int64_t size = g.units();
    if (freed != nullptr) domains_.domains_of(level, *freed, near_);
    plan_level(g, level, candidate, freed != nullptr ? &near_ : nullptr);
    for (const domain_plan::entry& e : plan_.entries()) {
      if (!exhaustive_ && sel_.found() && cost_ranked && e.bound > std::get<0>(sel_.rank())) break;
      const node_index in = domains_.nodes(level, e.domain).front();
      search(
          e.domain, plan_.victims(e), [&] { return pl_->units(g, j, level, in) >= size; }, in_domain(level, e.domain));
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
  template <class Candidate, class Trial, class Search>
  [[nodiscard]] bool by_segments(const gang_request& g, gang_id j, Candidate& candidate, Trial& trial, Search& search) {
    if (!domain_searched(g) || g.segment <= 0 || g.required != no_level) return false;
    const auto missing =
        static_cast<std::size_t>(std::max<std::int64_t>(0, static_cast<std::int64_t>(g.size()) / g.segment - pl_->units(g, j, no_level, 0)));
    if (missing == 0) return false;  // room for the segments: it fails for another reason
    const level_index block = pl_->topology().block_level();
    gang_request one = g;
    one.workers = g.segment;
    plan_level(one, block, candidate);
    picks_.clear();
    picked_.clear();
    for (const domain_plan::entry& e : plan_.entries()) {
      if (!exhaustive_ && cost_ranked && picks_.size() >= missing && e.bound > std::get<0>(picks_[missing - 1].rank)) break;
      const node_index in = domains_.nodes(block, e.domain).front();
      const std::int64_t now = pl_->units(one, j, block, in);
      const std::span<const victim> cands = plan_.victims(e);
      const auto more = [&] { return pl_->units(one, j, block, in) > now; };
      if (!VP::select(
              cands, [&](victim_mask m) { return trial(cands, m, more, in_domain(block, e.domain)); }, mask_, order_))
        continue;
      pick(e.domain, cands);
    }
    if (picks_.size() < missing) return false;
    joined_.clear();
    for (std::size_t k = 0; k < missing; ++k)
      for (const victim& v : std::span<const victim>(picked_.data() + picks_[k].first, picks_[k].count))
        if (std::none_of(joined_.begin(), joined_.end(), [&](const victim& w) { return w.job == v.job; })) joined_.push_back(v);
    search(
        0, joined_, [&] { return pl_->fits(g, j); }, everywhere{});
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
  template <class Candidate>
  void plan_level(const gang_request& g, level_index l, Candidate& candidate, const std::vector<domain_index>* only = nullptr) {
    const std::int64_t demand = g.member.is_mig() ? 0 : static_cast<std::int64_t>(g.size()) * g.member.gpu_request_milli();
    plan_.clear();
    typename candidate_domains<Pl>::room at;  // of the domain keep() was asked about last: the one f() lists
    const auto keep = [&](domain_index d) {
      at = domains_.room_of(l, d, pl_->inv(), *running_);
      return exhaustive_ || at.preemptible >= demand - at.idle;
    };
    domains_.for_each(
        l, *running_,
        [&](std::uint32_t d, std::span<const std::uint32_t> ids, std::span<const std::int64_t> held) {
          plan_.begin(d);
          for (std::size_t k = 0; k < ids.size(); ++k)
            if (const std::optional<victim> c = candidate(ids[k])) plan_.add(*c, held[k]);
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

  // Which members of a trial's victims are released. A fit test on node n or inside one
  // domain counts only the nodes there, and the members elsewhere change nothing there
  // (capacity, node tenancy and exclusive blocks are per node or per block) unless a network
  // segment is in play: a segment's tenants span domains, so while any segment is held in
  // isolation, or for a network-isolated job, every member is released. Releasing fewer
  // members is the same answer for less work: a victim of 128 nodes tried for one block
  // releases its 16 members there, and the placer recounts that block alone afterwards.
  struct everywhere {
    constexpr bool operator()(node_index) const noexcept { return true; }
  };
  [[nodiscard]] auto in_domain(level_index l, std::uint32_t d) const {
    return [topo = &pl_->topology(), l, d](node_index n) { return topo->domain_of(n, l) == d; };
  }
  // The members of each flagged candidate that a trial releases, kept in parts_ (whole: all);
  // `scoped`: this decision's trials may release members in part (choose decides).
  template <class Members, class Inside>
  void trial_parts(std::span<const victim> cands, victim_mask m, Members& members, Inside& inside, bool scoped) {
    parts_.resize(cands.size());
    part_members_.clear();
    for (std::size_t i = 0; i < cands.size(); ++i) {
      parts_[i] = part_at{0, 0, true};
      if (m[i] == 0 || !scoped || std::is_same_v<std::remove_cvref_t<Inside>, everywhere>) continue;
      parts_[i] = part_at{static_cast<std::uint32_t>(part_members_.size()), 0, false};
      for (const placement& p : members(cands[i].job))
        if (inside(p.node)) {
          part_members_.push_back(p);
          ++parts_[i].count;
        }
    }
  }
  [[nodiscard]] std::span<const placement> part(std::size_t i, std::span<const placement> all) const noexcept {
    return parts_[i].whole ? all : std::span<const placement>(part_members_.data() + parts_[i].first, parts_[i].count);
  }

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
  struct part_at {
    std::uint32_t first = 0, count = 0;
    bool whole = true;
  };
  std::vector<part_at> parts_;           // per candidate of a trial: what it releases
  std::vector<placement> part_members_;  // the parts that are not whole
  victim_holds<Pl> holds_{*pl_, domains_};
};

}  // namespace gpurent
