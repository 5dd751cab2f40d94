// SPDX-License-Identifier: MIT
// The utilization readers (Prometheus query_range JSON, DCGM exporter text) on golden files
// written to the published formats (tests/io/data/README.md works the case out by hand),
// their errors naming file, line and field, and `gpurent idle` on them.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/file.hpp>
#include <gpurent/io/idle_report.hpp>
#include <gpurent/io/utilization_file.hpp>

#include "support/tool.hpp"

namespace test_io_metrics {
using namespace gpurent;

const std::string data_dir = std::string(GPURENT_SOURCE_DIR) + "/tests/io/data/";
constexpr std::string_view gpu_a = "GPU-4f1c0a2e-7d3b-4c55-9e8a-1b2c3d4e5f60";

instant at_min(int m) { return *parse_instant("2026-11-03T00:00:00Z") + seconds(60 * m); }
interval span(int from, int to) { return *interval::make(at_min(from), at_min(to)); }

std::vector<io::gpu_utilization> read_golden(const std::string& name) {
  io::gpu_utilization_set set;
  const auto ok = io::read_utilization_file(data_dir + name, io::default_utilization_metric, set);
  REQUIRE_MESSAGE(ok, (ok ? std::string() : ok.error().describe()));
  return set.take();
}

// The error of reading `text` as file "m.txt" (empty when it reads).
std::string read_error(std::string_view text) {
  io::gpu_utilization_set set;
  const auto ok = io::read_utilization_text(text, "m.txt", io::default_utilization_metric, set);
  return ok ? std::string() : ok.error().describe();
}

idle_rules five_minutes() {
  idle_rules r;
  r.min_idle = seconds(300);
  return r;
}

TEST_CASE("both golden files hold the same samples, per GPU, other metrics read past") {
  const auto prom = read_golden("query_range.json");
  const auto dcgm = read_golden("dcgm_exporter.prom");
  CHECK(prom == dcgm);
  REQUIRE(prom.size() == 2);
  CHECK(prom[0].gpu == gpu_a);
  CHECK(prom[1].gpu == "node-b:1");  // no UUID label: Hostname:gpu
  REQUIRE(prom[0].samples.size() == 20);
  CHECK(prom[0].samples[8] == utilization_sample{at_min(8), milli_percent(4999)});  // "4.999", exactly
  CHECK(prom[1].samples.size() == 13);
}

TEST_CASE("the golden case's idle periods, computed by hand") {
  const auto reports = io::analyze_gpus(read_golden("dcgm_exporter.prom"), five_minutes());
  REQUIRE(reports);
  const utilization_report& a = reports->at(std::string(gpu_a));
  CHECK(a.observed == std::vector<interval>{span(0, 20)});
  CHECK(a.idle == std::vector<interval>{span(4, 13)});  // 00:15-00:17 at 4%: not over 5 min
  const utilization_report& b = reports->at("node-b:1");
  CHECK(b.observed == std::vector<interval>{span(0, 10), span(13, 20)});  // the gap is unobserved
  CHECK(b.idle == std::vector<interval>{span(0, 10), span(13, 20)});
  CHECK(share_basis_points(a.idle_seconds() + b.idle_seconds(), a.observed_seconds() + b.observed_seconds()) == 7027);
}

TEST_CASE("a query_range answer written reads back as it was") {
  io::metric_series s;
  s.labels = {{"__name__", "DCGM_FI_DEV_GPU_UTIL"}, {"UUID", "GPU-x"}};
  s.values = {{at_min(0), "87"}, {at_min(1), "2.5"}};
  io::gpu_utilization_set set;
  const auto n = io::read_query_range_json(io::write_query_range_json({s}), "w.json", io::default_utilization_metric, set);
  REQUIRE(n);
  CHECK(*n == 1);
  const auto back = set.take();
  REQUIRE(back.size() == 1);
  CHECK(back[0].samples == std::vector<utilization_sample>{{at_min(0), 87}, {at_min(1), milli_percent(2500)}});
}

TEST_CASE("percentages and timestamps as written: exact thousandths, whole seconds") {
  CHECK(io::parse_percent("87") == percent(87));
  CHECK(io::parse_percent("1e2") == percent(100));
  CHECK(io::parse_percent("4.9999") == milli_percent(4999));  // a measurement: rounded down
  CHECK_FALSE(io::parse_percent("4.9999", true));             // a threshold: refused
  CHECK_FALSE(io::parse_percent("100.001"));
  CHECK_FALSE(io::parse_percent("-1"));
  CHECK_FALSE(io::parse_percent("NaN"));
  CHECK(io::parse_epoch("1793664000.781") == at_min(0));
  CHECK(io::parse_epoch("1793664060000", 1000) == at_min(1));
  CHECK_FALSE(io::parse_epoch("soon"));
}

TEST_CASE("DCGM text: blanks are no sample, OpenMetrics timestamps are seconds, # EOF ends it") {
  io::gpu_utilization_set set;
  const std::string om =
      "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
      "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\",note=\"a \\\"b\\\"\"} 3 1793664000\n"
      "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 2147483632 1793664060\n"  // DCGM_INT32_BLANK
      "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\",GPU_I_ID=\"2\"} 40 1793664000\n"
      "# EOF\n";
  const auto n = io::read_exposition_text(om, "om.txt", io::default_utilization_metric, set);
  REQUIRE(n);
  CHECK(*n == 2);
  const auto gpus = set.take();
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].gpu == "GPU-x");
  CHECK(gpus[0].samples == std::vector<utilization_sample>{{at_min(0), 3}});
  CHECK(gpus[1].gpu == "GPU-x/2");  // a MIG instance
  CHECK(read_error(om + "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 3 1793664000\n") == "m.txt:6: text after \"# EOF\"");
}

