// SPDX-License-Identifier: MIT
// `gpurent mig profiles` and `gpurent mig fit` as docs/spec-mig.md fixes them: JSON on stdout,
// exit 0 / 3 (no fit, reason on stdout) / 2 (bad input: message naming the field on stderr,
// nothing on stdout). Runs the built tool.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#ifdef GPURENT_TOOL_PATH
#include "support/tool.hpp"

namespace test_tool_mig {
namespace {
using gpurent::test::run_tool;

TEST_CASE("gpurent mig profiles") {
  const auto o = run_tool("mig profiles --gpu H100");  // an alias, resolved through the catalog
  REQUIRE(o.status == 0);
  const auto j = nlohmann::json::parse(o.out);
  CHECK(j["gpu"] == "H100-SXM5-80GB");
  CHECK(j["memory_slices"] == 8);
  REQUIRE(j["profiles"].size() == 7);
  const auto& p3 = j["profiles"][4];
  CHECK(p3["name"] == "3g.40gb");
  CHECK(p3["id"] == 9);
  CHECK(p3["compute_slices"] == 3);
  CHECK(p3["memory_slices"] == 4);
  CHECK(p3["memory_gib"] == 39.5);
  CHECK(p3["sms"] == 60);
  CHECK(p3["max_instances"] == 2);
  CHECK(p3["start_slots"] == nlohmann::json::array({0, 4}));
  CHECK(j["profiles"][1]["media_extensions"] == true);

  const auto t = run_tool("mig profiles --gpu A30 --format table");
  CHECK(t.status == 0);
  CHECK(t.out.find("2g.12gb+me") != std::string::npos);
  CHECK(t.err.empty());
}

TEST_CASE("gpurent mig fit: fits, with start slots in the order asked") {
  const auto o = run_tool("mig fit --gpu H100-SXM5-80GB --want 3g.40gb,4g.40gb");
  REQUIRE(o.status == 0);
  const auto j = nlohmann::json::parse(o.out);
  CHECK(j["fits"] == true);
  CHECK(j["placements"] == nlohmann::json::parse(R"([{"profile":"3g.40gb","start":4},{"profile":"4g.40gb","start":0}])"));

  const auto with = run_tool("mig fit --gpu H100 --want 4g.40gb --have 3g.40gb@4");
  REQUIRE(with.status == 0);
  CHECK(nlohmann::json::parse(with.out)["placements"][0]["start"] == 0);

  const auto seven = run_tool("mig fit --gpu h100-80gb --want 1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb");
  CHECK(seven.status == 0);
}

TEST_CASE("gpurent mig fit: no fit exits 3 with the reason on stdout") {
  const auto o = run_tool("mig fit --gpu H100 --want 4g.40gb --have 3g.40gb@0");
  CHECK(o.status == 3);
  const auto j = nlohmann::json::parse(o.out);
  CHECK(j["fits"] == false);
  CHECK(j["reason"].get<std::string>().find("blocked by 3g.40gb@0") != std::string::npos);
  CHECK_FALSE(j.contains("repartition"));

  const auto me = run_tool("mig fit --gpu H100 --want 1g.10gb+me,1g.10gb+me");
  CHECK(me.status == 3);
  CHECK(nlohmann::json::parse(me.out)["reason"].get<std::string>().find("+me") != std::string::npos);

  const auto plan = run_tool("mig fit --gpu H100 --want 4g.40gb --have 3g.40gb@0 --repartition");
  CHECK(plan.status == 3);
  const auto r = nlohmann::json::parse(plan.out)["repartition"];
  CHECK(r["destroyed"] == 1);
  CHECK(r["operations"][0] == nlohmann::json::parse(R"({"op":"destroy","profile":"3g.40gb","start":0})"));
  CHECK(r["placements"][0]["start"] == 0);
}

TEST_CASE("gpurent mig: bad input exits 2, names the field on stderr, prints nothing on stdout") {
  const struct {
    const char* args;
    const char* field;
  } cases[] = {
      {"mig profiles --gpu NoSuchGPU", "--gpu"},
      {"mig fit --gpu NoSuchGPU --want 1g.10gb", "--gpu"},
      {"mig fit --gpu H100 --want 5g.50gb", "--want"},
      {"mig fit --gpu H100 --want 1g.10gb,", "--want"},
      {"mig fit --gpu H100 --want 1g.10gb --have 9g.90gb@0", "--have"},
      {"mig fit --gpu H100 --want 1g.10gb --have 3g.40gb@0,4g.40gb@0", "--have"},  // overlapping
      {"mig fit --gpu H100 --want 1g.10gb --have 3g.40gb", "--have"},              // no @START
      {"mig fit --gpu H100 --want 1g.10gb --have 3g.40gb@x", "--have"},
      {"mig fit --gpu H100 --want 1g.10gb --have 3g.40gb@2", "--have"},  // not a start slot of 3g
      {"mig fit --gpu H100 --want 1g.10gb --have 1g.10gb@9", "--have"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto o = run_tool(c.args);
    CHECK(o.status == 2);
    CHECK(o.out.empty());
    CHECK(o.err.find(std::string("'") + c.field + "'") != std::string::npos);
  }
  const auto unknown = run_tool("mig fit --gpu NoSuchGPU --want 1g.10gb");
  CHECK(unknown.err.find("unknown model") != std::string::npos);
  CHECK(unknown.err.find("H100-SXM5-80GB") != std::string::npos);  // says which names exist
  const auto usage = run_tool("mig fit --gpu H100");               // --want missing
  CHECK(usage.status == 2);
  CHECK(usage.out.empty());
}

}  // namespace
}  // namespace test_tool_mig
#else
TEST_CASE("gpurent mig: tool tests") { MESSAGE("skipped: the gpurent tool is not built (GPURENT_TOOL_PATH unset)"); }
#endif
