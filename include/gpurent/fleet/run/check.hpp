// SPDX-License-Identifier: MIT
#pragma once
// The placement rules of docs/formats/fleet.md over time (`fleet run --check`): at every instant at which a run
// segment starts, the segments running then ([start, end), zero-length ones hold nothing) are
// checked against the rules of check_gangs (matching/gang/check.hpp, sharing no code with the
// placer): capacity, all members or none, per_node, required, segments, exclusive. A rule can
// only break when something starts, so these instants cover the whole run; `violations` sums,
// over them, the members running against a rule then.
//
// Incrementally, counting the same: a segment's own rules (gang_rules::own) are checked once,
// when it starts; the shared ones (capacity and tenancy per node, exclusive per base block,
// tenancy per network segment) only where the running members changed since the last
// instant, one *place* at a time: a base block, a node outside the topology, or "nowhere"
// (members naming no node); when a job asks for network isolation, the blocks and nodes a
// network segment touches are one place (detail::check_places). Each place keeps its count
// of members against a rule, and every instant adds the sum of the counts.
// fleet/reference/check.hpp checks every running segment at every instant, the twin that
// tests/fleet/run_check.test.cpp compares this with.
//
// It reads only the segments and their members, not the loop's bookkeeping, so a test can
// build a run_result from a placements CSV and check that the same way. Node conditions are
// the cluster's as given; a run with node events is checked against the conditions it went
// through instead (fleet/run/check_conditions.hpp: a member against them counts as against
// one of its own rules).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/check_conditions.hpp>
#include <gpurent/fleet/run/run.hpp>
#include <gpurent/matching/gang/check.hpp>

namespace gpurent {

// "at T s: job NAME run R member M: why".
[[nodiscard]] inline std::string run_check_message(fleet_time t, std::span<const fleet_job> jobs, const run_segment& s, std::size_t member,
                                                   const std::string& why) {
  return "at " + std::to_string(t.count()) + " s: job " + jobs[s.job].name + " run " + std::to_string(s.run) + " member " + std::to_string(member) +
         ": " + why;
}

namespace detail {

// Each node's place for run_rules_check: 0 for "nowhere", 1 + b for base block b, 1 + blocks
// + n for node n outside the topology. With a job under network isolation, places that hold
// nodes of one network segment are merged (union-find, to the lowest), so that its tenancy
// is checked where all its members are. Indexed by node; nodes out of range have place 0.
[[nodiscard]] inline std::vector<std::uint32_t> check_places(const fleet_cluster& c, std::span<const fleet_job> jobs, std::size_t blocks) {
  const inventory& inv = c.inv;
  std::vector<std::uint32_t> place(inv.size());
  for (node_index n = 0; n < inv.size(); ++n)
    place[n] = static_cast<std::uint32_t>(c.topology.in_topology(n) ? 1 + c.topology.block_of(n) : 1 + blocks + n);
  if (std::none_of(jobs.begin(), jobs.end(), [](const fleet_job& j) { return j.gang.network_isolated(); })) return place;
  std::vector<std::uint32_t> parent(1 + blocks + inv.size());
  for (std::uint32_t p = 0; p < parent.size(); ++p) parent[p] = p;
  const auto root = [&](std::uint32_t p) {
    while (parent[p] != p) p = parent[p] = parent[parent[p]];
    return p;
  };
  std::vector<std::uint32_t> first;  // per segment id - 1: a place holding one of its nodes (0: none yet)
  for (node_index n = 0; n < inv.size(); ++n) {
    const segment_id sg = inv.spec(n).segment;
    if (sg == no_segment) continue;
    if (first.size() < sg) first.resize(sg, 0);
    if (first[sg - 1] == 0) first[sg - 1] = place[n];
    const std::uint32_t a = root(place[n]), b = root(first[sg - 1]);
    parent[std::max(a, b)] = std::min(a, b);
  }
  for (std::uint32_t& p : place) p = root(p);
  return place;
}

// The inventory whose conditions the gang rules read: the cluster's, or with node events
// every node up (check_run_conditions judges the conditions then).
[[nodiscard]] inline inventory rules_inventory(const fleet_cluster& c, const node_history& h) {
  inventory inv = c.inv;
  if (!h.events.empty())
    for (node_index n = 0; n < inv.size(); ++n) inv.set_condition(n, node_condition::up);
  return inv;
}

class run_rules_check {
 public:
  run_rules_check(const fleet_cluster& c, std::span<const fleet_job> jobs, const run_result& r, const node_history& h)
      : c_(c),
        jobs_(jobs),
        r_(r),
        inv_(rules_inventory(c, h)),
        conditions_(check_run_conditions(c, h, r)),
        blocks_(c.topology.level_count() == 0 ? 0 : c.topology.domain_count(c.topology.block_level())),
        place_(check_places(c, jobs, blocks_)) {
    const std::size_t places = 1 + blocks_ + c.inv.size();
    at_.resize(places);
    counted_.assign(places, 0);
    is_dirty_.assign(places, 0);
    own_first_.resize(r.segments.size() + 1, 0);
    for (std::size_t i = 0; i < r.segments.size(); ++i) own_first_[i + 1] = own_first_[i] + r.segments[i].count;
    own_.assign(own_first_.back(), 0);
  }

