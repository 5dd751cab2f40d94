// SPDX-License-Identifier: MIT
// `gpurent fleet generate --load` and `fleet run` on what it writes: a small generated NVL72-
// style fleet with spot and high-priority gangs arriving over time, run with every gang
// policy and victim policy, checked by the independent checker of the placements CSV
// (support/fleet_run_check.hpp: capacity at every instant, preemption only of preemptible
// jobs, gangs started and stopped whole), by the placement rules at every instant
// (check_run over the segments rebuilt from the CSV, and the tool's own --check), and by
// the preemptions CSV (high-priority preemptors, spot victims of lower priority, each
// stopped whole at the notice's end, the preemptor starting then).

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/fleet/generate.hpp>
#include <gpurent/fleet/run/check.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/fleet/topology_json.hpp>

#include "support/fleet_run_check.hpp"
#include "support/tool.hpp"

namespace test_tool_fleet_run_generated {

using gpurent::test::csv_rows;
using gpurent::test::run_tool;
using gpurent::test::slurp;
std::filesystem::path scratch() { return gpurent::test::scratch_dir("fleet_run_generated"); }

// The segments and members of a placements CSV (what check_run reads), each member's CPU,
// memory and tenant its job's request.
gpurent::run_result result_of(const gpurent::fleet_cluster& c, const std::vector<gpurent::fleet_job>& jobs, const std::string& csv) {
  std::map<std::string, std::uint32_t> index;
  for (std::uint32_t j = 0; j < jobs.size(); ++j) index[jobs[j].name] = j;
  gpurent::run_result r;
  for (const auto& f : csv_rows(csv)) {
    REQUIRE(f.size() == 8);
    const std::uint32_t j = index.at(f[0]);
    const auto run = static_cast<std::uint32_t>(std::stoul(f[1]));
    if (r.segments.empty() || r.segments.back().job != j || r.segments.back().run != run) {  // a segment's members are consecutive rows
      gpurent::run_segment s;
      s.job = j;
      s.run = run;
      s.start = gpurent::fleet_time::at_second(std::stoll(f[5]));
      s.end = gpurent::fleet_time::at_second(std::stoll(f[6]));
      s.preempted = f[7] == "preempted";
      s.first = static_cast<std::uint32_t>(r.members.size());
      r.segments.push_back(s);
    }
    const gpurent::placement_request& q = jobs[j].gang.member;
    gpurent::placement p;
    const auto node = c.inv.find_node(f[3]);
    REQUIRE(node.has_value());
    p.node = *node;
    p.cpu_milli = q.cpu_milli;
    p.memory_mib = q.memory_mib;
    p.tenant = q.tenant;
    p.isolation = q.isolation;
    std::size_t at = 0;  // "g:milli;g:milli"
    while (at < f[4].size()) {
      const std::size_t end = std::min(f[4].find(';', at), f[4].size());
      const std::string t = f[4].substr(at, end - at);
      const std::size_t colon = t.find(':');
      p.gpus[p.count++] =
          gpurent::gpu_take{static_cast<std::uint8_t>(std::stoi(t.substr(0, colon))), static_cast<std::int16_t>(std::stoi(t.substr(colon + 1)))};
      at = end + 1;
    }
    r.members.push_back(p);
    ++r.segments.back().count;
  }
  return r;
}

struct generated {
  std::string dir = (scratch() / "gen").string();
  std::string nodes = dir + "/nodes.csv", topology = dir + "/topology.json", jobs = dir + "/jobs.csv";
};

TEST_CASE("fleet generate --load: jobs over time, in arrival order, the same for the same seed") {
  const generated g;
  const std::string args =
      "fleet generate --blocks 8 --nodes-per-block 4 --blocks-per-spine 2 --load 150 --horizon 4d --spot 0.5 --checkpoint-every 20min --seed 17 "
      "--out ";
  const auto r = run_tool(args + g.dir);
  REQUIRE(r.status == 0);
  const auto again = run_tool(args + (scratch() / "gen-again").string());
  REQUIRE(again.status == 0);
  CHECK(slurp(g.jobs) == slurp(scratch() / "gen-again" / "jobs.csv"));
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["gpus_up"] == 128);
  CHECK(j["horizon_s"] == 4 * 86400);
  CHECK(j["offered_load_pct"].get<double>() >= 150.0);
  const auto rows = gpurent::test::run_job_rows(slurp(g.jobs));
  CHECK(rows.size() == j["jobs"].get<std::size_t>());
  std::size_t spot = 0;
  double work = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i].arrival >= 0);
    CHECK(rows[i].arrival < 4 * 86400);
    if (i > 0) CHECK(rows[i - 1].arrival <= rows[i].arrival);
    CHECK(rows[i].priority == (rows[i].preemptible ? 0 : 100));
    spot += rows[i].preemptible ? 1U : 0U;
    work += static_cast<double>(rows[i].workers) * rows[i].gpus * static_cast<double>(rows[i].duration);
  }
  CHECK(spot == j["jobs_spot"].get<std::size_t>());
  CHECK(spot > rows.size() / 4);
  CHECK(spot < rows.size() * 3 / 4);
  CHECK(100.0 * work / (128.0 * 4 * 86400) == doctest::Approx(j["offered_load_pct"].get<double>()).epsilon(1e-4));
  CHECK(slurp(g.jobs).find(",checkpoint_every\n") != std::string::npos);
  CHECK(slurp(g.jobs).find(",1200\n") != std::string::npos);  // 20 min
  // Without --load the jobs file is the arrival-only mix, as before (no schedule columns).
  REQUIRE(run_tool("fleet generate --blocks 2 --seed 17 --out " + (scratch() / "gen-plain").string()).status == 0);
  CHECK(slurp(scratch() / "gen-plain" / "jobs.csv").find("priority") == std::string::npos);
}

