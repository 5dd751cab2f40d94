// SPDX-License-Identifier: MIT
#pragma once
// `gpurent replay` results as the tool prints them (docs/matching.md): one run's JSON
// object and table, a multi-seed summary (mean and sd per replay point) and the --placements
// CSV. A library user who replays (matching/reference/replay.hpp) gets the same text.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/io/text/json_number.hpp>
#include <gpurent/matching/reference/replay.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent::io {

// One replay per seed and each one's wall-clock time.
struct replay_runs {
  std::vector<replay_result> results;
  std::vector<double> elapsed;
  [[nodiscard]] double total_elapsed() const {
    double t = 0;
    for (double e : elapsed) t += e;
    return t;
  }
};

using replay_stats = std::array<replay_stat, replay_points.size()>;

// Mean and sd over the runs, per replay point.
[[nodiscard]] inline replay_stats replay_stats_of(const replay_runs& runs) {
  replay_stats stats{};
  for (std::size_t i = 0; i < replay_points.size(); ++i) {
    std::vector<double> xs;
    for (const auto& r : runs.results) xs.push_back(r.alloc_pct[i]);
    stats[i] = replay_stat_of(xs);
  }
  return stats;
}

// An object keyed by replay point ("90", "95", ...), each value f(i) to three places.
template <class F>
[[nodiscard]] nlohmann::ordered_json by_replay_point(F&& f) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < replay_points.size(); ++i) o[std::to_string(replay_points[i])] = rounded(f(i));
  return o;
}

[[nodiscard]] inline nlohmann::ordered_json replay_run_json(const replay_result& r, double elapsed) {
  nlohmann::ordered_json o;
  o["policy"] = std::string(r.policy);
  o["seed"] = r.seed;
  o["tune"] = r.tune;
  o["nodes"] = r.nodes;
  o["gpus_total"] = r.gpus_total;
  o["pods_arrived"] = r.arrived;
  o["pods_placed"] = r.placed;
  o["pods_failed"] = r.failed;
  o["alloc_pct"] = by_replay_point([&](std::size_t i) { return r.alloc_pct[i]; });
  o["unallocated_pct_at_100"] = rounded(r.unallocated_pct_at(100));
  o["elapsed_s"] = rounded(elapsed, 10000.0);
  o["placements_per_s"] = elapsed > 0 ? std::llround(static_cast<double>(r.arrived) / elapsed) : 0;
  return o;
}

[[nodiscard]] inline std::string replay_run_table(const replay_result& r, double elapsed) {
  std::string s = fmt::format("policy {}  seed {}  tune {}  nodes {}  gpus {}\n", r.policy, r.seed, r.tune, r.nodes, r.gpus_total);
  s += fmt::format("pods arrived {}  placed {}  failed {}  elapsed {:.3f} s\n", r.arrived, r.placed, r.failed, elapsed);
  s += fmt::format("{:>9}  {:>8}  {:>13}\n", "arrived %", "alloc %", "unallocated %");
  for (std::size_t i = 0; i < replay_points.size(); ++i)
    s += fmt::format("{:>9}  {:>8.2f}  {:>13.2f}\n", replay_points[i], r.alloc_pct[i], 100.0 - r.alloc_pct[i]);
  return s;
}

// Several seeds: the mean and sd per point, and every run's own object.
[[nodiscard]] inline nlohmann::ordered_json replay_summary_json(double tune, const std::vector<std::uint64_t>& seeds, const replay_runs& runs) {
  const replay_stats stats = replay_stats_of(runs);
  const replay_result& first = runs.results.front();
  nlohmann::ordered_json o;
  o["policy"] = std::string(first.policy);
  o["seeds"] = seeds;
  o["tune"] = tune;
  o["nodes"] = first.nodes;
  o["gpus_total"] = first.gpus_total;
  o["alloc_pct_mean"] = by_replay_point([&](std::size_t i) { return stats[i].mean; });
  o["alloc_pct_sd"] = by_replay_point([&](std::size_t i) { return stats[i].sd; });
  o["unallocated_pct_mean"] = by_replay_point([&](std::size_t i) { return 100.0 - stats[i].mean; });
  o["unallocated_pct_at_100"] = {{"mean", rounded(100.0 - stats[2].mean)}, {"sd", rounded(stats[2].sd)}};
  o["elapsed_s"] = rounded(runs.total_elapsed(), 10000.0);
  nlohmann::ordered_json each = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < runs.results.size(); ++k) each.push_back(replay_run_json(runs.results[k], runs.elapsed[k]));
  o["runs"] = each;
  return o;
}

[[nodiscard]] inline std::string replay_summary_table(double tune, std::size_t seeds, const replay_runs& runs) {
  const replay_stats stats = replay_stats_of(runs);
  const replay_result& first = runs.results.front();
  std::string s = fmt::format("policy {}  seeds {}  tune {}  nodes {}  gpus {}  elapsed {:.3f} s\n", first.policy, seeds, tune, first.nodes,
                              first.gpus_total, runs.total_elapsed());
  s += fmt::format("{:>9}  {:>13}  {:>8}  {:>18}\n", "arrived %", "alloc % mean", "sd", "unallocated % mean");
  for (std::size_t i = 0; i < replay_points.size(); ++i)
    s += fmt::format("{:>9}  {:>13.2f}  {:>8.2f}  {:>18.2f}\n", replay_points[i], stats[i].mean, stats[i].sd, 100.0 - stats[i].mean);
  return s;
}

// One row per arrived task: seq,pod,node,gpus (node empty when it failed). The run must
// have kept its placements (replay_options::keep_placements).
[[nodiscard]] inline std::string replay_placements_csv(const replay_workload& w, const replay_result& r) {
  std::string out = "seq,pod,node,gpus\n";
  for (std::size_t i = 0; i < r.placements.size(); ++i) {
    const placement& p = r.placements[i];
    const std::string node = p.node == no_node ? std::string() : w.cluster.spec(p.node).name;
    fmt::format_to(std::back_inserter(out), "{},{},{},{}\n", i, w.task_names[r.arrivals[i]], node, gpu_list_text(p));
  }
  return out;
}

}  // namespace gpurent::io
