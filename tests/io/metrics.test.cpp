// SPDX-License-Identifier: MIT
// The utilization readers (Prometheus query_range JSON, DCGM exporter text) on golden files
// written to the published formats (tests/io/data/README.md works the case out by hand),
// their errors naming file, line and field, and `gpurent idle` on them.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/io/monitor/idle_report.hpp>
#include <gpurent/io/monitor/utilization_file.hpp>
#include <gpurent/io/text/file.hpp>

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

// The error of reading `metric` in `text` as file "m.txt" (empty when it reads).
std::string read_error(std::string_view text, std::string_view metric = io::default_utilization_metric) {
  io::gpu_utilization_set set;
  const auto ok = io::read_utilization_text(text, "m.txt", metric, set);
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

// A query_range answer of one series of GPU-x with `values` ("[1793664000,\"5\"],..."), each on a line of its own from line 3.
std::string one_series_json(const std::string& values, const std::string& name = "DCGM_FI_DEV_GPU_UTIL") {
  return "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n{\"metric\":{\"__name__\":\"" + name +
         "\",\"UUID\":\"GPU-x\"},\"values\":[\n" + values + "]}]}}\n";
}

// The samples of `metric` in `text`, or the error.
struct read_result {
  std::vector<io::gpu_utilization> gpus;
  std::string error;
};
read_result samples_of(std::string_view text, std::string_view metric = io::default_utilization_metric) {
  io::gpu_utilization_set set;
  const auto ok = io::read_utilization_text(text, "m.txt", metric, set);
  if (!ok) return {{}, ok.error().describe()};
  return {set.take(), {}};
}

TEST_CASE("timestamps outside the years 0000-9999 are errors naming file, line and field") {
  const std::string busy = "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 1793664000000\n";
  // 253402300800 s is 10000-01-01T00:00:00Z; -62167219201 s is one second before 0000-01-01.
  CHECK(read_error(busy + "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 253402300800000\n") ==
        "m.txt:2: field 'timestamp': timestamp \"253402300800000\" is outside the years 0000-9999");
  CHECK(read_error(busy + "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 -62167219201000\n") ==
        "m.txt:2: field 'timestamp': timestamp \"-62167219201000\" is outside the years 0000-9999");
  CHECK(read_error(busy + "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 9e14\n") ==
        "m.txt:2: field 'timestamp': timestamp \"9e14\" is outside the years 0000-9999");
  // OpenMetrics seconds: the last second of 9999 is read, the next is not.
  const std::string om = "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 253402300799\n";
  const read_result last = samples_of(om + "# EOF\n");
  REQUIRE_MESSAGE(last.error.empty(), last.error);
  CHECK(last.gpus.at(0).samples.at(0).at == latest_instant);
  CHECK(read_error(om + "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 253402300800\n# EOF\n") ==
        "m.txt:2: field 'timestamp': timestamp \"253402300800\" is outside the years 0000-9999");
  CHECK(read_error(one_series_json("[1793664000,\"5\"],\n[253402300800,\"5\"]")) ==
        "m.txt:4: field 'data.result[0].values[1][0]': timestamp \"253402300800\" is outside the years 0000-9999");
  CHECK(read_error(one_series_json("[-1e12,\"5\"]")).starts_with("m.txt:3: field 'data.result[0].values[0][0]': timestamp "));
}

TEST_CASE("DCGM text without # EOF: second timestamps read as milliseconds fall in 1970, an error with the hint") {
  // 1793664000 ms is 1970-01-21T18:14:24Z: seconds of 2026 written without OpenMetrics' # EOF.
  const std::string secs = "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"G\"} 0 1793664000\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"G\"} 0 1793664120\n";
  CHECK(read_error(secs) ==
        "m.txt:1: field 'timestamp': \"1793664000\" read as milliseconds (Prometheus text) is 1970-01-21T18:14:24Z, before 2000: if the "
        "file's timestamps are seconds, it is OpenMetrics and must end with a \"# EOF\" line");
  CHECK(read_error(secs + "# EOF\n").empty());
  // The bound: 2000-01-01T00:00:00Z in milliseconds reads, one millisecond-second earlier does not.
  CHECK(read_error("DCGM_FI_DEV_GPU_UTIL{UUID=\"G\"} 0 946684800000\n").empty());
  CHECK(read_error("DCGM_FI_DEV_GPU_UTIL{UUID=\"G\"} 0 946684799000\n").starts_with("m.txt:1: field 'timestamp': \"946684799000\" read as"));
  CHECK(read_error("DCGM_FI_DEV_GPU_UTIL{UUID=\"G\"} 0 0\n").starts_with("m.txt:1: field 'timestamp': \"0\" read as milliseconds"));
  // Other metrics' timestamps are not read.
  CHECK(read_error("DCGM_FI_DEV_FB_USED{UUID=\"G\"} 0 60\n" + secs.substr(secs.find('\n') + 1)).starts_with("m.txt:2: field 'timestamp'"));
}

TEST_CASE("DCGM text: a label given twice is an error at its line") {
  CHECK(read_error("DCGM_FI_DEV_GPU_UTIL{UUID=\"G\",UUID=\"H\"} 0 1793664000000\n") == "m.txt:1: label UUID given twice");
  CHECK(read_error("DCGM_FI_DEV_FB_USED{gpu=\"0\",gpu=\"0\"} 0 1793664000000\n") == "m.txt:1: label gpu given twice");
}

TEST_CASE("samples in the last minutes of 9999: the idle window and periods end by its last second, never in 10000") {
  // 253402300740 s is 9999-12-31T23:59:00Z: idle samples every 30 s to the year's last second.
  std::string text;
  for (std::int64_t t = 253402300740; t <= 253402300799; t += 30) text += "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 1 " + std::to_string(t) + "\n";
  const read_result r = samples_of(text + "# EOF\n");
  REQUIRE_MESSAGE(r.error.empty(), r.error);
  const auto window = io::samples_window(r.gpus, seconds{300});
  REQUIRE(window);
  CHECK(window->end() == latest_instant);
  idle_rules rules;
  rules.min_idle = seconds{10};
  const auto reports = io::analyze_gpus(r.gpus, rules);
  REQUIRE(reports);
  const utilization_report& x = reports->at("GPU-x");
  REQUIRE(x.idle.size() == 1);
  CHECK(x.idle[0].begin() == latest_instant - seconds{59});
  CHECK(x.idle[0].end() == latest_instant);
  // Only the last second sampled: an empty window (it ended in 10000), no idle period.
  const read_result only_last = samples_of("DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 1 253402300799\n# EOF\n");
  const auto empty = io::samples_window(only_last.gpus, seconds{300});
  REQUIRE(empty);
  CHECK(empty->empty());
  CHECK(io::analyze_gpus(only_last.gpus, rules)->at("GPU-x").idle.empty());
}

const std::string busy_line = "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 1793664000000\n";
std::string minute_one(const std::string& v) { return "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} " + v + " 1793664060000\n"; }

TEST_CASE("only DCGM's documented blanks are no sample, in either format") {
  // dcgm_structs.h: DCGM_INT32_BLANK 0x7ffffff0 .. 0x7fffffff, DCGM_FP64_BLANK 2^47 .. +15,
  // DCGM_INT64_BLANK 0x7ffffffffffffff0 .. 0x7fffffffffffffff.
  for (const char* blank : {"2147483632", "2147483647", "2147483632.0", "140737488355328", "140737488355343", "1.40737488355328e+14",
                            "9223372036854775792", "9223372036854775807"}) {
    CAPTURE(blank);
    const read_result text = samples_of(busy_line + minute_one(blank));
    REQUIRE_MESSAGE(text.error.empty(), text.error);
    CHECK(text.gpus.at(0).samples.size() == 1);  // the blank is no sample
    const read_result json = samples_of(one_series_json("[1793664000,\"5\"],\n[1793664060,\"" + std::string(blank) + "\"]"));
    REQUIRE_MESSAGE(json.error.empty(), json.error);
    CHECK(json.gpus.at(0).samples.size() == 1);  // in a query_range answer too
  }
}

TEST_CASE("a value that is no blank and out of its unit's range is an error at its line naming the metric, not a dropped sample") {
  for (const char* bad : {"1e400", "9223372036854775808", "2147483648", "140737488355344", "2147483631", "18446744073709551615", "2.5e9"}) {
    CAPTURE(bad);
    CHECK(read_error(busy_line + minute_one(bad)) ==
          "m.txt:2: field 'value': DCGM_FI_DEV_GPU_UTIL: not a percentage: \"" + std::string(bad) + "\" (above 100)");
  }
  CHECK(read_error(busy_line + minute_one("NaN")) ==
        "m.txt:2: field 'value': DCGM_FI_DEV_GPU_UTIL: not a percentage: \"NaN\" (expected a number from 0 to 100)");
  CHECK(read_error(busy_line + minute_one("+Inf")).starts_with("m.txt:2: field 'value': DCGM_FI_DEV_GPU_UTIL: not a percentage: \"+Inf\""));
  CHECK(read_error(busy_line + minute_one("-2147483632")) ==
        "m.txt:2: field 'value': DCGM_FI_DEV_GPU_UTIL: not a percentage: \"-2147483632\" (below 0)");
  CHECK(read_error(one_series_json("[1793664000,\"1e400\"]")) ==
        "m.txt:3: field 'data.result[0].values[0][1]': DCGM_FI_DEV_GPU_UTIL: not a percentage: \"1e400\" (above 100)");
}

TEST_CASE("DCGM_FI_PROF_* activity fields are ratios 0..1, read as such; out of the unit's range is an error at its line") {
  const std::string m = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";
  const auto line = [&](const std::string& v, int minute) {
    return m + "{UUID=\"GPU-x\"} " + v + " " + std::to_string(1793664000 + 60 * minute) + "000\n";
  };
  const read_result ratios = samples_of(line("0.87", 0) + line("0.049999", 1) + line("1", 2) + line("0", 3), m);
  REQUIRE_MESSAGE(ratios.error.empty(), ratios.error);
  REQUIRE(ratios.gpus.size() == 1);
  // 0.87 is 87%: busy, not "0.87% idle"; 0.049999 is below 5% (4.999%, rounded down).
  CHECK(ratios.gpus[0].samples ==
        std::vector<utilization_sample>{{at_min(0), 87}, {at_min(1), milli_percent(4999)}, {at_min(2), 100}, {at_min(3), 0}});
  CHECK(read_error(line("0.5", 0) + line("1.7", 1), m) == "m.txt:2: field 'value': DCGM_FI_PROF_GR_ENGINE_ACTIVE: not a ratio: \"1.7\" (above 1)");
  CHECK(read_error(line("87", 0), m) == "m.txt:1: field 'value': DCGM_FI_PROF_GR_ENGINE_ACTIVE: not a ratio: \"87\" (above 1)");
  const read_result json = samples_of(one_series_json("[1793664000,\"0.25\"]", "DCGM_FI_PROF_SM_ACTIVE"), "DCGM_FI_PROF_SM_ACTIVE");
  REQUIRE_MESSAGE(json.error.empty(), json.error);
  CHECK(json.gpus.at(0).samples == std::vector<utilization_sample>{{at_min(0), 25}});
  // The percent fields stay percent: 250 is out of range.
  CHECK(read_error("DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 250 1793664000000\n") ==
        "m.txt:1: field 'value': DCGM_FI_DEV_GPU_UTIL: not a percentage: \"250\" (above 100)");
  // A field that is no utilization is refused by name rather than read as a percentage.
  CHECK(read_error("DCGM_FI_DEV_FB_USED{UUID=\"GPU-x\"} 71234 1793664000000\n", "DCGM_FI_DEV_FB_USED") ==
        "field '--metric': DCGM_FI_DEV_FB_USED is in MiB, not a utilization (a percentage or a ratio)");
}

TEST_CASE("a UTF-8 byte-order mark is skipped by both readers, as by every reader; lines keep their numbers") {
  const std::string bom = "\xEF\xBB\xBF";
  const read_result json = samples_of(bom + one_series_json("[1793664000,\"5\"]"));
  REQUIRE_MESSAGE(json.error.empty(), json.error);
  CHECK(json.gpus.at(0).samples == std::vector<utilization_sample>{{at_min(0), 5}});
  const read_result text = samples_of(bom + "# HELP x\nDCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 1793664000000\n");
  REQUIRE_MESSAGE(text.error.empty(), text.error);
  CHECK(text.gpus == json.gpus);
  CHECK(read_error(bom + one_series_json("[1793664000,\"5\"],\n[1793664060,\"x\"]")).starts_with("m.txt:4: field 'data.result[0].values[1][1]'"));
  CHECK(read_error(bom + "# HELP x\nDCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} x 1793664000000\n").starts_with("m.txt:2: "));
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
      {"DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 105 1793664000000\n",
       "m.txt:1: field 'value': DCGM_FI_DEV_GPU_UTIL: not a percentage: \"105\" (above 100)"},
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
      // JSON errors name the line of the value their path names, too.
      {R"({"status":"success","data":{"resultType":"vector","result":[]}})", "m.txt:1: field 'data.resultType': expected \"matrix\""},
      {R"({"status":"error","errorType":"bad_data","error":"parse error"})",
       "m.txt:1: field 'status': the query failed (error, bad_data: parse error)"},
      {"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"UUID\":\"GPU-x\"},\"values\":[\n[1,\"5\"],\n[2,\"x\"]]"
       "}]}}",
       "m.txt:3: field 'data.result[0].values[1][1]': DCGM_FI_DEV_GPU_UTIL: not a percentage: \"x\""},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"UUID":"GPU-x"},"values":[["1","5"]]}]}})",
       "m.txt:1: field 'data.result[0].values[0][0]': expected a number of seconds"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"job":"j"},"values":[]}]}})",
       "m.txt:1: field 'data.result[0].metric': names no GPU"},
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

