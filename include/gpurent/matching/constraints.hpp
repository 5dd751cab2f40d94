// SPDX-License-Identifier: MIT
#pragma once
// Hard constraints: may request r go to node n at all? Each constraint is a stateless type
// modelling `Constraint` (a name, a noexcept `admits`, and a `describe` for explanations);
// `constraint_set<C...>` composes them in order and reports which one rejected a node, so
// "why did this not fit" is answered per constraint with counts (see node/matcher.hpp).
//
// Extension point: write a type modelling `Constraint` and list it in your own
// `constraint_set<..., my_constraint>` (or `default_constraints::with<my_constraint>`). If
// its answer depends on the node only through its spec (the name aside) and state, say so
// with `static constexpr bool node_symmetric = true;` (the matcher then skips identical
// untouched nodes; see node/candidate_index.hpp).

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/isolation_constraints.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/sharing/isolation.hpp>

namespace gpurent {

template <class C>
concept Constraint = requires(const inventory& inv, node_index n, const placement_request& r) {
  { C::name } -> std::convertible_to<std::string_view>;
  { C::admits(inv, n, r) }
  noexcept->std::same_as<bool>;
  { C::describe(r) } -> std::convertible_to<std::string>;
};

// A constraint or policy whose answer for node n depends on n only through its spec (the
// name aside) and its live state, so that two nodes equal in both are interchangeable. Opt
// in with `static constexpr bool node_symmetric = true;`. The matcher then looks at only
// the first of a set of identical untouched nodes; without it (a constraint that reads the
// node index or name, a policy that draws a random number per node) every node that passes
// the cheap checks is still looked at, in order.
template <class T>
concept NodeSymmetric = requires {
  requires T::node_symmetric;
};

// GPU g of node n can take r's per-GPU part: enough idle milli (all of it for a whole GPU)
// and no other tenant on it (tenant isolation: no two tenants share a physical GPU, since a
// time-sliced share isolates neither memory nor errors), unless r and every user of the GPU
// asked for no isolation (isolation_level::none; tenancy.hpp).
static_assert(!isolation_of(sharing_kind::share).memory_protection && !isolation_of(sharing_kind::share).errors);
[[nodiscard]] inline bool gpu_eligible(const node_state& s, std::size_t g, const placement_request& r) noexcept {
  const std::int32_t need = r.gpu_milli.count();
  return (s.mig_gpus >> g & 1U) == 0 && s.idle[g] >= need &&
         gpu_shareable(s.users[g], (s.open_gpus >> g & 1U) != 0, s.owner[g], r.tenant, r.isolation);
}

// Where a MIG request would go on node n: the MIG-mode GPU (of this tenant or unused) and
// start slice that leave the most layouts open (mig_fit's ranking; the lower GPU on ties).
// A slot with gpu < 0 when none fits.
[[nodiscard]] inline mig_slot best_mig_slot(const inventory& inv, node_index n, const placement_request& r) noexcept {
  mig_slot best;
  const node_spec& spec = inv.spec(n);
  const node_state& s = inv.state(n);
  if (s.mig_gpus == 0) return best;
  const mig_geometry* geo = inv.model(spec.model).mig;
  if (geo == nullptr) return best;
  const auto prof = geo->find_profile(r.mig_profile);
  if (!prof) return best;
  const std::array<mig_profile_index, 1> want{*prof};
  for (std::size_t g = 0; g < spec.gpu_count; ++g) {
    if ((s.mig_gpus >> g & 1U) == 0 || (s.users[g] != 0 && s.owner[g] != r.tenant)) continue;
    const mig_fit_result f = mig_fit(*geo, inv.mig(n, g), want);
    if (f.fits() && (best.gpu < 0 || f.options > best.options)) {
      best = mig_slot{static_cast<int>(g), f.starts[0], *prof, f.options};
    }
  }
  return best;
}

// Eligible GPUs of node n for r as a bit mask (bit g = GPU g).
[[nodiscard]] inline std::uint32_t eligible_gpus(const inventory& inv, node_index n, const placement_request& r) noexcept {
  const node_state& s = inv.state(n);
  std::uint32_t m = 0;
  for (std::size_t g = 0; g < s.gpu_count; ++g) {
    if (gpu_eligible(s, g, r)) m |= std::uint32_t{1} << g;
  }
  return m;
}

// The group (NVLink domain or PCIe switch) GPU g belongs to under r's locality; 0 when
// any GPUs of the node may be combined.
[[nodiscard]] inline std::uint8_t locality_group(const node_spec& spec, std::size_t g, gpu_locality l) noexcept {
  switch (l) {
    case gpu_locality::same_nvlink_domain: return spec.nvlink_domain[g];
    case gpu_locality::same_pcie_switch: return spec.pcie_switch[g];
    case gpu_locality::same_node: break;
  }
  return 0;
}

// Picks the first r.num_gpu eligible GPUs by index that satisfy r's locality (the group of
// the lowest-indexed GPU that completes one). False when there are none. On a node's spec
// and a state (the inventory's, or a gang search's scratch copy).
[[nodiscard]] inline bool pick_first_gpus(const node_spec& spec, const node_state& s, const placement_request& r, gpu_pick& pick) noexcept {
  pick.clear();
  if (r.num_gpu == 0) return true;
  const auto k = static_cast<std::size_t>(r.num_gpu);
  if (r.locality == gpu_locality::same_node || k == 1) {
    for (std::size_t g = 0; g < spec.gpu_count && pick.count < k; ++g) {
      if (gpu_eligible(s, g, r)) pick.push(g);
    }
    return pick.count == k;
  }
  std::array<std::uint8_t, 256> counts{};
  for (std::size_t g = 0; g < spec.gpu_count; ++g) {
    if (!gpu_eligible(s, g, r)) continue;
    const std::uint8_t grp = locality_group(spec, g, r.locality);
    if (++counts[grp] == k) {
      for (std::size_t h = 0; h <= g; ++h) {
        if (gpu_eligible(s, h, r) && locality_group(spec, h, r.locality) == grp) pick.push(h);
      }
      return true;
    }
  }
  return false;
}

[[nodiscard]] inline bool pick_first_gpus(const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
  return pick_first_gpus(inv.spec(n), inv.state(n), r, pick);
}

namespace constraint {

struct not_drained {
  static constexpr std::string_view name = "drained";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request&) noexcept { return !inv.hot(n).drained; }
  [[nodiscard]] static std::string describe(const placement_request&) { return "are down or drained"; }
};

struct tenant_reservation {
  static constexpr std::string_view name = "reserved";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return !inv.hot(n).reserved || inv.state(n).reserved_for == r.tenant;
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "are reserved for another tenant"; }
};

