// SPDX-License-Identifier: MIT
#pragma once
// Which jobs run where: per node the ids of the running jobs with a member there (once per
// node) and the milli-GPUs each holds there, the list of all running jobs, and per node the
// milli-GPUs that preemptible jobs hold there (what a preemption could free at most). What a
// preemption search draws its candidate domains from, and what a node failure stops.
// Nothing allocates once grown.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/matching/inventory.hpp>

namespace gpurent {

class running_jobs {
 public:
  running_jobs() = default;
  explicit running_jobs(std::size_t nodes) : on_node_(nodes), held_(nodes), preemptible_milli_(nodes, 0) {}

  // Job j starts with these members; `preemptible`: a preemption may stop it.
  void add(std::uint32_t j, std::span<const placement> members, bool preemptible = true) {
    GPURENT_ASSERT(j >= at_.size() || at_[j] == none);  // one run per job at a time
    for (const placement& p : members) {
      auto& v = on_node_[p.node];
      auto& h = held_[p.node];
      const auto it = std::find(v.begin(), v.end(), j);
      if (it == v.end()) {
        v.push_back(j);
        h.push_back(p.gpu_milli_total());
      } else {
        h[static_cast<std::size_t>(it - v.begin())] += p.gpu_milli_total();
      }
      if (preemptible) preemptible_milli_[p.node] += p.gpu_milli_total();
    }
    if (at_.size() <= j) {
      at_.resize(j + 1, none);
      preemptible_.resize(j + 1, 0);
    }
    at_[j] = static_cast<std::uint32_t>(all_.size());
    preemptible_[j] = preemptible ? 1 : 0;
    all_.push_back(j);
  }

  // Job j (running with these members) stops.
  void remove(std::uint32_t j, std::span<const placement> members) noexcept {
    GPURENT_ASSERT(running(j));
    for (const placement& p : members) {
      auto& v = on_node_[p.node];
      if (const auto it = std::find(v.begin(), v.end(), j); it != v.end()) {  // once per node
        held_[p.node].erase(held_[p.node].begin() + (it - v.begin()));
        v.erase(it);
      }
      if (preemptible_[j] != 0) preemptible_milli_[p.node] -= p.gpu_milli_total();
    }
    const std::uint32_t last = all_.back();
    all_[at_[j]] = last;
    at_[last] = at_[j];
    all_.pop_back();
    at_[j] = none;
  }

  [[nodiscard]] bool running(std::uint32_t j) const noexcept { return j < at_.size() && at_[j] != none; }
  [[nodiscard]] std::span<const std::uint32_t> on(node_index n) const noexcept { return on_node_[n]; }
  // The milli-GPUs each job of on(n) holds on node n, in the same order.
  [[nodiscard]] std::span<const std::int64_t> held_on(node_index n) const noexcept { return held_[n]; }
  [[nodiscard]] std::span<const std::uint32_t> all() const noexcept { return all_; }
  [[nodiscard]] std::size_t node_count() const noexcept { return on_node_.size(); }
  // The milli-GPUs preemptible jobs hold on node n: what stopping every victim there frees at most.
  [[nodiscard]] std::int64_t preemptible_milli(node_index n) const noexcept { return preemptible_milli_[n]; }

 private:
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  std::vector<std::vector<std::uint32_t>> on_node_;
  std::vector<std::vector<std::int64_t>> held_;  // per node, parallel to on_node_
  std::vector<std::uint32_t> all_;
  std::vector<std::uint32_t> at_;                // per job: its position in all_, none when not running
  std::vector<std::int64_t> preemptible_milli_;  // per node
  std::vector<std::uint8_t> preemptible_;        // per job: added as preemptible
};

}  // namespace gpurent
