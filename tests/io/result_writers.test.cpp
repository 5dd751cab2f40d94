// SPDX-License-Identifier: MIT
// The result writers the tool prints with, called as a library user would (issue 33, "a thin
// tool"): a small result object in, the expected JSON fields and CSV rows out. Also the one
// money text and the one placement GPU list every output shares.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gpurent/core/format.hpp>
#include <gpurent/fleet/fleet.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/fleet_pack_json.hpp>
#include <gpurent/io/fleet/fleet_run_json.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/fleet/replay_json.hpp>
#include <gpurent/io/plan/advise_json.hpp>
#include <gpurent/io/spec/mig_json.hpp>
#include <gpurent/io/spec/probe_json.hpp>
#include <gpurent/matching/format.hpp>

#include "support/fleet_files.hpp"
#include "support/tool.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_io_result_writers {
using namespace gpurent;

fleet_cluster cluster() { return gpurent::test::read_cluster("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,H100\nn1,64000,262144,4,H100\n"); }
std::vector<fleet_job> jobs(const fleet_cluster& c) { return gpurent::test::read_jobs(c, "name,workers,num_gpu\ntrain,1,2\nserve,1,1\n"); }

// A placement on node n holding GPUs (gpu, milli) in order.
placement on(node_index n, std::initializer_list<std::pair<int, int>> gpus) {
  placement p;
  p.node = n;
  for (const auto& [g, m] : gpus) p.gpus[p.count++] = gpu_take{static_cast<std::uint8_t>(g), static_cast<std::int16_t>(m)};
  return p;
}

TEST_CASE("one money text and one placement GPU list, whatever prints them") {
  const money_value m(currency{"USD", 2}, int128(12345));
  CHECK(money_text(m) == "123.45 USD");
  CHECK(fmt::format("{}", m) == money_text(m));
  const placement p = on(3, {{0, 1000}, {2, 500}});
  CHECK(gpu_list_text(p) == "0:1000;2:500");
  CHECK(fmt::format("{}", p) == "node 3 gpus 0:1000;2:500");
  CHECK(gpu_list_text(placement{}).empty());
}

TEST_CASE("fleet pack: the JSON object, the table and the placements CSV from a pack result") {
  const fleet_cluster c = cluster();
  const auto js = jobs(c);
  pack_result r;
  r.jobs = 2;
  r.placed = 1;
  r.gpus_total = 8;
  r.gpu_milli_allocated = 2500;
  r.occupancy_pct = 31.25;
  r.placements = {{on(1, {{0, 1000}, {1, 1000}})}, {}};
  const io::pack_report rep{"gpurent", false, 0, 0.123456};
  const auto j = io::pack_json(rep, r);
  CHECK(j["policy"] == "gpurent");
  CHECK(j["placed"] == 1);
  CHECK(j["failed"] == 1);
  CHECK(j["gpus_allocated"] == 2.5);
  CHECK(j["occupancy_pct_at_100"].is_null());
  CHECK(j["elapsed_s"] == 0.1235);
  CHECK(io::pack_placements_csv(c, js, r) == "job,member,node,gpus\ntrain,0,n1,0:1000;1:1000\n");
  CHECK(io::pack_table(rep, r).find("occupancy at 100% arrival: the demand never reaches 100%\n") != std::string::npos);
}

