// SPDX-License-Identifier: MIT
#pragma once
// fleet run's retry log: every node a release touched, in order. A queued job that failed at
// log position p is tried again only once the log has grown past p (placements only take,
// so it cannot fit sooner), and a one-member job only on the nodes logged since; a gang
// required inside one domain of a level only in the domains of those nodes (freed_room_fits).
// When some job asks for network isolation, a release logs every node of its network
// segment: it may have opened the whole segment. Nothing allocates once grown.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/preempt/preemptor.hpp>

namespace gpurent {

class retry_log {
 public:
  retry_log() = default;
  // Over inv's nodes; network_jobs: some job asks for network isolation.
  retry_log(const inventory& inv, bool network_jobs) : inv_(&inv), network_jobs_(network_jobs), seen_(inv.size(), 0) {
    for (node_index k = 0; k < inv.size(); ++k) {
      const segment_id sg = inv.spec(k).segment;
      if (sg == no_segment) continue;
      if (segment_nodes_.size() < sg) segment_nodes_.resize(sg);
      segment_nodes_[sg - 1].push_back(k);
    }
  }

  // Room freed by releasing p: its node, and its segment's nodes when network jobs wait.
  void freed(const placement& p) {
    log_.push_back(p.node);
    if (!network_jobs_) return;
    if (const segment_id sg = inv_->spec(p.node).segment; sg != no_segment && sg <= segment_nodes_.size())
      log_.insert(log_.end(), segment_nodes_[sg - 1].begin(), segment_nodes_[sg - 1].end());
  }
  // Node n may take a job again (it came back up, or a block it is in was let go).
  void freed(node_index n) { log_.push_back(n); }

  // The log's length now: the position a job that fails now waits past.
  [[nodiscard]] std::size_t position() const noexcept { return log_.size(); }

  // The distinct nodes logged since position `from`, in the order first logged.
  [[nodiscard]] std::span<const node_index> since(std::size_t from) {
    scan_.clear();
    if (++stamp_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0U);
      stamp_ = 1;
    }
    for (std::size_t i = from; i < log_.size(); ++i)
      if (seen_[log_[i]] != stamp_) {
        seen_[log_[i]] = stamp_;
        scan_.push_back(log_[i]);
      }
    return scan_;
  }

 private:
  const inventory* inv_ = nullptr;
  bool network_jobs_ = false;
  std::vector<node_index> log_;
  std::vector<std::vector<node_index>> segment_nodes_;  // per segment id - 1: its nodes
  std::vector<node_index> scan_;
  std::vector<std::uint32_t> seen_;
  std::uint32_t stamp_ = 0;
};

// Whether a queued job may be retried on the nodes freed since it failed alone: a one-member
// job without topology rules (it can only go on one of them), or a gang of like members
// required inside one domain of a level, on a Placer that counts a domain's room (it can only
// fit inside a domain holding one of them: the others only filled up).
template <Placer B>
[[nodiscard]] bool retried_near(const gang_request& g) noexcept {
  return g.node_local() || (DomainPlacer<B> && g.required != no_level && g.counted_by_domain());
}

// For a job retried_near: whether the nodes freed since it failed may take it now (a node
// that admits the one member; a domain of its required level, holding one of them, with room
// for the whole gang). False: placing it would fail. `seen`: scratch.
template <Placer B>
[[nodiscard]] bool freed_room_fits(B& b, const gang_request& g, gang_id j, std::span<const node_index> freed, std::vector<domain_index>& seen) {
  if (g.node_local()) return std::any_of(freed.begin(), freed.end(), [&](node_index n) { return default_constraints::admits(b.inv(), n, g.member); });
  if constexpr (DomainPlacer<B>) {
    const std::int64_t need = g.units();
    seen.clear();
    for (const node_index n : freed) {
      const domain_index d = b.topology().domain_of(n, g.required);
      if (d == outside_topology || std::find(seen.begin(), seen.end(), d) != seen.end()) continue;
      seen.push_back(d);
      if (b.units(g, j, g.required, n) >= need) return true;
    }
    return false;
  } else {
    return true;
  }
}

}  // namespace gpurent
