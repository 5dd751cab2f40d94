// SPDX-License-Identifier: MIT
#pragma once
// The candidate domains of a preemption search that come from the topology: the domains of
// a level, each with the running jobs that have a member there, and the nodes of base blocks
// (what opens again when an exclusive victim's blocks are let go). A Placer without a
// topology (the node matcher) has no such domains.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/preempt/running.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

template <Placer Pl>
class candidate_domains {
 public:
  struct keep_all {
    constexpr bool operator()(domain_index) const noexcept { return true; }
  };

  explicit candidate_domains(const Pl& placer) : pl_(&placer) {}

  // Calls f(d, jobs, held) for each domain d of `level` with the running jobs that have a
  // member there (each once) and the milli-GPUs each holds inside d (held[k]: jobs[k]'s);
  // false, calling nothing, when there is no such level (no_level, or a Placer without a
  // topology). `only`, when not null: those domains alone (ascending). keep(d), asked for
  // each domain just before its f, leaves it out when false (its jobs are not listed).
  template <class F, class Keep = keep_all>
  bool for_each(level_index level, const running_jobs& running, F&& f, const std::vector<domain_index>* only = nullptr, Keep&& keep = {}) {
    if constexpr (requires(const Pl& p) { p.topology(); }) {
      if (level == no_level) return false;
      const auto& domains = nodes_by_domain(level);
      const auto visit = [&](domain_index d) {
        if (!keep(d)) return;
        next_stamp();
        in_domain_.clear();
        held_.clear();
        for (const node_index n : domains[d]) {
          const std::span<const std::uint32_t> on = running.on(n);
          const std::span<const std::int64_t> held = running.held_on(n);
          for (std::size_t i = 0; i < on.size(); ++i) {
            const std::uint32_t v = on[i];
            if (seen_.size() <= v) {
              seen_.resize(v + 1, 0);
              at_.resize(v + 1, 0);
            }
            if (seen_[v] == stamp_) {
              held_[at_[v]] += held[i];
              continue;
            }
            seen_[v] = stamp_;
            at_[v] = static_cast<std::uint32_t>(in_domain_.size());
            in_domain_.push_back(v);
            held_.push_back(held[i]);
          }
        }
        f(static_cast<std::uint32_t>(d), std::span<const std::uint32_t>(in_domain_), std::span<const std::int64_t>(held_));
      };
      if (only != nullptr) {
        for (const domain_index d : *only) visit(d);
      } else {
        for (domain_index d = 0; d < domains.size(); ++d) visit(d);
      }
      return true;
    } else {
      return false;
    }
  }

  // The domains of level l holding the nodes `ns`, ascending, each once, into out.
  void domains_of(level_index l, std::span<const node_index> ns, std::vector<domain_index>& out) const {
    out.clear();
    if constexpr (requires(const Pl& p) { p.topology(); }) {
      for (const node_index n : ns)
        if (const domain_index d = pl_->topology().domain_of(n, l); d != outside_topology) out.push_back(d);
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
  }

  // The nodes of domain d of level l (topology numbers), in node order.
  [[nodiscard]] std::span<const node_index> nodes(level_index l, domain_index d) { return nodes_by_domain(l)[d]; }

  // What domain d of level l offers a job that must fit inside it, in milli-GPUs: `idle` on
  // its nodes that take new work (not drained or down), at least what the job can be given
  // there without preemption; `preemptible` held there by preemptible jobs, at most what
  // stopping victims there frees.
  struct room {
    std::int64_t idle = 0, preemptible = 0;
  };
  [[nodiscard]] room room_of(level_index l, domain_index d, const inventory& inv, const running_jobs& running) {
    room r;
    for (const node_index n : nodes_by_domain(l)[d]) {  // the compact copy of the node's state
      if (!inv.hot(n).drained) r.idle += inv.hot(n).idle_total;
      r.preemptible += running.preemptible_milli(n);
    }
    return r;
  }

  // Calls freed(n) for every node of the base blocks `members` use (each block once).
  template <class Freed>
  void block_nodes(std::span<const placement> members, Freed&& freed) {
    if constexpr (requires(const Pl& p) { p.topology(); }) {
      const cluster_topology& topo = pl_->topology();
      const auto& blocks = nodes_by_domain(topo.block_level());
      for (std::size_t i = 0; i < members.size(); ++i) {
        const domain_index b = topo.block_of(members[i].node);
        const bool first = std::none_of(members.begin(), members.begin() + static_cast<std::ptrdiff_t>(i),
                                        [&](const placement& p) { return topo.block_of(p.node) == b; });
        if (b != outside_topology && first)
          for (const node_index n : blocks[b]) freed(n);
      }
    }
  }

 private:
  // The nodes of each domain of level l, listed once per level (the topology never changes).
  [[nodiscard]] const std::vector<std::vector<node_index>>& nodes_by_domain(level_index l) {
    const cluster_topology& topo = pl_->topology();
    if (by_level_.size() <= l) by_level_.resize(l + 1);
    auto& domains = by_level_[l];
    if (domains.empty() && topo.domain_count(l) > 0) {
      domains.resize(topo.domain_count(l));
      for (node_index n = 0; n < topo.node_count(); ++n)
        if (const domain_index d = topo.domain_of(n, l); d != outside_topology) domains[d].push_back(n);
    }
    return domains;
  }
  void next_stamp() {
    if (++stamp_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0U);
      stamp_ = 1;
    }
  }

  const Pl* pl_;
  std::vector<std::vector<std::vector<node_index>>> by_level_;
  std::vector<std::uint32_t> seen_;  // per job: stamp_ when listed
  std::vector<std::uint32_t> at_;    // per job listed: its place in in_domain_
  std::vector<std::uint32_t> in_domain_;
  std::vector<std::int64_t> held_;  // parallel to in_domain_: milli-GPUs inside the domain
  std::uint32_t stamp_ = 0;
};

}  // namespace gpurent
