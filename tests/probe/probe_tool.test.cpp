// SPDX-License-Identifier: MIT
// `gpurent probe` as docs/formats/README.md fixes it: with no GPU, exit 3 with a one-line reason on
// stderr and nothing on stdout; with a GPU (here: the fake NVML), JSON on stdout. Runs the
// built tool.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpurent/io/monitor/prometheus_json.hpp>

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
gpurent::test::tool_result run_tool(const std::string& env, const std::string& args) { return gpurent::test::run_tool(args, env); }

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
  CHECK(g["telemetry"]["mig_devices"].size() == 3);
  CHECK(g["telemetry"]["utilization"].is_null());  // not given with MIG on, and the reason said
  CHECK(g["telemetry"]["not_available"]["utilization"].get<std::string>().find("not available on this GPU") == 0);
}

TEST_CASE("gpurent probe --watch: samples as a query_range answer that gpurent idle reads") {
  const std::string env = std::string("GPURENT_NVML_LIBRARY=") + fake_nvml() + " GPURENT_FAKE_NVML='mig=0;count=2;util=0,0,90'";
  const auto o = run_tool(env, "probe --watch 1s --samples 3");
  REQUIRE_MESSAGE(o.status == 0, o.err);
  gpurent::io::gpu_utilization_set set;
  const auto n = gpurent::io::read_query_range_json(o.out, "watch.json", gpurent::io::default_utilization_metric, set);
  REQUIRE_MESSAGE(n, (n ? std::string() : n.error().describe()));
  CHECK(*n == 2);  // one series per GPU
  const auto gpus = set.take();
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].gpu == "GPU-00000000-0000-0000-0000-000000000000");
  REQUIRE(gpus[0].samples.size() == 3);
  CHECK(gpus[0].samples[2].at - gpus[0].samples[0].at == gpurent::seconds(2));  // 1 s apart, on whole seconds
  // The fake answers 0, 0, 90, 0, ... per GPU; the probe read one value when it listed the GPUs.
  CHECK(gpus[0].samples[1].busy == gpurent::percent(90));
  const auto j = nlohmann::json::parse(o.out);
  std::vector<std::string> names;
  for (const auto& s : j["data"]["result"]) names.push_back(s["metric"]["__name__"]);
  for (const char* field : {"DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_TEMP"})
    CHECK(std::find(names.begin(), names.end(), field) != names.end());

  const auto dir = gpurent::test::scratch_dir("watch");
  gpurent::test::write_file(dir / "watch.json", o.out);
  const auto idle = run_tool("", "idle --metrics " + (dir / "watch.json").string() + " --min-idle 0s");
  REQUIRE_MESSAGE(idle.status == 0, idle.err);
  const auto r = nlohmann::json::parse(idle.out);
  CHECK(r["observed_s"] == 6);  // 2 GPUs x 3 samples x 1 s
  CHECK(r["idle_s"] == 4);      // 0, 90, 0: two idle seconds per GPU
}

TEST_CASE("gpurent probe --watch: bad intervals and counts exit 2") {
  for (const char* args : {"probe --samples 3", "probe --watch 0s --samples 3", "probe --watch 1s", "probe --watch soon --samples 1"}) {
    CAPTURE(args);
    const auto o = run_tool("", args);
    CHECK(o.status == 2);
    CHECK(o.out.empty());
  }
}
#endif

}  // namespace test_probe_tool

#endif
