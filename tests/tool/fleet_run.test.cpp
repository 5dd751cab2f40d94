// SPDX-License-Identifier: MIT
// `gpurent fleet run` as other programs see it (docs/formats/fleet.md): a hand-computed
// preemption, and the independent checker (support/fleet_run_check.hpp) that replays the
// placements CSV (not the tool's bookkeeping): capacity at every instant, no start before
// arrival, one run of a job at a time, preemption only of preemptible jobs, completed work
// covering the duration, and the GPU-seconds of the CSV and of --emit-usage equal to what
// the run reports.

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fleet_run_check.hpp"
#include "support/tool.hpp"

namespace test_tool_fleet_run {

using gpurent::test::run_tool;
using gpurent::test::slurp;
using gpurent::test::write_file;
std::filesystem::path scratch() { return gpurent::test::scratch_dir("fleet_run"); }

const std::string jobs_header = "name,workers,num_gpu,gpu_milli,priority,preemptible,arrival,duration,checkpoint_every\n";

using gpurent::test::check_run_placements;
using job_row = gpurent::test::run_job_row;
inline std::vector<std::vector<std::string>> rows(const std::string& text) { return gpurent::test::csv_rows(text); }

void check_placements(const std::vector<job_row>& jobs, const std::string& csv, double reported_gpu_s, std::size_t reported_completed) {
  check_run_placements(jobs, csv, reported_gpu_s, reported_completed);
}

TEST_CASE("fleet run: an hp job preempts a spot job; the spot job loses the work since its checkpoint and restarts") {
  // One node of 4 GPUs. spot-a (4 GPUs, 10000 s, checkpoints every 1800 s) from 0; hp-b (4
  // GPUs, 100 s, priority 100) at 4000. Notice 30 s < write 60 s: spot-a stops at 4030 having
  // saved 3600 s (lost 4030 - 3600 = 430 s x 4 GPUs), hp-b runs 4030..4130, spot-a comes back
  // at 4030, waits, runs 4130 with 10000 - 3600 + 120 = 6520 s: ends 10650.
  const std::string nodes = write_file(scratch() / "one.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\n");
  const std::string jobs =
      write_file(scratch() / "ab.csv", jobs_header + "spot-a,1,4,1000,0,true,0,10000,1800\nhp-b,1,4,1000,100,false,4000,100,1800\n");
  const std::string csv = (scratch() / "ab_placements.csv").string();
  for (const char* victims : {"kube", "gpurent"}) {
    const auto r = run_tool(std::string("fleet run --nodes ") + nodes + " --jobs " + jobs + " --victims " + victims + " --placements " + csv);
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["classes"]["spot"]["evictions"] == 1);
    CHECK(j["classes"]["spot"]["lost_gpu_s"] == 1720.0);
    CHECK(j["classes"]["spot"]["completed"] == 1);
    CHECK(j["classes"]["hp"]["delay_s"]["p99"] == 30);
    CHECK(j["classes"]["spot"]["delay_s"]["p50"] == 0);
    CHECK(slurp(csv) ==
          "job,run,member,node,gpus,start,end,end_reason\n"
          "spot-a,0,0,n0,0:1000;1:1000;2:1000;3:1000,0,4030,preempted\n"
          "hp-b,0,0,n0,0:1000;1:1000;2:1000;3:1000,4030,4130,done\n"
          "spot-a,1,0,n0,0:1000;1:1000;2:1000;3:1000,4130,10650,done\n");
  }
  // No victims: hp-b waits for spot-a to finish at 10000.
  const auto none = run_tool("fleet run --nodes " + nodes + " --jobs " + jobs + " --victims none --placements " + csv);
  REQUIRE(none.status == 0);
  CHECK(nlohmann::json::parse(none.out)["classes"]["hp"]["delay_s"]["p50"] == 6000);
  // A notice long enough for the final checkpoint: nothing lost.
  const auto saved = run_tool("fleet run --nodes " + nodes + " --jobs " + jobs + " --victims kube --notice 60s");
  REQUIRE(saved.status == 0);
  CHECK(nlohmann::json::parse(saved.out)["classes"]["spot"]["lost_gpu_s"] == 0.0);
}

