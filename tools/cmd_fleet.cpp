// SPDX-License-Identifier: MIT
// gpurent fleet: jobs across nodes on a network topology (../shared/protocols/fleet.md).
//   fleet pack      the jobs in file order on an empty cluster, each placed whole or not at
//                   all, with a check of the placements against the rules
//   fleet generate  a fleet (nodes, topology) and a job mix after NVIDIA's segment guidance

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <gpurent/core/time.hpp>
#include <gpurent/fleet/fleet.hpp>
#include <gpurent/io/audit_record.hpp>
#include <gpurent/io/fleet_nodes_csv.hpp>
#include <gpurent/io/jobs_csv.hpp>
#include <gpurent/io/topology_json.hpp>
#include <gpurent/matching/gang_check.hpp>
#include <gpurent/matching/gang_policy.hpp>

#include "audit_option.hpp"
#include "tool.hpp"

namespace gpurent::tool {
runner setup_fleet_run(CLI::App& fleet);  // cmd_fleet_run.cpp
}

namespace {

using gpurent::tool::output_format;
using ojson = nlohmann::ordered_json;

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
};

double rounded(double x, double scale = 1000.0) { return std::round(x * scale) / scale; }

// A GPU amount in milli-GPU as a JSON number: whole when it is.
ojson gpus_of(std::int64_t milli) {
  if (milli % 1000 == 0) return milli / 1000;
  return rounded(static_cast<double>(milli) / 1000.0);
}

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

std::string placements_csv(const gpurent::fleet_cluster& c, const std::vector<gpurent::fleet_job>& jobs, const gpurent::pack_result& r) {
  std::string out = "job,member,node,gpus\n";
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (std::size_t m = 0; m < r.placements[j].size(); ++m) {
      const gpurent::placement& p = r.placements[j][m];
      std::string gpus;
      for (std::size_t g = 0; g < p.count; ++g) gpus += fmt::format("{}{}:{}", g == 0 ? "" : ";", p.gpus[g].gpu, p.gpus[g].milli);
      gpurent::io::csv_row(out, {jobs[j].name, std::to_string(m), c.inv.spec(p.node).name, gpus});
    }
  return out;
}

ojson pack_object(const pack_args& a, const packed& p) {
  const gpurent::pack_result& r = p.result;
  ojson o;
  o["policy"] = a.policy;
  o["jobs"] = r.jobs;
  o["placed"] = r.placed;
  o["failed"] = r.failed();
  o["gpus_total"] = r.gpus_total;
  o["gpus_allocated"] = gpus_of(r.gpu_milli_allocated);
  o["occupancy_pct_at_100"] = r.occupancy_pct_at_100 ? ojson(rounded(*r.occupancy_pct_at_100)) : ojson(nullptr);
  o["occupancy_pct"] = rounded(r.occupancy_pct);
  o["preferred_met"] = r.preferred_met;
  o["preferred_total"] = r.preferred_total;
  o["violations"] = p.check.violations;
  o["ignore_topology"] = a.ignore_topology;
  o["elapsed_s"] = rounded(p.elapsed, 10000.0);
  return o;
}

void print_pack_table(const pack_args& a, const packed& p) {
  const gpurent::pack_result& r = p.result;
  fmt::print("policy {}{}  jobs {}  placed {}  failed {}\n", a.policy, a.ignore_topology ? " (topology ignored)" : "", r.jobs, r.placed, r.failed());
  fmt::print("GPUs (nodes not down) {}  allocated {}\n", r.gpus_total, gpus_of(r.gpu_milli_allocated).dump());
  if (r.occupancy_pct_at_100) {
    fmt::print("occupancy at 100% arrival {:.2f}%\n", *r.occupancy_pct_at_100);
  } else {
    fmt::print("occupancy at 100% arrival: the demand never reaches 100%\n");
  }
  fmt::print("occupancy after the last job {:.2f}%\n", r.occupancy_pct);
  fmt::print("preferred level met {} of {}\n", r.preferred_met, r.preferred_total);
  fmt::print("violations {}  elapsed {:.3f} s\n", p.check.violations, p.elapsed);
}

