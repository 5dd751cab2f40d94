// SPDX-License-Identifier: MIT
#pragma once
// An independent model of what the matcher must guarantee, for the matcher fuzz target
// (tests/fuzz/matcher.cpp; the simulation's run oracle, run_oracle.hpp, takes only its
// locality groups). It is written from the documented rules (request.hpp, constraints.hpp),
// not from the implementation:
//   - a node admits a request when it is not drained, not reserved for another tenant,
//     carries the required labels, is not spot (or the request accepts spot), has an allowed
//     model meeting the minimums, free CPU and memory, and enough GPUs with the request's
//     share idle and no other tenant on them, together in one locality group;
//   - the live state of every node is its capacity minus what its live placements hold.
// Each check returns an empty string when it holds and a sentence saying what broke.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent::sim {

struct live_placement {
  std::uint64_t id = 0;
  placement_request request;
  placement where;
};

// The locality group of GPU g under l (0 for the whole node).
[[nodiscard]] inline std::uint8_t oracle_group(const node_spec& spec, std::size_t g, gpu_locality l) noexcept {
  if (l == gpu_locality::same_nvlink_domain) return spec.nvlink_domain[g];
  if (l == gpu_locality::same_pcie_switch) return spec.pcie_switch[g];
  return 0;
}

[[nodiscard]] inline bool oracle_gpu_usable(const node_state& s, std::size_t g, const placement_request& r) noexcept {
  return s.idle[g] >= r.gpu_milli.count() && (s.users[g] == 0 || s.owner[g] == r.tenant);
}

[[nodiscard]] inline bool oracle_admits(const inventory& inv, const node_spec& spec, const node_state& s, const placement_request& r) {
  if (!r.ok() || s.condition != node_condition::up) return false;
  if (spec.reserved_for != no_tenant && spec.reserved_for != r.tenant) return false;
  if ((spec.labels & r.required_labels) != r.required_labels) return false;
  if (spec.spot && !r.accepts_spot) return false;
  if (s.cpu_free < r.cpu_milli || s.memory_free < r.memory_mib) return false;
  if (r.num_gpu == 0) return true;
  if (spec.gpu_count == 0 || ((r.allowed_models >> spec.model) & 1U) == 0) return false;
  const gpu_model_info& m = inv.model(spec.model);
  if (m.vram < r.min_vram || m.compute < r.min_compute) return false;
  std::array<int, 256> per_group{};
  for (std::size_t g = 0; g < spec.gpu_count; ++g) {
    if (oracle_gpu_usable(s, g, r) && ++per_group[oracle_group(spec, g, r.num_gpu == 1 ? gpu_locality::same_node : r.locality)] >= r.num_gpu) {
      return true;
    }
  }
  return false;
}

// Does r fit on any node, judged on `states` (a snapshot of inv's node states)?
[[nodiscard]] inline bool oracle_fits_somewhere(const inventory& inv, std::span<const node_state> states, const placement_request& r) {
  for (node_index n = 0; n < inv.size(); ++n) {
    if (oracle_admits(inv, inv.spec(n), states[n], r)) return true;
  }
  return false;
}

[[nodiscard]] inline std::vector<node_state> snapshot(const inventory& inv) {
  std::vector<node_state> v;
  v.reserve(inv.size());
  for (node_index n = 0; n < inv.size(); ++n) v.push_back(inv.state(n));
  return v;
}

// A placement the matcher chose for r, judged against the states before it was applied.
[[nodiscard]] inline std::string check_placement(const inventory& inv, std::span<const node_state> before, const placement_request& r,
                                                 const placement& p) {
  if (p.node >= inv.size()) return "placement on a node that does not exist";
  const node_spec& spec = inv.spec(p.node);
  const node_state& s = before[p.node];
  if (!oracle_admits(inv, spec, s, r)) return "placed on node " + spec.name + ", which does not admit the request";
  if (p.cpu_milli != r.cpu_milli || p.memory_mib != r.memory_mib || p.tenant != r.tenant) return "placement holds other amounts than asked";
  if (p.count != r.num_gpu) return "placement holds " + std::to_string(p.count) + " GPUs, " + std::to_string(r.num_gpu) + " asked";
  std::uint32_t seen = 0;
  for (std::size_t i = 0; i < p.count; ++i) {
    const gpu_take t = p.gpus[i];
    if (t.gpu >= spec.gpu_count) return "placement takes a GPU the node does not have";
    if ((seen >> t.gpu & 1U) != 0) return "placement takes one GPU twice";
    seen |= std::uint32_t{1} << t.gpu;
    if (t.milli != r.gpu_milli.count()) return "placement takes another share than asked";
    if (!oracle_gpu_usable(s, t.gpu, r)) return "placement takes a GPU without the share idle, or held by another tenant";
    if (t.milli == 1000 && (s.idle[t.gpu] != 1000 || s.users[t.gpu] != 0)) return "a whole-GPU task placed on a GPU that was not idle";
    const auto l = r.num_gpu == 1 ? gpu_locality::same_node : r.locality;
    if (oracle_group(spec, t.gpu, l) != oracle_group(spec, p.gpus[0].gpu, l)) return "placement's GPUs are not in one locality group";
  }
  return {};
}