TEST_CASE("fleet run: the independent checker on random workloads, every victim policy") {
  const std::string nodes = write_file(scratch() / "four.csv",
                                       "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\nn1,64000,262144,4,A100\n"
                                       "n2,64000,262144,8,A100\nn3,64000,262144,2,A100\n");
  const std::string tariff = write_file(scratch() / "unit.json", R"({"currency": "USD", "timezone": "UTC", "rates": [)"
                                                                 R"({"resource": "gpu/A100", "mode": "on_demand", "unit_price": "1", "per": "1s"},)"
                                                                 R"({"resource": "gpu/A100", "mode": "spot", "unit_price": "1", "per": "1s"}]})");
  std::mt19937 rng(1717);
  for (int round = 0; round < 6; ++round) {
    std::vector<job_row> jobs;
    std::string text = jobs_header;
    for (int i = 0; i < 60; ++i) {
      job_row j;
      j.name = "j" + std::to_string(i);
      j.workers = std::uniform_int_distribution<int>(1, 3)(rng);
      j.gpus = std::uniform_int_distribution<int>(1, 4)(rng);
      j.milli = j.gpus == 1 && rng() % 3 == 0 ? 500 : 1000;
      j.preemptible = rng() % 2 == 0;
      j.priority = j.preemptible ? 0 : static_cast<int>(rng() % 2) * 100;
      j.arrival = std::uniform_int_distribution<int>(0, 20000)(rng);
      j.duration = std::uniform_int_distribution<int>(100, 8000)(rng);
      jobs.push_back(j);
      text += j.name + "," + std::to_string(j.workers) + "," + std::to_string(j.gpus) + "," + std::to_string(j.milli) + "," +
              std::to_string(j.priority) + "," + (j.preemptible ? "true" : "false") + "," + std::to_string(j.arrival) + "," +
              std::to_string(j.duration) + ",1800\n";
    }
    const std::string file = write_file(scratch() / "random.csv", text);
    for (const std::string victims : {"none", "kube", "gpurent"})
      for (const std::string policy : {"gpurent", "best-fit"})
        for (const std::string notice : {"0s", "30s"}) {
          INFO("seed 1717 round " << round << " victims " << victims << " policy " << policy << " notice " << notice);
          const std::string csv = (scratch() / "random_placements.csv").string();
          const std::string usage = (scratch() / "random_usage.csv").string();
          const auto r = run_tool("fleet run --nodes " + nodes + " --jobs " + file + " --victims " + victims + " --policy " + policy + " --notice " +
                                  notice + " --placements " + csv + " --emit-usage " + usage);
          REQUIRE(r.status == 0);
          const auto j = nlohmann::json::parse(r.out);
          const std::size_t completed = j["classes"]["hp"]["completed"].get<std::size_t>() + j["classes"]["spot"]["completed"].get<std::size_t>();
          check_placements(jobs, slurp(csv), j["gpu_s"].get<double>(), completed);
          // --emit-usage: one record per member per segment of non-zero length.
          for (const auto& f : rows(slurp(usage))) {
            REQUIRE(f.size() == 7);
            CHECK((f[1] == "hp" || f[1] == "spot"));
            CHECK(f[3] == (f[1] == "hp" ? "on_demand" : "spot"));
            CHECK(f[2] == "gpu/A100");
          }
          // `gpurent meter` at 1 per GPU-second bills exactly the GPU-seconds the run reports.
          const auto m = run_tool("meter --tariff " + tariff + " --usage " + usage + " --period 2026-11");
          REQUIRE(m.status == 0);
          double billed = 0;
          const auto bill = nlohmann::json::parse(m.out);
          for (const auto& a : bill["accounts"]) billed += std::stod(a["total"].get<std::string>());
          CHECK(billed == doctest::Approx(j["gpu_s"].get<double>()).epsilon(1e-12));
        }
  }
}

