// SPDX-License-Identifier: MIT
#pragma once
// How the GPUs of one server connect: NUMA nodes, PCIe switches and NVLink domains (the
// sets of GPUs that talk to each other at NVLink speed, through NVSwitch, a mesh or a
// bridge). A gang of GPUs that all-reduces wants one NVLink domain; a job pinned to a CPU
// socket wants one NUMA node. `server_shape` is constexpr data; shapes of common servers
// are in `gpurent::shapes`.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <gpurent/spec/gpu.hpp>

namespace gpurent {

// The best path between two GPUs of one server, slowest first (nvidia-smi topo -m: SYS,
// NODE/PHB, PIX/PXB, NV#).
enum class gpu_link : std::uint8_t {
  cross_numa,        // through the CPU-to-CPU interconnect (SYS)
  same_numa,         // through one CPU's PCIe root complex (NODE/PHB)
  same_pcie_switch,  // through a PCIe switch, not the CPU (PIX/PXB)
  nvlink,            // NVLink, direct or through NVSwitch (NV#)
};

// How NVLink joins a server's GPUs.
enum class nvlink_fabric : std::uint8_t {
  none,      // PCIe only
  bridge,    // NVLink bridges join pairs (or small groups) of PCIe cards
  mesh,      // direct GPU-to-GPU links, no switch (hybrid cube mesh)
  nvswitch,  // NVSwitch chips: every GPU of the domain reaches every other at full speed
};

template <>
struct enum_names<gpu_link> {
  static constexpr enum_entry<gpu_link> entries[] = {{gpu_link::cross_numa, "cross_numa"},
                                                     {gpu_link::same_numa, "same_numa"},
                                                     {gpu_link::same_pcie_switch, "same_pcie_switch"},
                                                     {gpu_link::nvlink, "nvlink"}};
};
template <>
struct enum_names<nvlink_fabric> {
  static constexpr enum_entry<nvlink_fabric> entries[] = {
      {nvlink_fabric::none, "none"}, {nvlink_fabric::bridge, "bridge"}, {nvlink_fabric::mesh, "mesh"}, {nvlink_fabric::nvswitch, "nvswitch"}};
};

inline constexpr std::int32_t no_domain = -1;
inline constexpr std::size_t max_gpus_per_server = 16;

// Where one GPU sits.
struct gpu_slot {
  std::int32_t numa_node = 0;
  std::int32_t pcie_switch = no_domain;    // switch id; no_domain: directly on the root complex
  std::int32_t nvlink_domain = no_domain;  // no_domain: no NVLink peer
  friend constexpr bool operator==(const gpu_slot&, const gpu_slot&) = default;
};

struct server_shape {
  std::string_view name;
  std::string_view gpu_model;  // a catalog name
  std::int32_t pcie_generation = 0;
  nvlink_fabric fabric = nvlink_fabric::none;
  fixed_list<gpu_slot, max_gpus_per_server> gpus;
  std::string_view source;  // where the shape comes from
  friend constexpr bool operator==(const server_shape&, const server_shape&) = default;

  [[nodiscard]] constexpr std::size_t gpu_count() const noexcept { return gpus.size(); }
};

using gpu_index_list = fixed_list<std::size_t, max_gpus_per_server>;

// Whether GPUs a and b talk at NVLink speed (false for a GPU without NVLink, even with itself).
[[nodiscard]] constexpr bool same_nvlink_domain(const server_shape& s, std::size_t a, std::size_t b) {
  GPURENT_ASSERT(a < s.gpu_count() && b < s.gpu_count());
  return s.gpus[a].nvlink_domain != no_domain && s.gpus[a].nvlink_domain == s.gpus[b].nvlink_domain;
}

// The GPUs of one NVLink domain, in index order.
[[nodiscard]] constexpr gpu_index_list gpus_in_domain(const server_shape& s, std::int32_t domain) {
  gpu_index_list out;
  if (domain == no_domain) return out;
  for (std::size_t i = 0; i < s.gpu_count(); ++i)
    if (s.gpus[i].nvlink_domain == domain) out.push_back(i);
  return out;
}

// The GPUs on one NUMA node, in index order.
[[nodiscard]] constexpr gpu_index_list gpus_on_numa_node(const server_shape& s, std::int32_t node) {
  gpu_index_list out;
  for (std::size_t i = 0; i < s.gpu_count(); ++i)
    if (s.gpus[i].numa_node == node) out.push_back(i);
  return out;
}

// The size of the largest set of GPUs that all talk at NVLink speed; 1 when the server has
// GPUs but no NVLink (each GPU alone), 0 when it has none.
[[nodiscard]] constexpr std::size_t largest_nvlink_group(const server_shape& s) {
  std::size_t best = s.gpu_count() == 0 ? 0 : 1;
  for (std::size_t i = 0; i < s.gpu_count(); ++i) {
    const std::size_t n = gpus_in_domain(s, s.gpus[i].nvlink_domain).size();
    if (n > best) best = n;
  }
  return best;
}

[[nodiscard]] constexpr std::size_t numa_node_count(const server_shape& s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.gpu_count(); ++i) {
    bool seen = false;
    for (std::size_t j = 0; j < i; ++j) seen = seen || s.gpus[j].numa_node == s.gpus[i].numa_node;
    if (!seen) ++n;
  }
  return n;
}