TEST_CASE("generate_fleet over time: the jobs file reads back to the same jobs") {
  gpurent::generate_options o;
  o.blocks = 4;
  o.nodes_per_block = 4;
  o.load_pct = 90;
  o.horizon = gpurent::seconds(86400);
  o.spot = 0.3;
  o.checkpoint_every = gpurent::seconds(600);
  o.seed = 5;
  const auto f = gpurent::generate_fleet(o);
  REQUIRE(f.has_value());
  const std::string text = gpurent::io::write_fleet_jobs_csv(f->jobs, f->cluster);
  const auto back = gpurent::io::read_fleet_jobs_csv(text, "jobs.csv", f->cluster);
  REQUIRE(back.has_value());
  REQUIRE(back->size() == f->jobs.size());
  for (std::size_t i = 0; i < back->size(); ++i) {
    const gpurent::fleet_job &a = f->jobs[i], &b = (*back)[i];
    CHECK(b.arrival == a.arrival);
    CHECK(b.duration == a.duration);
    CHECK(b.priority == a.priority);
    CHECK(b.preemptible == a.preemptible);
    CHECK(a.checkpoint_every == gpurent::seconds(600));
    CHECK(b.checkpoint_every == gpurent::seconds(600));
  }
  CHECK(gpurent::io::write_fleet_jobs_csv(*back, f->cluster) == text);
  o.horizon = gpurent::seconds(0);
  const auto bad = gpurent::generate_fleet(o);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().field == "--horizon");
}

TEST_CASE("fleet generate: --load and its options out of range exit 2 naming the option") {
  const std::string out = " --out " + (scratch() / "gen-bad").string();
  const std::pair<std::string, std::string> cases[] = {
      {"--load 0", "--load"},
      {"--load -5", "--load"},
      {"--load 20000", "--load"},
      {"--load 100 --spot 1.5", "--spot"},
      {"--load 100 --horizon 0s", "--horizon"},
      {"--load 100 --horizon soon", "--horizon"},
      {"--load 100 --checkpoint-every 0s", "--checkpoint-every"},
      {"--load 100 --checkpoint-every 10", "--checkpoint-every"},
      {"--horizon 1d", "--horizon"},            // only with --load
      {"--spot 0.3", "--spot"},                 // only with --load
      {"--load 100 --demand 1.2", "--demand"},  // one or the other
  };
  for (const auto& c : cases) {
    INFO(c.first);
    const auto r = run_tool("fleet generate --blocks 2 " + c.first + out);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.second) != std::string::npos);
  }
}