// The live state of every node equals its capacity minus its live placements; summaries
// agree; nothing is over capacity; tenants never share a GPU.
[[nodiscard]] inline std::string check_inventory(const inventory& inv, std::span<const live_placement> live) {
  const std::size_t n_nodes = inv.size();
  std::vector<std::int64_t> cpu(n_nodes), mem(n_nodes);
  std::vector<std::array<std::int32_t, max_gpus_per_node>> milli(n_nodes);
  std::vector<std::array<std::uint16_t, max_gpus_per_node>> users(n_nodes);
  std::vector<std::array<tenant_id, max_gpus_per_node>> owner(n_nodes);
  std::int64_t allocated = 0;
  for (const live_placement& lp : live) {
    const placement& p = lp.where;
    if (p.node >= n_nodes) return "a live placement on a node that does not exist";
    cpu[p.node] += p.cpu_milli.count();
    mem[p.node] += p.memory_mib.count();
    for (std::size_t i = 0; i < p.count; ++i) {
      const gpu_take t = p.gpus[i];
      if (users[p.node][t.gpu] > 0 && owner[p.node][t.gpu] != p.tenant) {
        return "two tenants share GPU " + std::to_string(t.gpu) + " of node " + inv.spec(p.node).name;
      }
      milli[p.node][t.gpu] += t.milli;
      ++users[p.node][t.gpu];
      owner[p.node][t.gpu] = p.tenant;
      allocated += t.milli;
    }
  }
  std::int64_t capacity = 0;
  for (node_index n = 0; n < n_nodes; ++n) {
    const node_spec& spec = inv.spec(n);
    const node_state& s = inv.state(n);
    const std::string at = " on node " + spec.name;
    if (cpu[n] > spec.cpu_milli.count()) return "CPU over capacity" + at;
    if (mem[n] > spec.memory_mib.count()) return "memory over capacity" + at;
    if (s.cpu_free.count() != spec.cpu_milli.count() - cpu[n]) return "free CPU disagrees with the live placements" + at;
    if (s.memory_free.count() != spec.memory_mib.count() - mem[n]) return "free memory disagrees with the live placements" + at;
    std::int32_t idle_total = 0, max_idle = 0;
    int full = 0;
    for (std::size_t g = 0; g < spec.gpu_count; ++g) {
      if (milli[n][g] > 1000) return "GPU " + std::to_string(g) + " shares sum to " + std::to_string(milli[n][g]) + " > 1000" + at;
      if (s.idle[g] != 1000 - milli[n][g]) return "idle milli of GPU " + std::to_string(g) + " disagrees with the live placements" + at;
      if (s.users[g] != users[n][g]) return "user count of GPU " + std::to_string(g) + " disagrees" + at;
      if (s.users[g] > 0 && s.owner[g] != owner[n][g]) return "owner of GPU " + std::to_string(g) + " disagrees" + at;
      idle_total += s.idle[g];
      max_idle = std::max(max_idle, s.idle[g]);
      full += s.idle[g] == 1000 ? 1 : 0;
    }
    for (std::size_t g = spec.gpu_count; g < max_gpus_per_node; ++g) {
      if (milli[n][g] != 0) return "a placement on a GPU past the node's count" + at;
    }
    if (s.idle_total != idle_total || s.max_idle != max_idle || s.full_idle != full) return "node summaries are stale" + at;
    capacity += 1000 * std::int64_t{spec.gpu_count};
  }
  if (inv.gpu_allocated_milli() != allocated) return "cluster allocated milli disagrees with the live placements";
  if (inv.gpu_capacity_milli() != capacity) return "cluster GPU capacity disagrees with the nodes";
  return {};
}

}  // namespace gpurent::sim