int run_pack(const pack_args& a) {
  using namespace gpurent;
  auto in = read_inputs(a);
  if (!in) return tool::fail(in.error());
  auto& [cluster, jobs] = *in;
  auto audit = tool::open_audit(a.audit);
  if (!audit) return tool::fail(audit.error());
  const packed p = run_pack_policy(a, cluster, jobs, *audit ? &**audit : nullptr);
  for (const std::string& m : p.check.messages) fmt::print(stderr, "gpurent: rule violated: {}\n", m);
  if (!a.placements.empty()) {
    if (auto w = tool::write_file(a.placements, placements_csv(cluster, jobs, p.result), "--placements"); !w) return tool::fail(w.error());
  }
  if (*audit)
    if (auto c = (*audit)->commit(); !c) return tool::fail(c.error());
  if (a.format == output_format::json) {
    fmt::print("{}\n", pack_object(a, p).dump(2));
  } else {
    print_pack_table(a, p);
  }
  return tool::exit_ok;
}

// The generate options with --load's durations parsed; an error names the option.
gpurent::expected<gpurent::generate_options> generate_options_of(const generate_args& a) {
  using namespace gpurent;
  generate_options o = a.o;
  if (!a.load_given) return o;
  if (!(o.load_pct > 0 && o.load_pct <= 10000)) return make_error(error_code::invalid_argument, "--load", "must be in (0, 10000] (percent)");
  for (const auto& [text, out, option] :
       {std::tuple{&a.horizon, &o.horizon, "--horizon"}, std::tuple{&a.checkpoint_every, &o.checkpoint_every, "--checkpoint-every"}}) {
    auto d = parse_duration(*text);
    if (!d) return make_error(error_code::invalid_argument, option, d.error().message);
    *out = d->count();
  }
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
  std::int64_t demand = 0;
  for (const fleet_job& j : f->jobs) demand += j.gpu_milli_demand();
  ojson o;
  o["out"] = a.out;
  o["nodes"] = f->cluster.inv.size();
  std::size_t down = 0;
  for (node_index n = 0; n < f->cluster.inv.size(); ++n) down += f->cluster.topology.condition(n) == node_condition::down ? 1U : 0U;
  o["nodes_down"] = down;
  o["gpus_up"] = f->cluster.gpus_up();
  o["jobs"] = f->jobs.size();
  o["gpus_demanded"] = gpus_of(demand);
  if (opts->load_pct > 0) {
    double work = 0;
    std::size_t spot = 0;
    for (const fleet_job& j : f->jobs) {
      work += static_cast<double>(j.gpu_milli_demand()) / 1000.0 * static_cast<double>(j.duration);
      spot += j.preemptible ? 1U : 0U;
    }
    o["jobs_spot"] = spot;
    o["horizon_s"] = opts->horizon;
    o["offered_load_pct"] = rounded(100.0 * work / (static_cast<double>(f->cluster.gpus_up()) * static_cast<double>(opts->horizon)));
  }
  o["seed"] = a.o.seed;
  fmt::print("{}\n", o.dump(2));
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
  cmd->add_option("--horizon", a->horizon, "--load: the jobs arrive over this long (Poisson)")->capture_default_str()->needs(load);
  cmd->add_option("--spot", a->o.spot, "--load: fraction of the jobs that are spot (preemptible)")->capture_default_str()->needs(load);
  cmd->add_option("--checkpoint-every", a->checkpoint_every, "--load: work between a spot job's checkpoints")->capture_default_str()->needs(load);
  cmd->add_option("--out", a->out, "folder for nodes.csv, topology.json and jobs.csv")->required();
}

gpurent::tool::runner setup_fleet(CLI::App& app) {
  auto* fleet = app.add_subcommand("fleet", "jobs across nodes on a network topology (protocols/fleet.md)");
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
