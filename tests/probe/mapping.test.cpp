// SPDX-License-Identifier: MIT
// The mapping from probe readings to catalog terms, on synthetic readings: model by PCI id,
// then by name and memory; the live MIG layout; joining CUDA's and NVML's views.
#include <array>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <gpurent/probe/format.hpp>
#include <gpurent/probe/mapping.hpp>
#include <gpurent/probe/types.hpp>
#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/mig.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_probe_mapping {

using namespace gpurent;
using namespace gpurent::probe;

namespace {

// What an H200 SXM reports (nvidia-smi: "NVIDIA H200", 143771 MiB; PCI 10de:2335).
device_reading h200_reading() {
  device_reading r;
  r.name = "NVIDIA H200";
  r.total_memory = mib(143771);
  r.pci_id = pci_ids{pci_vendor_nvidia, 0x2335};
  r.sm_count = 132;
  r.capability = compute_capability{9, 0};
  return r;
}

mig_profile_index profile(const mig_geometry& g, std::string_view name) {
  const auto p = g.find_profile(name);
  REQUIRE(p.has_value());
  return *p;
}

}  // namespace

static_assert(memory_bandwidth(2'619'000, 5120) == mb_per_s(3'352'320));  // H100 SXM5: 3.35 TB/s
static_assert(split_pci_id(0x233510deU) == pci_ids{0x10de, 0x2335});
static_assert(is_mig_device_name("NVIDIA H100 80GB HBM3 MIG 3g.40gb"));
static_assert(!is_mig_device_name("NVIDIA H200"));

