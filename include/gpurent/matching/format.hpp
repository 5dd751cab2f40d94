// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the matching layer's value types.
//   placement_request: "2x1000m cpu=8000 mem=16384MiB"  (plus tenant/locality when set)
//   placement:         "node 3 gpus 0:1000;1:1000"      (node index; names live in the inventory)
//   why_not, constraint_counts: its summary, "0 of 1213 nodes fit: 1204 lack 4 idle GPUs ..."

#include <string>

#include <fmt/format.h>

#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/matching/why_not.hpp>

template <>
struct fmt::formatter<gpurent::placement_request> : fmt::formatter<std::string> {
  template <class Ctx>
  auto format(const gpurent::placement_request& r, Ctx& ctx) const {
    std::string s = fmt::format("{}x{}m cpu={} mem={}MiB", r.num_gpu, r.gpu_milli.count(), r.cpu_milli.count(), r.memory_mib.count());
    if (r.tenant != gpurent::no_tenant) s += fmt::format(" tenant={}", r.tenant);
    if (r.locality == gpurent::gpu_locality::same_nvlink_domain) s += " same-nvlink";
    if (r.locality == gpurent::gpu_locality::same_pcie_switch) s += " same-pcie";
    if (r.priority != 0) s += fmt::format(" priority={}", r.priority);
    return fmt::formatter<std::string>::format(s, ctx);
  }
};

template <>
struct fmt::formatter<gpurent::placement> : fmt::formatter<std::string> {
  template <class Ctx>
  auto format(const gpurent::placement& p, Ctx& ctx) const {
    if (p.node == gpurent::no_node) return fmt::formatter<std::string>::format("unplaced", ctx);
    return fmt::formatter<std::string>::format(fmt::format("node {} gpus {}", p.node, gpurent::gpu_list_text(p)), ctx);
  }
};

template <>
struct fmt::formatter<gpurent::why_not> : fmt::formatter<std::string> {
  template <class Ctx>
  auto format(const gpurent::why_not& w, Ctx& ctx) const {
    return fmt::formatter<std::string>::format(w.summary(), ctx);
  }
};

template <>
struct fmt::formatter<gpurent::constraint_counts> : fmt::formatter<std::string> {
  template <class Ctx>
  auto format(const gpurent::constraint_counts& w, Ctx& ctx) const {
    return fmt::formatter<std::string>::format(w.summary(), ctx);
  }
};
