// SPDX-License-Identifier: MIT
// The fleet layer: a generated fleet and job mix (the seed gives the same files; the mix
// after NVIDIA's segment guidance; the demand to 130% of the up GPUs), pack's occupancy and
// checked placements, and the run's usage limit that fuzz_fleet_inputs found. The files and
// their readers' errors are tests/io/fleet_files.test.cpp's.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/matching/gang/check.hpp>

using namespace gpurent;

// Named, not anonymous, and around the test cases too: the layer's tests are also built as
// one unity translation unit, where every file's helpers would meet.
namespace test_fleet_fleet {

generate_options options(std::int32_t blocks, std::uint64_t seed) {
  generate_options o;
  o.blocks = blocks;
  o.down = 0.02;
  o.seed = seed;
  return o;
}

TEST_CASE("fleet generate: blocks, spines, down nodes and a job mix after the segment guidance") {
  const auto f = generate_fleet(options(20, 3));
  REQUIRE(f);
  const fleet_cluster& c = f->cluster;
  CHECK(c.inv.size() == 360);
  CHECK(c.topology.level_count() == 2);
  CHECK(c.topology.domain_count(0) == 3);   // 8 blocks per spine
  CHECK(c.topology.domain_count(1) == 20);  // blocks
  std::size_t down = 0;
  for (node_index n = 0; n < c.inv.size(); ++n) down += c.inv.condition(n) == node_condition::down ? 1U : 0U;
  CHECK(down == 7);  // 2% of 360, rounded
  CHECK(c.gpus_up() == 4 * (360 - 7));
  std::int64_t demand = 0;
  for (const fleet_job& j : f->jobs) {
    demand += j.gpu_milli_demand();
    const gang_request& g = j.gang;
    if (g.segment > 0) {
      CHECK(g.segment == 16);
      CHECK(g.workers % 16 == 0);
      CHECK((g.workers >= 32 && g.workers <= 128));
    } else if (g.required != no_level) {
      CHECK(g.required == c.topology.block_level());
      CHECK((g.workers >= 4 && g.workers <= 16));
    } else {
      CHECK(g.workers <= 2);
      CHECK_FALSE(g.exclusive);
    }
    CHECK(j.duration > seconds{0});
  }
  const std::int64_t target = 1300 * c.gpus_up();
  CHECK(demand >= target);
  CHECK(demand - f->jobs.back().gpu_milli_demand() < target);  // the last job crossed 130%
}

TEST_CASE("fleet generate: the same seed gives the same files, another seed others") {
  const auto a = generate_fleet(options(12, 5));
  const auto b = generate_fleet(options(12, 5));
  const auto c = generate_fleet(options(12, 6));
  REQUIRE((a && b && c));
  CHECK(io::write_fleet_jobs_csv(a->jobs, a->cluster) == io::write_fleet_jobs_csv(b->jobs, b->cluster));
  CHECK(io::write_fleet_nodes_csv(a->cluster) == io::write_fleet_nodes_csv(b->cluster));
  CHECK(io::write_fleet_jobs_csv(a->jobs, a->cluster) != io::write_fleet_jobs_csv(c->jobs, c->cluster));
  CHECK_FALSE(generate_fleet(options(0, 1)));
}

TEST_CASE("fleet pack: occupancy at 100% arrival and at the end, placements that pass the rule check") {
  auto f = generate_fleet(options(10, 2));
  REQUIRE(f);
  const gang_context ctx = context_of(f->jobs, f->cluster);
  const pack_result r = pack<gang_policy_gpurent>(f->cluster, f->jobs, pack_options{}, ctx);
  CHECK(r.jobs == f->jobs.size());
  CHECK(r.placed > 0);
  CHECK(r.placed < r.jobs);  // 130% demand: some fail
  REQUIRE(r.occupancy_pct_at_100);
  CHECK(*r.occupancy_pct_at_100 <= r.occupancy_pct);
  CHECK(r.occupancy_pct <= 100.0);
  std::int64_t milli = 0;
  std::size_t placed = 0;
  for (const auto& ps : r.placements) {
    placed += ps.empty() ? 0U : 1U;
    for (const placement& p : ps) milli += p.gpu_milli_total();
  }
  CHECK(placed == r.placed);
  CHECK(milli == r.gpu_milli_allocated);
  CHECK(check_gangs(f->cluster.inv, f->cluster.topology, r.gangs, r.placements).violations == 0);
}

// Found by tests/fuzz/fleet_inputs.cpp (docs/reliability.md, F11; the readers' F6-F10 are in
// tests/io/fleet_files.test.cpp): an error naming the field, never a wrapped value.
TEST_CASE("fleet run usage: a segment past 9999-12-31 is an error, not an instant written wrapped (fuzz F11)") {
  // A job arriving at 2^40 s (the jobs file's limit, 34,800 years) ran from year 36,868, which
  // --emit-usage wrote as "-28668-12-20T00:36:16Z" (date's year wraps past 32767).
  auto ns = io::read_fleet_nodes_csv("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\n", "nodes.csv");
  REQUIRE(ns);
  auto c = fleet_cluster::make(*ns);
  REQUIRE(c);
  const instant epoch = *parse_instant("2026-11-01T00:00:00Z");
  const auto usage_at = [&](const std::string& arrival) {
    auto js = io::read_fleet_jobs_csv("name,workers,num_gpu,arrival,duration\na,1,1," + arrival + ",100\n", "jobs.csv", *c);
    REQUIRE(js);
    fleet_cluster state = *c;
    gang_placer<gang_policy_gpurent> b(state.inv, state.topology, context_of(*js, state));
    const run_result r = run_fleet<victim_policy_gpurent, true>(b, *js, run_options{});
    return usage_of_run(*js, r, c->inv, epoch);
  };
  const auto late = usage_at("1099511627776");
  REQUIRE_FALSE(late);
  CHECK(late.error().field == "start");
  CHECK(late.error().message.starts_with("usage record a-0-0: "));
  CHECK(late.error().message.find("outside the years 0000-9999") != std::string::npos);
  const auto soon = usage_at("3600");
  REQUIRE(soon);
  REQUIRE(soon->size() == 1);
  CHECK(format_instant(soon->front().start) == "2026-11-01T01:00:00Z");
}

// The metrics of a run (gpurent placement and victims) of the jobs file `csv` on one node of
// 4 A100s.
run_metrics metrics_on_one_node(const std::string& csv) {
  auto ns = io::read_fleet_nodes_csv("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\n", "nodes.csv");
  REQUIRE(ns);
  auto c = fleet_cluster::make(*ns);
  REQUIRE(c);
  auto js = io::read_fleet_jobs_csv(csv, "jobs.csv", *c);
  REQUIRE(js);
  fleet_cluster state = *c;
  gang_placer<gang_policy_gpurent> b(state.inv, state.topology, context_of(*js, state));
  const run_result r = run_fleet<victim_policy_gpurent, true>(b, *js, run_options{});
  return metrics_of(*js, r, c->gpus_up());
}

// issue 34: the offered load counts each job's work inside the loaded window only (a job
// running for months counted whole made "100%" leave the trace's cluster 85% idle).
TEST_CASE("fleet run metrics: the offered load clips each job's work to the loaded window") {
  // 100 jobs of 1 GPU arriving at 0, 10, ..., 990: the window is [0, 990] (1st and 99th
  // percentiles, nearest rank: the 1st and the 99th arrival). Each runs 20 s, except the
  // first, which runs a year: counted whole it alone would offer 8,000% of the window.
  std::string csv = "name,workers,num_gpu,arrival,duration\n";
  for (int i = 0; i < 100; ++i) csv += "j" + std::to_string(i) + ",1,1," + std::to_string(10 * i) + "," + (i == 0 ? "31536000" : "20") + "\n";
  const run_metrics m = metrics_on_one_node(csv);
  CHECK(m.window_begin == fleet_time::at_second(0));
  CHECK(m.window_end == fleet_time::at_second(980));
  // Inside [0, 980): the long job 980 s, jobs 1..96 20 s each, job 97 (970..990) 10 s, job
  // 98 (at 980) and 99 nothing.
  const double work = 980.0 + 96 * 20.0 + 10.0;
  CHECK(m.offered_load_pct == doctest::Approx(100.0 * work / (4 * 980.0)));
  CHECK(m.allocation_pct == doctest::Approx(m.offered_load_pct));  // nothing waits: it ran as offered
}

// Found by an outside probe (2026-12-07): with every job arriving at the same instant the
// window is one second long (docs/formats/fleet.md), and the work inside it counts.
TEST_CASE("fleet run metrics: arrivals all at one instant make a window of one second, not an empty one") {
  const run_metrics m = metrics_on_one_node("name,workers,num_gpu,arrival,duration\na,1,1,50,100\nb,1,2,50,100\n");
  CHECK(m.window_begin == fleet_time::at_second(50));
  CHECK(m.window_end == fleet_time::at_second(51));
  CHECK(m.offered_load_pct == doctest::Approx(75.0));  // 3 of 4 GPUs for the window's second
  CHECK(m.allocation_pct == doctest::Approx(75.0));
}

}  // namespace test_fleet_fleet
