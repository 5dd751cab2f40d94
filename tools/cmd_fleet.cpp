// SPDX-License-Identifier: MIT
// gpurent fleet: jobs across nodes on a network topology (docs/formats/fleet.md).
//   fleet pack      the jobs in file order on an empty cluster, each placed whole or not at
//                   all, with a check of the placements against the rules
//   fleet generate  a fleet (nodes, topology) and a job mix after NVIDIA's segment guidance

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <gpurent/core/time.hpp>
#include <gpurent/fleet/fleet.hpp>
#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/fleet_pack_json.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/fleet/topology_json.hpp>
#include <gpurent/matching/gang/check.hpp>
#include <gpurent/matching/gang/policy.hpp>

#include "audit_option.hpp"
#include "tool.hpp"

namespace gpurent::tool {
runner setup_fleet_run(CLI::App& fleet);  // cmd_fleet_run.cpp
}

namespace {

using gpurent::tool::output_format;

struct pack_args {
  std::string nodes;
  std::string topology;
  std::string jobs;
  std::string policy = "gpurent";
  bool ignore_topology = false;
  std::string placements;
  output_format format = output_format::json;
  gpurent::tool::audit_cli audit;
};

struct generate_args {
  gpurent::generate_options o;
  std::string out;
  std::string horizon = "7d", checkpoint_every = "30min";  // durations (--load)
  bool load_given = false;
  output_format format = output_format::json;
};

struct packed {
  gpurent::pack_result result;
  gpurent::gang_check_result check;
  double elapsed = 0;
};

gpurent::expected<std::pair<gpurent::fleet_cluster, std::vector<gpurent::fleet_job>>> read_inputs(const pack_args& a) {
  using namespace gpurent;
  GPURENT_TRY(c, io::read_fleet_cluster_file(a.nodes));
  if (!a.topology.empty()) GPURENT_TRY(io::read_topology_file(a.topology, *c));
  GPURENT_TRY(jobs, io::read_fleet_jobs_file(a.jobs, *c));
  return std::pair{std::move(*c), std::move(*jobs)};
}

// With --audit: one "gang" line per job (fleet pack decides each job once).
struct gang_auditor {
  gpurent::io::audit_file& log;
  const std::vector<gpurent::fleet_job>& jobs;
  std::string policy;
  void operator()(const gpurent::gang_decision& d) { log.record("gang", gpurent::io::audit_gang(d, policy, jobs[d.id].name)); }
};

packed run_pack_policy(const pack_args& a, gpurent::fleet_cluster& c, const std::vector<gpurent::fleet_job>& jobs, gpurent::io::audit_file* audit) {
  using namespace gpurent;
  packed p;
  const gang_context ctx = context_of(jobs, c);
  pack_options o{a.ignore_topology, {}};
  std::optional<gang_auditor> auditor;
  if (audit != nullptr) {
    auditor.emplace(gang_auditor{*audit, jobs, a.policy});
    o.observer = gang_observer::of(*auditor);
  }
  const auto t0 = std::chrono::steady_clock::now();
  builtin_gang_policies::visit(a.policy, [&]<class GP>() { p.result = pack<GP>(c, jobs, o, ctx); });
  p.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  p.check = check_gangs(c.inv, c.topology, p.result.gangs, p.result.placements);
  return p;
}

int run_pack(const pack_args& a) {
  using namespace gpurent;
  if (auto d = tool::distinct_outputs({{"--nodes", a.nodes}, {"--topology", a.topology}, {"--jobs", a.jobs}},
                                      {{"--placements", a.placements}, {"--audit", a.audit.path}});
      !d)
    return tool::fail(d.error());
  auto in = read_inputs(a);
  if (!in) return tool::fail(in.error());
  auto& [cluster, jobs] = *in;
  auto audit = tool::open_audit(a.audit);
  if (!audit) return tool::fail(audit.error());
  const packed p = run_pack_policy(a, cluster, jobs, *audit ? &**audit : nullptr);
  for (const std::string& m : p.check.messages) fmt::print(stderr, "gpurent: rule violated: {}\n", m);
  if (!a.placements.empty()) {
    if (auto w = tool::write_file(a.placements, io::pack_placements_csv(cluster, jobs, p.result), "--placements"); !w) return tool::fail(w.error());
  }
  const io::pack_report rep{a.policy, a.ignore_topology, p.check.violations, p.elapsed};
  const int printed =
      tool::print_result(a.format == output_format::json ? io::pack_json(rep, p.result).dump(2) + "\n" : io::pack_table(rep, p.result));
  if (printed != tool::exit_ok) return printed;
  if (*audit)
    if (auto c = (*audit)->commit(); !c) return tool::fail(c.error());
  return tool::exit_ok;
}

// The generate options with --load's durations parsed; an error names the option.
gpurent::expected<gpurent::generate_options> generate_options_of(const generate_args& a) {
  using namespace gpurent;
  generate_options o = a.o;
  if (!a.load_given) return o;
  if (!(o.load_pct > 0 && o.load_pct <= 10000)) return make_error(error_code::invalid_argument, "--load", "must be in (0, 10000] (percent)");
  GPURENT_TRY(horizon, tool::duration_option(a.horizon, "--horizon"));
  GPURENT_TRY(every, tool::duration_option(a.checkpoint_every, "--checkpoint-every"));
  o.horizon = *horizon;
  o.checkpoint_every = *every;
  return o;
}

int run_generate(const generate_args& a) {
  using namespace gpurent;
  auto opts = generate_options_of(a);
  if (!opts) return tool::fail(opts.error());
  auto f = generate_fleet(*opts);
  if (!f) return tool::fail(f.error());
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) return tool::fail(error{error_code::io_error, "--out", "cannot create " + a.out + ": " + ec.message(), {}});
  const std::filesystem::path dir(a.out);
  for (const auto& [name, text] :
       {std::pair{"nodes.csv", io::write_fleet_nodes_csv(f->cluster)}, std::pair{"topology.json", io::write_topology_json(f->cluster)},
        std::pair{"jobs.csv", io::write_fleet_jobs_csv(f->jobs, f->cluster)}})
    if (auto w = gpurent::tool::write_file((dir / name).string(), text, "--out"); !w) return tool::fail(w.error());
  const auto summary = io::generate_json(a.out, *f, *opts);
  fmt::print("{}", a.format == output_format::json ? summary.dump(2) + "\n" : io::generate_table(summary));
  return tool::exit_ok;
}