// `gpurent ARGS` exits 2 with `message` on stderr and nothing on stdout.
void invalid(const std::string& args, const std::string& message) {
  CAPTURE(args);
  const auto o = test::run_tool(args);
  CHECK(o.status == 2);
  CHECK(o.out.empty());
  CHECK_MESSAGE(o.err.find(message) != std::string::npos, o.err);
}

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
  for (const auto& [args, message] : cases) invalid(args, message);
}

std::filesystem::path scratch() { return test::scratch_dir("idle-metrics"); }

TEST_CASE("gpurent idle: the gpu label in a `labels` cell (gpu=...) reads as the gpu column does") {
  std::string text = test::slurp(data_dir + "idle_usage.csv");
  std::string usage;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    std::string line = text.substr(at, nl - at);
    const std::size_t comma = line.rfind(',');
    line = at == 0 ? line.substr(0, comma) + ",labels" : line.substr(0, comma + 1) + "gpu=" + line.substr(comma + 1);
    usage += line + "\n";
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  const auto path = scratch() / "labels_usage.csv";
  test::write_file(path, usage);
  const auto o = test::run_tool("idle --metrics " + data_dir + "query_range.json --usage " + path.string() + " --tariff " + data_dir +
                                "idle_tariff.json --period 2026-11");
  const auto g = test::run_tool("idle --metrics " + data_dir + "query_range.json --usage " + data_dir + "idle_usage.csv --tariff " + data_dir +
                                "idle_tariff.json --period 2026-11");
  REQUIRE_MESSAGE(o.status == 0, o.err);
  CHECK(o.out.find("billed_idle") != std::string::npos);
  CHECK(o.out == g.out);
  // A gpu column whose cells are all empty names no GPU: an error saying both ways to name one.
  const auto empty = scratch() / "empty_gpu.csv";
  test::write_file(empty,
                   "id,account,resource,mode,quantity,start,end,gpu\nr1,acme,gpu/H100,on_demand,1,2026-11-03T00:00:00Z,2026-11-03T00:20:00Z,\n");
  invalid("idle --metrics " + data_dir + "query_range.json --usage " + empty.string() + " --tariff " + data_dir + "idle_tariff.json --period 2026-11",
          "no record of the usage names a GPU (a gpu column, or gpu=... in the labels column)");
}

