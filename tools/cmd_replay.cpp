// SPDX-License-Identifier: MIT
// gpurent replay: the FGD paper's trace replay (../shared/protocols/fgd-replay.md) with a
// chosen placement policy; one seed or a range with mean and sd. Contract: protocols/cli.md.

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/io/audit_record.hpp>
#include <gpurent/io/trace_csv.hpp>
#include <gpurent/matching/reference/replay.hpp>
#include <gpurent/matching/registry.hpp>

#include "audit_option.hpp"
#include "tool.hpp"

namespace {

using gpurent::tool::output_format;
using ojson = nlohmann::ordered_json;

struct replay_args {
  std::string nodes;
  std::string pods;
  std::string policy = "gpurent";
  std::uint64_t seed = 42;
  std::string seeds;
  double tune = 1.3;
  std::string placements;
  output_format format = output_format::json;
  gpurent::tool::audit_cli audit;
};

double round_to(double x, int digits) {
  const double k = std::pow(10.0, digits);
  return std::round(x * k) / k;
}

// "42-51" or "42,43,50" (or a mix) to a list of seeds.
gpurent::expected<std::vector<std::uint64_t>> parse_seeds(const std::string& text) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t dash = part.find('-');
    try {
      std::size_t used = 0;
      if (dash == std::string::npos) {
        out.push_back(std::stoull(part, &used));
        if (used != part.size()) throw std::invalid_argument(part);
      } else {
        const std::string a = part.substr(0, dash);
        const std::string b = part.substr(dash + 1);
        std::size_t ua = 0;
        std::size_t ub = 0;
        const auto lo = std::stoull(a, &ua);
        const auto hi = std::stoull(b, &ub);
        if (ua != a.size() || ub != b.size() || hi < lo || hi - lo > 10000) throw std::invalid_argument(part);
        for (auto s = lo; s <= hi; ++s) out.push_back(s);
      }
    } catch (const std::exception&) {
      return gpurent::make_error(gpurent::error_code::parse_error, "--seeds", "expected N, A-B or a comma-separated list: \"" + text + "\"");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

ojson alloc_object(const std::array<double, gpurent::replay_points.size()>& v) {
  ojson o = ojson::object();
  for (std::size_t i = 0; i < gpurent::replay_points.size(); ++i) o[std::to_string(gpurent::replay_points[i])] = round_to(v[i], 3);
  return o;
}

ojson run_object(const gpurent::replay_result& r, double elapsed) {
  ojson o;
  o["policy"] = std::string(r.policy);
  o["seed"] = r.seed;
  o["tune"] = r.tune;
  o["nodes"] = r.nodes;
  o["gpus_total"] = r.gpus_total;
  o["pods_arrived"] = r.arrived;
  o["pods_placed"] = r.placed;
  o["pods_failed"] = r.failed;
  o["alloc_pct"] = alloc_object(r.alloc_pct);
  o["unallocated_pct_at_100"] = round_to(r.unallocated_pct_at(100), 3);
  o["elapsed_s"] = round_to(elapsed, 4);
  o["placements_per_s"] = elapsed > 0 ? std::llround(static_cast<double>(r.arrived) / elapsed) : 0;
  return o;
}

std::string placements_csv(const gpurent::replay_workload& w, const gpurent::replay_result& r) {
  std::string out = "seq,pod,node,gpus\n";
  for (std::size_t i = 0; i < r.placements.size(); ++i) {
    const gpurent::placement& p = r.placements[i];
    std::string gpus;
    for (std::size_t g = 0; g < p.count; ++g) {
      if (g > 0) gpus += ';';
      gpus += fmt::format("{}:{}", p.gpus[g].gpu, p.gpus[g].milli);
    }
    const std::string node = p.node == gpurent::no_node ? std::string() : w.cluster.spec(p.node).name;
    fmt::format_to(std::back_inserter(out), "{},{},{},{}\n", i, w.task_names[r.arrivals[i]], node, gpus);
  }
  return out;
}

// The seeds to run: --seeds when given, else --seed.
gpurent::expected<std::vector<std::uint64_t>> seeds_of(const replay_args& a) {
  if (a.seeds.empty()) return std::vector<std::uint64_t>{a.seed};
  return parse_seeds(a.seeds);
}

gpurent::expected<gpurent::replay_workload> read_workload(const replay_args& a) {
  GPURENT_TRY(nodes, gpurent::read_trace_nodes_file(a.nodes));
  GPURENT_TRY(pods, gpurent::read_trace_pods_file(a.pods));
  return gpurent::make_replay_workload(*nodes, a.nodes, *pods, a.pods);
}

// One replay per seed with the named policy, and each one's wall-clock time.
struct replay_runs {
  std::vector<gpurent::replay_result> results;
  std::vector<double> elapsed;
  [[nodiscard]] double total_elapsed() const {
    double t = 0;
    for (double e : elapsed) t += e;
    return t;
  }
};

// With --audit: one "match" line per decision, naming the task (the replay's arrival order).
struct replay_auditor {
  gpurent::io::audit_file& log;
  const gpurent::replay_workload& w;
  const std::string& policy;
  std::uint64_t seed;
  std::vector<std::uint32_t> arrivals;
  std::size_t next = 0;
  void operator()(const gpurent::match_decision& d) {
    ojson r = {{"seed", seed}};
    r.update(gpurent::io::audit_match(d, policy, w.task_names[arrivals[next++]]));
    log.record("match", r);
  }
};

replay_runs run_seeds(const replay_args& a, const gpurent::replay_workload& w, const std::vector<std::uint64_t>& seeds, bool keep,
                      gpurent::io::audit_file* audit) {
  using namespace gpurent;
  const bool tty = isatty(fileno(stderr)) != 0;
  replay_runs runs;
  for (const std::uint64_t seed : seeds) {
    replay_options o;
    o.seed = seed;
    o.tune = a.tune;
    o.keep_placements = keep;
    std::optional<replay_auditor> auditor;
    if (audit != nullptr) {
      auditor.emplace(replay_auditor{*audit, w, a.policy, seed, arrival_sequence(w.tasks, w.cluster.gpu_capacity_milli(), a.tune, seed)});
      o.observer = decision_observer::of(*auditor);
    }
    if (tty) {
      o.progress = [seed](std::size_t done, std::size_t total) { fmt::print(stderr, "\rreplay seed {}: {}/{} tasks", seed, done, total); };
    }
    const auto t0 = std::chrono::steady_clock::now();
    replay_result r;
    builtin_policies::visit(a.policy, [&]<class P>() { r = replay<P>(w, o); });
    runs.elapsed.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    runs.results.push_back(std::move(r));
  }
  if (tty) fmt::print(stderr, "\r\033[K");
  return runs;
}

void print_run(const gpurent::replay_result& r, double elapsed, output_format format) {
  using gpurent::replay_points;
  if (format == output_format::json) {
    fmt::print("{}\n", run_object(r, elapsed).dump(2));
    return;
  }
  fmt::print("policy {}  seed {}  tune {}  nodes {}  gpus {}\n", r.policy, r.seed, r.tune, r.nodes, r.gpus_total);
  fmt::print("pods arrived {}  placed {}  failed {}  elapsed {:.3f} s\n", r.arrived, r.placed, r.failed, elapsed);
  fmt::print("{:>9}  {:>8}  {:>13}\n", "arrived %", "alloc %", "unallocated %");
  for (std::size_t i = 0; i < replay_points.size(); ++i) {
    fmt::print("{:>9}  {:>8.2f}  {:>13.2f}\n", replay_points[i], r.alloc_pct[i], 100.0 - r.alloc_pct[i]);
  }
}

using replay_stats = std::array<gpurent::replay_stat, gpurent::replay_points.size()>;

// Mean and sd over the runs, per replay point.
replay_stats stats_of(const replay_runs& runs) {
  replay_stats stats{};
  for (std::size_t i = 0; i < gpurent::replay_points.size(); ++i) {
    std::vector<double> xs;
    for (const auto& r : runs.results) xs.push_back(r.alloc_pct[i]);
    stats[i] = gpurent::replay_stat_of(xs);
  }
  return stats;
}

ojson summary_object(const replay_args& a, const std::vector<std::uint64_t>& seeds, const replay_runs& runs, const replay_stats& stats) {
  using gpurent::replay_points;
  const gpurent::replay_result& first = runs.results.front();
  ojson o;
  o["policy"] = std::string(first.policy);
  o["seeds"] = seeds;
  o["tune"] = a.tune;
  o["nodes"] = first.nodes;
  o["gpus_total"] = first.gpus_total;
  ojson mean = ojson::object();
  ojson sd = ojson::object();
  ojson um = ojson::object();
  for (std::size_t i = 0; i < replay_points.size(); ++i) {
    mean[std::to_string(replay_points[i])] = round_to(stats[i].mean, 3);
    sd[std::to_string(replay_points[i])] = round_to(stats[i].sd, 3);
    um[std::to_string(replay_points[i])] = round_to(100.0 - stats[i].mean, 3);
  }
  o["alloc_pct_mean"] = mean;
  o["alloc_pct_sd"] = sd;
  o["unallocated_pct_mean"] = um;
  o["unallocated_pct_at_100"] = {{"mean", round_to(100.0 - stats[2].mean, 3)}, {"sd", round_to(stats[2].sd, 3)}};
  o["elapsed_s"] = round_to(runs.total_elapsed(), 4);
  ojson each = ojson::array();
  for (std::size_t k = 0; k < runs.results.size(); ++k) each.push_back(run_object(runs.results[k], runs.elapsed[k]));
  o["runs"] = each;
  return o;
}

void print_summary(const replay_args& a, const std::vector<std::uint64_t>& seeds, const replay_runs& runs) {
  using gpurent::replay_points;
  const replay_stats stats = stats_of(runs);
  if (a.format == output_format::json) {
    fmt::print("{}\n", summary_object(a, seeds, runs, stats).dump(2));
    return;
  }
  const gpurent::replay_result& first = runs.results.front();
  fmt::print("policy {}  seeds {}  tune {}  nodes {}  gpus {}  elapsed {:.3f} s\n", first.policy, seeds.size(), a.tune, first.nodes, first.gpus_total,
             runs.total_elapsed());
  fmt::print("{:>9}  {:>13}  {:>8}  {:>18}\n", "arrived %", "alloc % mean", "sd", "unallocated % mean");
  for (std::size_t i = 0; i < replay_points.size(); ++i) {
    fmt::print("{:>9}  {:>13.2f}  {:>8.2f}  {:>18.2f}\n", replay_points[i], stats[i].mean, stats[i].sd, 100.0 - stats[i].mean);
  }
}

int run_replay(const replay_args& a) {
  using namespace gpurent;
  if (!(a.tune > 0.0 && a.tune <= 100.0)) return tool::fail(error{error_code::invalid_argument, "--tune", "must be in (0, 100]", {}});
  const auto seeds = seeds_of(a);
  if (!seeds) return tool::fail(seeds.error());
  if (!a.placements.empty() && seeds->size() != 1) {
    return tool::fail(error{error_code::invalid_argument, "--placements", "needs a single seed", {}});
  }
  const auto w = read_workload(a);
  if (!w) return tool::fail(w.error());
  auto audit = tool::open_audit(a.audit);
  if (!audit) return tool::fail(audit.error());
  const replay_runs runs = run_seeds(a, *w, *seeds, !a.placements.empty(), *audit ? &**audit : nullptr);
  if (!a.placements.empty()) {
    if (auto wr = tool::write_file(a.placements, placements_csv(*w, runs.results.front()), "--placements"); !wr) return tool::fail(wr.error());
  }
  if (*audit) {
    if (auto r = (*audit)->commit(); !r) return tool::fail(r.error());
  }
  if (runs.results.size() == 1) {
    print_run(runs.results.front(), runs.elapsed.front(), a.format);
  } else {
    print_summary(a, *seeds, runs);
  }
  return tool::exit_ok;
}

gpurent::tool::runner setup_replay(CLI::App& app) {
  auto a = std::make_shared<replay_args>();
  CLI::App* cmd = app.add_subcommand("replay", "replay the Alibaba GPU trace with a placement policy (FGD paper protocol)");
  cmd->add_option("--nodes", a->nodes, "node list CSV (openb_node_list_*.csv)")->required();
  cmd->add_option("--pods", a->pods, "pod list CSV (openb_pod_list_*.csv)")->required();
  std::vector<std::string> names(gpurent::builtin_policies::names.begin(), gpurent::builtin_policies::names.end());
  cmd->add_option("--policy", a->policy, "placement policy")->check(CLI::IsMember(names))->capture_default_str();
  cmd->add_option("--seed", a->seed, "seed of the arrival order and node order")->capture_default_str();
  cmd->add_option("--seeds", a->seeds, "several seeds (42-51 or 42,43): prints mean and sd");
  cmd->add_option("--tune", a->tune, "inflate arrivals to tune x cluster GPU capacity")->capture_default_str();
  cmd->add_option("--placements", a->placements, "write one CSV row per arrived task (single seed)");
  gpurent::tool::add_format_option(*cmd, a->format, {{"json", output_format::json}, {"table", output_format::table}});
  gpurent::tool::add_audit_options(*cmd, a->audit);
  return [a] { return run_replay(*a); };
}

}  // namespace

GPURENT_TOOL_COMMAND("replay", &setup_replay);
