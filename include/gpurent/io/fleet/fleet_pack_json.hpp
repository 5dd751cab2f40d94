// SPDX-License-Identifier: MIT
#pragma once
// `fleet pack` and `fleet generate` results as the tool prints them (docs/formats/fleet.md):
// the pack's JSON object, its table and its --placements CSV; the summary of a generated
// fleet. A library user who packs or generates gets the same text.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/generate.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/pack.hpp>
#include <gpurent/io/text/csv.hpp>
#include <gpurent/io/text/json_number.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent::io {

// What a pack report says beside the pack itself: how it was asked for and checked.
struct pack_report {
  std::string policy;
  bool ignore_topology = false;
  std::size_t violations = 0;  // check_gangs on the placements
  double elapsed_s = 0;
};

[[nodiscard]] inline nlohmann::ordered_json pack_json(const pack_report& a, const pack_result& r) {
  using ojson = nlohmann::ordered_json;
  ojson o;
  o["policy"] = a.policy;
  o["jobs"] = r.jobs;
  o["placed"] = r.placed;
  o["failed"] = r.failed();
  o["gpus_total"] = r.gpus_total;
  o["gpus_allocated"] = gpus_json(r.gpu_milli_allocated);
  o["occupancy_pct_at_100"] = r.occupancy_pct_at_100 ? ojson(rounded(*r.occupancy_pct_at_100)) : ojson(nullptr);
  o["occupancy_pct"] = rounded(r.occupancy_pct);
  o["preferred_met"] = r.preferred_met;
  o["preferred_total"] = r.preferred_total;
  o["violations"] = a.violations;
  o["ignore_topology"] = a.ignore_topology;
  o["elapsed_s"] = rounded(a.elapsed_s, 10000.0);
  return o;
}

[[nodiscard]] inline std::string pack_table(const pack_report& a, const pack_result& r) {
  std::string s = fmt::format("policy {}{}  jobs {}  placed {}  failed {}\n", a.policy, a.ignore_topology ? " (topology ignored)" : "", r.jobs,
                              r.placed, r.failed());
  s += fmt::format("GPUs (nodes not down) {}  allocated {}\n", r.gpus_total, gpus_json(r.gpu_milli_allocated).dump());
  if (r.occupancy_pct_at_100) {
    s += fmt::format("occupancy at 100% arrival {:.2f}%\n", *r.occupancy_pct_at_100);
  } else {
    s += "occupancy at 100% arrival: the demand never reaches 100%\n";
  }
  s += fmt::format("occupancy after the last job {:.2f}%\n", r.occupancy_pct);
  s += fmt::format("preferred level met {} of {}\n", r.preferred_met, r.preferred_total);
  s += fmt::format("violations {}  elapsed {:.3f} s\n", a.violations, a.elapsed_s);
  return s;
}

// One row per placed member: job,member,node,gpus.
[[nodiscard]] inline std::string pack_placements_csv(const fleet_cluster& c, const std::vector<fleet_job>& jobs, const pack_result& r) {
  std::string out = "job,member,node,gpus\n";
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (std::size_t m = 0; m < r.placements[j].size(); ++m) {
      const placement& p = r.placements[j][m];
      csv_row(out, {jobs[j].name, std::to_string(m), c.inv.spec(p.node).name, gpu_list_text(p)});
    }
  return out;
}

// What `fleet generate` wrote to `out`: the fleet's size, the demand and, over time, the
// offered load (generate_table prints it for people). `o` is the options it was generated with.
[[nodiscard]] inline nlohmann::ordered_json generate_json(const std::string& out, const generated_fleet& f, const generate_options& o) {
  std::int64_t demand = 0;
  for (const fleet_job& j : f.jobs) demand += j.gpu_milli_demand();
  nlohmann::ordered_json j;
  j["out"] = out;
  j["nodes"] = f.cluster.inv.size();
  std::size_t down = 0;
  for (node_index n = 0; n < f.cluster.inv.size(); ++n) down += f.cluster.inv.condition(n) == node_condition::down ? 1U : 0U;
  j["nodes_down"] = down;
  j["gpus_up"] = f.cluster.gpus_up();
  j["jobs"] = f.jobs.size();
  j["gpus_demanded"] = gpus_json(demand);
  if (o.load_pct > 0) {
    double work = 0;
    std::size_t spot = 0;
    for (const fleet_job& x : f.jobs) {
      work += static_cast<double>(x.gpu_milli_demand()) / 1000.0 * static_cast<double>(x.duration.count());
      spot += x.preemptible ? 1U : 0U;
    }
    j["jobs_spot"] = spot;
    j["horizon_s"] = o.horizon.count();
    j["offered_load_pct"] = rounded(100.0 * work / (static_cast<double>(f.cluster.gpus_up()) * static_cast<double>(o.horizon.count())));
  }
  j["seed"] = o.seed;
  return j;
}

// generate_json's facts for people: what was written where, the fleet, the jobs and, over
// time, the horizon and offered load.
[[nodiscard]] inline std::string generate_table(const nlohmann::ordered_json& j) {
  std::string s = fmt::format("wrote nodes.csv, topology.json, jobs.csv to {}\n", j["out"].get<std::string>());
  s += fmt::format("nodes {} ({} down), GPUs up {}\n", j["nodes"].dump(), j["nodes_down"].dump(), j["gpus_up"].dump());
  s += fmt::format("jobs {}, GPUs demanded {}\n", j["jobs"].dump(), j["gpus_demanded"].dump());
  if (j.contains("horizon_s"))
    s += fmt::format("spot jobs {}, arriving over {} at an offered load of {}%\n", j["jobs_spot"].dump(),
                     format_duration(seconds{j["horizon_s"].get<std::int64_t>()}), j["offered_load_pct"].dump());
  s += fmt::format("seed {}\n", j["seed"].dump());
  return s;
}

}  // namespace gpurent::io