TEST_CASE("fleet run: the JSON object and the placements, timeline and preemptions CSVs from a run result") {
  const fleet_cluster c = cluster();
  const auto js = jobs(c);
  run_result r;
  r.members = {on(0, {{0, 1000}, {1, 1000}}), on(1, {{3, 1000}})};
  const auto at = fleet_time::at_second;
  r.segments = {run_segment{0, 0, at(10), at(100), false, false, 0, 1, 2000}, run_segment{1, 0, at(5), at(50), true, false, 1, 1, 1000}};
  r.end_time = at(100);
  r.preemptions = 1;
  r.never_started = {run_never_started{1, "too big"}};
  run_metrics m;
  m.gpus_total = 8;
  m.allocation_pct = 12.34567;
  m.spot.lost_gpu_s = 1.23456;
  io::run_report rep{"gpurent", "kube", std::nullopt, 0, false, std::nullopt, 1.5};
  auto j = io::run_json(rep, js, r, m);
  CHECK(j["compress"].is_null());
  CHECK(j["allocation_pct"] == 12.346);
  CHECK(j["classes"]["spot"]["lost_gpu_s"] == 1.235);
  CHECK_FALSE(j["classes"]["hp"].contains("evictions"));
  CHECK(j["never_started_jobs"][0]["job"] == "serve");
  CHECK_FALSE(j.contains("failures"));
  CHECK_FALSE(j.contains("violations"));
  rep.node_events = true;
  rep.violations = 0;
  j = io::run_json(rep, js, r, m);
  CHECK(j["failures"] == 0);
  CHECK(j["violations"] == 0);
  CHECK(io::run_table(rep, r, m).ends_with("violations 0\n"));
  CHECK(io::run_placements_csv(c, js, r) ==
        "job,run,member,node,gpus,start,end,end_reason\n"
        "serve,0,0,n1,3:1000,5,50,preempted\n"
        "train,0,0,n0,0:1000;1:1000,10,100,done\n");
  const std::string timeline = io::run_timeline_csv(c, js, r, seconds(50), *parse_instant("2026-11-30T23:59:30Z")).value();
  CHECK(timeline.starts_with("time,t_s,gpus_allocated,allocation_pct,running_hp,running_spot,waiting_hp,waiting_spot\n"));
  CHECK(timeline.find("\n2026-11-30T23:59:30Z,0,0.000,0.000,") != std::string::npos);
  CHECK(timeline.find("\n2026-12-01T00:00:20Z,50,2.000,25.000,") != std::string::npos);
  CHECK(io::run_preemptions_csv(js, r) == "time,job,victims,explanation\n");
}

TEST_CASE("fleet run: the timeline refuses, naming the field, a run past the year 9999 or too long for its step") {
  const fleet_cluster c = cluster();
  const auto js = jobs(c);
  run_result r;
  r.end_time = fleet_time::at_second(1000);
  const auto late = io::run_timeline_csv(c, js, r, seconds(50), *parse_instant("9999-12-31T23:50:00Z"));
  REQUIRE_FALSE(late);
  CHECK(late.error().field == "epoch");
  CHECK(late.error().message.find("9999") != std::string::npos);
  CHECK(io::run_timeline_csv(c, js, r, seconds(50), *parse_instant("9999-12-31T23:43:19Z")));  // the run ends at 23:59:59
  r.end_time = fleet_time::at_second(1099511627876);
  const auto long_run = io::run_timeline_csv(c, js, r, seconds(60), *parse_instant("2026-11-01T00:00:00Z"));
  REQUIRE_FALSE(long_run);
  CHECK(long_run.error().field == "timeline_step");
  CHECK(long_run.error().message.find("at least 109952 s") != std::string::npos);
}

TEST_CASE("fleet run: one row per job, with its outcome and, for a job that never started, why") {
  const fleet_cluster c = cluster();
  auto js = jobs(c);
  js.push_back(js[1]);
  js[2].name = "big, \"odd\"";
  js[1].arrival = fleet_time::at_second(2);
  const auto at = fleet_time::at_second;
  run_result r;
  r.members = {on(0, {{0, 1000}, {1, 1000}}), on(1, {{3, 1000}}), on(1, {{3, 1000}})};
  // train runs 10..100; serve runs 5..50 and 60..70, preempted both times (45.5 GPU-s lost), and is not done.
  r.segments = {run_segment{0, 0, at(10), at(100), false, false, 0, 1, 2000}, run_segment{1, 0, at(5), at(50), true, false, 1, 1, 1000},
                run_segment{1, 1, at(60), at(70), true, false, 2, 1, 1000}};
  r.first_start = {at(10), at(5), not_started};
  r.completed = {1, 0, 0};
  r.evictions = {0, 2, 0};
  r.lost_milli_s = {0, 45500, 0};
  r.never_started = {run_never_started{2, "needs 9 GPUs on one node; the largest has 4"}};
  CHECK(io::run_jobs_csv(js, r) ==
        "job,class,arrival,first_start,delay_s,end,runs,evictions,lost_gpu_s,outcome,reason\n"
        "train,hp,0,10,10,100,1,0,0.000,completed,\n"
        "serve,hp,2,5,3,70,2,2,45.500,unfinished,\n"
        "\"big, \"\"odd\"\"\",hp,0,,,,0,0,0.000,never_started,needs 9 GPUs on one node; the largest has 4\n");
}

