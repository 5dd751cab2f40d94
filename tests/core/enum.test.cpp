// SPDX-License-Identifier: MIT
// The one enum table (core/enum.hpp): names, parsing, choices for messages, the error of a
// bad name, and the fmt formatter every named enum gets.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>

#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/format.hpp>
#include <gpurent/core/rounding.hpp>

namespace test_core_enum {

enum class colour : unsigned char { red = 1, green = 4, blue = 9 };
enum class unnamed : unsigned char { a, b };

}  // namespace test_core_enum

template <>
struct gpurent::enum_names<test_core_enum::colour> {
  static constexpr enum_entry<test_core_enum::colour> entries[] = {
      {test_core_enum::colour::red, "red"}, {test_core_enum::colour::green, "green"}, {test_core_enum::colour::blue, "blue"}};
};

namespace test_core_enum {
using namespace gpurent;

// An archetype: exactly what the concept asks for, nothing more.
enum class archetype : int { only };
}  // namespace test_core_enum

template <>
struct gpurent::enum_names<test_core_enum::archetype> {
  static constexpr enum_entry<test_core_enum::archetype> entries[] = {{test_core_enum::archetype::only, "only"}};
};

namespace test_core_enum {

static_assert(NamedEnum<colour>);
static_assert(NamedEnum<archetype>);
static_assert(NamedEnum<rounding_mode>);
static_assert(NamedEnum<error_code>);
static_assert(!NamedEnum<unnamed>, "an enum without a table is not named");
static_assert(!NamedEnum<int>);
static_assert(to_string(colour::green) == "green");
static_assert(parse_enum<colour>("blue") == colour::blue);
static_assert(!parse_enum<colour>("Blue"), "names are case-sensitive");
static_assert(to_string(static_cast<colour>(2)) == "?", "a value outside the table has no name");

TEST_CASE("enum table: choices and the error of a bad name") {
  CHECK(enum_choices<colour>() == "red, green or blue");
  CHECK(enum_choices<archetype>() == "only");
  CHECK(enum_choices<rounding_mode>() == "half_even, half_up, half_down, up or down");
  auto bad = parse_enum_field<colour>("purple", "paint.colour");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "paint.colour");
  CHECK(bad.error().message == "expected red, green or blue, got \"purple\"");
  CHECK(parse_enum_field<colour>("red", "x") == colour::red);
}

TEST_CASE("enum table: every named enum formats with fmt, width and fill included") {
  CHECK(fmt::format("{}", colour::blue) == "blue");
  CHECK(fmt::format("[{:>6}]", colour::red) == "[   red]");
  CHECK(fmt::format("{}", rounding_mode::half_even) == "half_even");
  CHECK(fmt::format("{}", error_code::io_error) == "io_error");
}

}  // namespace test_core_enum