// The fastest path between two distinct GPUs.
[[nodiscard]] constexpr gpu_link link_between(const server_shape& s, std::size_t a, std::size_t b) {
  GPURENT_ASSERT(a < s.gpu_count() && b < s.gpu_count());
  if (same_nvlink_domain(s, a, b)) return gpu_link::nvlink;
  const gpu_slot& x = s.gpus[a];
  const gpu_slot& y = s.gpus[b];
  if (x.pcie_switch != no_domain && x.pcie_switch == y.pcie_switch) return gpu_link::same_pcie_switch;
  if (x.numa_node == y.numa_node) return gpu_link::same_numa;
  return gpu_link::cross_numa;
}

// The slowest path inside a set of GPUs: what a collective over all of them runs at.
[[nodiscard]] constexpr gpu_link weakest_link(const server_shape& s, std::span<const std::size_t> gpus) {
  gpu_link worst = gpu_link::nvlink;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      const gpu_link l = link_between(s, gpus[i], gpus[j]);
      if (l < worst) worst = l;
    }
  return worst;
}

// Shapes of common servers.
namespace shapes {
namespace detail {
// n GPUs split evenly over `numa` nodes, `per_switch` GPUs per PCIe switch, every GPU in
// NVLink domain `domain(i)`.
template <class DomainOf>
constexpr fixed_list<gpu_slot, max_gpus_per_server> layout(std::int32_t n, std::int32_t numa, std::int32_t per_switch, DomainOf domain) {
  fixed_list<gpu_slot, max_gpus_per_server> out;
  for (std::int32_t i = 0; i < n; ++i) out.push_back(gpu_slot{i / (n / numa), per_switch > 0 ? i / per_switch : no_domain, domain(i)});
  return out;
}
constexpr std::int32_t all_in_one(std::int32_t) { return 0; }
constexpr std::int32_t pairs(std::int32_t i) { return i / 2; }
constexpr std::int32_t none(std::int32_t) { return no_domain; }
}  // namespace detail

// HGX H100 8-GPU: four NVSwitch chips join all eight GPUs (900 GB/s each). NUMA and PCIe
// switch placement is the usual 2-socket host: GPUs 0-3 on socket 0, two per switch.
inline constexpr server_shape hgx_h100_8gpu{"HGX-H100-8GPU",
                                            "H100-SXM5-80GB",
                                            5,
                                            nvlink_fabric::nvswitch,
                                            detail::layout(8, 2, 2, detail::all_in_one),
                                            "NVIDIA H100 datasheet (HGX H100 8-GPU, NVSwitch); host NUMA/PCIe layout typical, vendor-dependent"};
inline constexpr server_shape hgx_h200_8gpu{"HGX-H200-8GPU",
                                            "H200-SXM-141GB",
                                            5,
                                            nvlink_fabric::nvswitch,
                                            detail::layout(8, 2, 2, detail::all_in_one),
                                            "NVIDIA H200 datasheet (HGX H200 8-GPU, NVSwitch); host NUMA/PCIe layout typical, vendor-dependent"};
// DGX A100: eight A100 SXM4 on six NVSwitches, two EPYC sockets, four PCIe Gen4 switches
// with two GPUs each.
inline constexpr server_shape dgx_a100{"DGX-A100",
                                       "A100-SXM4-40GB",
                                       4,
                                       nvlink_fabric::nvswitch,
                                       detail::layout(8, 2, 2, detail::all_in_one),
                                       "NVIDIA DGX A100 System Architecture whitepaper (2020)"};
// DGX B200: eight B200 on two NVSwitch chips (14.4 TB/s in all), two Xeon sockets.
inline constexpr server_shape dgx_b200{"DGX-B200",
                                       "B200-180GB",
                                       5,
                                       nvlink_fabric::nvswitch,
                                       detail::layout(8, 2, 2, detail::all_in_one),
                                       "NVIDIA DGX B200 datasheet (2024); PCIe switch layout typical"};
// Eight L40S over PCIe Gen4 in two NUMA domains, two GPUs per switch; L40S has no NVLink.
inline constexpr server_shape pcie_8x_l40s{
    "PCIe-8xL40S", "L40S", 4, nvlink_fabric::none, detail::layout(8, 2, 2, detail::none), "issue 3 example shape; L40S datasheet: no NVLink"};
// Four A100 PCIe cards joined in NVLink pairs by bridges (0-1, 2-3), one socket.
inline constexpr server_shape a100_pcie_4x_nvlink_pairs{"PCIe-4xA100-NVLink-pairs",
                                                        "A100-PCIE-40GB",
                                                        4,
                                                        nvlink_fabric::bridge,
                                                        detail::layout(4, 1, 2, detail::pairs),
                                                        "issue 3 example shape; A100 datasheet: NVLink bridge for 2 GPUs"};
// H100 NVL: cards sold in pairs joined by NVLink bridges (600 GB/s); four cards, two pairs.
inline constexpr server_shape h100_nvl_4x_pairs{"PCIe-4xH100-NVL",
                                                "H100-NVL-94GB",
                                                5,
                                                nvlink_fabric::bridge,
                                                detail::layout(4, 2, 2, detail::pairs),
                                                "NVIDIA H100 datasheet (H100 NVL: 2 GPUs joined by NVLink bridges)"};

inline constexpr server_shape all[] = {hgx_h100_8gpu, hgx_h200_8gpu, dgx_a100, dgx_b200, pcie_8x_l40s, a100_pcie_4x_nvlink_pairs, h100_nvl_4x_pairs};
}  // namespace shapes

[[nodiscard]] constexpr std::span<const server_shape> builtin_server_shapes() noexcept { return shapes::all; }

[[nodiscard]] constexpr const server_shape* find_server_shape(std::string_view name) noexcept {
  for (const server_shape& s : shapes::all)
    if (same_model_name(s.name, name)) return &s;
  return nullptr;
}

}  // namespace gpurent