TEST_CASE("an H200 maps to H200-SXM-141GB with 132 SMs and memory within 2% of the catalog's") {
  const device_reading r = h200_reading();
  const gpu_mapping m = map_device(r);
  REQUIRE(m.model != nullptr);
  CHECK(m.model->name == "H200-SXM-141GB");
  CHECK(m.matched_by == match_method::pci_device_id);
  REQUIRE(m.model->sm_count.has_value());
  CHECK(m.model->sm_count->value == 132);
  CHECK(*r.sm_count == m.model->sm_count->value);
  CHECK(m.memory_within(20'000));
  REQUIRE(m.memory_deviation_ppm.has_value());
  CHECK(*m.memory_deviation_ppm == -4245);  // 143771 MiB of 141 GiB (144384 MiB)
  REQUIRE(m.geometry != nullptr);
  CHECK(m.geometry->model == "H200-SXM-141GB");
  CHECK_FALSE(m.layout.has_value());  // MIG mode unknown: no layout claimed
  CHECK(m.notes.empty());
}

TEST_CASE("without a PCI id the name and memory decide") {
  device_reading r = h200_reading();
  r.pci_id.reset();
  auto m = map_device(r);
  REQUIRE(m.model != nullptr);
  CHECK(m.model->name == "H200-SXM-141GB");
  CHECK(m.matched_by == match_method::name_and_memory);

  device_reading h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.total_memory = mib(81559);
  m = map_device(h100);
  REQUIRE(m.model != nullptr);
  CHECK(m.model->name == "H100-SXM5-80GB");

  // The right name with far too little memory is not that model.
  h100.total_memory = mib(40960);
  m = map_device(h100);
  CHECK(m.model == nullptr);
  CHECK(m.matched_by == match_method::none);
  REQUIRE(m.notes.size() == 1);
  CHECK(m.notes[0].find("no catalog model") != std::string::npos);
}

TEST_CASE("an unknown PCI id falls back to the name; an unknown GPU maps to nothing") {
  device_reading r = h200_reading();
  r.pci_id = pci_ids{pci_vendor_nvidia, 0x9999};
  auto m = map_device(r);
  REQUIRE(m.model != nullptr);
  CHECK(m.matched_by == match_method::name_and_memory);

  r.name = "NVIDIA Imaginary X1";
  r.mig_current = mig_mode::enabled;
  m = map_device(r);
  CHECK(m.model == nullptr);
  REQUIRE(m.layout_error.has_value());
  CHECK(m.layout_error->code == error_code::unsupported);
  CHECK(m.notes[0].find("10de:9999") != std::string::npos);
}

TEST_CASE("a CUDA view of one MIG instance maps by the parent's name, with a note") {
  device_reading r;
  r.name = "NVIDIA H100 80GB HBM3 MIG 3g.40gb";
  r.total_memory = mib(40448);
  r.sm_count = 60;
  r.cuda_mig_instance = true;
  const auto m = map_device(r);
  REQUIRE(m.model != nullptr);
  CHECK(m.model->name == "H100-SXM5-80GB");
  CHECK_FALSE(m.memory_deviation_ppm.has_value());
  REQUIRE(m.notes.size() == 1);
  CHECK(m.notes[0].find("MIG instance") != std::string::npos);
}

TEST_CASE("disagreements with the catalog are noted") {
  device_reading r = h200_reading();
  r.sm_count = 114;
  r.mig_current = mig_mode::disabled;
  r.mig_pending = mig_mode::enabled;
  const auto m = map_device(r);
  REQUIRE(m.notes.size() == 2);
  CHECK(m.notes[0] == "114 SMs, the catalog says 132");
  CHECK(m.notes[1] == "MIG mode changes to enabled at the next GPU reset");
  CHECK_FALSE(m.layout.has_value());
  CHECK_FALSE(m.layout_error.has_value());
}

TEST_CASE("the live MIG layout is a validated spec layout") {
  const mig_geometry& g = *find_mig_geometry("H200-SXM-141GB");
  // 3g.71gb (id 9) at 4, 2g.35gb (id 14) at 0, 1g.18gb (id 19) at 2, as NVML lists them.
  const std::vector<nvml_gpu_instance> gis{{1, 9, 4, 4}, {2, 14, 0, 2}, {3, 19, 2, 1}};
  const auto l = live_mig_layout(g, gis);
  REQUIRE(l.has_value());
  const mig_layout want{{profile(g, "3g.71gb"), 4}, {profile(g, "2g.35gb"), 0}, {profile(g, "1g.18gb"), 2}};
  CHECK(*l == want);
  CHECK(mig_valid(g, *l));
  CHECK(fmt::format("{}", mig_show(g, *l)) == "2g.35gb@0 1g.18gb@2 3g.71gb@4");

  // The matcher can use it: what still fits next to it.
  const std::array<mig_profile_index, 1> one{profile(g, "1g.18gb")};
  CHECK(mig_fit(g, *l, one).fits());

  device_reading r = h200_reading();
  r.mig_current = r.mig_pending = mig_mode::enabled;
  r.gpu_instances = gis;
  const auto m = map_device(r);
  REQUIRE(m.layout.has_value());
  CHECK(*m.layout == want);
  CHECK(m.notes.empty());
}

TEST_CASE("an impossible live layout is an error naming the instance") {
  const mig_geometry& g = *find_mig_geometry("H200-SXM-141GB");
  auto l = live_mig_layout(g, std::vector<nvml_gpu_instance>{{1, 99, 0, 1}});
  REQUIRE_FALSE(l.has_value());
  CHECK(l.error().code == error_code::unknown_name);
  CHECK(l.error().message == "GPU instance 1 (profile id 99 at 0): no such profile in the H200-SXM-141GB MIG geometry");

  l = live_mig_layout(g, std::vector<nvml_gpu_instance>{{1, 9, 0, 2}});
  REQUIRE_FALSE(l.has_value());
  CHECK(l.error().message == "GPU instance 1 (profile id 9 at 0): occupies 2 memory slices, 3g.71gb has 4");

  l = live_mig_layout(g, std::vector<nvml_gpu_instance>{{1, 9, 2, 4}});
  REQUIRE_FALSE(l.has_value());
  CHECK(l.error().field == "gpu_instances");
  CHECK(l.error().message == "3g.71gb@2: 3g.71gb can start only at memory slice(s) 0,4");

  l = live_mig_layout(g, std::vector<nvml_gpu_instance>{{1, 9, 0, 4}, {2, 14, 2, 2}});
  REQUIRE_FALSE(l.has_value());
  CHECK(l.error().message.find("overlaps") != std::string::npos);

  device_reading r = h200_reading();
  r.mig_current = mig_mode::enabled;
  r.gpu_instances_error = "no permission to list GPU instances";
  const auto m = map_device(r);
  CHECK_FALSE(m.layout.has_value());
  REQUIRE(m.layout_error.has_value());
  CHECK(m.layout_error->message == "no permission to list GPU instances");
}

TEST_CASE("CUDA and NVML views join by PCI address, one entry per GPU") {
  cuda_device c0;
  c0.ordinal = 0;
  c0.name = "NVIDIA H200";
  c0.total_memory = mib(143160);
  c0.sm_count = 132;
  c0.capability = {9, 0};
  c0.memory_clock_khz = 3'201'000;
  c0.memory_bus_width_bits = 6144;
  c0.pci = {0, 0x1b, 0};
  cuda_device c1 = c0;  // a second GPU NVML did not report
  c1.ordinal = 1;
  c1.pci = {0, 0x2c, 0};
  nvml_device n0;
  n0.name = "NVIDIA H200";
  n0.pci = {0, 0x1b, 0};
  n0.pci_id = {pci_vendor_nvidia, 0x2335};
  n0.total_memory = mib(143771);
  n0.mig_current = n0.mig_pending = mig_mode::disabled;
  n0.nvlink = {18, 18};
  const std::vector<cuda_device> cuda{c0, c1};
  const std::vector<nvml_device> nvml{n0};
  const auto gpus = join_devices(cuda, nvml);
  REQUIRE(gpus.size() == 2);
  REQUIRE(gpus[0].cuda.has_value());
  REQUIRE(gpus[0].nvml.has_value());
  CHECK(gpus[0].cuda->ordinal == 0);
  CHECK(gpus[0].reading.total_memory == mib(143771));  // NVML's whole-GPU figure
  CHECK(gpus[0].reading.sm_count == 132);
  CHECK(gpus[0].reading.memory_bandwidth == mb_per_s(4'916'736));
  CHECK(gpus[0].mapping.matched_by == match_method::pci_device_id);
  CHECK(gpus[1].cuda->ordinal == 1);
  CHECK_FALSE(gpus[1].nvml.has_value());
  CHECK(gpus[1].mapping.matched_by == match_method::name_and_memory);
  CHECK(gpus[1].mapping.model == gpus[0].mapping.model);
  CHECK(to_string(*gpus[0].reading.pci) == "0000:1b:00.0");
  CHECK(fmt::format("{}", gpus[0]) ==
        "0000:1b:00.0  NVIDIA H200 -> H200-SXM-141GB (pci_device_id), 140.4 GiB, 132 SMs, cc 9.0, 4916 GB/s, "
        "NVLink 18/18 up, MIG disabled");
}

TEST_CASE("a loaded catalog is mapped onto as well") {
  const catalog c = catalog::builtin();
  const auto m = map_device(h200_reading(), c.models());
  REQUIRE(m.model != nullptr);
  CHECK(m.model->name == "H200-SXM-141GB");
}

}  // namespace test_probe_mapping