struct labels {
  static constexpr std::string_view name = "labels";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return r.required_labels == 0 || (inv.state(n).labels & r.required_labels) == r.required_labels;
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "lack a required label (region, zone, residency)"; }
};

struct spot {
  static constexpr std::string_view name = "spot";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return !inv.hot(n).spot || r.accepts_spot;
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "are spot capacity, which the request does not accept"; }
};

struct model_allowed {
  static constexpr std::string_view name = "model";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    if (r.num_gpu == 0) return true;
    const node_hot& s = inv.hot(n);
    return s.gpu_count > 0 && (r.allowed_models >> s.model & 1U) != 0;
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "have a GPU model the request does not allow"; }
};

struct gpu_minimums {
  static constexpr std::string_view name = "gpu-spec";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    if (r.num_gpu == 0 || (r.min_vram.count() == 0 && r.min_compute.count() == 0)) return true;
    const node_state& s = inv.state(n);
    if (s.gpu_count == 0) return true;
    const gpu_model_info& m = inv.model(s.model);
    return m.vram >= r.min_vram && m.compute >= r.min_compute;
  }
  [[nodiscard]] static std::string describe(const placement_request&) { return "have GPUs below the VRAM or compute minimum"; }
};

struct cpu_fits {
  static constexpr std::string_view name = "cpu";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return inv.hot(n).cpu_free >= r.cpu_milli;
  }
  [[nodiscard]] static std::string describe(const placement_request& r) {
    return "lack " + std::to_string(r.cpu_milli.count()) + " free CPU milli-cores";
  }
};

struct memory_fits {
  static constexpr std::string_view name = "memory";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return inv.hot(n).memory_free >= r.memory_mib;
  }
  [[nodiscard]] static std::string describe(const placement_request& r) {
    return "lack " + std::to_string(r.memory_mib.count()) + " MiB of free memory";
  }
};

