// SPDX-License-Identifier: MIT
// `gpurent fleet pack` and `fleet generate` as other programs see them
// (docs/formats/fleet.md): the JSON fields on a hand-computed cluster, the placements
// CSV, and bad nodes, topology and jobs files exiting 2 with the file, line and field named
// and nothing on stdout.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/tool.hpp"

// Named, not anonymous, and around the test cases too: the layer's tests are also built as
// one unity translation unit, where every file's helpers would meet.
namespace test_tool_fleet {

using gpurent::test::run_tool;
using gpurent::test::write_file;
std::filesystem::path scratch() { return gpurent::test::scratch_dir("fleet"); }

// 4 nodes of 4 GPUs in 2 blocks of 2 under one spine; n1 is down: 12 GPUs count.
const std::string nodes_csv =
    "sn,cpu_milli,memory_mib,gpu,model,state\n"
    "n0,64000,262144,4,GB200,up\n"
    "n1,64000,262144,4,GB200,down\n"
    "n2,64000,262144,4,GB200,up\n"
    "n3,64000,262144,4,GB200,\n";
const std::string topology_json =
    "{ \"levels\": [\"spine\", \"block\"],\n"
    "  \"nodes\": {\n"
    "    \"n0\": [\"s0\", \"b0\"],\n"
    "    \"n1\": [\"s0\", \"b0\"],\n"
    "    \"n2\": [\"s0\", \"b1\"],\n"
    "    \"n3\": [\"s0\", \"b1\"] } }\n";
// j0: a segment of 2 whole nodes (only b1 has 2 up nodes); j1: 2 GPUs on n0; j2: 4 GPUs,
// no node has them any more (the demand reaches 14 >= 12 here); j3: the last 2 GPUs of n0.
const std::string jobs_csv =
    "name,workers,num_gpu,per_node,segment,preferred\n"
    "j0,2,4,1,2,block\n"
    "j1,1,2,,,\n"
    "j2,1,4,,,\n"
    "j3,1,2,,,\n";

struct files {
  std::string nodes = write_file(scratch() / "nodes.csv", nodes_csv);
  std::string topology = write_file(scratch() / "topology.json", topology_json);
  std::string jobs = write_file(scratch() / "jobs.csv", jobs_csv);
  [[nodiscard]] std::string args() const { return "fleet pack --nodes " + nodes + " --topology " + topology + " --jobs " + jobs; }
};

TEST_CASE("fleet pack: the JSON fields on a hand-computed cluster") {
  const files f;
  for (const std::string policy : {"gpurent", "slurm-block", "kueue-best-fit", "best-fit"}) {
    const auto r = run_tool(f.args() + " --policy " + policy);
    REQUIRE(r.status == 0);
    CHECK(r.err.empty());
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["policy"] == policy);
    CHECK(j["jobs"] == 4);
    CHECK(j["placed"] == 3);
    CHECK(j["failed"] == 1);
    CHECK(j["gpus_total"] == 12);
    CHECK(j["gpus_allocated"] == 12);
    CHECK(j["occupancy_pct_at_100"].get<double>() == doctest::Approx(83.333).epsilon(1e-4));  // 10 of 12 after j2
    CHECK(j["occupancy_pct"].get<double>() == doctest::Approx(100.0));
    CHECK(j["preferred_met"] == 1);
    CHECK(j["preferred_total"] == 1);
    CHECK(j["violations"] == 0);
    CHECK(j.contains("elapsed_s"));
  }
}

TEST_CASE("fleet pack: --placements writes one row per placed member") {
  const files f;
  const std::string out = (scratch() / "placements.csv").string();
  const auto r = run_tool(f.args() + " --placements " + out);
  REQUIRE(r.status == 0);
  std::istringstream in(gpurent::test::slurp(out));
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0] == "job,member,node,gpus");
  // The segment in b1 (b0 has one node up), one member per node; j2 did not place.
  CHECK(rows[1] == "j0,0,n2,0:1000;1:1000;2:1000;3:1000");
  CHECK(rows[2] == "j0,1,n3,0:1000;1:1000;2:1000;3:1000");
  CHECK(rows[3] == "j1,0,n0,0:1000;1:1000");
  CHECK(rows[4] == "j3,0,n0,2:1000;3:1000");
}