// The preemptions CSV against the placements: hp preemptors, spot victims of lower priority,
// each victim's run stopped whole at time + notice (or done inside the notice window), the
// preemptor starting then. Returns the victims stopped, and of them the gangs of more than
// one member.
std::pair<std::size_t, std::size_t> check_preemptions(const std::vector<gpurent::test::run_job_row>& jobs, const std::string& placements,
                                                      const std::string& preemptions, std::int64_t notice) {
  std::map<std::string, gpurent::test::run_job_row> by_name;
  for (const auto& j : jobs) by_name[j.name] = j;
  std::multimap<std::string, std::pair<std::int64_t, std::string>> ends;  // job -> (end, reason), one per member
  std::multimap<std::string, std::int64_t> starts;                        // job -> start, one per member
  for (const auto& f : csv_rows(placements)) {
    ends.emplace(f[0], std::pair{std::stoll(f[6]), f[7]});
    starts.emplace(f[0], std::stoll(f[5]));
  }
  std::size_t n = 0, gangs = 0;
  for (const auto& f : csv_rows(preemptions)) {
    REQUIRE(f.size() >= 3);
    const std::int64_t stop = std::stoll(f[0]) + notice;
    const auto& preemptor = by_name.at(f[1]);
    CHECK_FALSE(preemptor.preemptible);
    const auto [s0, s1] = starts.equal_range(f[1]);
    CHECK(std::count_if(s0, s1, [&](const auto& s) { return s.second == stop; }) == preemptor.workers);
    std::size_t from = 0;
    for (std::size_t to = 0; from <= f[2].size(); from = to + 1) {
      to = std::min(f[2].find(';', from), f[2].size());
      const auto& v = by_name.at(f[2].substr(from, to - from));
      CHECK(v.preemptible);
      CHECK(v.priority < preemptor.priority);
      // Stopped whole at t + notice, or done inside the notice window (then no eviction).
      const auto [e0, e1] = ends.equal_range(v.name);
      const auto stopped = std::count_if(e0, e1, [&](const auto& e) { return e.second == std::pair{stop, std::string("preempted")}; });
      const auto finished =
          std::count_if(e0, e1, [&](const auto& e) { return e.second.second == "done" && e.second.first > stop - notice && e.second.first <= stop; });
      CHECK((stopped == v.workers || (stopped == 0 && finished == v.workers)));
      if (stopped == 0) continue;
      ++n;
      gangs += v.workers > 1 ? 1U : 0U;
    }
  }
  return {n, gangs};
}

TEST_CASE("fleet run on a generated gang fleet over time: the independent checker, the rules at every instant, spot gangs evicted whole") {
  const generated g;
  REQUIRE(run_tool("fleet generate --blocks 8 --nodes-per-block 4 --blocks-per-spine 2 --load 150 --horizon 4d --spot 0.5 "
                   "--checkpoint-every 20min --seed 17 --out " +
                   g.dir)
              .status == 0);
  auto c = gpurent::io::read_fleet_cluster_file(g.nodes);
  REQUIRE(c.has_value());
  REQUIRE(gpurent::io::read_topology_file(g.topology, *c).has_value());
  const auto jobs = gpurent::io::read_fleet_jobs_file(g.jobs, *c);
  REQUIRE(jobs.has_value());
  const auto rows = gpurent::test::run_job_rows(slurp(g.jobs));
  const std::string csv = (scratch() / "placements.csv").string(), pre = (scratch() / "preemptions.csv").string();
  for (const std::string victims : {"none", "kube", "gpurent"}) {
    std::size_t evicted = 0, gangs_evicted = 0;
    for (const std::string policy : {"gpurent", "slurm-block", "kueue-best-fit", "best-fit"}) {
      INFO("victims " << victims << " policy " << policy);
      const auto r = run_tool("fleet run --nodes " + g.nodes + " --topology " + g.topology + " --jobs " + g.jobs + " --policy " + policy +
                              " --victims " + victims + " --notice 30s --check --placements " + csv + " --preemptions " + pre);
      REQUIRE(r.status == 0);
      const auto j = nlohmann::json::parse(r.out);
      CHECK(j["violations"] == 0);
      const auto& cl = j["classes"];
      check_run_placements(rows, slurp(csv), j["gpu_s"].get<double>(),
                           cl["hp"]["completed"].get<std::size_t>() + cl["spot"]["completed"].get<std::size_t>());
      gpurent::run_result rebuilt = result_of(*c, *jobs, slurp(csv));
      CHECK(check_run(*c, *jobs, rebuilt).violations == 0);
      const auto [victims_seen, gangs_seen] = check_preemptions(rows, slurp(csv), slurp(pre), 30);
      CHECK(victims_seen == cl["spot"]["evictions"].get<std::size_t>());
      evicted += victims_seen;
      gangs_evicted += gangs_seen;
      // The rule check is not blind: the first run segment twice over breaks capacity.
      REQUIRE_FALSE(rebuilt.segments.empty());
      rebuilt.segments.push_back(rebuilt.segments.front());
      CHECK(check_run(*c, *jobs, rebuilt).violations > 0);
    }
    INFO("victims " << victims);
    if (victims == "none") {
      CHECK(evicted == 0);
    } else {
      CHECK(evicted > 0);
      CHECK(gangs_evicted > 0);  // multi-worker spot jobs are among the victims, each stopped whole
    }
  }
}

}  // namespace test_tool_fleet_run_generated
