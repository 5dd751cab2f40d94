// SPDX-License-Identifier: MIT
#pragma once
// Where `fleet run` places jobs: the single-node matcher with a placement policy (one-member
// jobs, the Alibaba trace's pods), or the gang placer with a gang policy (gangs on the
// topology). Both release a job and restore it exactly (a preemption trial's undo), and put
// a one-member job on a given node (a victim set chosen per node). Both keep every placement
// rule of the placers (default_constraints), network segments held in isolation included.

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/fragmentation.hpp>
#include <gpurent/matching/gang.hpp>
#include <gpurent/matching/matcher.hpp>
#include <gpurent/matching/policy.hpp>

namespace gpurent {

template <class B>
concept RunBackend = requires(B& b, const fleet_job& j, std::uint32_t id, std::vector<placement>& out, std::span<const placement> ps, node_index n) {
  { b.place(j, id, out) } -> std::same_as<bool>;
  { b.fits(j, id) } -> std::same_as<bool>;        // would place answer true (nothing changes)
  { b.why_not(j) } -> std::same_as<std::string>;  // why j does not fit now, with the placer's counts
  b.release(j, id, ps);
  b.restore(j, id, ps);
  b.set_condition(n, node_condition::down);  // a node fails, drains or comes back up
  { b.inv() } -> std::same_as<inventory&>;
};

namespace detail {
// A one-member job on node n, if it fits there (the GPUs picked tightest, as gangs do).
[[nodiscard]] inline bool place_on_node(inventory& inv, node_index n, const placement_request& r, std::vector<placement>& out) {
  out.clear();
  if (!default_constraints::admits(inv, n, r)) return false;
  gpu_pick pick;
  choose_tightest(inv, n, r, pick);
  if (pick.count != static_cast<std::size_t>(r.num_gpu)) return false;
  const placement p = inventory::make_placement(n, r, pick);
  inv.place(p);
  out.push_back(p);
  return true;
}
}  // namespace detail

// The workload a placement policy plans for (policy_context::shapes): the members of the jobs.
[[nodiscard]] inline shape_distribution shapes_of(std::span<const fleet_job> jobs) {
  std::vector<placement_request> members;
  members.reserve(jobs.size());
  for (const fleet_job& j : jobs) members.push_back(j.gang.member);
  return shape_distribution::of(members);
}

// One-member jobs through the single-node matcher and placement policy P.
template <PlacementPolicy P>
class pod_backend {
 public:
  // P plans for the jobs (shapes_of) when it is WorkloadAware (fgd, gpurent).
  pod_backend(fleet_cluster& c, std::span<const fleet_job> jobs, std::uint64_t seed = 0)
      : inv_(&c.inv), shapes_(shapes_of(jobs)), m_(c.inv, policy_context{&shapes_, seed}) {}
  // No workload: only for a policy that plans for none (a WorkloadAware P would score every
  // node alike, first fit in disguise: fleet run --pods with fgd or gpurent was, until the
  // tool passed the jobs).
  explicit pod_backend(fleet_cluster& c) requires(!WorkloadAware<P>) : inv_(&c.inv), m_(c.inv, policy_context{&shapes_, 0}) {}
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
  [[nodiscard]] std::string why_not(const fleet_job& j) const { return m_.explain(j.gang.member).summary(); }
  void set_condition(node_index n, node_condition c) noexcept { inv_->drain(n, c != node_condition::up); }
  [[nodiscard]] inventory& inv() noexcept { return *inv_; }

 private:
  inventory* inv_;
  shape_distribution shapes_;  // before m_: the policy's state is built from it
  matcher<P> m_;
};

// Gangs through the gang placer and gang policy GP.
template <GangPolicy GP>
class gang_backend {
 public:
  gang_backend(fleet_cluster& c, gang_context ctx) : inv_(&c.inv), placer_(c.inv, c.topology, std::move(ctx)) {}
  [[nodiscard]] bool place(const fleet_job& j, std::uint32_t id, std::vector<placement>& out) { return placer_.place(j.gang, id, out).has_value(); }
  void release(const fleet_job&, std::uint32_t id, std::span<const placement> ps) noexcept { placer_.release(id, ps); }
  void restore(const fleet_job& j, std::uint32_t id, std::span<const placement> ps) noexcept { placer_.restore(j.gang, id, ps); }
  [[nodiscard]] bool fits(const fleet_job& j, std::uint32_t id) { return placer_.fits(j.gang, id); }
  [[nodiscard]] std::string why_not(const fleet_job& j) { return placer_.explain(j.gang).summary(); }
  // An exclusive gang stopped with notice keeps its blocks to itself until it stops.
  void hold_blocks(const fleet_job& j, std::uint32_t id, std::span<const placement> ps) noexcept {
    if (j.gang.exclusive) placer_.hold_blocks(id, ps);
  }
  void unhold_blocks(std::uint32_t id, std::span<const placement> ps) noexcept { placer_.unhold_blocks(id, ps); }
  void set_condition(node_index n, node_condition c) noexcept { placer_.set_condition(n, c); }
  [[nodiscard]] inventory& inv() noexcept { return *inv_; }
  [[nodiscard]] gang_placer<GP>& placer() noexcept { return placer_; }  // to attach an observer
  [[nodiscard]] const cluster_topology& topology() const noexcept { return placer_.topology(); }

 private:
  inventory* inv_;
  gang_placer<GP> placer_;
};

}  // namespace gpurent