TEST_CASE("fleet run: the progress line says where the run stands and estimates the time left") {
  const run_progress p{fleet_time::at_second(90061), 50, 25, 10, 100};
  CHECK(io::run_progress_text(p, 3.0) ==
        "fleet run: t = 1d1h1min1s (90061 s), arrived 50/100 (50.0%), completed 25 (25.0%), queued 10, about 5s left");
  CHECK(io::run_progress_text(run_progress{fleet_time{}, 0, 0, 0, 0}, 0.5).ends_with("queued 0, time left unknown"));
}

TEST_CASE("replay: one run's JSON, a summary's mean and sd, and the placements CSV") {
  replay_result r;
  r.policy = "fgd";
  r.seed = 7;
  r.arrived = 4;
  r.alloc_pct = {90.12345, 91, 92, 93, 94, 95, 96};
  const auto j = io::replay_run_json(r, 2.0);
  CHECK(j["alloc_pct"]["90"] == 90.123);
  CHECK(j["alloc_pct"].size() == replay_points.size());
  CHECK(j["unallocated_pct_at_100"] == 8.0);
  CHECK(j["placements_per_s"] == 2);
  io::replay_runs runs{{r, r}, {1.0, 2.0}};
  runs.results[1].alloc_pct[2] = 94;
  const auto s = io::replay_summary_json(1.3, {7, 8}, runs);
  CHECK(s["alloc_pct_mean"]["100"] == 93.0);
  CHECK(s["unallocated_pct_at_100"]["mean"] == 7.0);
  CHECK(s["runs"].size() == 2);
  CHECK(s["elapsed_s"] == 3.0);
  replay_workload w;
  w.task_names = {"pod-a", "pod-b"};
  r.arrivals = {1};
  r.placements = {placement{}};
  CHECK(io::replay_placements_csv(w, r) == "seq,pod,node,gpus\n0,pod-b,,\n");
}

TEST_CASE("advise: scaling, checkpoint and build-vs-rent answers as JSON") {
  scaling_decision d;
  d.action = scaling_action::scale_out;
  d.add = 2;
  d.reason = "backlog";
  d.mean_utilization = 0.123456;
  const auto sj = io::scaling_json(d, 3, 12);
  CHECK(sj["add"] == 2);
  CHECK(sj["nodes"] == 3);
  CHECK(sj["mean_utilization"] == 0.1235);
  CHECK(io::scaling_table(d, 3, 12).starts_with("3 node(s), mean utilization 12.35%, 12 queued: backlog\n"));
  io::checkpoint_case in;
  in.solve = seconds(3600);
  in.write = seconds(60);
  const spot_estimate e = estimate_spot(in.solve, in.write, in.restart, in.notice, 0.0);
  const auto cj = io::checkpoint_json(in, e);
  CHECK(cj["solve_s"] == 3600);
  CHECK_FALSE(cj.contains("checkpoint_bytes"));
  CHECK(cj["feasible"] == true);
  CHECK(cj["mtbf_s"].is_null());  // no interruptions: an infinite mean time between them
  const ownership_costs own{*decimal<9>::parse("8760"), 8760, decimal<9>(0), decimal<9>(0), decimal<9>(0), decimal<9>(0)};
  const auto b = compare_build_rent(own, decimal<9>(2), ratio<>(*decimal<9>::parse("0.5")));
  REQUIRE(b);
  const auto bj = io::build_scalar_json(currency{"USD", 2}, decimal<9>(2), ratio<>(*decimal<9>::parse("0.5")), *b);
  CHECK(bj["form"] == "scalar");
  CHECK(bj["fixed_per_hour"] == "1.000000");
  CHECK(bj["break_even_utilization"] == 0.5);
  CHECK(bj["utilization"] == 0.5);
}

