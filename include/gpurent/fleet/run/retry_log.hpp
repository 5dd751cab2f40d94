// SPDX-License-Identifier: MIT
#pragma once
// fleet run's retry log: every node a release touched, in order. A queued job that failed at
// log position p is tried again only once the log has grown past p (placements only take,
// so it cannot fit sooner), and a one-member job only on the nodes logged since. When some
// job asks for network isolation, a release logs every node of its network segment: it may
// have opened the whole segment. Nothing allocates once grown.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/matching/inventory.hpp>

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

}  // namespace gpurent