TEST_CASE("fleet pack: --ignore-topology drops the rules, --format table prints the same numbers") {
  const files f;
  const auto naive = run_tool(f.args() + " --policy best-fit --ignore-topology");
  REQUIRE(naive.status == 0);
  const auto j = nlohmann::json::parse(naive.out);
  CHECK(j["preferred_total"] == 0);
  CHECK(j["violations"] == 0);
  const auto t = run_tool(f.args() + " --format table");
  REQUIRE(t.status == 0);
  CHECK(t.out.find("placed 3") != std::string::npos);
  CHECK(t.out.find("violations 0") != std::string::npos);
}

TEST_CASE("fleet pack: without a topology, gangs without rules still place") {
  const std::string nodes =
      write_file(scratch() / "plain.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,H100\nn1,64000,262144,2,H100\n");
  const std::string jobs = write_file(scratch() / "plain_jobs.csv", "name,workers,num_gpu\nj0,2,2\nj1,1,2\n");
  const auto r = run_tool("fleet pack --nodes " + nodes + " --jobs " + jobs);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["placed"] == 2);
  CHECK(j["gpus_allocated"] == 6);
}

// Runs fleet pack with one file replaced and checks exit 2, empty stdout, and each needle
// in stderr.
void bad(const std::string& which, const std::string& name, const std::string& text, const std::vector<std::string>& needles) {
  const files f;
  std::string nodes = f.nodes, topology = f.topology, jobs = f.jobs;
  const std::string path = write_file(scratch() / name, text);
  (which == "nodes" ? nodes : which == "topology" ? topology : jobs) = path;
  const auto r = run_tool("fleet pack --nodes " + nodes + " --topology " + topology + " --jobs " + jobs);
  INFO(name << ": " << r.err);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  for (const std::string& n : needles) CHECK(r.err.find(n) != std::string::npos);
}

TEST_CASE("fleet pack: bad nodes files exit 2 naming file, line and field") {
  bad("nodes", "n_gpu.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,4,H\nn1,1,1,x,H\n", {"n_gpu.csv:3", "'gpu'"});
  bad("nodes", "n_state.csv", "sn,cpu_milli,memory_mib,gpu,model,state\nn0,1,1,4,H,up\nn1,1,1,4,H,broken\n",
      {"n_state.csv:3", "'state'", "up, down or drain"});
  bad("nodes", "n_dup.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,4,H\nn0,1,1,4,H\n", {"n_dup.csv:3", "'sn'", "twice"});
  bad("nodes", "n_col.csv", "sn,cpu_milli,gpu,model\nn0,1,4,H\n", {"n_col.csv:1", "'memory_mib'", "missing column"});
  bad("nodes", "n_neg.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,-5,1,4,H\n", {"n_neg.csv:2", "'cpu_milli'"});
  bad("nodes", "n_model.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,4,\n", {"n_model.csv:2", "'model'"});
}

TEST_CASE("fleet pack: bad topology files exit 2 naming file, line and field") {
  const std::string head = "{ \"levels\": [\"spine\", \"block\"],\n  \"nodes\": {\n    \"n0\": [\"s0\", \"b0\"],\n";
  bad("topology", "t_missing.json", head + "    \"n9\": [\"s0\", \"b0\"] } }\n", {"t_missing.json:4", "'nodes.n9'", "not in the nodes file"});
  bad("topology", "t_parent.json", head + "    \"n1\": [\"s1\", \"b0\"] } }\n", {"t_parent.json:4", "'nodes.n1'", "already in spine"});
  bad("topology", "t_len.json", head + "    \"n1\": [\"b0\"] } }\n", {"t_len.json:4", "'nodes.n1'", "expected 2 domains"});
  bad("topology", "t_type.json", head + "    \"n1\": [\"s0\", 7] } }\n", {"t_type.json:4", "'nodes.n1[1]'", "expected a string"});
  bad("topology", "t_unknown.json", "{ \"levels\": [\"block\"],\n  \"nodez\": {} }\n", {"t_unknown.json:2", "nodez", "unknown field"});
  bad("topology", "t_levels.json", "{ \"levels\": [],\n  \"nodes\": {} }\n", {"t_levels.json:1", "'levels'"});
  bad("topology", "t_syntax.json", "{ \"levels\": [\"block\"],\n  \"nodes\": { \n", {"t_syntax.json:", "not valid JSON"});
}

