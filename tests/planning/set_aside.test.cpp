// SPDX-License-Identifier: MIT
// An imported offer whose GPU the catalog could not map (`gpuhunt:A10G`) is set aside by the
// plan and reported, so that an imported catalog plans without editing; the offer comes back
// once it gives its VRAM and FP16 throughput; a bare unknown name stays an error (a typo is
// not an opaque model).
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/plan_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/planning.hpp>

namespace test_planning_set_aside {
using namespace gpurent;

namespace {

// An L4 offer the planner knows and an imported A10G it does not; `extra` adds fields to the A10G.
std::string offers(const std::string& a10g_gpu, const std::string& extra) {
  return R"({"offers": [{"id": "l4", "gpu": "L4", "unit": "gpu", "max_units": 8, "price": "0.80", "increment": "1s"},
                        {"id": "aws/us-east-1/g5.xlarge", "gpu": ")" +
         a10g_gpu + R"(", "unit": "server", "price": "0.50", "increment": "1s")" + extra + "}]}";
}

const char* const one_service =
    R"({"jobs": [{"name": "svc", "kind": "service", "reference_gpu": "L4", "duration": "10h", "gpu_share": "1", "memory_gib": 16}]})";

plan_result planned(const offer_catalog& cat) {
  auto w = read_workload_json(one_service);
  REQUIRE_MESSAGE(w, w.error().describe());
  auto p = plan(*w, cat);
  REQUIRE_MESSAGE(p, p.error().describe());
  return std::move(*p);
}

}  // namespace

TEST_CASE("an opaque imported GPU without figures is set aside, reported, and the rest is planned") {
  auto cat = read_offers_json(offers("gpuhunt:A10G", ""));
  REQUIRE_MESSAGE(cat, cat.error().describe());
  CHECK(cat->size() == 1);
  REQUIRE(cat->set_aside().size() == 1);
  CHECK(cat->set_aside()[0].id == "aws/us-east-1/g5.xlarge");
  CHECK(cat->set_aside()[0].gpu == "gpuhunt:A10G");
  CHECK(cat->set_aside()[0].reason == "GPU not in the catalog: give vram_gib and tflops");

  const plan_result p = planned(*cat);
  REQUIRE(p.jobs.size() == 1);
  CHECK(p.jobs[0].offer == "l4");
  REQUIRE(p.set_aside.size() == 1);
  const nlohmann::json j = plan_to_json(p);
  REQUIRE(j.contains("set_aside"));
  CHECK(j["set_aside"][0]["offer"] == "aws/us-east-1/g5.xlarge");
  CHECK(j["set_aside"][0]["mode"] == "on_demand");
  CHECK(j["set_aside"][0]["gpu"] == "gpuhunt:A10G");
  CHECK(format_plan_table(p).find(
            "set aside: aws/us-east-1/g5.xlarge (on_demand), GPU \"gpuhunt:A10G\": GPU not in the catalog: give vram_gib and tflops\n") !=
        std::string::npos);
}

TEST_CASE("an opaque GPU with its VRAM but no FP16 figure asks for tflops only") {
  auto cat = read_offers_json(offers("gpuhunt:A10G", R"(, "vram_gib": 24)"));
  REQUIRE_MESSAGE(cat, cat.error().describe());
  REQUIRE(cat->set_aside().size() == 1);
  CHECK(cat->set_aside()[0].reason == "GPU not in the catalog: give tflops");
}

TEST_CASE("an opaque GPU given its VRAM and FP16 throughput is planned on like any other") {
  auto cat = read_offers_json(offers("gpuhunt:A10G", R"(, "vram_gib": 24, "tflops": "125")"));
  REQUIRE_MESSAGE(cat, cat.error().describe());
  CHECK(cat->size() == 2);
  CHECK(cat->set_aside().empty());
  const plan_result p = planned(*cat);
  CHECK(p.set_aside.empty());
  CHECK_FALSE(plan_to_json(p).contains("set_aside"));  // a plan with nothing set aside reads as before
  CHECK(format_plan_table(p).find("set aside") == std::string::npos);
}

TEST_CASE("a bare unknown GPU name is an error naming the offer, not an offer set aside") {
  auto cat = read_offers_json(offers("A10G", ""));
  REQUIRE_FALSE(cat);
  CHECK(cat.error().describe().find("offers[1].vram_gib") != std::string::npos);
  CHECK(cat.error().describe().find("unknown GPU model \"A10G\"") != std::string::npos);
}

TEST_CASE("a set-aside offer still counts for duplicates") {
  const std::string twice = R"({"offers": [{"id": "x", "gpu": "gpuhunt:A10G", "unit": "server", "price": "0.50"},
                                           {"id": "x", "gpu": "gpuhunt:A10G", "unit": "server", "price": "0.60"}]})";
  auto cat = read_offers_json(twice);
  REQUIRE_FALSE(cat);
  CHECK(cat.error().describe().find("repeats offers[0]") != std::string::npos);
}

TEST_CASE("negative figures are errors, not an unknown model") {
  auto cat = read_offers_json(offers("L4", R"(, "tflops": "-1")"));
  REQUIRE_FALSE(cat);
  CHECK(cat.error().describe().find("must not be negative") != std::string::npos);
}

}  // namespace test_planning_set_aside