TEST_CASE("gpurent idle: a usage gpu naming no series is an error at its line; --allow-unmatched makes it a stated warning") {
  const auto usage = scratch() / "u.csv";
  // node-a:0 is Hostname:gpu of the series that has a UUID label, so no series is called that.
  test::write_file(usage,
                   "id,account,resource,mode,quantity,start,end,gpu\n"
                   "r1,acme,gpu/H100,on_demand,1,2026-11-03T00:00:00Z,2026-11-03T00:20:00Z,node-a:0\n"
                   "r2,beta,gpu/H100,on_demand,1,2026-11-03T00:02:00Z,2026-11-03T00:12:00Z,node-b:1\n"
                   "r3,beta,gpu/H100,on_demand,1,2026-11-03T00:15:00Z,2026-11-03T00:25:00Z,node-a:0\n");
  const std::string args = "idle --metrics " + data_dir + "query_range.json --min-idle 5min --usage " + usage.string() + " --tariff " + data_dir +
                           "idle_tariff.json --period 2026-11";
  const auto o = test::run_tool(args);
  CHECK(o.status == 2);
  CHECK(o.out.empty());
  const std::string said = "u.csv:2: field 'gpu': \"node-a:0\" names no utilization series (2 records): the 2 series are " + std::string(gpu_a) +
                           ", node-b:1 (a series is named by its UUID label, else Hostname:gpu";
  CHECK_MESSAGE(o.err.find(said) != std::string::npos, o.err);
  CHECK_MESSAGE(o.err.find("--allow-unmatched") != std::string::npos, o.err);
  const auto allowed = test::run_tool(args + " --allow-unmatched");
  REQUIRE_MESSAGE(allowed.status == 0, allowed.err);
  CHECK_MESSAGE(allowed.err.find("gpurent: warning: ") != std::string::npos, allowed.err);
  CHECK_MESSAGE(allowed.err.find(said) != std::string::npos, allowed.err);
  auto j = nlohmann::json::parse(allowed.out);
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["warnings"][0].get<std::string>().find(said) != std::string::npos);
  // r1 and r3 (on node-a:0) all unobserved, 1200 + 600 s; r2 as in the golden case: 480 s idle, 120 s unobserved.
  CHECK(j["billed_idle"]["unobserved_seconds"] == 1920);
  CHECK(j["billed_idle"]["idle_seconds"] == 480);
}

