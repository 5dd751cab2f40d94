// SPDX-License-Identifier: MIT
// The catalog's JSON (io/spec/catalog_json.hpp): the built-in catalog round trip, bad input naming
// the field and the index, text and file errors saying where.
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpurent/io/spec/catalog_json.hpp>
#include <gpurent/spec/spec.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_io_catalog_json {

using namespace gpurent;

TEST_CASE("catalog JSON: builtin -> JSON -> loaded equals builtin") {
  const catalog builtin = catalog::builtin();
  auto loaded = parse_catalog_json(catalog_to_json(builtin).dump());
  REQUIRE_MESSAGE(loaded, (loaded ? std::string() : loaded.error().describe()));
  CHECK(*loaded == builtin);
  for (std::size_t i = 0; i < builtin.size(); ++i) {
    CAPTURE(builtin.models()[i].name);
    CHECK(loaded->models()[i] == builtin.models()[i]);
  }
  // And the loaded catalog writes the same JSON again.
  CHECK(catalog_to_json(*loaded) == catalog_to_json(builtin));
  CHECK(loaded->find_by_pci(0x10de, 0x2335)->name == "H200-SXM-141GB");
}

namespace {
// The built-in JSON with one edit applied to it.
template <class Edit>
error load_error(Edit&& edit) {
  nlohmann::json j = catalog_to_json(catalog::builtin());
  edit(j);
  auto c = catalog_from_json(j);
  REQUIRE_FALSE(c);
  return c.error();
}
}  // namespace

TEST_CASE("catalog JSON: bad input names the field and the index") {
  SUBCASE("missing name") {
    const error e = load_error([](nlohmann::json& j) { j["models"][2].erase("name"); });
    CHECK(e.field == "models[2].name");
    CHECK(e.message.find("missing") != std::string::npos);
  }
  SUBCASE("missing vendor") {
    const error e = load_error([](nlohmann::json& j) { j["models"][0].erase("vendor"); });
    CHECK(e.field == "models[0].vendor");
  }
  SUBCASE("wrong type") {
    const error e = load_error([](nlohmann::json& j) { j["models"][3]["vram_bytes"]["value"] = "80GB"; });
    CHECK(e.field == "models[3].vram_bytes.value");
    CHECK(e.message.find("integer") != std::string::npos);
  }
  SUBCASE("negative VRAM") {
    const error e = load_error([](nlohmann::json& j) { j["models"][4]["vram_bytes"]["value"] = -1; });
    CHECK(e.field == "models[4].vram_bytes.value");
    CHECK(e.message.find("positive") != std::string::npos);
  }
  SUBCASE("zero SMs") {
    const error e = load_error([](nlohmann::json& j) { j["models"][1]["sm_count"]["value"] = 0; });
    CHECK(e.field == "models[1].sm_count.value");
  }
  SUBCASE("a number without a source") {
    const error e = load_error([](nlohmann::json& j) { j["models"][5]["tdp_watts"].erase("source"); });
    CHECK(e.field == "models[5].tdp_watts.source");
  }
  SUBCASE("an unknown source id") {
    const error e = load_error([](nlohmann::json& j) { j["models"][6]["throughput_gflops"]["fp32"]["source"] = "blog"; });
    CHECK(e.field == "models[6].throughput_gflops.fp32.source");
    CHECK(e.code == error_code::unknown_name);
  }
  SUBCASE("a bad PCI id") {
    const error e = load_error([](nlohmann::json& j) { j["models"][0]["pci"]["value"]["device_ids"][0] = "zz"; });
    CHECK(e.field == "models[0].pci.value.device_ids[0]");
  }
  SUBCASE("a bad compute capability") {
    const error e = load_error([](nlohmann::json& j) { j["models"][0]["compute_capability"]["value"] = "nine"; });
    CHECK(e.field == "models[0].compute_capability.value");
  }
  SUBCASE("an unknown vendor") {
    const error e = load_error([](nlohmann::json& j) { j["models"][0]["vendor"] = "intel"; });
    CHECK(e.field == "models[0].vendor");
  }
  SUBCASE("a duplicate alias") {
    const error e = load_error([](nlohmann::json& j) { j["models"][5]["aliases"].push_back("H100"); });
    CHECK(e.field.starts_with("models[5].aliases["));
    CHECK(e.code == error_code::duplicate);
  }
  SUBCASE("models not an array") {
    const error e = load_error([](nlohmann::json& j) { j["models"] = 3; });
    CHECK(e.field == "models");
  }
  SUBCASE("a model that is not an object") {
    const error e = load_error([](nlohmann::json& j) { j["models"][7] = "H100"; });
    CHECK(e.field == "models[7]");
  }
  SUBCASE("a misspelt field is an error listing the known ones, at any depth") {
    error e = load_error([](nlohmann::json& j) { j["models"][2]["vram"] = j["models"][2]["vram_bytes"]; });
    CHECK(e.field == "models[2].vram");
    CHECK(e.message.find("unknown field (expected one of: name, aliases, vendor") != std::string::npos);
    e = load_error([](nlohmann::json& j) { j["models"][3]["nvlink"]["value"]["gen"] = 4; });
    CHECK(e.field == "models[3].nvlink.value.gen");
    e = load_error([](nlohmann::json& j) { j["sources"][0]["link"] = "x"; });
    CHECK(e.field == "sources[0].link");
    e = load_error([](nlohmann::json& j) { j["generated"] = "today"; });
    CHECK(e.field == "generated");
  }
  SUBCASE("an enum field lists its names") {
    const error e = load_error([](nlohmann::json& j) { j["models"][0]["form_factor"] = "mxm"; });
    CHECK(e.field == "models[0].form_factor");
    CHECK(e.message == "expected unknown, sxm, pcie, oam or superchip, got \"mxm\"");
  }
}

TEST_CASE("catalog JSON: text and file errors say where") {
  auto bad = parse_catalog_json("{\"models\": [", "mine.json");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == error_code::parse_error);
  CHECK(bad.error().where == "mine.json:1");  // io::parse_json_text: the file and the line
  auto missing = load_catalog_file("/nonexistent/catalog.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == error_code::io_error);
  // A minimal catalog: one opaque model, no numbers.
  auto tiny = parse_catalog_json(R"({"models": [{"name": "X1", "vendor": "unknown"}]})");
  REQUIRE(tiny);
  CHECK(tiny->find("x1") != nullptr);
  CHECK_FALSE(tiny->find("x1")->vram);
}

}  // namespace test_io_catalog_json