// Enough eligible GPUs, together where the locality demands. O(1) on the summaries for
// the common cases; a short loop over the node's GPUs otherwise.
struct gpus_fit {
  static constexpr std::string_view name = "gpus";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    if (r.num_gpu == 0 || r.is_mig()) return true;
    const node_hot& s = inv.hot(n);
    if (r.gpu_milli.count() == 1000) {
      if (s.full_idle < r.num_gpu) return false;
      if (r.locality == gpu_locality::same_node || r.num_gpu == 1) return true;
      gpu_pick p;
      return pick_first_gpus(inv, n, r, p);
    }
    if (s.max_idle < r.gpu_milli.count()) return false;
    // A GPU with enough idle exists; with one tenant throughout it is eligible.
    return eligible_gpus(inv, n, r) != 0;
  }
  [[nodiscard]] static std::string describe(const placement_request& r) {
    if (r.num_gpu == 1 && r.gpu_milli.count() < 1000) {
      return "lack a GPU with " + std::to_string(r.gpu_milli.count()) + " milli idle (for this tenant)";
    }
    std::string s = "lack " + std::to_string(r.num_gpu) + " idle GPU" + (r.num_gpu > 1 ? "s" : "");
    if (r.locality == gpu_locality::same_nvlink_domain) s += " in one NVLink domain";
    if (r.locality == gpu_locality::same_pcie_switch) s += " under one PCIe switch";
    return s;
  }
};

// A MIG request needs a MIG-mode GPU of a model with that profile where mig_fit finds a
// start slice.
struct mig_fits {
  static constexpr std::string_view name = "mig";
  static constexpr bool node_symmetric = true;
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept {
    return !r.is_mig() || best_mig_slot(inv, n, r).gpu >= 0;
  }
  [[nodiscard]] static std::string describe(const placement_request& r) {
    return "have no MIG-mode GPU with room for a " + std::string(r.mig_profile) + " instance";
  }
};

}  // namespace constraint

// An ordered conjunction of constraints. `first_rejecting` names the first one that says
// no (or returns size when all admit).
template <Constraint... Cs>
struct constraint_set {
  static constexpr std::size_t size = sizeof...(Cs);
  static constexpr std::array<std::string_view, size> names{Cs::name...};

  template <Constraint... More>
  using with = constraint_set<Cs..., More...>;

  // Whether constraint C is one of the set (the matcher's index prunes by the built-in ones).
  template <class C>
  static constexpr bool has = (std::same_as<C, Cs> || ...);
  // Every constraint answers by the node's spec and state alone (see NodeSymmetric).
  static constexpr bool node_symmetric = (NodeSymmetric<Cs> && ...);

  [[nodiscard]] static std::size_t first_rejecting(const inventory& inv, node_index n, const placement_request& r) noexcept {
    std::size_t i = 0;
    const bool all = ((Cs::admits(inv, n, r) ? (++i, true) : false) && ...);
    return all ? size : i;
  }
  [[nodiscard]] static bool admits(const inventory& inv, node_index n, const placement_request& r) noexcept { return (Cs::admits(inv, n, r) && ...); }
  [[nodiscard]] static std::array<std::string, size> describe(const placement_request& r) { return {Cs::describe(r)...}; }
};

// What every placement must respect. Cheap checks first.
using default_constraints =
    constraint_set<constraint::not_drained, constraint::tenant_reservation, constraint::isolated_node, constraint::node_isolation,
                   constraint::network_segment, constraint::isolated_segment, constraint::segment_isolation, constraint::labels,
                   constraint::residency, constraint::spot, constraint::model_allowed, constraint::gpu_minimums, constraint::cpu_fits,
                   constraint::memory_fits, constraint::gpus_fit, constraint::mig_fits>;

template <class S>
concept ConstraintSet = requires(const inventory& inv, node_index n, const placement_request& r) {
  { S::size } -> std::convertible_to<std::size_t>;
  { S::first_rejecting(inv, n, r) }
  noexcept->std::same_as<std::size_t>;
  { S::admits(inv, n, r) }
  noexcept->std::same_as<bool>;
  S::names;
};

}  // namespace gpurent