TEST_CASE("mig: profiles, a fit and a repartition plan as JSON and table") {
  auto g = resolve_mig_geometry("A100-SXM4-40GB");
  REQUIRE(g);
  const mig_geometry& geo = **g;
  const auto pj = io::mig_profiles_json(geo);
  CHECK(pj["gpu"] == "A100-SXM4-40GB");
  CHECK(pj["profiles"].size() == geo.profiles.size());
  CHECK(pj["profiles"][0].contains("start_slots"));
  auto want = parse_mig_profiles(geo, "7g.40gb");
  auto have = parse_mig_layout(geo, "1g.5gb@0");
  REQUIRE(want);
  REQUIRE(have);
  const mig_fit_result r = mig_fit(geo, *have, *want);
  REQUIRE_FALSE(r.fits());
  const expected<mig_plan> plan = mig_plan_repartition(geo, *have, *want, mig_repartition_mode::drop);
  const io::mig_fit_report f{geo, *want, r, mig_explain(geo, *have, *want, r), mig_repartition_mode::drop, &plan};
  const auto fj = io::mig_fit_json(f);
  CHECK(fj["fits"] == false);
  CHECK(fj["repartition"]["mode"] == "drop");
  CHECK(fj["repartition"]["possible"] == true);
  CHECK(fj["repartition"]["placements"][0]["profile"] == "7g.40gb");
  CHECK(io::mig_fit_table(f).starts_with("does not fit on A100-SXM4-40GB: "));
}

TEST_CASE("probe: a probed GPU as JSON without a device (what a probe read can be written anywhere)") {
  probe::probed_gpu g;
  g.reading.name = "Test GPU";
  g.reading.total_memory = bytes(std::int64_t{80} << 30);
  auto j = io::probe_gpu_json(g);
  CHECK(j["name"] == "Test GPU");
  CHECK(j["memory_mib"] == 81920);
  CHECK(j["pci_address"].is_null());
  CHECK(j["telemetry"].is_null());
  CHECK(j["catalog"].is_null());
  CHECK(j["mig"]["instances"].empty());
  probe::gpu_telemetry t;
  t.uuid = std::string("GPU-1");
  const auto tj = io::probe_telemetry_json(t);
  CHECK(tj["uuid"] == "GPU-1");
  CHECK(tj["memory"].is_null());
  CHECK(tj["not_available"].contains("memory"));
  CHECK_FALSE(tj["not_available"].contains("uuid"));
  CHECK(io::probe_telemetry_line(t) == "now:");
  const io::probe_context c{"12.4", std::nullopt, std::nullopt, "libnvidia-ml.so.1", error{error_code::not_found, "nvml", "no NVML here", {}}};
  const std::vector<probe::probed_gpu> gpus{g};
  const auto mj = io::probe_machine_json(c, gpus);
  CHECK(mj["cuda"]["runtime"] == "12.4");
  CHECK(mj["cuda"]["driver"].is_null());
  CHECK(mj["cuda"]["error"].is_null());
  CHECK(mj["nvml"]["error"] == "no NVML here");
  CHECK(mj["gpus"][0]["name"] == "Test GPU");
  CHECK(io::probe_machine_table(c, gpus).ends_with("NVML: no NVML here\n"));
}

TEST_CASE("the tool's duration options: one parser, one grammar, no bare numbers") {
  using gpurent::test::run_tool;
  // --life is a duration like every other: 1095d = 26280h = 156w3d; a bare number is refused.
  CHECK(run_tool("advise build-vs-rent --purchase 30000 --life 26280h --rent 2 --utilization 0.5").status == 0);
  CHECK(run_tool("advise build-vs-rent --purchase 30000 --life 1095d --rent 2 --utilization 0.5").out ==
        run_tool("advise build-vs-rent --purchase 30000 --life 156w3d --rent 2 --utilization 0.5").out);
  CHECK(run_tool("advise build-vs-rent --purchase 30000 --life 26280 --rent 2 --utilization 0.5").status == 2);
  const auto notice = run_tool("fleet run --nodes x.csv --jobs y.csv --notice 30");
  CHECK(notice.status == 2);
  CHECK(notice.err.find("field '--notice': not a duration: \"30\"") != std::string::npos);
  const auto solve = run_tool("advise checkpoint --solve 0s --write 1min --interruptions-per-hour 0.1");
  CHECK(solve.status == 2);
  CHECK(solve.err.find("field '--solve': must be positive") != std::string::npos);
  const auto watch = run_tool("probe --watch 0s --samples 1");
  CHECK(watch.status == 2);
  CHECK(watch.err.find("field '--watch': must be positive") != std::string::npos);
}

}  // namespace test_io_result_writers
