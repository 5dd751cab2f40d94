// SPDX-License-Identifier: MIT
// The CUDA runtime probe, for real. On CI machines (toolkit, no driver, no GPU) it must
// answer "no driver" as an error, never crash. On a GPU machine (scripts/device-check sets
// GPURENT_EXPECT_GPU=1 and GPURENT_EXPECT_MODEL) it must read the GPUs and map them onto the
// catalog.
#include <cstdlib>
#include <string>
#include <string_view>

#include <doctest/doctest.h>

#include "support/tool.hpp"

#if defined(GPURENT_HAS_PROBE)
#include <gpurent/probe/format.hpp>
#include <gpurent/probe/probe.hpp>

using namespace gpurent;
using namespace gpurent::probe;

namespace test_probe_cuda {
using gpurent::test::expect_gpu;

TEST_CASE("cuda_devices: a list of devices, or not_found with the reason") {
  const auto devs = cuda_devices();
  const cuda_versions v = cuda_version();
  CHECK(v.runtime >= 11000);
  if (expect_gpu()) {
    REQUIRE_MESSAGE(devs.has_value(), (devs ? std::string() : devs.error().describe()));
  }
  if (!devs) {
    MESSAGE("no GPU here: " << devs.error().describe());
    CHECK(devs.error().code == error_code::not_found);
    CHECK(devs.error().field == "cuda");
    CHECK_FALSE(devs.error().message.empty());
    CHECK(devs.error().message.find('\n') == std::string::npos);
    if (v.driver == 0) CHECK(devs.error().message.find("no NVIDIA driver") == 0);
    return;
  }
  REQUIRE_FALSE(devs->empty());
  for (const cuda_device& d : *devs) {
    MESSAGE("CUDA device " << d.ordinal << ": " << d.name << ", " << d.sm_count << " SMs, " << to_mib(d.total_memory) << " MiB, "
                           << to_string(d.pci));
    CHECK_FALSE(d.name.empty());
    CHECK(d.sm_count > 0);
    CHECK(d.total_memory.count() > 0);
    CHECK(d.capability.major >= 3);
    CHECK(d.bandwidth().has_value());
  }
}

TEST_CASE("probe_machine: every GPU mapped, or not_found saying why for CUDA and NVML") {
  const auto m = probe_machine();
  if (expect_gpu()) {
    REQUIRE_MESSAGE(m.has_value(), (m ? std::string() : m.error().describe()));
  }
  if (!m) {
    CHECK(m.error().code == error_code::not_found);
    CHECK(m.error().message.find("no GPU: ") == 0);
    CHECK(m.error().message.find("; NVML: ") != std::string::npos);
    return;
  }
  REQUIRE_FALSE(m->gpus.empty());
  for (const probed_gpu& g : m->gpus) MESSAGE(fmt::format("{}", g));
  const char* want = std::getenv("GPURENT_EXPECT_MODEL");
  if (want == nullptr || *want == '\0') return;
  // On the device machine: every GPU is the expected model, with the catalog's SM count and
  // its memory within 2% of the catalog's.
  for (const probed_gpu& g : m->gpus) {
    REQUIRE(g.mapping.model != nullptr);
    CHECK(g.mapping.model->name == std::string_view(want));
    if (g.cuda && !g.cuda->mig_instance && g.mapping.model->sm_count) CHECK(g.cuda->sm_count == g.mapping.model->sm_count->value);
    CHECK(g.mapping.memory_within(20'000));
    if (g.reading.mig_current == mig_mode::enabled) CHECK_MESSAGE(g.mapping.layout.has_value(), "MIG on, but no layout");
  }
}

}  // namespace test_probe_cuda

#else

TEST_CASE("CUDA probe: built without the CUDA toolkit") {
  MESSAGE("gpurent::probe is not built here (no CUDA toolkit): the CUDA probe tests are skipped");
}

#endif
