// SPDX-License-Identifier: MIT
// `gpurent probe` as protocols/cli.md fixes it: with no GPU, exit 3 with a one-line reason on
// stderr and nothing on stdout; with a GPU (here: the fake NVML), JSON on stdout. Runs the
// built tool.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#ifdef GPURENT_TOOL_PATH
#include "support/tool.hpp"

namespace test_probe_tool {
namespace {
using gpurent::test::expect_gpu;

#if defined(GPURENT_FAKE_NVML_PATH)
std::string fake_nvml() {
  const char* dir = std::getenv("GPURENT_TEST_FAKE_NVML_DIR");
  const std::string b = GPURENT_FAKE_NVML_PATH;
  if (dir == nullptr || *dir == '\0') return b;
  return std::string(dir) + "/" + b.substr(b.rfind('/') + 1);
}
#endif

// Runs the tool with `env` (VAR=value ...) in front of it.
gpurent::test::tool_result run_tool(const std::string& env, const std::string& args) {
  return gpurent::test::run_tool(args, env);
}

}  // namespace

TEST_CASE("gpurent probe with no GPU: exit 3, one line on stderr, nothing on stdout") {
  if (expect_gpu()) {
    MESSAGE("GPURENT_EXPECT_GPU=1: this machine has a GPU, the no-GPU case is not checked here");
    return;
  }
  for (const char* format : {"", " --format json", " --format table"}) {
    const auto o = run_tool("GPURENT_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1", std::string("probe") + format);
    CHECK(o.status == 3);
    CHECK(o.out.empty());
    REQUIRE_FALSE(o.err.empty());
    CHECK(o.err.find('\n') == o.err.size() - 1);  // exactly one line
    CHECK(o.err.rfind("gpurent: ", 0) == 0);
    MESSAGE("stderr: " << o.err);
  }
}

TEST_CASE("gpurent probe --help") {
  const auto o = run_tool("", "probe --help");
  CHECK(o.status == 0);
  CHECK(o.out.find("--format") != std::string::npos);
}

#if defined(GPURENT_HAS_PROBE) && defined(GPURENT_FAKE_NVML_PATH)
TEST_CASE("gpurent probe through a fake NVML: the H200, its model and live MIG layout as JSON") {
  const auto o = run_tool(std::string("GPURENT_NVML_LIBRARY=") + fake_nvml() + " GPURENT_FAKE_NVML=", "probe --format json");
  REQUIRE_MESSAGE(o.status == 0, o.err);
  const auto j = nlohmann::json::parse(o.out);
  const nlohmann::json* fake = nullptr;
  for (const auto& g : j["gpus"])
    if (g["pci_address"] == "00fe:3b:00.0") fake = &g;
  REQUIRE(fake != nullptr);
  const auto& g = *fake;
  CHECK(g["name"] == "NVIDIA H200");
  CHECK(g["pci_id"] == "10de:2335");
  CHECK(g["memory_mib"] == 143771);
  CHECK(g["model"] == "H200-SXM-141GB");
  CHECK(g["matched_by"] == "pci_device_id");
  CHECK(g["mig"]["mode"] == "enabled");
  CHECK(g["mig"]["layout"] == nlohmann::json::array({"2g.35gb@0", "1g.18gb@2", "3g.71gb@4"}));
  CHECK(g["mig"]["layout_error"].is_null());
  REQUIRE(g["mig"]["instances"].size() == 3);
  CHECK(g["mig"]["instances"][2] == nlohmann::json({{"id", 1}, {"profile_id", 9}, {"profile", "3g.71gb"}, {"start", 4}, {"size", 4}}));
  CHECK(g["nvlink"] == nlohmann::json({{"links", 18}, {"active", 18}}));
  CHECK(g["catalog"]["sm_count"] == 132);
  if (!expect_gpu()) CHECK_FALSE(j["cuda"]["error"].is_null());  // no driver here: NVML alone saw the GPU

  const auto t = run_tool(std::string("GPURENT_NVML_LIBRARY=") + fake_nvml() + " GPURENT_FAKE_NVML=", "probe --format table");
  REQUIRE(t.status == 0);
  CHECK(t.out.find("00fe:3b:00.0  NVIDIA H200 -> H200-SXM-141GB (pci_device_id)") != std::string::npos);
  CHECK(t.out.find("MIG enabled: 2g.35gb@0 1g.18gb@2 3g.71gb@4") != std::string::npos);
}
#endif

}  // namespace test_probe_tool

#endif
