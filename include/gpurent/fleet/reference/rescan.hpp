// SPDX-License-Identifier: MIT
#pragma once
// A reference, not part of the loop: `fleet run` the naive way, to check the fast loop
// decision for decision and to measure it against (bench/bench_fleet_run.cpp). Every
// queued job is tried again at every instant (run_options::rescan: no retry log), each
// one-member job through the full-scan matcher (matching/reference/full_scan.hpp: every
// node scored for every decision, no candidate index). The choices are the fast loop's:
// the retry log skips only jobs that cannot fit, the index only nodes that cannot win.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run.hpp>
#include <gpurent/fleet/run_backend.hpp>
#include <gpurent/matching/matcher.hpp>
#include <gpurent/matching/reference/full_scan.hpp>

namespace gpurent {

// One-member jobs through the full-scan matcher and placement policy P.
template <PlacementPolicy P>
class full_scan_pod_backend {
 public:
  // The jobs are the workload a WorkloadAware P plans for, as pod_backend's.
  full_scan_pod_backend(fleet_cluster& c, std::span<const fleet_job> jobs, std::uint64_t seed = 0)
      : inv_(&c.inv), shapes_(shapes_of(jobs)), m_(c.inv, policy_context{&shapes_, seed}) {}
  [[nodiscard]] bool place(const fleet_job& j, std::uint32_t, std::vector<placement>& out) {
    out.clear();
    auto p = m_.place(j.gang.member);
    if (p) out.push_back(*p);
    return p.has_value();
  }
  void release(const fleet_job&, std::uint32_t, std::span<const placement> ps) noexcept {
    for (const placement& p : ps) inv_->release(p);
  }
  void restore(const fleet_job&, std::uint32_t, std::span<const placement> ps) noexcept {
    for (const placement& p : ps) inv_->place(p);
  }
  [[nodiscard]] bool fits(const fleet_job& j, std::uint32_t) { return m_.find(j.gang.member).has_value(); }
  [[nodiscard]] std::string why_not(const fleet_job& j) const {
    return explain_nodes<default_constraints>(*inv_, j.gang.member, [](node_index) { return true; }).summary();
  }
  void set_condition(node_index n, node_condition c) noexcept { inv_->drain(n, c != node_condition::up); }
  [[nodiscard]] inventory& inv() noexcept { return *inv_; }

 private:
  inventory* inv_;
  shape_distribution shapes_;  // before m_: the policy's state is built from it
  full_scan_matcher<P> m_;
};
static_assert(RunBackend<full_scan_pod_backend<policy_best_fit>>);

// The naive run of one-member jobs: full scans, every queued job at every instant.
template <PlacementPolicy P, VictimPolicy VP, bool Preempt>
[[nodiscard]] run_result run_fleet_rescan(fleet_cluster& c, std::span<const fleet_job> jobs, run_options o) {
  o.rescan = true;
  full_scan_pod_backend<P> b(c, jobs);
  return run_fleet<VP, Preempt>(b, jobs, o);
}

}  // namespace gpurent
