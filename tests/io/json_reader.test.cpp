// SPDX-License-Identifier: MIT
// The io layer's one JSON object reader: types, ranges, paths in errors, unknown fields,
// enums through their table, and syntax errors naming file:line.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gpurent/core/rounding.hpp>
#include <gpurent/io/text/json_reader.hpp>

namespace test_io_json_reader {
using namespace gpurent;
using io::json;
using io::json_object;

TEST_CASE("json_object: reads members by name and remembers them") {
  const json j = json::parse(R"({"id": "a", "n": 7, "ok": true, "price": "2.49", "every": "15min",
                                  "at": "2026-11-03T10:15:00Z", "mode": "half_up", "tags": ["x", "y"], "gone": null})");
  json_object r(j, "offers[2]");
  REQUIRE(r.check());
  std::string id;
  int n = 0;
  bool ok = false;
  decimal<9> price{};
  seconds every{0};
  instant at{};
  rounding_mode mode{};
  std::vector<std::string> tags;
  std::string gone = "kept";
  CHECK(r.string("id", id, true));
  CHECK(r.integer("n", n, 0, 10));
  CHECK(r.boolean("ok", ok));
  CHECK(r.dec("price", price, true));
  CHECK(r.duration("every", every));
  CHECK(r.time_point("at", at));
  CHECK(r.enumeration("mode", mode));
  CHECK(r.strings("tags", tags));
  CHECK(r.string("gone", gone));  // null: not given
  CHECK(r.finish());
  CHECK(id == "a");
  CHECK(n == 7);
  CHECK(ok);
  CHECK(price == *decimal<9>::parse("2.49"));
  CHECK(every == seconds(900));
  CHECK(format_instant(at) == "2026-11-03T10:15:00Z");
  CHECK(mode == rounding_mode::half_up);
  CHECK(tags == std::vector<std::string>{"x", "y"});
  CHECK(gone == "kept");
}

TEST_CASE("json_object: every error names the JSON path and says what was expected") {
  const json j = json::parse(R"({"id": 3, "n": 70, "price": 2.49, "mode": "bankers", "tags": ["x", 1], "colour": "red"})");
  json_object r(j, "offers[2]");
  std::string id;
  int n = 0;
  decimal<9> price{};
  rounding_mode mode{};
  std::vector<std::string> tags;
  auto e1 = r.string("id", id);
  REQUIRE_FALSE(e1);
  CHECK(e1.error().field == "offers[2].id");
  CHECK(e1.error().message == "expected a string, got number");
  auto e2 = r.integer("n", n, 0, 10);
  REQUIRE_FALSE(e2);
  CHECK(e2.error().message == "must be in [0, 10], got 70");
  auto e3 = r.dec("price", price);
  REQUIRE_FALSE(e3);
  CHECK(e3.error().message == "expected a decimal string such as \"2.49\", got number");
  auto e4 = r.enumeration("mode", mode);
  REQUIRE_FALSE(e4);
  CHECK(e4.error().field == "offers[2].mode");
  CHECK(e4.error().message == "expected half_even, half_up, half_down, up or down, got \"bankers\"");
  auto e5 = r.strings("tags", tags);
  REQUIRE_FALSE(e5);
  CHECK(e5.error().field == "offers[2].tags[1]");
  auto missing = r.string("region", id, true);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().field == "offers[2].region");
  CHECK(missing.error().message == "missing required field");
  auto unknown = r.finish();
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().field == "offers[2].colour");
  CHECK(unknown.error().message == "unknown field (expected one of: id, n, price, mode, tags, region)");
}

TEST_CASE("json_object: not an object; a huge unsigned integer; an empty name") {
  const json arr = json::parse("[1]");
  json_object top(arr, "");
  auto e = top.check();
  REQUIRE_FALSE(e);
  CHECK(e.error().field == "(top level)");
  const json j = json::parse(R"({"n": 18446744073709551615, "name": ""})");
  json_object r(j, "");
  long long n = 0;
  auto big = r.integer("n", n, 0, 1000);
  REQUIRE_FALSE(big);
  CHECK(big.error().field == "n");
  std::string name;
  auto empty = r.name("name", name, true);
  REQUIRE_FALSE(empty);
  CHECK(empty.error().message == "must not be empty");
}

TEST_CASE("json_object: an empty key nobody asked for is named \"\" (fuzz F12)") {
  const json j = json::parse(R"({"levels": ["block"], "": 1, "inner": {"": 2}})");
  json_object top(j, "");
  std::vector<std::string> levels;
  CHECK(top.strings("levels", levels));
  (void)top.find("inner");
  auto e = top.finish();
  REQUIRE_FALSE(e);
  CHECK(e.error().describe() == "field '\"\"': unknown field (expected one of: levels, inner)");
  json_object inner(j["inner"], "inner");
  auto f = inner.finish();
  REQUIRE_FALSE(f);
  CHECK(f.error().field == "inner.\"\"");
}

TEST_CASE("parse_json_text: syntax errors and numbers no double holds name file:line") {
  auto bad = io::parse_json_text("{\n  \"a\": 1,\n  oops\n}", "t.json");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == error_code::parse_error);
  CHECK(bad.error().where == "t.json:3");
  auto huge = io::parse_json_text("{\"a\": \"x\",\n \"b\": 1e400}", "h.json");
  REQUIRE_FALSE(huge);
  CHECK(huge.error().where == "h.json:2");
  auto unnamed = io::parse_json_text("[", "");
  REQUIRE_FALSE(unnamed);
  CHECK(unnamed.error().where == "line 1");
}

TEST_CASE("parse_json_text: a key given twice in one object is an error at its second line, by path (fuzz F6)") {
  // nlohmann keeps the last value of a repeated key: the topology reader took n1 into block B
  // and dropped its first listing without a word (fuzz_fleet_inputs).
  auto twice = io::parse_json_text("{\"nodes\": {\"n0\": [\"A\"], \"n1\": [\"A\"],\n  \"n1\": [\"B\"]}}", "t.json");
  REQUIRE_FALSE(twice);
  CHECK(twice.error().code == error_code::duplicate);
  CHECK(twice.error().describe() == "t.json:2: field 'nodes.n1': given twice in one object (only one value can be kept)");
  auto in_array = io::parse_json_text("{\"rates\": [{\"a\": 1}, {\"a\": 1, \"a\": 2}]}", "r.json");
  REQUIRE_FALSE(in_array);
  CHECK(in_array.error().field == "rates[1].a");
  auto top = io::parse_json_text("{\"a\": 1, \"a\": 1}", "");
  REQUIRE_FALSE(top);
  CHECK(top.error().field == "a");
  CHECK(top.error().where == "line 1");
  // The same key in different objects, and a key repeated as a value, are fine.
  CHECK(io::parse_json_text(R"({"a": {"x": 1}, "b": {"x": "x", "y": ["x", {"x": 2}]}})", "ok.json"));
}

}  // namespace test_io_json_reader
