// SPDX-License-Identifier: MIT
// `gpurent fleet run`'s extra outputs on a hand-computed run: --timeline (the allocation and
// queue time series), --jobs-out (one row per job) and --preemptions (who preempted whom,
// and why those victims).

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <gpurent/fleet/run/timeline.hpp>

#include "support/tool.hpp"

namespace test_tool_fleet_run_outputs {

using gpurent::test::run_tool;
using gpurent::test::slurp;
using gpurent::test::write_file;
std::filesystem::path scratch() { return gpurent::test::scratch_dir("fleet_run_outputs"); }

// One node of 4 GPUs; spot-a (4 GPUs, 10000 s, checkpoints every 1800 s) from 0, hp-b (4 GPUs,
// 100 s, priority 100) at 4000: spot-a stops at 4030, hp-b runs 4030..4130, spot-a again from
// 4130 to 10650 (tests/tool/fleet_run.test.cpp checks the placements).
struct scenario {
  std::string nodes = write_file(scratch() / "one.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\n");
  std::string jobs = write_file(scratch() / "ab.csv",
                                "name,workers,num_gpu,gpu_milli,priority,preemptible,arrival,duration,checkpoint_every\n"
                                "spot-a,1,4,1000,0,true,0,10000,1800\nhp-b,1,4,1000,100,false,4000,100,1800\n");
  std::string base() const { return "fleet run --nodes " + nodes + " --jobs " + jobs; }
};

TEST_CASE("fleet run --timeline: GPUs allocated, running and waiting per class at every step") {
  const scenario s;
  const std::string out = (scratch() / "timeline.csv").string();
  const auto r = run_tool(s.base() + " --victims kube --timeline " + out + " --timeline-step 4030s --epoch 2026-12-31T23:00:00Z");
  REQUIRE(r.status == 0);
  // 0: spot-a runs. 4030: spot-a stopped (waits), hp-b runs. 8060: spot-a runs again (until 10650).
  CHECK(slurp(out) ==
        "time,t_s,gpus_allocated,allocation_pct,running_hp,running_spot,waiting_hp,waiting_spot\n"
        "2026-12-31T23:00:00Z,0,4.000,100.000,0,1,0,0\n"
        "2027-01-01T00:07:10Z,4030,4.000,100.000,1,0,0,1\n"
        "2027-01-01T01:14:20Z,8060,4.000,100.000,0,1,0,0\n");
  // Without preemption hp-b waits from 4000 until spot-a ends at 10000 (default epoch).
  const auto none = run_tool(s.base() + " --victims none --timeline " + out + " --timeline-step 5000s");
  REQUIRE(none.status == 0);
  CHECK(slurp(out) ==
        "time,t_s,gpus_allocated,allocation_pct,running_hp,running_spot,waiting_hp,waiting_spot\n"
        "2026-11-01T00:00:00Z,0,4.000,100.000,0,1,0,0\n"
        "2026-11-01T01:23:20Z,5000,4.000,100.000,0,1,1,0\n"
        "2026-11-01T02:46:40Z,10000,4.000,100.000,1,0,0,0\n");
}

TEST_CASE("fleet run --jobs-out: one row per job in input order, the evicted job's lost work by hand") {
  const scenario s;
  const std::string out = (scratch() / "jobs_out.csv").string();
  const auto r = run_tool(s.base() + " --victims kube --jobs-out " + out);
  REQUIRE(r.status == 0);
  // spot-a is evicted at 4000 with 30 s notice, too short for its 60 s final checkpoint: it
  // loses 4030 - 3600 = 430 s on 4 GPUs, and runs again 4130..10650 (6400 s left + 120 s).
  CHECK(slurp(out) ==
        "job,class,arrival,first_start,delay_s,end,runs,evictions,lost_gpu_s,outcome,reason\n"
        "spot-a,spot,0,0,0,10650,2,1,1720.000,completed,\n"
        "hp-b,hp,4000,4030,30,4130,1,0,0.000,completed,\n");
  // A job too big for the cluster never starts: its row says why, with the placer's counts.
  const std::string jobs = write_file(scratch() / "too_big.csv",
                                      "name,workers,num_gpu,gpu_milli,priority,preemptible,arrival,duration,checkpoint_every\n"
                                      "huge,2,4,1000,0,false,0,100,1800\n");
  const auto big = run_tool("fleet run --nodes " + s.nodes + " --jobs " + jobs + " --jobs-out " + out);
  REQUIRE(big.status == 0);
  const std::string text = slurp(out);
  CHECK(text.find("\nhuge,hp,0,,,,0,0,0.000,never_started,") != std::string::npos);
  CHECK(text.substr(text.find("never_started,") + 14).size() > 10);  // the reason is not empty
}

TEST_CASE("fleet run --preemptions: one row per decision with the explanation") {
  const scenario s;
  const std::string out = (scratch() / "preemptions.csv").string();
  for (const char* victims : {"kube", "gpurent"}) {
    const auto r = run_tool(s.base() + " --victims " + victims + " --preemptions " + out);
    REQUIRE(r.status == 0);
    // At 4000 spot-a has run 4000 s: 400 s (6 min) since its checkpoint at 3600.
    CHECK(slurp(out) == "time,job,victims,explanation\n4000,hp-b,spot-a,\"evicts spot-a (4 GPUs, 6 min since checkpoint)\"\n");
  }
  const auto none = run_tool(s.base() + " --victims none --preemptions " + out);
  REQUIRE(none.status == 0);
  CHECK(slurp(out) == "time,job,victims,explanation\n");
}

TEST_CASE("fleet run --timeline-step: a step under one second exits 2 naming the option") {
  const scenario s;
  const auto r = run_tool(s.base() + " --timeline " + (scratch() / "t.csv").string() + " --timeline-step 0s");
  CHECK(r.status == 2);
  CHECK(r.err.find("--timeline-step") != std::string::npos);
}

TEST_CASE("fleet run --timeline: a run too long for the step exits 2, names the step to take, and writes nothing") {
  // One job arriving at 2^40 s: 60 s steps would give 1.8e10 rows; the limit is 10 million.
  const scenario s;
  const std::string jobs = write_file(scratch() / "late.csv", "name,workers,num_gpu,arrival,duration\nlate,1,1,1099511627776,100\n");
  const std::string out = (scratch() / "late_timeline.csv").string(), placed = (scratch() / "late_placements.csv").string();
  std::filesystem::remove(out);
  std::filesystem::remove(placed);
  const std::string base = "fleet run --nodes " + s.nodes + " --jobs " + jobs + " --placements " + placed + " --timeline " + out;
  const auto r = run_tool(base);
  CHECK(r.status == 2);
  CHECK(r.err.find("--timeline-step") != std::string::npos);
  CHECK(r.err.find("18325193798 rows") != std::string::npos);
  CHECK(r.err.find("at least 109952 s") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
  CHECK_FALSE(std::filesystem::exists(placed));
  // The step it names is enough (the run ends at 2^40 + 100 s), one second less is not.
  const auto end = gpurent::fleet_time::at_second(1099511627876);
  CHECK(gpurent::timeline_rows(end, gpurent::seconds(109952)) <= gpurent::timeline_row_limit);
  CHECK(gpurent::timeline_rows(end, gpurent::seconds(109951)) > gpurent::timeline_row_limit);
  CHECK(gpurent::timeline_min_step(end) == gpurent::seconds(109952));
  // With few enough rows, the rows' times are past the year 9999, which RFC 3339 cannot
  // write: exit 2 naming --epoch, and still nothing written.
  const auto past = run_tool(base + " --timeline-step 1000000000s");
  CHECK(past.status == 2);
  CHECK(past.err.find("--epoch") != std::string::npos);
  CHECK(past.err.find("9999") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("fleet run --node-events: a node that goes down stops its jobs at once; they restart elsewhere or when it is back") {
  // hp-a (4 GPUs, 10000 s, checkpoints every 1800 s) from 0 on n0; n0 fails at 4000: the job
  // keeps 3600 s, loses 400 s, and needs 10000 - 3600 + 120 = 6520 s more.
  const std::string one = write_file(scratch() / "fail_one.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\n");
  const std::string two =
      write_file(scratch() / "fail_two.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\nn1,64000,262144,4,A100\n");
  const std::string jobs =
      write_file(scratch() / "fail_jobs.csv",
                 "name,workers,num_gpu,gpu_milli,priority,preemptible,arrival,duration,checkpoint_every\nhp-a,1,4,1000,100,false,0,10000,1800\n");
  const std::string events = write_file(scratch() / "fail_events.csv", "time,node,state\n5000,n0,up\n4000,n0,down\n");  // any order
  const std::string csv = (scratch() / "fail_placements.csv").string();
  // Two nodes: it restarts on n1 at once.
  auto r = run_tool("fleet run --nodes " + two + " --jobs " + jobs + " --node-events " + events + " --placements " + csv + " --check");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("\"failures\": 1") != std::string::npos);
  CHECK(r.out.find("\"violations\": 0") != std::string::npos);  // --check reads the conditions the run went through
  CHECK(slurp(csv) ==
        "job,run,member,node,gpus,start,end,end_reason\n"
        "hp-a,0,0,n0,0:1000;1:1000;2:1000;3:1000,0,4000,failed\n"
        "hp-a,1,0,n1,0:1000;1:1000;2:1000;3:1000,4000,10520,done\n");
  // One node: it waits for the repair at 5000.
  r = run_tool("fleet run --nodes " + one + " --jobs " + jobs + " --node-events " + events + " --placements " + csv);
  REQUIRE(r.status == 0);
  CHECK(slurp(csv) ==
        "job,run,member,node,gpus,start,end,end_reason\n"
        "hp-a,0,0,n0,0:1000;1:1000;2:1000;3:1000,0,4000,failed\n"
        "hp-a,1,0,n0,0:1000;1:1000;2:1000;3:1000,5000,11520,done\n");
  // A drained node keeps what runs there and takes nothing new until it is up again.
  const std::string drain = write_file(scratch() / "drain_events.csv", "time,node,state\n100,n0,drain\n12000,n0,up\n");
  const std::string ab = write_file(scratch() / "drain_jobs.csv",
                                    "name,workers,num_gpu,gpu_milli,priority,preemptible,arrival,duration,checkpoint_every\n"
                                    "hp-a,1,2,1000,100,false,0,10000,1800\nhp-b,1,2,1000,100,false,200,100,1800\n");
  r = run_tool("fleet run --nodes " + one + " --jobs " + ab + " --node-events " + drain + " --placements " + csv + " --check");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("\"violations\": 0") != std::string::npos);
  CHECK(slurp(csv) ==
        "job,run,member,node,gpus,start,end,end_reason\n"
        "hp-a,0,0,n0,0:1000;1:1000,0,10000,done\n"
        "hp-b,0,0,n0,0:1000;1:1000,12000,12100,done\n");
}

TEST_CASE("fleet run --node-events: a job stopped by a failure that can never start again is named, with why") {
  // hp-a runs on the only node, which goes down at 4000 for good: it started, did not finish.
  const std::string one = write_file(scratch() / "gone_one.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\n");
  const std::string jobs =
      write_file(scratch() / "gone_jobs.csv",
                 "name,workers,num_gpu,gpu_milli,priority,preemptible,arrival,duration,checkpoint_every\nhp-a,1,4,1000,100,false,0,10000,1800\n");
  const std::string events = write_file(scratch() / "gone_events.csv", "time,node,state\n4000,n0,down\n");
  const std::string out = (scratch() / "gone_jobs_out.csv").string();
  const auto r = run_tool("fleet run --nodes " + one + " --jobs " + jobs + " --node-events " + events + " --jobs-out " + out);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["classes"]["hp"]["completed"] == 0);
  CHECK(j["classes"]["hp"]["never_started"] == 0);
  REQUIRE(j["unfinished_jobs"].size() == 1);
  CHECK(j["unfinished_jobs"][0]["job"] == "hp-a");
  CHECK(j["unfinished_jobs"][0]["class"] == "hp");
  CHECK(j["unfinished_jobs"][0]["why"].get<std::string>().find("down or drained") != std::string::npos);
  CHECK(r.err.find("gpurent: job hp-a was stopped and never started again: ") != std::string::npos);
  CHECK(slurp(out).find("hp-a,hp,0,0,0,4000,1,0,1600.000,unfinished,\n") != std::string::npos);
  // Without node events no job can be left unfinished, and the key is not there.
  const auto plain = run_tool("fleet run --nodes " + one + " --jobs " + jobs);
  REQUIRE(plain.status == 0);
  CHECK_FALSE(nlohmann::json::parse(plain.out).contains("unfinished_jobs"));
}

TEST_CASE("fleet run --node-events: bad input exits 2 naming file, line and field") {
  const scenario s;
  const std::string unknown = write_file(scratch() / "ev_unknown.csv", "time,node,state\n4000,n9,down\n");
  auto r = run_tool(s.base() + " --node-events " + unknown);
  CHECK(r.status == 2);
  CHECK(r.err.find("ev_unknown.csv:2: field 'node': no node \"n9\"") != std::string::npos);
  const std::string state = write_file(scratch() / "ev_state.csv", "time,node,state\n4000,n0,broken\n");
  r = run_tool(s.base() + " --node-events " + state);
  CHECK(r.status == 2);
  CHECK(r.err.find("ev_state.csv:2: field 'state': expected up, down or drain") != std::string::npos);
  const std::string time = write_file(scratch() / "ev_time.csv", "time,node,state\n-5,n0,down\n");
  r = run_tool(s.base() + " --node-events " + time);
  CHECK(r.status == 2);
  CHECK(r.err.find("ev_time.csv:2: field 'time'") != std::string::npos);
  const std::string header = write_file(scratch() / "ev_header.csv", "when,node,state\n1,n0,down\n");
  r = run_tool(s.base() + " --node-events " + header);
  CHECK(r.status == 2);
  CHECK(r.err.find("ev_header.csv:1") != std::string::npos);
}

}  // namespace test_tool_fleet_run_outputs
