// SPDX-License-Identifier: MIT
// Server topology: NVLink domains, NUMA nodes, PCIe switches, on the built-in server shapes.
#include <array>
#include <cstddef>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <gpurent/spec/format.hpp>
#include <gpurent/spec/spec.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_spec_topology {

namespace {
using namespace gpurent;

// HGX H100: NVSwitch joins all eight GPUs.
constexpr const server_shape& hgx = shapes::hgx_h100_8gpu;
static_assert(hgx.gpu_count() == 8);
static_assert(largest_nvlink_group(hgx) == 8);
static_assert(same_nvlink_domain(hgx, 0, 7));
static_assert(gpus_in_domain(hgx, 0).size() == 8);
static_assert(link_between(hgx, 0, 7) == gpu_link::nvlink);
static_assert(numa_node_count(hgx) == 2);
static_assert(find_model(hgx.gpu_model) != nullptr);

// 8x L40S over PCIe in two NUMA domains: no NVLink at all.
constexpr const server_shape& l40s = shapes::pcie_8x_l40s;
static_assert(largest_nvlink_group(l40s) == 1);
static_assert(!same_nvlink_domain(l40s, 0, 1));
static_assert(!same_nvlink_domain(l40s, 0, 0));  // no NVLink peer, not even itself
static_assert(gpus_in_domain(l40s, no_domain).empty());
static_assert(numa_node_count(l40s) == 2);
static_assert(gpus_on_numa_node(l40s, 0) == gpu_index_list{0, 1, 2, 3});
static_assert(gpus_on_numa_node(l40s, 1) == gpu_index_list{4, 5, 6, 7});
static_assert(link_between(l40s, 0, 1) == gpu_link::same_pcie_switch);
static_assert(link_between(l40s, 0, 2) == gpu_link::same_numa);
static_assert(link_between(l40s, 0, 4) == gpu_link::cross_numa);

// 4x A100 PCIe in NVLink pairs: 0-1 and 2-3.
constexpr const server_shape& pairs = shapes::a100_pcie_4x_nvlink_pairs;
static_assert(largest_nvlink_group(pairs) == 2);
static_assert(same_nvlink_domain(pairs, 0, 1) && same_nvlink_domain(pairs, 2, 3));
static_assert(!same_nvlink_domain(pairs, 1, 2));
static_assert(gpus_in_domain(pairs, 1) == gpu_index_list{2, 3});
static_assert(link_between(pairs, 1, 2) == gpu_link::same_numa);

// DGX A100 and DGX B200: one NVSwitch domain of eight.
static_assert(largest_nvlink_group(shapes::dgx_a100) == 8);
static_assert(largest_nvlink_group(shapes::dgx_b200) == 8);
static_assert(shapes::dgx_b200.fabric == nvlink_fabric::nvswitch);

// The weakest link of a gang is what its collectives run at.
constexpr std::array<std::size_t, 2> pair01{0, 1};
constexpr std::array<std::size_t, 3> three{0, 1, 2};
static_assert(weakest_link(pairs, pair01) == gpu_link::nvlink);
static_assert(weakest_link(pairs, three) == gpu_link::same_numa);
static_assert(weakest_link(l40s, std::array<std::size_t, 2>{3, 4}) == gpu_link::cross_numa);

static_assert(*find_server_shape("hgx h100 8gpu") == shapes::hgx_h100_8gpu);
static_assert(find_server_shape("no-such-server") == nullptr);
}  // namespace

TEST_CASE("topology: every built-in shape names a catalog model and is consistent") {
  for (const server_shape& s : builtin_server_shapes()) {
    CAPTURE(s.name);
    const gpu_model* m = find_model(s.gpu_model);
    REQUIRE(m != nullptr);
    CHECK(!s.source.empty());
    CHECK(s.gpu_count() > 0);
    // NVLink fabric only on models with NVLink; domains only when there is a fabric.
    CHECK((s.fabric == nvlink_fabric::none) == !m->nvlink.has_value());
    CHECK((s.fabric == nvlink_fabric::none) == (largest_nvlink_group(s) == 1));
    // same_nvlink_domain is symmetric and agrees with gpus_in_domain.
    for (std::size_t a = 0; a < s.gpu_count(); ++a)
      for (std::size_t b = 0; b < s.gpu_count(); ++b) {
        CHECK(same_nvlink_domain(s, a, b) == same_nvlink_domain(s, b, a));
        CHECK(same_nvlink_domain(s, a, b) == gpus_in_domain(s, s.gpus[a].nvlink_domain).contains(b));
        if (a != b) CHECK(link_between(s, a, b) == link_between(s, b, a));
      }
  }
}

TEST_CASE("topology: a custom shape (two NVSwitch islands of four)") {
  server_shape s{"two-islands", "H100-SXM5-80GB", 5, nvlink_fabric::nvswitch, {}, "test"};
  for (std::int32_t i = 0; i < 8; ++i) CHECK(s.gpus.push_back(gpu_slot{i / 4, i / 2, i / 4}));
  CHECK(largest_nvlink_group(s) == 4);
  CHECK(same_nvlink_domain(s, 4, 7));
  CHECK_FALSE(same_nvlink_domain(s, 3, 4));
  CHECK(link_between(s, 3, 4) == gpu_link::cross_numa);
  CHECK(gpus_in_domain(s, 1) == gpu_index_list{4, 5, 6, 7});
  CHECK(s != shapes::hgx_h100_8gpu);
  CHECK(s == s);
}

TEST_CASE("topology: formatters") {
  CHECK(fmt::format("{}", shapes::hgx_h100_8gpu) == "HGX-H100-8GPU: 8x H100-SXM5-80GB, PCIe Gen5, nvswitch, 2 NUMA nodes");
  CHECK(fmt::format("{}", gpu_link::same_pcie_switch) == "same_pcie_switch");
  CHECK(fmt::format("{:>8}", nvlink_fabric::bridge) == "  bridge");
}

}  // namespace test_spec_topology