void setup_pack(CLI::App& fleet, const std::shared_ptr<pack_args>& a) {
  CLI::App* cmd = fleet.add_subcommand("pack", "pack jobs (gangs) in file order on an empty cluster, each whole or not at all");
  cmd->add_option("--nodes", a->nodes, "nodes CSV (sn,cpu_milli,memory_mib,gpu,model[,state][,segment][,labels])")->required();
  cmd->add_option("--topology", a->topology, "topology JSON (levels, each node's domains)");
  cmd->add_option("--jobs", a->jobs, "jobs CSV (name,workers,num_gpu[,...])")->required();
  const std::vector<std::string> names(gpurent::builtin_gang_policies::names.begin(), gpurent::builtin_gang_policies::names.end());
  cmd->add_option("--policy", a->policy, "gang placement policy")->check(CLI::IsMember(names))->capture_default_str();
  cmd->add_flag("--ignore-topology", a->ignore_topology, "drop required, preferred, segment and exclusive (topology-naive packing)");
  cmd->add_option("--placements", a->placements, "write one CSV row per placed member (job,member,node,gpus)");
  gpurent::tool::add_format_option(*cmd, a->format, {{"json", output_format::json}, {"table", output_format::table}});
  gpurent::tool::add_audit_options(*cmd, a->audit);
}

void setup_generate(CLI::App& fleet, const std::shared_ptr<generate_args>& a) {
  CLI::App* cmd = fleet.add_subcommand("generate", "write a generated fleet (nodes, topology) and job mix (NVL72 segment guidance)");
  cmd->add_option("--blocks", a->o.blocks, "base blocks (racks)")->required();
  cmd->add_option("--nodes-per-block", a->o.nodes_per_block, "nodes per block")->capture_default_str();
  cmd->add_option("--gpus-per-node", a->o.gpus_per_node, "GPUs per node")->capture_default_str();
  cmd->add_option("--blocks-per-spine", a->o.blocks_per_spine, "blocks per spine")->capture_default_str();
  cmd->add_option("--down", a->o.down, "fraction of the nodes down")->capture_default_str();
  cmd->add_option("--seed", a->o.seed, "seed of the draw")->capture_default_str();
  auto* demand = cmd->add_option("--demand", a->o.demand, "GPU demand over the GPUs of the nodes up")->capture_default_str();
  cmd->add_option("--exclusive", a->o.exclusive, "fraction of the large jobs that are exclusive (topo)")->capture_default_str();
  auto* load = cmd->add_option("--load", a->o.load_pct, "jobs over time for fleet run: offered load in percent of the GPUs up x --horizon")
                   ->each([a](const std::string&) { a->load_given = true; });
  load->excludes(demand);
  cmd->add_option("--horizon", a->horizon, "--load: the jobs arrive over this long (Poisson)")
      ->type_name("DURATION")
      ->capture_default_str()
      ->needs(load);
  cmd->add_option("--spot", a->o.spot, "--load: fraction of the jobs that are spot (preemptible)")->capture_default_str()->needs(load);
  cmd->add_option("--checkpoint-every", a->checkpoint_every, "--load: work between a spot job's checkpoints")
      ->type_name("DURATION")
      ->capture_default_str()
      ->needs(load);
  cmd->add_option("--out", a->out, "folder for nodes.csv, topology.json and jobs.csv")->required();
  gpurent::tool::add_format_option(*cmd, a->format, {{"json", output_format::json}, {"table", output_format::table}});
}

gpurent::tool::runner setup_fleet(CLI::App& app) {
  auto* fleet = app.add_subcommand("fleet", "jobs across nodes on a network topology (docs/formats/fleet.md)");
  fleet->require_subcommand(1);
  auto pa = std::make_shared<pack_args>();
  auto ga = std::make_shared<generate_args>();
  setup_pack(*fleet, pa);
  setup_generate(*fleet, ga);
  auto run = gpurent::tool::setup_fleet_run(*fleet);
  return [fleet, pa, ga, run]() -> int {
    if (fleet->get_subcommand("pack")->parsed()) return run_pack(*pa);
    if (fleet->get_subcommand("run")->parsed()) return run();
    return run_generate(*ga);
  };
}

}  // namespace

GPURENT_TOOL_COMMAND("fleet", &setup_fleet);
