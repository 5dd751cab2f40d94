// SPDX-License-Identifier: MIT
// NVML loaded at run time, against a fake libnvidia-ml built by the tests (fake_nvml.cpp):
// parsing of PCI ids, memory, MIG mode, GPU instances and placements, NVLink; and the missing
// library, missing symbol and NVML error paths.
#include <cstdlib>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <gpurent/probe/mapping.hpp>
#include <gpurent/probe/nvml.hpp>
#include <gpurent/spec/mig.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_probe_nvml {

using namespace gpurent;
using namespace gpurent::probe;

namespace {

// Sets GPURENT_FAKE_NVML for one scope (the fake reads it at nvmlInit_v2).
struct fake_config {
  explicit fake_config(const char* spec) { ::setenv("GPURENT_FAKE_NVML", spec, 1); }
  fake_config(const fake_config&) = delete;
  fake_config& operator=(const fake_config&) = delete;
  ~fake_config() { ::unsetenv("GPURENT_FAKE_NVML"); }
};

// The fake libraries' paths: the build's, unless GPURENT_TEST_FAKE_NVML_DIR names the folder
// they were copied to (scripts/device-check runs the tests from a bundle elsewhere).
std::string fake_path(const char* built) {
  const char* dir = std::getenv("GPURENT_TEST_FAKE_NVML_DIR");
  if (dir == nullptr || *dir == '\0') return built;
  const std::string b = built;
  return std::string(dir) + "/" + b.substr(b.rfind('/') + 1);
}
const std::string fake_nvml = fake_path(GPURENT_FAKE_NVML_PATH);
const std::string fake_nvml_partial = fake_path(GPURENT_FAKE_NVML_PARTIAL_PATH);

}  // namespace

TEST_CASE("a missing NVML library is an error with the loader's reason") {
  const auto lib = nvml_library::open("/nonexistent/libnvidia-ml.so.1");
  REQUIRE_FALSE(lib.has_value());
  CHECK(lib.error().code == error_code::not_found);
  CHECK(lib.error().field == "nvml");
  CHECK(lib.error().message.find("cannot load /nonexistent/libnvidia-ml.so.1: ") == 0);
  const auto devs = nvml_devices("/nonexistent/libnvidia-ml.so.1");
  REQUIRE_FALSE(devs.has_value());
  CHECK(devs.error() == lib.error());
}

TEST_CASE("the default library is libnvidia-ml.so.1 unless GPURENT_NVML_LIBRARY says otherwise") {
  const char* was = std::getenv("GPURENT_NVML_LIBRARY");
  const std::string saved = was != nullptr ? was : "";
  ::unsetenv("GPURENT_NVML_LIBRARY");
  CHECK(nvml_default_library() == "libnvidia-ml.so.1");
  ::setenv("GPURENT_NVML_LIBRARY", "/x/libfake.so", 1);
  CHECK(nvml_default_library() == "/x/libfake.so");
  if (was != nullptr) ::setenv("GPURENT_NVML_LIBRARY", saved.c_str(), 1);
  else ::unsetenv("GPURENT_NVML_LIBRARY");
}

TEST_CASE("a library without a needed symbol is unsupported, naming the symbol") {
  const auto lib = nvml_library::open(fake_nvml_partial);
  REQUIRE_FALSE(lib.has_value());
  CHECK(lib.error().code == error_code::unsupported);
  CHECK(lib.error().message.find("has no symbol nvmlGpuInstanceGetInfo") != std::string::npos);
}

TEST_CASE("nvmlInit_v2 failing is an error with NVML's own text") {
  fake_config f("init=9");
  const auto lib = nvml_library::open(fake_nvml);
  REQUIRE_FALSE(lib.has_value());
  CHECK(lib.error().code == error_code::not_found);
  CHECK(lib.error().message == "nvmlInit_v2 failed: Driver Not Loaded (NVML return 9)");
}