TEST_CASE("fleet pack: bad jobs files exit 2 naming file, line and field") {
  const std::string h = "name,workers,num_gpu,segment,required,exclusive,gpu_spec\n";
  bad("jobs", "j_seg.csv", h + "a,2,4,0,,,\nb,3,4,2,,,\n", {"j_seg.csv:3", "'segment'", "does not divide"});
  bad("jobs", "j_level.csv", h + "a,2,4,0,rack,,\n", {"j_level.csv:2", "'required'", "no level \"rack\""});
  bad("jobs", "j_dup.csv", h + "a,2,4,0,,,\na,1,1,0,,,\n", {"j_dup.csv:3", "'name'", "twice"});
  bad("jobs", "j_empty.csv", h + "a,,4,0,,,\n", {"j_empty.csv:2", "'workers'", "missing value"});
  bad("jobs", "j_excl.csv", h + "a,1,4,0,,yes,\n", {"j_excl.csv:2", "'exclusive'", "yes"});
  bad("jobs", "j_spec.csv", h + "a,1,4,0,,,A100\n", {"j_spec.csv:2", "'gpu_spec'", "A100"});
  bad("jobs", "j_col.csv", "name,workers,num_gpu,colour\na,1,4,red\n", {"j_col.csv:1", "'colour'", "unknown column"});
  bad("jobs", "j_nocol.csv", "name,num_gpu\na,4\n", {"j_nocol.csv:1", "'workers'", "missing column"});
  bad("jobs", "j_zero.csv", h + "a,0,4,0,,,\n", {"j_zero.csv:2", "'workers'"});
  bad("jobs", "j_milli.csv", "name,workers,num_gpu,gpu_milli\na,1,2,500\n", {"j_milli.csv:2", "'gpu_milli'"});
  bad("jobs", "j_pre.csv", "name,workers,num_gpu,preemptible\na,1,2,maybe\n", {"j_pre.csv:2", "'preemptible'"});
}

TEST_CASE("fleet generate: the files it writes pack with no violation, the same for the same seed") {
  const std::string a = (scratch() / "gen-a").string();
  const std::string b = (scratch() / "gen-b").string();
  const auto ra = run_tool("fleet generate --blocks 6 --down 0.02 --seed 7 --out " + a);
  const auto rb = run_tool("fleet generate --blocks 6 --down 0.02 --seed 7 --out " + b);
  REQUIRE(ra.status == 0);
  REQUIRE(rb.status == 0);
  const auto j = nlohmann::json::parse(ra.out);
  CHECK(j["nodes"] == 108);
  CHECK(j["nodes_down"] == 2);
  CHECK(j["gpus_up"] == 424);
  CHECK(j["gpus_demanded"].get<double>() >= 1.3 * 424);
  for (const char* name : {"nodes.csv", "topology.json", "jobs.csv"})
    CHECK(gpurent::test::slurp(std::filesystem::path(a) / name) == gpurent::test::slurp(std::filesystem::path(b) / name));
  for (const std::string policy : {"gpurent", "slurm-block", "kueue-best-fit", "best-fit"}) {
    const auto r = run_tool("fleet pack --nodes " + a + "/nodes.csv --topology " + a + "/topology.json --jobs " + a + "/jobs.csv --policy " + policy);
    REQUIRE(r.status == 0);
    CHECK(nlohmann::json::parse(r.out)["violations"] == 0);
  }
}

TEST_CASE("fleet generate: options out of range exit 2 naming the option") {
  const auto r = run_tool("fleet generate --blocks 0 --out " + (scratch() / "gen-bad").string());
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("--blocks") != std::string::npos);
  const auto d = run_tool("fleet generate --blocks 2 --down 1.5 --out " + (scratch() / "gen-bad").string());
  CHECK(d.status == 2);
  CHECK(d.err.find("--down") != std::string::npos);
}

}  // namespace test_tool_fleet