TEST_CASE("malformed input names the file, the line or JSON path, and the field") {
  struct bad_case {
    const char* text;
    const char* message;
  };
  const bad_case cases[] = {
      {"DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 1793664000000\nDCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x} 5 1793664060000\n",
       "m.txt:2: unterminated label value"},
      {"# HELP x\n\nDCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5\n", "m.txt:3: field 'timestamp': missing"},
      {"DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 105 1793664000000\n", "m.txt:1: field 'value': not a percentage: \"105\" (above 100)"},
      {"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 1793664000000\n", "m.txt:1: field 'labels': name no GPU"},
      {"DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} five 1793664000000\n", "m.txt:1: expected a value after the labels, got \"five\""},
      // Label values are UTF-8 (the format says so; the report's JSON needs it).
      {"DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 1793664000000\nDCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-\x9a\"} 5 1793664000000\n",
       "m.txt:2: label UUID: not UTF-8: byte 0x9A at offset 4"},
      {"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"UUID\":\"GPU-\xff\"},\"values\":[[1,\"5\"]]}]}}",
       "m.txt:1: not valid JSON"},
      {"DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 1793664000000 extra\n", "m.txt:1: unexpected text after the timestamp"},
      {"DCGM_FI_DEV_FB_USED{UUID=\"GPU-x\"} 5 1793664000000\n", "m.txt: field '--metric': no DCGM_FI_DEV_GPU_UTIL samples"},
      {"{\"status\":\"success\",\n\"data\":{\"resultType\":\"matrix\",\n\"result\":[}}\n", "m.txt:3: not valid JSON"},
      {R"({"status":"success","data":{"resultType":"vector","result":[]}})", "m.txt: field 'data.resultType': expected \"matrix\""},
      {R"({"status":"error","errorType":"bad_data","error":"parse error"})",
       "m.txt: field 'status': the query failed (error, bad_data: parse error)"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"UUID":"GPU-x"},"values":[[1,"5"],[2,"x"]]}]}})",
       "m.txt: field 'data.result[0].values[1][1]': not a percentage: \"x\""},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"UUID":"GPU-x"},"values":[["1","5"]]}]}})",
       "m.txt: field 'data.result[0].values[0][0]': expected a number of seconds"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"job":"j"},"values":[]}]}})",
       "m.txt: field 'data.result[0].metric': names no GPU"},
  };
  for (const bad_case& c : cases) {
    CAPTURE(c.text);
    const std::string got = read_error(c.text);
    CAPTURE(got);
    CHECK(got.rfind(c.message, 0) == 0);
  }
}

#if defined(GPURENT_TOOL_PATH)
std::string golden(const std::string& name) { return *io::read_file(data_dir + name); }

TEST_CASE("gpurent idle on either format prints the golden report; with usage, the idle cost") {
  const std::string common = " --min-idle 5min";
  for (const char* f : {"query_range.json", "dcgm_exporter.prom"}) {
    CAPTURE(f);
    const auto o = test::run_tool("idle --metrics " + data_dir + f + common);
    REQUIRE_MESSAGE(o.status == 0, o.err);
    CHECK(o.out == golden("idle.expected.json"));
    const std::string usage = " --usage " + data_dir + "idle_usage.csv --tariff " + data_dir + "idle_tariff.json --period 2026-11";
    const auto b = test::run_tool("idle --metrics " + data_dir + f + common + usage);
    REQUIRE_MESSAGE(b.status == 0, b.err);
    CHECK(b.out == golden("idle_billed.expected.json"));
    const auto c = test::run_tool("idle --metrics " + data_dir + f + common + usage + " --format csv");
    CHECK(c.out == golden("idle_billed.expected.csv"));
  }
}

TEST_CASE("gpurent idle: bad input and usage exit 2 with the reason on stderr, nothing on stdout") {
  const std::string m = " --metrics " + data_dir + "query_range.json";
  const std::pair<std::string, std::string> cases[] = {
      {"idle --metrics " + data_dir + "idle_usage.csv", "idle_usage.csv:1: expected a value after the labels"},
      {"idle" + m + " --threshold 101", "field '--threshold': not a percentage"},
      {"idle" + m + " --max-gap 0s", "field '--max-gap': must be positive"},
      {"idle" + m + " --min-idle 3x", "field '--min-idle': not a duration"},
      {"idle" + m + " --usage " + data_dir + "idle_usage.csv", "field '--tariff': --usage, --tariff and --period go together"},
      {"idle" + m + " --usage " + data_dir + "idle_tariff.json --tariff " + data_dir + "idle_tariff.json --period 2026-11", "idle_tariff.json:1"},
  };
  for (const auto& c : cases) {
    const std::string& args = c.first;
    const std::string& message = c.second;
    CAPTURE(args);
    const auto o = test::run_tool(args);
    CHECK(o.status == 2);
    CHECK(o.out.empty());
    CHECK_MESSAGE(o.err.find(message) != std::string::npos, o.err);
  }
}
#endif

}  // namespace test_io_metrics