TEST_CASE("an H200 with MIG instances 3g@4, 2g@0, 1g@2, read through NVML") {
  fake_config f("");  // the fake's defaults: one H200, MIG on, GPU instances 9@4,14@0,19@2
  auto lib = nvml_library::open(fake_nvml);
  REQUIRE(lib.has_value());
  CHECK(lib->path() == fake_nvml);
  REQUIRE(lib->device_count() == 1U);
  const auto d = lib->device(0);
  REQUIRE(d.has_value());
  CHECK(d->name == "NVIDIA H200");
  CHECK(d->pci == pci_address{0xfe, 0x3b, 0});
  CHECK(d->pci_id == pci_ids{0x10de, 0x2335});
  CHECK(d->total_memory == mib(143771));
  CHECK(d->mig_current == mig_mode::enabled);
  CHECK(d->mig_pending == mig_mode::enabled);
  CHECK(d->nvlink == nvlink_state{18, 18});
  CHECK(d->gpu_instances_error.empty());
  // By start slice, with NVML's instance ids and placement sizes.
  const std::vector<nvml_gpu_instance> want{{2, 14, 0, 2}, {3, 19, 2, 1}, {1, 9, 4, 4}};
  CHECK(d->gpu_instances == want);

  // Mapped: the catalog's H200 and its live layout, valid for the matcher.
  const std::vector<nvml_device> nvml{*d};
  const auto gpus = join_devices({}, nvml);
  REQUIRE(gpus.size() == 1);
  const gpu_mapping& m = gpus[0].mapping;
  REQUIRE(m.model != nullptr);
  CHECK(m.model->name == "H200-SXM-141GB");
  CHECK(m.matched_by == match_method::pci_device_id);
  REQUIRE(m.geometry != nullptr);
  REQUIRE(m.layout.has_value());
  const mig_geometry& g = *m.geometry;
  const mig_layout layout{{*g.find_profile("2g.35gb"), 0}, {*g.find_profile("1g.18gb"), 2}, {*g.find_profile("3g.71gb"), 4}};
  CHECK(*m.layout == layout);
  CHECK(mig_valid(g, *m.layout));
  CHECK(m.memory_within(20'000));
}

TEST_CASE("more GPUs, MIG off or unsupported, a pending change, partial NVLink") {
  {
    fake_config f("count=2;mig=0;pending=1;nvlink=18;nvlink_active=12");
    const auto devs = nvml_devices(fake_nvml);
    REQUIRE(devs.has_value());
    REQUIRE(devs->size() == 2);
    CHECK((*devs)[1].pci.bus == 0x3c);
    CHECK((*devs)[1].index == 1);
    CHECK((*devs)[0].mig_current == mig_mode::disabled);
    CHECK((*devs)[0].mig_pending == mig_mode::enabled);
    CHECK((*devs)[0].gpu_instances.empty());
    CHECK((*devs)[0].nvlink == nvlink_state{18, 12});
  }
  {
    fake_config f("name=NVIDIA L40S;device=0x26b9;memory_mib=46068;mig=none;nvlink=0");
    const auto devs = nvml_devices(fake_nvml);
    REQUIRE(devs.has_value());
    CHECK((*devs)[0].mig_current == mig_mode::unsupported);
    CHECK((*devs)[0].nvlink == nvlink_state{0, 0});
    CHECK((*devs)[0].name == "NVIDIA L40S");
  }
  {
    fake_config f("count=0");
    const auto devs = nvml_devices(fake_nvml);
    REQUIRE(devs.has_value());
    CHECK(devs->empty());
  }
}

TEST_CASE("GPU instances NVML may not list, or that break the geometry, give a layout error") {
  {
    fake_config f("gi_error=4");
    const auto devs = nvml_devices(fake_nvml);
    REQUIRE(devs.has_value());
    CHECK((*devs)[0].gpu_instances.empty());
    CHECK((*devs)[0].gpu_instances_error.find("no permission to list GPU instances") != std::string::npos);
    const auto gpus = join_devices({}, *devs);
    REQUIRE(gpus[0].mapping.layout_error.has_value());
    CHECK_FALSE(gpus[0].mapping.layout.has_value());
  }
  {
    fake_config f("gi=9@0,9@2");  // a 3g at slice 2 overlaps the one at 0, and 2 is no 3g start
    const auto devs = nvml_devices(fake_nvml);
    REQUIRE(devs.has_value());
    const auto gpus = join_devices({}, *devs);
    REQUIRE(gpus[0].mapping.layout_error.has_value());
    CHECK(gpus[0].mapping.layout_error->message == "3g.71gb@2: 3g.71gb can start only at memory slice(s) 0,4");
  }
  {
    fake_config f("gi=0@0");  // the whole GPU as one 7g instance
    const auto devs = nvml_devices(fake_nvml);
    REQUIRE(devs.has_value());
    const auto gpus = join_devices({}, *devs);
    REQUIRE(gpus[0].mapping.layout.has_value());
    CHECK(gpus[0].mapping.layout->size() == 1);
    CHECK(gpus[0].mapping.geometry->profiles[(*gpus[0].mapping.layout)[0].profile].name == "7g.141gb");
  }
}

}  // namespace test_probe_nvml
