// SPDX-License-Identifier: MIT
// `gpurent catalog`: the JSON lists every model and loads back into the built-in catalog; the
// table shows the sources; a bad format is a usage error.
#include <algorithm>
#include <set>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpurent/io/spec/catalog_json.hpp>
#include <gpurent/spec/spec.hpp>

#ifdef GPURENT_TOOL_PATH
#include "support/tool.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_tool_catalog {

using namespace gpurent;

namespace {
std::string run_tool(const std::string& args, int& status) {
  auto r = gpurent::test::run_tool(args);
  status = r.status;
  return std::move(r.out);
}
}  // namespace

TEST_CASE("gpurent catalog --format json parses and lists every model") {
  int status = -1;
  const std::string out = run_tool("catalog --format json", status);
  CHECK(status == 0);
  const nlohmann::json j = nlohmann::json::parse(out);
  REQUIRE(j["models"].is_array());
  CHECK(j["models"].size() == builtin_catalog().size());
  std::set<std::string> names;
  for (const auto& m : j["models"]) names.insert(m["name"].get<std::string>());
  for (const gpu_model& m : builtin_catalog()) CHECK(names.count(std::string(m.name)) == 1);
  const nlohmann::json& models = j["models"];
  const auto h100 = std::find_if(models.begin(), models.end(), [](const nlohmann::json& m) { return m["name"] == "H100-SXM5-80GB"; });
  REQUIRE(h100 != models.end());
  CHECK((*h100)["sm_count"]["value"] == 132);
  CHECK((*h100)["sm_count"]["source"] == "nvidia-h100-whitepaper");
  CHECK((*h100)["mig_profiles"].get<int>() > 0);
  // The tool's JSON loads back into the built-in catalog (its mig_profiles are known, and ignored).
  auto loaded = catalog_from_json(j);
  REQUIRE(loaded);
  CHECK(*loaded == catalog::builtin());
}

TEST_CASE("gpurent catalog --format table shows the sources; a bad format is a usage error") {
  int status = -1;
  const std::string out = run_tool("catalog --format table", status);
  CHECK(status == 0);
  CHECK(out.find("H100-SXM5-80GB") != std::string::npos);
  CHECK(out.find("NVIDIA H100 Tensor Core GPU datasheet (2023)") != std::string::npos);
  const std::string bad = run_tool("catalog --format xml", status);
  CHECK(bad.empty());
  CHECK(status == 2);
}

}  // namespace test_tool_catalog

#endif
