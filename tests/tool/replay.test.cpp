// SPDX-License-Identifier: MIT
// `gpurent replay` as other programs see it (docs/formats/README.md): exit 2 with the file, line
// and field on bad input, nothing on stdout; JSON fields; the placements CSV.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/tool.hpp"

// Named, not anonymous, and around the test cases too: the layer's tests are also built as
// one unity translation unit, where every file's helpers would meet.
namespace test_tool_replay {

using run_result = gpurent::test::tool_result;
using gpurent::test::run_tool;
using gpurent::test::write_file;
std::filesystem::path scratch() { return gpurent::test::scratch_dir("replay"); }

const std::string node_csv = "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,96000,393216,8,G2\n";
const std::string pod_header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n";

TEST_CASE("replay: bad input exits 2 naming file, line and field") {
  const std::string nodes = write_file(scratch() / "nodes.csv", node_csv);
  SUBCASE("negative request") {
    const std::string pods = write_file(scratch() / "neg.csv", pod_header + "p0,1000,1024,1,500,\np1,1000,-1,1,500,\n");
    const auto r = run_tool("replay --nodes " + nodes + " --pods " + pods);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("neg.csv:3") != std::string::npos);
    CHECK(r.err.find("memory_mib") != std::string::npos);
  }
  SUBCASE("malformed row") {
    const std::string pods = write_file(scratch() / "bad.csv", pod_header + "p0,1000,1024,1,500,\np1,1000,1024,one,500,\n");
    const auto r = run_tool("replay --nodes " + nodes + " --pods " + pods);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("bad.csv:3") != std::string::npos);
    CHECK(r.err.find("num_gpu") != std::string::npos);
  }
  SUBCASE("unknown model") {
    const std::string pods = write_file(scratch() / "model.csv", pod_header + "p0,1000,1024,1,500,H100\n");
    const auto r = run_tool("replay --nodes " + nodes + " --pods " + pods);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("model.csv:2") != std::string::npos);
    CHECK(r.err.find("gpu_spec") != std::string::npos);
    CHECK(r.err.find("H100") != std::string::npos);
  }
  SUBCASE("malformed node list") {
    const std::string bad_nodes = write_file(scratch() / "nodes_bad.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2\n");
    const std::string pods = write_file(scratch() / "ok.csv", pod_header + "p0,1000,1024,1,500,\n");
    const auto r = run_tool("replay --nodes " + bad_nodes + " --pods " + pods);
    CHECK(r.status == 2);
    CHECK(r.err.find("nodes_bad.csv:2") != std::string::npos);
  }
  SUBCASE("unknown policy, missing file") {
    const std::string pods = write_file(scratch() / "ok.csv", pod_header + "p0,1000,1024,1,500,\n");
    CHECK(run_tool("replay --nodes " + nodes + " --pods " + pods + " --policy nope").status == 2);
    CHECK(run_tool("replay --nodes " + nodes + " --pods /nonexistent/pods.csv").status == 2);
  }
}

TEST_CASE("replay: JSON fields and the placements CSV") {
  const std::string nodes = write_file(scratch() / "nodes.csv", node_csv);
  const std::string pods =
      write_file(scratch() / "small.csv", pod_header + "p0,1000,1024,1,500,G2\np1,2000,1024,2,1000,P100\np2,4000,1024,0,0,\np3,1000,1024,8,1000,\n");
  const std::string out_csv = (scratch() / "placements.csv").string();
  const auto r = run_tool("replay --nodes " + nodes + " --pods " + pods + " --policy best-fit --seed 3 --placements " + out_csv);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"policy", "seed", "tune", "nodes", "gpus_total", "pods_arrived", "pods_placed", "pods_failed", "alloc_pct",
                        "unallocated_pct_at_100", "elapsed_s", "placements_per_s"}) {
    CHECK_MESSAGE(j.contains(k), k);
  }
  CHECK(j["policy"] == "best-fit");
  CHECK(j["seed"] == 3);
  CHECK(j["nodes"] == 2);
  CHECK(j["gpus_total"] == 10);
  for (const char* x : {"90", "95", "100", "105", "110", "120", "130"}) CHECK(j["alloc_pct"].contains(x));
  const int arrived = j["pods_arrived"];
  CHECK(j["pods_placed"].get<int>() + j["pods_failed"].get<int>() == arrived);
  std::ifstream in(out_csv);
  std::string line;
  std::getline(in, line);
  CHECK(line == "seq,pod,node,gpus");
  int rows = 0;
  bool saw_two = false;
  while (std::getline(in, line)) {
    ++rows;
    if (line.find(",p1,n0,") != std::string::npos) saw_two = line.ends_with(",0:1000;1:1000");
  }
  CHECK(rows == arrived);
  CHECK(saw_two);
}

TEST_CASE("replay: several seeds give mean and sd") {
  const std::string nodes = write_file(scratch() / "nodes.csv", node_csv);
  const std::string pods = write_file(scratch() / "small2.csv", pod_header + "p0,1000,1024,1,500,\np1,2000,1024,1,1000,\n");
  const auto r = run_tool("replay --nodes " + nodes + " --pods " + pods + " --policy fgd --seeds 1-3");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["seeds"].size() == 3);
  CHECK(j["runs"].size() == 3);
  CHECK(j.contains("alloc_pct_mean"));
  CHECK(j.contains("alloc_pct_sd"));
  CHECK(j["unallocated_pct_at_100"].contains("mean"));
  const auto t = run_tool("replay --nodes " + nodes + " --pods " + pods + " --seeds 1-2 --format table");
  CHECK(t.status == 0);
  CHECK(t.out.find("unallocated") != std::string::npos);
  CHECK(run_tool("replay --nodes " + nodes + " --pods " + pods + " --seeds x-y").status == 2);
}

}  // namespace test_tool_replay
