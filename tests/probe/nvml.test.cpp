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
const std::string fake_nvml_minimal = fake_path(GPURENT_FAKE_NVML_MINIMAL_PATH);

// The message of a reading that is not there ("" when it is).
template <class T>
std::string why_not(const nvml_reading<T>& r) {
  return r ? std::string() : r.error().message;
}

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
  if (was != nullptr)
    ::setenv("GPURENT_NVML_LIBRARY", saved.c_str(), 1);
  else
    ::unsetenv("GPURENT_NVML_LIBRARY");
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

TEST_CASE("the live state of an H200 without MIG: UUID, utilization, memory, power, temperature, health") {
  fake_config f("mig=0;util=87;memutil=12;used_mib=2048;power_mw=412345;temp=54;ecc=1,0;ecc_agg=3,1;retired=2,1;remapped=4,0,1,0");
  const auto devs = nvml_devices(fake_nvml);
  REQUIRE(devs.has_value());
  const gpu_telemetry& t = (*devs)[0].telemetry;
  CHECK(t.uuid == std::string("GPU-00000000-0000-0000-0000-000000000000"));
  REQUIRE(t.utilization.has_value());
  CHECK(t.utilization->gpu == percent(87));
  CHECK(t.utilization->memory == percent(12));
  REQUIRE(t.memory.has_value());
  CHECK(t.memory->total == mib(143771));
  CHECK(t.memory->used == mib(2048));
  CHECK(t.memory->free == mib(143771 - 2048));
  CHECK(t.power == milliwatts(412345));
  CHECK(t.temperature_c == 54);
  CHECK(t.health.ecc_volatile == ecc_errors{1, 0});
  CHECK(t.health.ecc_aggregate == ecc_errors{3, 1});
  CHECK(t.health.retired == retired_pages{2, 1});
  CHECK(t.health.remapped == remapped_rows{4, 0, true, false});
  CHECK(t.mig_devices.empty());  // MIG off: no MIG devices
}

TEST_CASE("with MIG on: no GPU utilization (NVML gives none), each MIG device with its UUID, ids and memory") {
  fake_config f("");  // MIG on, GPU instances 3g@4 (id 1), 2g@0 (id 2), 1g@2 (id 3)
  auto lib = nvml_library::open(fake_nvml);
  REQUIRE(lib.has_value());
  const auto t = lib->telemetry(0);
  REQUIRE(t.has_value());
  CHECK(why_not(t->utilization) == "not available on this GPU (nvmlDeviceGetUtilizationRates: Not Supported (NVML return 3))");
  CHECK(why_not(t->health.remapped).find("not available on this GPU (nvmlDeviceGetRemappedRows") == 0);
  CHECK(t->power.has_value());
  REQUIRE(t->mig_devices.size() == 3);
  const mig_device_telemetry& m = t->mig_devices[0];  // NVML's order: the fake's first instance, 3g@4
  CHECK(m.index == 0);
  CHECK(m.uuid == std::string("MIG-1"));
  CHECK(m.gpu_instance_id == 1U);
  CHECK(m.compute_instance_id == 0U);
  REQUIRE(m.memory.has_value());
  CHECK(m.memory->total == mib(143771 / 8 * 4));
  CHECK(why_not(m.utilization).find("not available on this GPU") == 0);
  CHECK(lib->telemetry(7).error().message.find("device 7: nvmlDeviceGetHandleByIndex_v2 failed") == 0);
}

TEST_CASE("readings the GPU does not support say so, and the others are still read") {
  fake_config f("mig=0;unsupported=uuid,util,power,temp,ecc,retired,remapped");
  const auto devs = nvml_devices(fake_nvml);
  REQUIRE(devs.has_value());  // the probe itself does not fail
  const gpu_telemetry& t = (*devs)[0].telemetry;
  for (const std::string& why : {why_not(t.uuid), why_not(t.utilization), why_not(t.power), why_not(t.temperature_c), why_not(t.health.ecc_volatile),
                                 why_not(t.health.ecc_aggregate), why_not(t.health.retired), why_not(t.health.remapped)}) {
    CAPTURE(why);
    CHECK(why.find("not available on this GPU (nvmlDevice") == 0);
    CHECK(why.find("Not Supported") != std::string::npos);
  }
  CHECK(t.memory.has_value());
  CHECK(t.power.error().code == error_code::unsupported);
}

TEST_CASE("an NVML without the live-state functions: each reading is not available, naming the function") {
  fake_config f("mig=0;temp=61");
  auto lib = nvml_library::open(fake_nvml_minimal);
  REQUIRE(lib.has_value());  // they are optional: the probe still opens NVML
  const auto devs = lib->devices();
  REQUIRE(devs.has_value());
  const gpu_telemetry& t = (*devs)[0].telemetry;
  CHECK(why_not(t.uuid) == "not available: this NVML has no nvmlDeviceGetUUID");
  CHECK(why_not(t.utilization) == "not available: this NVML has no nvmlDeviceGetUtilizationRates");
  CHECK(why_not(t.power) == "not available: this NVML has no nvmlDeviceGetPowerUsage");
  CHECK(why_not(t.health.ecc_volatile) == "not available: this NVML has no nvmlDeviceGetTotalEccErrors");
  CHECK(why_not(t.health.retired) == "not available: this NVML has no nvmlDeviceGetRetiredPages");
  CHECK(why_not(t.health.remapped) == "not available: this NVML has no nvmlDeviceGetRemappedRows");
  CHECK(t.temperature_c == 61);  // through the deprecated nvmlDeviceGetTemperature
  CHECK(t.memory.has_value());   // nvmlDeviceGetMemoryInfo is one of the required functions
  CHECK(t.mig_devices.empty());
  CHECK((*devs)[0].name == "NVIDIA H200");  // identity as before
}

TEST_CASE("utilization read again answers the GPU's next value: a watch sees a load start") {
  fake_config f("mig=0;count=2;util=0,0,90");
  auto lib = nvml_library::open(fake_nvml);
  REQUIRE(lib.has_value());
  std::vector<milli_percent> seen;
  for (int i = 0; i < 4; ++i) seen.push_back(lib->telemetry(0)->utilization->gpu);
  CHECK(seen == std::vector<milli_percent>{percent(0), percent(0), percent(90), percent(0)});
  CHECK(lib->telemetry(1)->utilization->gpu == percent(0));  // each GPU has its own sequence
}

}  // namespace test_probe_nvml
