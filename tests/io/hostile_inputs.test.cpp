// SPDX-License-Identifier: MIT
// Inputs an outside probe used to get a crash or a wrong answer from the readers (issue 32):
// JSON nested 80,000 deep, a directory given as a file, a byte-order mark in front of a trace
// CSV or a JSON file, "localtime" as a time zone, and semantic errors of JSON readers that
// named the JSON path but not the line. Each case failed before the fix.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gpurent/core/calendar.hpp>
#include <gpurent/io/audit/audit_log.hpp>
#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/fleet/trace_csv.hpp>
#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/io/spec/catalog_json.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/io/text/json_reader.hpp>
#include <gpurent/io/text/line_blocks.hpp>

#include "support/files.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_io_hostile_inputs {

using namespace gpurent;
namespace fs = std::filesystem;

namespace {
std::string nested(std::size_t depth, const std::string& inner = "1") { return std::string(depth, '[') + inner + std::string(depth, ']'); }
}  // namespace

TEST_CASE("JSON deeper than the limit is an error at its line, in every JSON reader; at the limit it is read") {
  const std::string deep = "{\n\"a\":\n" + nested(80'000) + "}";
  auto j = io::parse_json_text(deep, "deep.json");
  REQUIRE_FALSE(j);
  CHECK(j.error().where == "deep.json:3");
  CHECK(j.error().message.find("256") != std::string::npos);
  CHECK(io::parse_json_text(nested(io::json_max_depth), "ok.json"));  // 256 arrays deep
  CHECK_FALSE(io::parse_json_text(nested(io::json_max_depth + 1), "no.json"));
  CHECK(io::parse_json_text("{\"a\": \"[[[[" + std::string(1000, '[') + "\"}", "string.json"));  // brackets in a string are text
  CHECK(io::parse_json_text("{\"a\": \"\\\"[[[" + std::string(1000, '{') + "\"}", "escaped.json"));
  // The readers built on it: a tariff, an offers file, a workload, a catalog.
  const auto where = [](auto r) { return r ? std::string("accepted") : r.error().where; };
  CHECK(where(io::parse_tariff_json(deep, "t.json")) == "t.json:3");
  CHECK(where(read_offers_json(deep, "o.json")) == "o.json:3");
  CHECK(where(read_workload_json(deep, "w.json")) == "w.json:3");
  CHECK(where(parse_catalog_json(deep, "c.json")) == "c.json:3");
}

TEST_CASE("audit verify: a line nested 80,000 deep is an error at its line, not a crash") {
  const std::string line = R"({"seq":1,"prev":"","hash":"x","a":)" + nested(80'000) + "}";
  auto h = io::verify_audit_log(line + "\n", "deep.log");
  REQUIRE_FALSE(h);
  CHECK(h.error().where == "deep.log:1");
  CHECK(h.error().message.find("nested deeper") != std::string::npos);
}

TEST_CASE("a directory given as an input file is an error naming it, for every way of reading") {
  const fs::path d = gpurent::test::scratch_dir("dir-input");
  const std::string p = d.string();
  auto whole = io::read_file(p);
  REQUIRE_FALSE(whole);
  CHECK(whole.error().message.find("is a directory") != std::string::npos);
  CHECK(whole.error().where == p);
  auto blocks = io::line_blocks::open(p);
  REQUIRE_FALSE(blocks);
  CHECK(blocks.error().message.find("is a directory") != std::string::npos);
  auto sha = io::file_sha256_hex(p);
  REQUIRE_FALSE(sha);
  CHECK(sha.error().message.find("is a directory") != std::string::npos);
  auto tariff = io::load_tariff_json(p);
  REQUIRE_FALSE(tariff);
  CHECK(tariff.error().message.find("is a directory") != std::string::npos);
  // A file that is not a regular file but a stream (a pipe, /dev/stdin) is read to its end.
  auto null = io::read_file("/dev/null");
  REQUIRE(null);
  CHECK(null->empty());
}

TEST_CASE("a UTF-8 byte-order mark: skipped by the trace CSV and JSON readers, as by the usage reader") {
  const std::string nodes = "\xEF\xBB\xBFsn,cpu_milli,memory_mib,gpu,model\nn1,96000,786432,8,V100M32\n";
  std::istringstream in(nodes);
  auto n = read_trace_nodes(in, "nodes.csv");
  CAPTURE((n ? std::string() : n.error().describe()));
  REQUIRE(n);
  CHECK(n->size() == 1);
  auto t = io::parse_tariff_json("\xEF\xBB\xBF{\"currency\": \"USD\", \"timezone\": \"UTC\", \"rates\": []}", "bom.json");
  CAPTURE((t ? std::string() : t.error().describe()));
  CHECK(t);
  CHECK(without_bom("\xEF\xBB\xBFx") == "x");
  CHECK(without_bom("x\xEF\xBB\xBF") == "x\xEF\xBB\xBF");  // only at the start
}

TEST_CASE("time zones: only IANA names; localtime and the like would follow the machine or another time scale") {
  for (const char* bad : {"localtime", "posixrules", "Factory", "posix/Europe/Berlin", "right/UTC", "/etc/localtime", "../zoneinfo/UTC", ""}) {
    CAPTURE(bad);
    auto z = find_zone(bad);
    REQUIRE_FALSE(z);
    CHECK(z.error().field == "timezone");
  }
  for (const char* good : {"UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"}) {
    CAPTURE(good);
    CHECK(find_zone(good));
  }
  auto t = io::parse_tariff_json("{\"currency\": \"USD\",\n \"timezone\": \"localtime\",\n \"rates\": []}", "zone.json");
  REQUIRE_FALSE(t);
  CHECK(t.error().where == "zone.json:2");
  CHECK(t.error().field == "timezone");
}

TEST_CASE("JSON readers: a semantic error names the line of the value at its path, not only the path") {
  const std::string tariff = R"({
  "currency": "USD",
  "timezone": "UTC",
  "rates": [
    { "resource": "gpu/a", "mode": "on_demand", "unit_price": "1", "per": "1h" },
    { "resource": "gpu/b", "mode": "on_demand",
      "unit_price": "-2", "per": "1h" }
  ]
})";
  auto t = io::parse_tariff_json(tariff, "t.json");
  REQUIRE_FALSE(t);
  CAPTURE(t.error().describe());
  CHECK(t.error().field.starts_with("rates[1]"));
  CHECK((t.error().where == "t.json:7" || t.error().where == "t.json:6"));  // the price's line, or its rate's when the rule is the rate's
  // The walk itself: paths into arrays and objects, keys with dots, missing members.
  const std::string doc = "{\n \"a\": [\n  1,\n  {\"b.c\": {\n   \"d\": [true,\n    false]}}\n ],\n \"\": 3\n}";
  CHECK(io::json_value_line(doc, "a") == 2);
  CHECK(io::json_value_line(doc, "a[0]") == 3);
  CHECK(io::json_value_line(doc, "a[1].b.c") == 4);
  CHECK(io::json_value_line(doc, "a[1].b.c.d[1]") == 6);
  CHECK(io::json_value_line(doc, "a[1].b.c.missing") == 4);  // the object that lacks it
  CHECK(io::json_value_line(doc, "a[7]") == 2);
  CHECK(io::json_value_line(doc, "\"\"") == 8);
  CHECK(io::json_value_line(doc, "(top level)") == 1);
  // An offers file and a workload: the failing offer's and job's lines.
  const std::string offers = "{\"currency\": \"USD\", \"offers\": [\n {\"id\": \"x\"},\n {\"id\": \"y\", \"nonsense\": 1}\n]}";
  auto o = read_offers_json(offers, "o.json");
  REQUIRE_FALSE(o);
  CAPTURE(o.error().describe());
  CHECK(o.error().where.starts_with("o.json:"));
  CHECK(o.error().where != "o.json:1");
}

}  // namespace test_io_hostile_inputs