// A DCGM text file of GPU-x, one sample of `metric` a minute from 2026-11-03T00:00Z: `value(m)`.
template <class Value>
std::filesystem::path minutes_file(const std::string& name, const std::string& metric, int minutes, Value value) {
  std::string text;
  for (int m = 0; m < minutes; ++m) text += metric + "{UUID=\"GPU-x\"} " + value(m) + " " + std::to_string(1793664000 + 60 * m) + "000\n";
  const auto path = scratch() / name;
  test::write_file(path, text);
  return path;
}

TEST_CASE("gpurent idle: a ratio field is read as a ratio, an unknown metric as percent with a warning, both said in the JSON") {
  // Busy (0.87) but for minutes 10..49 (0.01): 40 minutes idle of 60 observed, not "100% idle".
  const auto ratio = minutes_file("ratio.prom", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", 60, [](int m) { return m >= 10 && m < 50 ? "0.01" : "0.87"; });
  const auto o = test::run_tool("idle --metrics " + ratio.string() + " --metric DCGM_FI_PROF_GR_ENGINE_ACTIVE");
  REQUIRE_MESSAGE(o.status == 0, o.err);
  CHECK(o.err.empty());
  auto j = nlohmann::json::parse(o.out);
  CHECK(j["observed_s"] == 3600);
  CHECK(j["idle_s"] == 2400);
  CHECK(j["unit"] == "ratio");
  CHECK_FALSE(j.contains("warnings"));
  // A metric gpurent does not know: read as percent, and said so on stderr and in the JSON.
  const auto mine = minutes_file("mine.prom", "my_gpu_busy", 60, [](int m) { return m >= 10 && m < 50 ? "1" : "87"; });
  const auto u = test::run_tool("idle --metrics " + mine.string() + " --metric my_gpu_busy");
  REQUIRE_MESSAGE(u.status == 0, u.err);
  CHECK_MESSAGE(
      u.err.find("gpurent: warning: my_gpu_busy is not a DCGM field gpurent knows: its values are read as a percentage") != std::string::npos, u.err);
  auto k = nlohmann::json::parse(u.out);
  CHECK(k["idle_s"] == 2400);
  CHECK(k["unit"] == "percent (assumed)");
  REQUIRE(k["warnings"].size() == 1);
  // The default metric's report has neither: it is the contract's, as recorded.
  const auto d = test::run_tool("idle --metrics " + data_dir + "query_range.json --min-idle 5min");
  CHECK(d.out == golden("idle.expected.json"));
  CHECK(d.err.empty());
}

TEST_CASE("gpurent idle: values out of their unit or timestamps out of the years exit 2 naming file, line and field") {
  const auto over = minutes_file("over.prom", "DCGM_FI_PROF_SM_ACTIVE", 3, [](int m) { return m == 2 ? "1.7" : "0.5"; });
  const auto late = scratch() / "late.prom";  // 10000-01-01T00:00:00Z, in milliseconds
  test::write_file(late, "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 1793664000000\nDCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 5 253402300800000\n");
  const auto bom = scratch() / "bom.json";
  test::write_file(bom, "\xEF\xBB\xBF" + golden("query_range.json"));
  const std::pair<std::string, std::string> cases[] = {
      {"idle --metric DCGM_FI_PROF_SM_ACTIVE --metrics " + over.string(), "over.prom:3: field 'value': DCGM_FI_PROF_SM_ACTIVE: not a ratio: \"1.7\""},
      {"idle --metrics " + late.string(), "late.prom:2: field 'timestamp': timestamp \"253402300800000\" is outside the years 0000-9999"},
      {"idle --metric DCGM_FI_DEV_FB_USED --metrics " + data_dir + "query_range.json", "field '--metric': DCGM_FI_DEV_FB_USED is in MiB"},
  };
  for (const auto& [args, message] : cases) invalid(args, message);
  // A byte-order mark is no error: the report is the one without it.
  const auto b = test::run_tool("idle --metrics " + bom.string() + " --min-idle 5min");
  REQUIRE_MESSAGE(b.status == 0, b.err);
  CHECK(b.out == golden("idle.expected.json"));
}
#endif

}  // namespace test_io_metrics
