// SPDX-License-Identifier: MIT
// A GPU's live state in the DCGM exporter's names and units: what `gpurent probe --watch`
// writes, so that its output and an operator's exporter are read the same way.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gpurent/probe/telemetry.hpp>

namespace test_probe_telemetry {
using namespace gpurent;
using namespace gpurent::probe;

TEST_CASE("every reading as the exporter's field, in its unit; readings not given are left out") {
  gpu_telemetry t;
  t.uuid = std::string("GPU-1");
  t.utilization = utilization_rates{percent(87), milli_percent(12'500)};
  t.memory = memory_use{mib(143771), mib(2048), mib(141723)};
  t.power = milliwatts(412'045);
  t.temperature_c = 54;
  t.health.ecc_volatile = ecc_errors{1, 0};
  t.health.remapped = remapped_rows{4, 0, true, true};
  const std::vector<dcgm_value> want{{"DCGM_FI_DEV_GPU_UTIL", "87"},
                                     {"DCGM_FI_DEV_MEM_COPY_UTIL", "12.5"},
                                     {"DCGM_FI_DEV_FB_USED", "2048"},
                                     {"DCGM_FI_DEV_FB_FREE", "141723"},
                                     {"DCGM_FI_DEV_POWER_USAGE", "412.045"},
                                     {"DCGM_FI_DEV_GPU_TEMP", "54"},
                                     {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "1"},
                                     {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "0"},
                                     {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "4"},
                                     {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "0"},
                                     {"DCGM_FI_DEV_ROW_REMAP_FAILURE", "1"}};
  CHECK(dcgm_values(t) == want);
  CHECK(dcgm_values(gpu_telemetry{}).empty());  // nothing read: no field

  mig_device_telemetry m;
  m.memory = memory_use{mib(71'000), mib(0), mib(71'000)};
  CHECK(dcgm_values(m) == std::vector<dcgm_value>{{"DCGM_FI_DEV_FB_USED", "0"}, {"DCGM_FI_DEV_FB_FREE", "71000"}});
}

TEST_CASE("the exporter's labels: gpu, UUID when read, device, modelName, Hostname") {
  nvml_device d;
  d.index = 3;
  d.name = "NVIDIA H200";
  gpu_telemetry t;
  CHECK(dcgm_labels(d, t, "node-a") ==
        std::vector<std::pair<std::string, std::string>>{{"gpu", "3"}, {"device", "nvidia3"}, {"modelName", "NVIDIA H200"}, {"Hostname", "node-a"}});
  t.uuid = std::string("GPU-9");
  CHECK(dcgm_labels(d, t, "node-a")[1] == std::pair<std::string, std::string>{"UUID", "GPU-9"});
}

}  // namespace test_probe_telemetry
