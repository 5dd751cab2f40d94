// SPDX-License-Identifier: MIT
// A node that goes down during a preemption's notice window (found by an outside probe on
// 2026-12-07): the victims on it stop at once, failed, and come back then; a preemptor placed
// there that has not started yet leaves, and its room stays held until its victims elsewhere
// have stopped, so nothing lands on them. Before, the victim ran on the down node until the
// notice ended and the preemptor, placed again when the node came back, shared its GPUs with
// it (billed twice). Every case passes the run oracle and the rule check.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gpurent/fleet/run/check.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/fleet/node_events_csv.hpp>
#include <gpurent/io/fleet/topology_json.hpp>

#include "simulation.hpp"

namespace test_sim_node_down {

using namespace gpurent;
using namespace gpurent::sim;

// Four 8-GPU nodes in two blocks; `train` fills block 0, the spot `sweep` (4 members of 2
// GPUs, checkpoints every 600 s) runs in block 1, and `big` (hp, both nodes of one block)
// preempts it at 600 s: notice 30 s, so big starts at 630 s.
fleet_cluster cluster() {
  const auto nodes = io::read_fleet_nodes_csv(
      "sn,cpu_milli,memory_mib,gpu,model\n"
      "n0,96000,1048576,8,H100-SXM5-80GB\nn1,96000,1048576,8,H100-SXM5-80GB\n"
      "n2,96000,1048576,8,H100-SXM5-80GB\nn3,96000,1048576,8,H100-SXM5-80GB\n",
      "nodes.csv");
  REQUIRE(nodes);
  auto c = fleet_cluster::make(*nodes);
  REQUIRE(c);
  REQUIRE(io::read_topology_json(
      R"({ "levels": ["spine", "block"], "nodes": { "n0": ["s0", "b0"], "n1": ["s0", "b0"], "n2": ["s0", "b1"], "n3": ["s0", "b1"] } })",
      "topology.json", *c));
  return std::move(*c);
}

const char* const jobs_csv =
    "name,workers,num_gpu,cpu_milli,memory_mib,per_node,required,preferred,segment,priority,preemptible,arrival,duration,checkpoint_every\n"
    "train,2,8,16000,65536,1,block,,,100,false,0,3600,\n"
    "sweep,4,2,4000,16384,,,spine,2,0,true,0,7200,600\n"
    "big,2,8,16000,65536,1,block,,,100,false,600,1200,\n";

struct outcome {
  bool victim_failed = false;     // sweep's run 0 stopped by the failure inside the notice
  bool preemptor_left = false;    // big's run 0 failed before it started
  bool late_start_after = false;  // big's first start that ran is at or after 630 s
};

template <VictimPolicy VP>
outcome run_case(const std::string& node, std::int64_t down, std::int64_t up) {
  const fleet_cluster c = cluster();
  const auto jobs = io::read_fleet_jobs_csv(jobs_csv, "jobs.csv", c);
  REQUIRE(jobs);
  std::string ev = "time,node,state\n" + std::to_string(down) + "," + node + ",down\n";
  if (up > 0) ev += std::to_string(up) + "," + node + ",up\n";
  const auto events = io::read_node_events_csv(ev, "events.csv", c);
  REQUIRE(events);
  run_options o;
  o.node_events = *events;
  fleet_cluster run_c = c;
  gang_placer<gang_policy_gpurent> g(run_c.inv, run_c.topology, context_of(*jobs, run_c));
  const run_result r = run_fleet<VP, true>(g, *jobs, o);
  INFO(VP::name << ": " << node << " down at " << down << ", up at " << up);
  REQUIRE(r.preemptions >= 1);  // big may preempt again once it is back in the queue
  CHECK(oracle_check_run(run_view{&c, *jobs, *events, o.checkpoints, 0, true, &r}) == "");
  CHECK(check_run(c, *jobs, r).violations == 0);  // capacity at every start: no GPU given twice
  outcome out;
  for (const run_segment& s : r.segments) {
    const std::string& name = (*jobs)[s.job].name;
    if (name == "sweep" && s.run == 0 && s.failed) {
      CHECK_FALSE(s.preempted);
      CHECK(s.end == fleet_time::at_second(down));
      out.victim_failed = true;
    }
    if (name == "big" && s.run == 0 && s.failed && s.end == s.start) out.preemptor_left = true;
  }
  const std::uint32_t big = 2;
  CHECK(r.first_start[big] != not_started);
  out.late_start_after = r.first_start[big] >= fleet_time::at_second(630);
  if (r.preemptions == 1) CHECK(r.evictions[1] + (out.victim_failed ? 1U : 0U) == 1U);  // a victim that failed was not evicted
  return out;
}

TEST_CASE("fleet run: a node down during a preemption's notice stops the victims on it and keeps the preemptor's room held") {
  int victims_failed = 0, preemptors_left = 0;
  for (const char* node : {"n2", "n3"})
    for (const std::int64_t down : {601, 610, 629})
      for (const std::int64_t up : {std::int64_t{0}, down + 5}) {
        for (const outcome& x : {run_case<victim_policy_kube>(node, down, up), run_case<victim_policy_gpurent>(node, down, up)}) {
          victims_failed += x.victim_failed ? 1 : 0;
          preemptors_left += x.preemptor_left ? 1 : 0;
          CHECK(x.late_start_after);  // the notice's room was never given away early
        }
      }
  CHECK(victims_failed > 0);
  CHECK(preemptors_left > 0);
}

}  // namespace test_sim_node_down
