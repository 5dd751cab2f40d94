// SPDX-License-Identifier: MIT
// The tariff's JSON (io/billing/tariff_json.hpp): text that is not JSON, or holds a number no double
// can, is a parse error naming the line.
#include <doctest/doctest.h>

#include <string>

#include <gpurent/io/billing/tariff_json.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_io_tariff_json {

using namespace gpurent;

TEST_CASE("tariff JSON that is not JSON, or holds a number no double can (fuzz F3), is a parse error naming the line") {
  // nlohmann throws out_of_range (406), not parse_error, for 1e999: it once escaped the reader.
  const auto big = io::parse_tariff_json("{\"currency\": \"USD\",\n \"timezone\": 555000000000000000011011972e431394943}", "t.json");
  REQUIRE_FALSE(big);
  CHECK(big.error().code == error_code::parse_error);
  CHECK(big.error().where == "t.json:2");
  CHECK(big.error().message.find("number overflow") != std::string::npos);
  const auto cut = io::parse_tariff_json("{\"currency\":\n\n", "t.json");
  REQUIRE_FALSE(cut);
  CHECK(cut.error().code == error_code::parse_error);
  CHECK(cut.error().where.starts_with("t.json:"));
}

}  // namespace test_io_tariff_json