TEST_CASE("fleet run: a gang required in one block preempts inside one block; gpurent takes the cheapest, kube the latest start") {
  // Six blocks of two 4-GPU nodes (A = n0 n1, B = n2 n3, C..F the rest), each node of its own
  // model so that the spot jobs s0..s11, pinned by model, fill them: s0 from 400 and s1 from
  // 990 on A, s2 and s3 from 500 on B, the rest from 300 (no checkpoint before 100000 s). At
  // 1000 the hp gang g (2 x 4 GPUs, required: block) needs a whole block. Notice 30 s: block
  // A's victims lose 630 + 40 s, B's 530 + 530, the others' 730 + 730, each x 4 GPUs.
  // gpurent evicts A (2680 GPU-s): each block is a candidate domain of its own. (Offered the
  // whole cluster at once, a greedy pass that removes every spot job and re-admits the
  // costliest first would keep the block whose costliest job is cheapest: B.) kube evicts
  // B: equal priority, sum and count, and its jobs started latest.
  std::string node_rows = "sn,cpu_milli,memory_mib,gpu,model\n", topo_nodes, job_rows;
  const std::array<int, 12> start{400, 990, 500, 500, 300, 300, 300, 300, 300, 300, 300, 300};
  for (int i = 0; i < 12; ++i) {
    const std::string n = "n" + std::to_string(i), m = "M" + std::to_string(i);
    node_rows += n + ",64000,262144,4," + m + "\n";
    topo_nodes += std::string(i == 0 ? "" : ", ") + "\"" + n + "\": [\"" + std::string(1, static_cast<char>('A' + i / 2)) + "\"]";
    job_rows += "s" + std::to_string(i) + ",1,4," + m + ",,0,true," + std::to_string(start[static_cast<std::size_t>(i)]) + ",100000,100000\n";
  }
  const std::string nodes = write_file(scratch() / "blocks12.csv", node_rows);
  const std::string topo = write_file(scratch() / "blocks12.json", R"({"levels": ["block"], "nodes": {)" + topo_nodes + "}}");
  const std::string jobs =
      write_file(scratch() / "blocks12_jobs.csv", "name,workers,num_gpu,gpu_spec,required,priority,preemptible,arrival,duration,checkpoint_every\n" +
                                                      job_rows + "g,2,4,,block,100,false,1000,100,1800\n");
  const std::string pre = (scratch() / "blocks12_preemptions.csv").string();
  const auto run = [&](const char* victims) {
    const auto r = run_tool("fleet run --nodes " + nodes + " --topology " + topo + " --jobs " + jobs + " --policy best-fit --victims " + victims +
                            " --preemptions " + pre + " --check");
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["violations"] == 0);
    CHECK(j["classes"]["hp"]["delay_s"]["p50"] == 30);
    CHECK(j["classes"]["spot"]["evictions"] == 2);
    const auto rs = rows(slurp(pre));
    REQUIRE(rs.size() == 1);  // one decision (the header aside)
    CHECK(rs[0][0] == "1000");
    CHECK(rs[0][1] == "g");
    return std::pair{j["classes"]["spot"]["lost_gpu_s"].get<double>(), rs[0][2]};
  };
  const auto gpurent_run = run("gpurent");
  CHECK(gpurent_run.second == "s0;s1");
  CHECK(gpurent_run.first == 2680.0);
  const auto kube_run = run("kube");
  CHECK(kube_run.second == "s2;s3");
  CHECK(kube_run.first == 4240.0);
}

TEST_CASE("fleet run: a job that can never fit is named on stderr and in the JSON, with the placer's counts (issue 32)") {
  // Two nodes of 4 GPUs, one of them down: 'big' wants 8 GPUs on one node and 'wide' two
  // whole nodes; neither can ever start, while 'ok' runs.
  const std::string nodes =
      write_file(scratch() / "never.csv", "sn,cpu_milli,memory_mib,gpu,model,state\nn0,64000,262144,4,A100,up\nn1,64000,262144,4,A100,down\n");
  const std::string jobs =
      write_file(scratch() / "never_jobs.csv",
                 jobs_header + "ok,1,2,1000,0,false,0,100,1800\nbig,1,8,1000,0,false,10,100,1800\nwide,2,4,1000,0,true,20,100,1800\n");
  for (const char* victims : {"none", "gpurent"}) {
    CAPTURE(victims);
    const auto r = run_tool("fleet run --nodes " + nodes + " --jobs " + jobs + " --victims " + victims);
    CAPTURE(r.err);
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["classes"]["hp"]["never_started"] == 1);
    CHECK(j["classes"]["spot"]["never_started"] == 1);
    const auto& never = j["never_started_jobs"];
    REQUIRE(never.size() == 2);
    CHECK(never[0]["job"] == "big");
    CHECK(never[0]["class"] == "hp");
    CHECK(never[1]["job"] == "wide");
    CHECK(never[1]["class"] == "spot");
    for (const auto& n : never) {
      const std::string why = n["why"].get<std::string>();
      CAPTURE(why);
      CHECK(why.find_first_of("0123456789") != std::string::npos);  // counts, not only words
      CHECK(r.err.find("job " + n["job"].get<std::string>() + " never started: " + why) != std::string::npos);
    }
    CHECK(r.err.find("job ok") == std::string::npos);
  }
}

TEST_CASE("fleet run: bad input exits 2") {
  const std::string nodes = write_file(scratch() / "one.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\n");
  const std::string no_duration = write_file(scratch() / "nodur.csv", "name,workers,num_gpu\na,1,1\n");
  const auto r = run_tool("fleet run --nodes " + nodes + " --jobs " + no_duration);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("duration") != std::string::npos);
  CHECK(run_tool("fleet run --nodes " + nodes).status == 2);
  CHECK(run_tool("fleet run --nodes " + nodes + " --jobs " + no_duration + " --policy nope").status == 2);
}

}  // namespace test_tool_fleet_run
