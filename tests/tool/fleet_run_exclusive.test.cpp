// SPDX-License-Identifier: MIT
// `gpurent fleet run`: an exclusive spot gang stopped with notice still runs until t + notice
// and keeps its base blocks to itself until then. Found on a generated NVL72 fleet (seed 4,
// 80%, kube victims: 18 members placed against the exclusive rule): the victim's blocks were
// freed at the preemption instant, and a job arriving inside the notice window landed next to
// it. Also: when the hold ends, the jobs that waited for those blocks are tried again at once.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fleet_run_check.hpp"
#include "support/tool.hpp"

namespace test_tool_fleet_run_exclusive {

using gpurent::test::csv_rows;
using gpurent::test::run_tool;
using gpurent::test::slurp;
using gpurent::test::write_file;

// The rows of job `name` in a placements CSV: job,run,member,node,gpus,start,end,end_reason.
std::vector<std::vector<std::string>> rows_of(const std::string& csv, const std::string& name) {
  std::vector<std::vector<std::string>> out;
  for (auto& r : csv_rows(csv))
    if (r[0] == name) out.push_back(r);
  return out;
}

TEST_CASE("fleet run: an exclusive victim keeps its blocks until it stops; waiting jobs get them then") {
  // Blocks A (n0-n3) and B (n4-n7), 4 GPUs a node. f (hp) fills a block; x (spot, exclusive)
  // takes 2 nodes of the other, and holds it. At 1000 h (hp, 2 nodes) preempts x: x stops at
  // 1030, h starts then on x's nodes. y (1 node) arrives at 1010: the block's 2 other nodes
  // are free but x still runs there exclusively, so y waits until 1030, not longer.
  const auto dir = gpurent::test::scratch_dir("fleet_exclusive");
  std::string nodes = "sn,cpu_milli,memory_mib,gpu,model\n", topo;
  for (int i = 0; i < 8; ++i) {
    nodes += "n" + std::to_string(i) + ",64000,262144,4,H100\n";
    topo += std::string(i == 0 ? "" : ", ") + "\"n" + std::to_string(i) + "\": [\"" + (i < 4 ? "A" : "B") + "\"]";
  }
  write_file(dir / "nodes.csv", nodes);
  write_file(dir / "topo.json", R"({"levels": ["block"], "nodes": {)" + topo + "}}");
  write_file(dir / "jobs.csv",
             "name,workers,num_gpu,per_node,required,exclusive,priority,preemptible,arrival,duration,checkpoint_every\n"
             "f,4,4,1,block,,100,false,0,100000,1800\n"
             "x,2,4,1,,topo,0,true,0,100000,1800\n"
             "h,2,4,1,,,100,false,1000,500,1800\n"
             "y,1,4,1,,,50,false,1010,500,1800\n");
  const auto placements = dir / "placements.csv";
  for (const char* victims : {"kube", "gpurent"}) {
    INFO("victims " << victims);
    const auto r = run_tool("fleet run --nodes '" + (dir / "nodes.csv").string() + "' --topology '" + (dir / "topo.json").string() + "' --jobs '" +
                            (dir / "jobs.csv").string() + "' --victims " + victims + " --check --placements '" + placements.string() + "'");
    REQUIRE(r.status == 0);
    CHECK(r.err.empty());
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["violations"] == 0);
    const std::string csv = slurp(placements);
    const auto x = rows_of(csv, "x"), y = rows_of(csv, "y");
    REQUIRE(x.size() == 4);  // two runs of two members
    CHECK(x[0][6] == "1030");
    CHECK(x[0][7] == "preempted");
    REQUIRE(y.size() == 1);
    CHECK(y[0][5] == "1030");  // not at 1010 beside x, not at 1530 when h ends
    CHECK((y[0][3] == "n6" || y[0][3] == "n7"));
  }
}

}  // namespace test_tool_fleet_run_exclusive
