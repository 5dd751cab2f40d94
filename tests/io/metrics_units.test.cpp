// SPDX-License-Identifier: MIT
// The units of the DCGM fields (io/monitor/gpu_metrics.hpp, dcgm_field_units), DCGM's blank values,
// and the usage GPUs that name no series (io/monitor/idle_report.hpp): the library side of what
// tests/io/metrics.test.cpp checks through the readers and `gpurent idle`.
#include <doctest/doctest.h>

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/monitor/idle_report.hpp>
#include <gpurent/io/monitor/utilization_file.hpp>

namespace test_io_metrics_units {
using namespace gpurent;

TEST_CASE("each DCGM field has one unit: the *_UTIL fields percent, the PROF activity fields ratios, others no utilization") {
  const auto unit = [](std::string_view m) { return io::utilization_unit(m); };
  CHECK(unit("DCGM_FI_DEV_GPU_UTIL") == io::metric_unit{io::utilization_scale::percent, false});
  CHECK(unit("DCGM_FI_DEV_MEM_COPY_UTIL") == io::metric_unit{io::utilization_scale::percent, false});
  for (std::string_view ratio : {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY",
                                 "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_NVDEC7_ACTIVE"}) {
    CAPTURE(ratio);
    CHECK(unit(ratio) == io::metric_unit{io::utilization_scale::ratio, false});
  }
  CHECK(unit("my_gpu_busy") == io::metric_unit{io::utilization_scale::percent, true});
  CHECK(unit("my_gpu_busy")->text() == "percent (assumed)");
  CHECK(unit("DCGM_FI_PROF_SM_ACTIVE")->text() == "ratio");
  const auto fb = unit("DCGM_FI_DEV_FB_USED");
  REQUIRE_FALSE(fb);
  CHECK(fb.error().field == "--metric");
  // One place: no field is listed twice.
  std::set<std::string_view> seen;
  for (const io::dcgm_field_unit& f : io::dcgm_field_units) CHECK_MESSAGE(seen.insert(f.field).second, f.field);
}

TEST_CASE("a ratio is read into the same thousandths of a percent, so one threshold serves both units") {
  using io::utilization_scale;
  CHECK(io::parse_utilization("0.87", utilization_scale::ratio) == percent(87));
  CHECK(io::parse_utilization("0.05", utilization_scale::ratio) == percent(5));
  CHECK(io::parse_utilization("0.0499999", utilization_scale::ratio) == milli_percent(4999));  // rounded down: still below 5%
  CHECK(io::parse_utilization("1e0", utilization_scale::ratio) == fully_busy);
  CHECK_FALSE(io::parse_utilization("1.00001", utilization_scale::ratio));
  CHECK(io::parse_utilization("-0", utilization_scale::ratio) == milli_percent(0));
  CHECK_FALSE(io::parse_utilization("-0.1", utilization_scale::ratio));
  CHECK(io::parse_utilization("87", utilization_scale::percent) == percent(87));
  CHECK(io::parse_percent("4.999", true) == milli_percent(4999));
  CHECK(io::parse_percent("4.9999", true).error().message == "not a percentage: \"4.9999\" (at most 3 decimals)");
  // Above 100 by less than a thousandth is above 100, not rounded down to it; 100.000 is 100.
  CHECK(io::parse_percent("100.0001").error().message == "not a percentage: \"100.0001\" (above 100)");
  CHECK(io::parse_utilization("1.000001", utilization_scale::ratio).error().message == "not a ratio: \"1.000001\" (above 1)");
  CHECK(io::parse_percent("100.000") == fully_busy);
  CHECK(io::parse_percent("99.9999") == milli_percent(99'999));
}

TEST_CASE("DCGM's blanks: each type's base and the 15 codes above it, written as integers; nothing else") {
  for (std::string_view v :
       {"2147483632", "2147483647", "2.147483632e9", "140737488355328", "140737488355343.000", "9223372036854775792", "9223372036854775807"})
    CHECK_MESSAGE(io::is_dcgm_blank(v), v);
  for (std::string_view v : {"2147483631", "2147483648", "2147483632.5", "140737488355327", "140737488355344", "9223372036854775791",
                             "9223372036854775808", "1e400", "-2147483632", "NaN", "+Inf", "0", "87", "1e19", "9.223372036854775807e18x"})
    CHECK_FALSE_MESSAGE(io::is_dcgm_blank(v), v);
}

TEST_CASE("usage GPUs without a series: each once, at its first line, counted; the message lists what the series are called") {
  gpu_reports reports;
  for (const char* g : {"GPU-a", "GPU-b", "GPU-c", "node-b:1"}) reports[g] = {};
  const auto rec = [](const char* gpu) {
    const instant t0 = *parse_instant("2026-11-03T00:00:00Z");
    return usage_record{"r", "acme", "gpu/H100", "on_demand", nano_quantity(detail::nano_one), t0, t0 + seconds(60), {{"gpu", gpu}}};
  };
  const std::vector<usage_record> records{rec("GPU-a"), rec("node-a:0"), rec("GPU-b;GPU-x"), rec("node-a:0")};
  const std::vector<std::size_t> lines{2, 3, 4, 5};
  const auto u = io::unmatched_gpus(records, lines, reports);
  CHECK(u == std::vector<io::unmatched_gpu>{{"node-a:0", 3, 2}, {"GPU-x", 4, 1}});
  CHECK(io::series_names(reports) == "the 4 series are GPU-a, GPU-b, GPU-c, ...");
  const error e = io::unmatched_gpu_error(u[0], u.size(), "u.csv", reports);
  CHECK(e.describe() ==
        "u.csv:3: field 'gpu': \"node-a:0\" names no utilization series (2 records); 1 other usage GPU names no series either: the 4 series "
        "are GPU-a, GPU-b, GPU-c, ... (a series is named by its UUID label, else Hostname:gpu; a MIG instance adds /GPU_I_ID)");
  CHECK(io::unmatched_gpus(std::vector<usage_record>{rec("GPU-a"), rec("node-b:1")}, lines, reports).empty());
}

TEST_CASE("the report's JSON says the unit when it is not the table's percent, and the warnings when there are") {
  io::idle_report r;
  const auto plain = io::write_idle_json(r);
  REQUIRE(plain);
  CHECK(plain->find("\"unit\"") == std::string::npos);
  CHECK(plain->find("\"warnings\"") == std::string::npos);
  r.unit = io::metric_unit{io::utilization_scale::percent, true};
  r.warnings = {"my_gpu_busy is not a DCGM field gpurent knows"};
  const auto said = io::write_idle_json(r);
  REQUIRE(said);
  CHECK(said->find("\"unit\": \"percent (assumed)\"") != std::string::npos);
  CHECK(said->find("\"warnings\": [\n    \"my_gpu_busy is not a DCGM field gpurent knows\"\n  ]") != std::string::npos);
}

}  // namespace test_io_metrics_units