  [[nodiscard]] gang_check_result run() {
    std::vector<std::uint32_t> starts, ends;
    for (std::uint32_t i = 0; i < r_.segments.size(); ++i)
      if (r_.segments[i].end > r_.segments[i].start) starts.push_back(i);
    ends = starts;
    std::stable_sort(starts.begin(), starts.end(), [&](std::uint32_t x, std::uint32_t y) { return r_.segments[x].start < r_.segments[y].start; });
    std::stable_sort(ends.begin(), ends.end(), [&](std::uint32_t x, std::uint32_t y) { return r_.segments[x].end < r_.segments[y].end; });
    std::size_t e = 0;
    for (std::size_t i = 0; i < starts.size();) {
      const fleet_time t = r_.segments[starts[i]].start;
      for (; e < ends.size() && r_.segments[ends[e]].end <= t; ++e) leave(ends[e]);  // all started before t
      for (; i < starts.size() && r_.segments[starts[i]].start == t; ++i) enter(starts[i], t);
      for (const std::uint32_t p : dirty_) recount(p, t);
      dirty_.clear();
      out_.violations += against_;
    }
    return std::move(out_);
  }

 private:
  struct entry {
    std::uint32_t segment = 0;
    std::uint32_t member = 0;
  };

  [[nodiscard]] std::uint32_t place_of(node_index n) const noexcept { return n < place_.size() ? place_[n] : 0; }
  void touch(std::uint32_t p) {
    if (is_dirty_[p] == 0) dirty_.push_back(p);
    is_dirty_[p] = 1;
  }

  // A segment starts: its own rules, once; its members join their places.
  void enter(std::uint32_t seg, fleet_time t) {
    const run_segment& s = r_.segments[seg];
    const std::vector<placement> members(r_.members.begin() + s.first, r_.members.begin() + s.first + s.count);
    const gang_check_flags f = check_gang_flags(inv_, c_.topology, std::span(&jobs_[s.job].gang, 1), std::span(&members, 1), gang_rules::own);
    for (std::uint32_t m = 0; m < s.count; ++m) {
      const bool ran_against = conditions_.flagged(s.first + m);
      own_[own_first_[seg] + m] = f.flagged[0][m] || ran_against ? 1 : 0;
      if (ran_against) note(t, seg, m, conditions_.why(s.first + m));
      const std::uint32_t p = place_of(members[m].node);
      at_[p].push_back({seg, m});
      touch(p);
    }
    for (const gang_check_note& n : f.notes) note(t, seg, n.member, n.why);
  }

