// SPDX-License-Identifier: MIT
// `fleet pack` and `fleet run` with isolation columns and `--audit LOG`: a gang that fits
// only across two network segments does not place and its audit line says why; one "gang"
// line per decision and one "preempt" line per preemption, a log `gpurent audit verify`
// accepts (exit 0) and, tampered, rejects at the right line (exit 2).

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/tool.hpp"

namespace test_tool_fleet_isolation {

using gpurent::test::run_tool;
using gpurent::test::slurp;
using gpurent::test::write_file;
std::filesystem::path scratch() { return gpurent::test::scratch_dir("fleet-isolation"); }

std::vector<nlohmann::json> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

const std::string nodes_csv =
    "sn,cpu_milli,memory_mib,gpu,model,segment,labels\n"
    "n0,64000,262144,4,H100,pkey-a,region=eu-west-1\n"
    "n1,64000,262144,4,H100,pkey-a,region=eu-west-1\n"
    "n2,64000,262144,4,H100,pkey-b,region=us-east-1\n"
    "n3,64000,262144,4,H100,pkey-b,region=us-east-1\n";

TEST_CASE("fleet pack --audit: one gang line per job; the gang across two segments is refused with its reason") {
  const std::string nodes = write_file(scratch() / "nodes.csv", nodes_csv);
  const std::string jobs = write_file(scratch() / "jobs.csv",
                                      "name,workers,num_gpu,per_node,isolation,tenant,residency\n"
                                      "across,3,4,1,network,x,\n"
                                      "inside,2,4,1,network,x,\n"
                                      "us,1,4,1,node,y,region=us-east-1\n"
                                      "us2,1,4,1,gpu,z,region=us-east-1\n");
  const std::string log = (scratch() / "pack.log").string();
  std::filesystem::remove(log);
  const std::string args = "fleet pack --nodes " + nodes + " --jobs " + jobs;
  const auto plain = run_tool(args);
  const auto logged = run_tool(args + " --audit " + log + " --audit-actor ops --audit-time 2026-12-03T17:00:00Z");
  REQUIRE(plain.status == 0);
  REQUIRE(logged.status == 0);
  const auto po = nlohmann::json::parse(plain.out);
  CHECK(po["placed"] == 3);
  CHECK(po["failed"] == 1);
  CHECK(nlohmann::json::parse(logged.out)["placed"] == 3);
  const auto lines = lines_of(log);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0]["kind"] == "gang");
  CHECK(lines[0]["actor"] == "ops");
  CHECK(lines[0]["job"] == "across");
  CHECK(lines[0]["placements"].is_null());
  CHECK(lines[0]["explain"]["candidates"] == "network segments");
  CHECK(lines[0]["explain"]["rejected"]["have room for fewer (network segment)"] == 2);
  CHECK(lines[1]["placements"].size() == 2);
  CHECK(lines[2]["request"]["isolation"] == "node");
  CHECK(lines[3]["job"] == "us2");
  CHECK(lines[3]["placements"][0]["node"] != lines[2]["placements"][0]["node"]);
  const auto ok = run_tool("audit verify " + log);
  CHECK(ok.status == 0);
  CHECK(ok.out.find("\"lines\": 4") != std::string::npos);
  // A changed byte in line 2.
  std::string t = slurp(log);
  const std::size_t at = t.find("\"inside\"");
  REQUIRE(at != std::string::npos);
  t[at + 1] = 'I';
  const std::string bad = write_file(scratch() / "pack-bad.log", t);
  const auto tampered = run_tool("audit verify " + bad);
  CHECK(tampered.status == 2);
  CHECK(tampered.err.find(bad + ":2:") != std::string::npos);
}

TEST_CASE("fleet run --audit: gang lines and a preempt line naming the victim; verify accepts it") {
  const std::string nodes = write_file(scratch() / "run-nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,H100\n");
  const std::string jobs = write_file(scratch() / "run-jobs.csv",
                                      "name,workers,num_gpu,priority,preemptible,arrival,duration\n"
                                      "spot,1,4,0,true,0,1000\n"
                                      "urgent,1,4,10,false,10,100\n");
  const std::string log = (scratch() / "run.log").string();
  std::filesystem::remove(log);
  const std::string args = "fleet run --nodes " + nodes + " --jobs " + jobs;
  const auto plain = run_tool(args);
  const auto logged = run_tool(args + " --audit " + log + " --audit-time 2026-12-03T17:00:00Z");
  REQUIRE(plain.status == 0);
  REQUIRE(logged.status == 0);
  auto a = nlohmann::json::parse(plain.out);
  auto b = nlohmann::json::parse(logged.out);
  a.erase("elapsed_s");
  b.erase("elapsed_s");
  CHECK(a == b);
  CHECK(b["preemptions"] == 1);
  const auto lines = lines_of(log);
  std::vector<std::string> kinds;
  for (const auto& l : lines) kinds.push_back(l["kind"].get<std::string>() + ":" + (l.contains("job") ? l["job"].get<std::string>() : ""));
  // spot starts; urgent does not fit, preempts spot and is placed in its room by the placer
  // (a gang line like any placement), then the preemption; spot comes back (and waits until
  // urgent is done).
  INFO(nlohmann::json(kinds).dump());
  REQUIRE(kinds.size() >= 5);
  CHECK(std::vector<std::string>(kinds.begin(), kinds.begin() + 4) ==
        std::vector<std::string>{"gang:spot", "gang:urgent", "gang:urgent", "preempt:"});
  CHECK(lines[1]["placements"].is_null());
  CHECK(lines[2]["placements"][0]["node"] == "n0");
  CHECK(lines[3]["preemptor"] == "urgent");
  CHECK(lines[3]["at_s"] == 10);
  CHECK(lines[3]["victims"][0]["job"] == "spot");
  CHECK(lines[3]["placements"][0]["node"] == "n0");
  CHECK(kinds.back() == "gang:spot");
  CHECK(lines.back()["placements"].size() == 1);
  CHECK(run_tool("audit verify " + log).status == 0);
  // --audit with --pods is refused.
  const auto pods = run_tool("fleet run --nodes " + nodes + " --pods " + jobs + " --audit " + log);
  CHECK(pods.status == 2);
  CHECK(pods.err.find("--audit") != std::string::npos);
}

}  // namespace test_tool_fleet_isolation
