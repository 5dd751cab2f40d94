// SPDX-License-Identifier: MIT
// MIG in text (spec/mig_text.hpp): model names and aliases, wanted profiles, existing
// layouts; every bad input is an error naming the caller's field; layouts round-trip.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gpurent/spec/mig_text.hpp>

namespace test_spec_mig_text {
namespace {
using namespace gpurent;

const mig_geometry& h100() { return **resolve_mig_geometry("H100-SXM5-80GB"); }

TEST_CASE("resolve_mig_geometry: catalog names, aliases and MIG model names in any case") {
  CHECK((*resolve_mig_geometry("H100"))->model == "H100-SXM5-80GB");  // a catalog alias
  CHECK((*resolve_mig_geometry("h100-80gb"))->model == "H100-SXM5-80GB");
  CHECK((*resolve_mig_geometry("a30"))->model == "A30");

  const auto unknown = resolve_mig_geometry("NoSuchGPU", "--gpu");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == error_code::unknown_name);
  CHECK(unknown.error().field == "--gpu");
  CHECK(unknown.error().message.find("'NoSuchGPU'") != std::string::npos);
  CHECK(unknown.error().message.find("H100-SXM5-80GB") != std::string::npos);  // lists what exists

  const auto t4 = resolve_mig_geometry("T4");  // in the catalog, without MIG
  REQUIRE_FALSE(t4);
  CHECK(t4.error().code == error_code::not_found);
  CHECK(t4.error().message.find("has no MIG") != std::string::npos);
}

TEST_CASE("parse_mig_profiles: names in the order written, any case, blanks trimmed") {
  const auto w = parse_mig_profiles(h100(), " 3g.40gb, 4G.40GB ,1g.10gb+me");
  REQUIRE(w);
  REQUIRE(w->size() == 3);
  CHECK(h100()[(*w)[0]].name == "3g.40gb");
  CHECK(h100()[(*w)[1]].name == "4g.40gb");
  CHECK(h100()[(*w)[2]].name == "1g.10gb+me");
  CHECK(parse_mig_profiles(h100(), "1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb")->size() == 8);
}

TEST_CASE("parse_mig_profiles: bad input names the field") {
  const struct {
    const char* text;
    error_code code;
    const char* says;
  } cases[] = {
      {"", error_code::parse_error, "empty profile name"},
      {"1g.10gb,", error_code::parse_error, "empty profile name"},
      {",1g.10gb", error_code::parse_error, "empty profile name"},
      {"5g.50gb", error_code::unknown_name, "unknown profile '5g.50gb' on H100-SXM5-80GB; profiles: 1g.10gb"},
      {"1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb", error_code::invalid_argument, "more than 8 instances"},
      {"3g\x01\xff", error_code::unknown_name, "'3g\\x01\\xff'"},  // unprintable bytes are escaped
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto r = parse_mig_profiles(h100(), c.text, "--want");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == c.code);
    CHECK(r.error().field == "--want");
    CHECK(r.error().message.find(c.says) != std::string::npos);
  }
}

TEST_CASE("parse_mig_layout: instances at start slices, validated; empty is no instances") {
  const auto l = parse_mig_layout(h100(), "4g.40gb@0, 3g.40gb @ 4");
  REQUIRE(l);
  CHECK(l->size() == 2);
  CHECK(mig_valid(h100(), *l));
  CHECK(mig_layout_text(h100(), *l) == "4g.40gb@0,3g.40gb@4");
  CHECK(parse_mig_layout(h100(), "")->empty());
  CHECK(parse_mig_layout(h100(), "  ")->empty());
  CHECK(mig_layout_text(h100(), mig_layout{}).empty());
}

TEST_CASE("parse_mig_layout: bad input names the field and the rule") {
  const struct {
    const char* text;
    error_code code;
    const char* says;
  } cases[] = {
      {"3g.40gb", error_code::parse_error, "expected PROFILE@START, got '3g.40gb'"},
      {"@4", error_code::parse_error, "expected PROFILE@START"},
      {"3g.40gb@", error_code::parse_error, "is not a number"},
      {"3g.40gb@x", error_code::parse_error, "is not a number"},
      {"3g.40gb@-4", error_code::parse_error, "is not a number"},
      {"3g.40gb@4x", error_code::parse_error, "is not a number"},
      {"3g.40gb@99999999999999999999", error_code::invalid_argument,
       "start slice 99999999999999999999 of '3g.40gb@99999999999999999999' is past the last memory slice 7"},  // past unsigned: a number all the same
      {"1g.10gb@8", error_code::invalid_argument, "past the last memory slice 7"},
      {"9g.90gb@0", error_code::unknown_name, "unknown profile '9g.90gb'"},
      {"3g.40gb@2", error_code::invalid_argument, "can start only at memory slice(s) 0,4"},
      {"3g.40gb@0,4g.40gb@0", error_code::invalid_argument, "overlaps"},
      {"1g.10gb@0,1g.10gb@1,1g.10gb@2,1g.10gb@3,1g.10gb@4,1g.10gb@5,1g.10gb@6,1g.10gb@0,1g.10gb@1", error_code::invalid_argument,
       "more than 8 instances"},
      {"1g.10gb@0,", error_code::parse_error, "empty instance in '1g.10gb@0,'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto r = parse_mig_layout(h100(), c.text, "--have");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == c.code);
    CHECK(r.error().field == "--have");
    CHECK(r.error().message.find(c.says) != std::string::npos);
  }
}

TEST_CASE("mig_layout_text round-trips every valid layout of every geometry") {
  for (const mig_geometry& g : mig_geometries) {
    CAPTURE(g.model);
    std::size_t n = 0;
    mig_for_each_layout(
        g,
        [&](const mig_layout& l) {
          const auto back = parse_mig_layout(g, mig_layout_text(g, l));
          REQUIRE(back);
          CHECK(*back == l);
          ++n;
        },
        mig_media::distinct);
    CHECK(n == mig_count_layouts(g, mig_media::distinct));
  }
}

}  // namespace
}  // namespace test_spec_mig_text
