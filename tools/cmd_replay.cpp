// SPDX-License-Identifier: MIT
// gpurent replay: the FGD paper's trace replay (docs/matching.md, "The replay protocol as implemented") with a
// chosen placement policy; one seed or a range with mean and sd. Files: docs/formats/fleet.md.

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/fleet/replay_json.hpp>
#include <gpurent/io/fleet/trace_csv.hpp>
#include <gpurent/matching/node/registry.hpp>
#include <gpurent/matching/reference/replay.hpp>

#include "audit_option.hpp"
#include "tool.hpp"

namespace {

using gpurent::tool::output_format;

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

// With --audit: one "match" line per decision, naming the task (the replay's arrival order).
struct replay_auditor {
  gpurent::io::audit_file& log;
  const gpurent::replay_workload& w;
  const std::string& policy;
  std::uint64_t seed;
  std::vector<std::uint32_t> arrivals;
  std::size_t next = 0;
  void operator()(const gpurent::match_decision& d) {
    nlohmann::ordered_json r = {{"seed", seed}};
    r.update(gpurent::io::audit_match(d, policy, w.task_names[arrivals[next++]]));
    log.record("match", r);
  }
};

gpurent::io::replay_runs run_seeds(const replay_args& a, const gpurent::replay_workload& w, const std::vector<std::uint64_t>& seeds, bool keep,
                                   gpurent::io::audit_file* audit) {
  using namespace gpurent;
  const bool tty = isatty(fileno(stderr)) != 0;
  gpurent::io::replay_runs runs;
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

int run_replay(const replay_args& a) {
  using namespace gpurent;
  if (!(a.tune > 0.0 && a.tune <= 100.0)) return tool::fail(error{error_code::invalid_argument, "--tune", "must be in (0, 100]", {}});
  const auto seeds = seeds_of(a);
  if (!seeds) return tool::fail(seeds.error());
  if (!a.placements.empty() && seeds->size() != 1) {
    return tool::fail(error{error_code::invalid_argument, "--placements", "needs a single seed", {}});
  }
  if (auto d = tool::distinct_outputs({{"--nodes", a.nodes}, {"--pods", a.pods}}, {{"--placements", a.placements}, {"--audit", a.audit.path}}); !d)
    return tool::fail(d.error());
  const auto w = read_workload(a);
  if (!w) return tool::fail(w.error());
  auto audit = tool::open_audit(a.audit);
  if (!audit) return tool::fail(audit.error());
  const gpurent::io::replay_runs runs = run_seeds(a, *w, *seeds, !a.placements.empty(), *audit ? &**audit : nullptr);
  if (!a.placements.empty()) {
    if (auto wr = tool::write_file(a.placements, gpurent::io::replay_placements_csv(*w, runs.results.front()), "--placements"); !wr)
      return tool::fail(wr.error());
  }
  const bool json = a.format == output_format::json;
  const double t = runs.elapsed.front();
  const std::string out = runs.results.size() == 1
                              ? (json ? io::replay_run_json(runs.results.front(), t).dump(2) + "\n" : io::replay_run_table(runs.results.front(), t))
                          : json ? io::replay_summary_json(a.tune, *seeds, runs).dump(2) + "\n"
                                 : io::replay_summary_table(a.tune, seeds->size(), runs);
  if (const int printed = tool::print_result(out); printed != tool::exit_ok) return printed;
  if (*audit)
    if (auto r = (*audit)->commit(); !r) return tool::fail(r.error());
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