  // A segment ends: its members leave their places (each place swept once per run of
  // members in it: a gang's segment of 16 nodes in one block, once).
  void leave(std::uint32_t seg) {
    const run_segment& s = r_.segments[seg];
    for (std::uint32_t m = 0; m < s.count; ++m) {
      const std::uint32_t p = place_of(r_.members[s.first + m].node);
      if (m > 0 && p == place_of(r_.members[s.first + m - 1].node)) continue;  // swept already
      std::erase_if(at_[p], [&](const entry& x) { return x.segment == seg; });
      touch(p);
    }
  }

  // The shared rules among the members of place p (a segment's members there follow each
  // other: they joined together and leave together); its count of members against a rule.
  void recount(std::uint32_t p, fleet_time t) {
    is_dirty_[p] = 0;
    const std::vector<entry>& es = at_[p];
    gangs_.clear();
    first_.clear();
    for (std::size_t k = 0; k < es.size(); ++k)
      if (k == 0 || es[k].segment != es[k - 1].segment) {
        gangs_.push_back(jobs_[r_.segments[es[k].segment].job].gang);
        first_.push_back(k);
      }
    if (placed_.size() < gangs_.size()) placed_.resize(gangs_.size());
    for (std::size_t g = 0; g < gangs_.size(); ++g) {
      placed_[g].clear();
      for (std::size_t k = first_[g]; k < (g + 1 < first_.size() ? first_[g + 1] : es.size()); ++k)
        placed_[g].push_back(r_.members[r_.segments[es[k].segment].first + es[k].member]);
    }
    const gang_check_flags f = check_gang_flags(inv_, c_.topology, gangs_, std::span(placed_.data(), gangs_.size()), gang_rules::shared);
    std::size_t against = 0;
    for (std::size_t g = 0; g < gangs_.size(); ++g)
      for (std::size_t k = 0; k < placed_[g].size(); ++k) {
        const entry& x = es[first_[g] + k];
        if (f.flagged[g][k] || own_[own_first_[x.segment] + x.member] != 0) ++against;
      }
    for (const gang_check_note& n : f.notes) note(t, es[first_[n.gang] + n.member].segment, es[first_[n.gang] + n.member].member, n.why);
    against_ = against_ - counted_[p] + against;
    counted_[p] = against;
  }

  void note(fleet_time t, std::uint32_t seg, std::size_t member, const std::string& why) {
    if (out_.messages.size() < gang_check_result::max_messages) out_.messages.push_back(run_check_message(t, jobs_, r_.segments[seg], member, why));
  }

  const fleet_cluster& c_;
  std::span<const fleet_job> jobs_;
  const run_result& r_;
  inventory inv_;  // rules_inventory
  condition_flags conditions_;
  std::size_t blocks_;
  std::vector<std::uint32_t> place_;    // per node: check_places
  std::vector<std::vector<entry>> at_;  // per place: its running members
  std::vector<std::size_t> counted_;    // per place: those against a rule
  std::vector<std::uint8_t> is_dirty_;  // per place: changed since the last instant
  std::vector<std::uint32_t> dirty_;
  std::vector<std::size_t> own_first_;          // per segment: where its members' own flags begin in own_
  std::vector<std::uint8_t> own_;               // per segment member: against one of its own rules
  std::size_t against_ = 0;                     // the sum of counted_
  std::vector<gang_request> gangs_;             // recount's scratch: one per segment in the place ...
  std::vector<std::size_t> first_;              // ... its first entry ...
  std::vector<std::vector<placement>> placed_;  // ... and its members there
  gang_check_result out_;
};

}  // namespace detail

// The rules at every instant a segment of r starts; `violations` sums the members placed
// against a rule over those instants (0: none at any instant), as the reference
// check_run_full counts them; messages name the first few, when they were found. A run with
// node events: h gives them and the notice.
[[nodiscard]] inline gang_check_result check_run(const fleet_cluster& c, std::span<const fleet_job> jobs, const run_result& r,
                                                 const node_history& h = {}) {
  return detail::run_rules_check(c, jobs, r, h).run();
}

}  // namespace gpurent
