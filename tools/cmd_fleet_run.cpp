// SPDX-License-Identifier: MIT
// gpurent fleet run: a cluster over time with departures, queueing and preemption
// (docs/formats/fleet.md), on --jobs (gangs on the topology) or --pods (the Alibaba
// trace, arrivals compressed K-fold). tools/cmd_fleet.cpp registers it.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <fmt/core.h>

#include <gpurent/core/time.hpp>
#include <gpurent/fleet/fleet.hpp>
#include <gpurent/fleet/run/check.hpp>
#include <gpurent/fleet/run/named.hpp>
#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/fleet_run_json.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/fleet/node_events_csv.hpp>
#include <gpurent/io/fleet/pod_jobs.hpp>
#include <gpurent/io/fleet/topology_json.hpp>
#include <gpurent/io/fleet/trace_csv.hpp>

#include "audit_option.hpp"
#include "tool.hpp"

namespace gpurent::tool::fleet_run_cmd {

struct run_args {
  std::string nodes, topology, jobs, pods;
  std::int64_t compress = 0;                     // K, with --pods only (required there)
  const CLI::Option* compress_option = nullptr;  // its count says whether --compress was given
  std::string policy = "gpurent";
  std::string victims = "gpurent";
  std::string notice = "30s", checkpoint_write = "60s", restart = "120s", min_runtime = "0s";
  std::string placements, emit_usage, epoch = "2026-11-01T00:00:00Z";
  std::string timeline, timeline_step = "60s", preemptions, node_events, jobs_out;
  output_format format = output_format::json;
  audit_cli audit;
  bool check = false;                    // --check: the placement rules at every instant (fleet/run/check.hpp)
  bool progress = false, quiet = false;  // the progress line: forced, silenced (else on a terminal)
};

// With --audit: one "gang" line per gang decision, one "preempt" line per preemption.
struct run_auditor {
  io::audit_file& log;
  const std::vector<fleet_job>& jobs;
  std::string policy;
  void operator()(const gang_decision& d) { log.record("gang", io::audit_gang(d, policy, jobs[d.id].name)); }
  void operator()(const preempt_decision& d) {
    log.record("preempt", io::audit_preempt(d, [&](std::uint32_t j) -> const std::string& { return jobs[j].name; }));
  }
};

struct loaded {
  fleet_cluster cluster;
  std::vector<fleet_job> jobs;
  std::size_t never_scheduled = 0;
};

// The options' combinations (docs/formats/fleet.md's synopsis): one of --jobs and --pods,
// --compress with --pods and only there; no output file that is an input or another output.
expected<void> check_usage(const run_args& a) {
  if (a.jobs.empty() == a.pods.empty()) return make_error(error_code::invalid_argument, "--jobs", "give --jobs or --pods (one of them)");
  if (!a.audit.path.empty() && !a.pods.empty())
    return make_error(error_code::invalid_argument, "--audit", "with --jobs only (a trace's matcher decisions: gpurent replay --audit)");
  const bool compress = a.compress_option != nullptr && a.compress_option->count() > 0;
  if (!a.pods.empty() && !compress)
    return make_error(error_code::invalid_argument, "--compress", "required with --pods (K: arrivals compressed K-fold, K >= 1)");
  if (a.pods.empty() && compress)
    return make_error(error_code::invalid_argument, "--compress", "applies to --pods only (a jobs file gives its own arrivals)");
  if (compress && a.compress < 1) return make_error(error_code::invalid_argument, "--compress", "must be >= 1, got " + std::to_string(a.compress));
  return distinct_outputs(
      {{"--nodes", a.nodes}, {"--topology", a.topology}, {"--jobs", a.jobs}, {"--pods", a.pods}, {"--node-events", a.node_events}},
      {{"--placements", a.placements},
       {"--emit-usage", a.emit_usage},
       {"--timeline", a.timeline},
       {"--preemptions", a.preemptions},
       {"--jobs-out", a.jobs_out},
       {"--audit", a.audit.path}});
}

// The values of the options that are not files, parsed and checked before any file is read:
// the run's options, the --timeline step and the --emit-usage epoch.
struct run_settings {
  run_options run;
  seconds timeline_step{60};
  instant epoch;
};

expected<run_settings> settings_of(const run_args& a) {
  GPURENT_TRY(notice, duration_option(a.notice, "--notice"));
  GPURENT_TRY(write, duration_option(a.checkpoint_write, "--checkpoint-write"));
  GPURENT_TRY(restart, duration_option(a.restart, "--restart"));
  GPURENT_TRY(min_run, duration_option(a.min_runtime, "--min-runtime"));
  GPURENT_TRY(step, duration_option(a.timeline_step, "--timeline-step"));
  if (step->count() <= 0) return make_error(error_code::invalid_argument, "--timeline-step", "must be at least 1s, got \"" + a.timeline_step + "\"");
  auto epoch = parse_instant(a.epoch);
  if (!epoch) return unexpected(epoch.error().in_field("--epoch"));
  run_settings s;
  s.run.checkpoints = checkpoint_model{*notice, *write, *restart};
  s.run.min_runtime = *min_run;
  s.timeline_step = *step;
  s.epoch = *epoch;
  return s;
}

expected<loaded> read_inputs(const run_args& a) {
  loaded l;
  GPURENT_TRY(c, io::read_fleet_cluster_file(a.nodes));
  l.cluster = std::move(*c);
  if (!a.topology.empty()) GPURENT_TRY(io::read_topology_file(a.topology, l.cluster));
  if (!a.pods.empty()) {
    GPURENT_TRY(pj, io::read_pod_jobs_file(a.pods, l.cluster.inv, a.compress));
    l.jobs = std::move(pj->jobs);
    l.never_scheduled = pj->never_scheduled;
    return l;
  }
  GPURENT_TRY(jobs, io::read_fleet_jobs_file(a.jobs, l.cluster, io::job_durations::required));  // fleet run needs each job's work
  l.jobs = std::move(*jobs);
  return l;
}

// fleet/run/named.hpp's run of the named policies (the C API's and Python's too): --jobs on
// the gang placer, --pods on the node matcher.
expected<run_result> run_policy(const run_args& a, loaded& l, const run_options& o, run_auditor* auditor) {
  auto r = a.pods.empty()
               ? run_fleet_gangs(l.cluster, l.jobs, a.policy, a.victims, o, auditor != nullptr ? gang_observer::of(*auditor) : gang_observer{})
               : run_fleet_pods(l.cluster, l.jobs, a.policy, a.victims, o);
  if (!r) return unexpected(r.error().in_field("--" + r.error().field));
  return r;
}

// The same on stderr, a line per job (the first 20; the JSON has them all).
void report_never_started(const loaded& l, const run_result& r) {
  constexpr std::size_t shown = 20;
  // The first `shown` jobs of `list` ("job NAME <what>: why"), then how many more the JSON's `key` lists.
  const auto report = [&](std::span<const run_never_started> list, std::string_view what, std::string_view more, std::string_view key) {
    for (std::size_t k = 0; k < list.size() && k < shown; ++k)
      fmt::print(stderr, "gpurent: job {} {}: {}\n", l.jobs[list[k].job].name, what, list[k].why);
    if (list.size() > shown) fmt::print(stderr, "gpurent: ... and {} more jobs {} ({} in the JSON lists them all)\n", list.size() - shown, more, key);
  };
  report(r.never_started, "never started", "never started", "never_started_jobs");
  report(r.unfinished, "was stopped and never started again", "unfinished", "unfinished_jobs");
}

// The output files asked for, every one made before any is written: an error (a usage
// record the meter would refuse) leaves no file behind, and so does a failed write
// (write_files: all or none).
expected<void> write_outputs(const run_args& a, const run_settings& s, const loaded& l, const run_result& r) {
  std::vector<output_text> outs;
  if (!a.placements.empty()) outs.push_back({a.placements, io::run_placements_csv(l.cluster, l.jobs, r), "--placements"});
  if (!a.preemptions.empty()) outs.push_back({a.preemptions, io::run_preemptions_csv(l.jobs, r), "--preemptions"});
  if (!a.timeline.empty()) {
    auto t = io::run_timeline_csv(l.cluster, l.jobs, r, s.timeline_step, s.epoch);
    if (!t) return unexpected(t.error().in_field(t.error().field == "epoch" ? "--epoch" : "--timeline-step"));
    outs.push_back({a.timeline, std::move(*t), "--timeline"});
  }
  if (!a.jobs_out.empty()) outs.push_back({a.jobs_out, io::run_jobs_csv(l.jobs, r), "--jobs-out"});
  if (!a.emit_usage.empty()) {
    auto usage = usage_of_run(l.jobs, r, l.cluster.inv, s.epoch);
    if (!usage)  // a segment's time from --epoch is past what the meter reads: name the options to change
      return make_error(error_code::invalid_argument, "--emit-usage",
                        usage.error().describe() + " (the run's times counted from --epoch " + a.epoch + "; an earlier --epoch may fit)");
    outs.push_back({a.emit_usage, io::write_usage_csv(*usage), "--emit-usage"});
  }
  return write_files(outs);
}

// The progress line on stderr about once a second: rewritten in place on a terminal, one
// line each time in a log.
void show_progress(run_options& o, std::chrono::steady_clock::time_point t0, bool terminal) {
  o.progress = [t0, terminal, shown = t0](const run_progress& p) mutable {
    const auto now = std::chrono::steady_clock::now();
    if (now - shown < std::chrono::seconds(1)) return;
    shown = now;
    const std::string line = io::run_progress_text(p, std::chrono::duration<double>(now - t0).count());
    fmt::print(stderr, "{}{}{}", terminal ? "\r" : "", line, terminal ? "\x1b[K" : "\n");
    std::fflush(stderr);
  };
}

// --node-events read into `events` (the run points into it).
expected<void> add_extras(const run_args& a, const loaded& l, run_options& o, std::vector<node_event>& events) {
  if (a.node_events.empty()) return {};
  GPURENT_TRY(e, io::read_node_events_file(a.node_events, l.cluster));
  events = std::move(*e);
  o.node_events = events;
  return {};
}

int run_command(const run_args& a) {
  if (auto u = check_usage(a); !u) return fail(u.error());
  auto s = settings_of(a);
  if (!s) return fail(s.error());
  auto l = read_inputs(a);
  if (!l) return fail(l.error());
  const bool terminal = isatty(fileno(stderr)) != 0, progress = !a.quiet && (a.progress || terminal);
  std::vector<node_event> events;
  run_options& o = s->run;
  if (auto e = add_extras(a, *l, o, events); !e) return fail(e.error());
  auto audit = open_audit(a.audit);
  if (!audit) return fail(audit.error());
  std::optional<run_auditor> auditor;
  if (*audit) {
    auditor.emplace(run_auditor{**audit, l->jobs, a.policy});
    o.observer = preempt_observer::of(*auditor);
  }
  const std::int64_t gpus = l->cluster.gpus_up();
  std::optional<fleet_cluster> as_started;  // --check reads the nodes' first conditions; the run changes them
  if (a.check) as_started = l->cluster;
  const auto t0 = std::chrono::steady_clock::now();
  if (progress) show_progress(o, t0, terminal);
  auto r = run_policy(a, *l, o, auditor ? &*auditor : nullptr);
  if (!r) return fail(r.error());
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (progress)
    fmt::print(stderr, "{}fleet run: t = {} s, done in {:.2f} s{}\n", terminal ? "\r" : "", r->end_time.count(), elapsed, terminal ? "\x1b[K" : "");
  const run_metrics m = metrics_of(l->jobs, *r, gpus);
  report_never_started(*l, *r);
  std::optional<gang_check_result> check;
  if (a.check) {
    check = check_run(*as_started, l->jobs, *r, node_history{events, o.checkpoints.notice});
    for (const std::string& msg : check->messages) fmt::print(stderr, "gpurent: rule violated: {}\n", msg);
  }
  if (auto w = write_outputs(a, *s, *l, *r); !w) return fail(w.error());
  const io::run_report rep{a.policy,
                           a.victims,
                           a.pods.empty() ? std::nullopt : std::optional(a.compress),
                           l->never_scheduled,
                           !a.node_events.empty(),
                           check ? std::optional(check->violations) : std::nullopt,
                           elapsed};
  const int printed = print_result(a.format == output_format::json ? io::run_json(rep, l->jobs, *r, m).dump(2) + "\n" : io::run_table(rep, *r, m));
  if (printed != exit_ok) return printed;
  if (*audit)
    if (auto c = (*audit)->commit(); !c) return fail(c.error());
  return exit_ok;
}

void add_options(CLI::App& cmd, run_args& a) {
  cmd.add_option("--nodes", a.nodes, "nodes CSV (sn,cpu_milli,memory_mib,gpu,model[,state])")->required();
  cmd.add_option("--topology", a.topology, "topology JSON (levels, each node's domains)");
  auto* jobs = cmd.add_option("--jobs", a.jobs, "jobs CSV (name,workers,num_gpu,...,priority,preemptible,arrival,duration)");
  auto* pods = cmd.add_option("--pods", a.pods, "Alibaba trace pod list (openb_pod_list_*.csv)");
  jobs->excludes(pods);
  a.compress_option =
      cmd.add_option("--compress", a.compress, "with --pods (required there): arrivals compressed K-fold (offered load about K times)");
  cmd.add_option("--policy", a.policy, "placement policy: gpurent, fgd, best-fit (--pods); gpurent, slurm-block, kueue-best-fit, best-fit (--jobs)")
      ->capture_default_str();
  cmd.add_option("--victims", a.victims, "victim policy")->check(CLI::IsMember({"none", "kube", "gpurent"}))->capture_default_str();
  cmd.add_option("--notice", a.notice, "notice before a victim stops")->type_name("DURATION")->capture_default_str();
  cmd.add_option("--checkpoint-write", a.checkpoint_write, "notice a final checkpoint needs")->type_name("DURATION")->capture_default_str();
  cmd.add_option("--restart", a.restart, "work a restart adds")->type_name("DURATION")->capture_default_str();
  cmd.add_option("--min-runtime", a.min_runtime, "a job runs this long before it may be a victim")->type_name("DURATION")->capture_default_str();
  cmd.add_option("--placements", a.placements, "one CSV row per member per run segment");
  cmd.add_option("--emit-usage", a.emit_usage, "the run segments as usage CSV for gpurent meter");
  cmd.add_option("--node-events", a.node_events, "node failures and repairs over time: CSV time,node,state (down, drain, up)");
  cmd.add_option("--timeline", a.timeline, "the allocation time series: one CSV row every --timeline-step");
  cmd.add_option("--timeline-step", a.timeline_step, "time between --timeline rows")->type_name("DURATION")->capture_default_str();
  cmd.add_option("--preemptions", a.preemptions, "one CSV row per preemption: preemptor, victims, why those");
  cmd.add_flag("--check", a.check, "check the placement rules at every instant a segment starts (JSON: violations)");
  cmd.add_option("--jobs-out", a.jobs_out, "one CSV row per job: arrival, first start, delay, end, runs, evictions, lost work, outcome, why");
  cmd.add_option("--epoch", a.epoch, "the instant of second 0 in --emit-usage and --timeline")->capture_default_str();
  auto* progress = cmd.add_flag("--progress", a.progress, "the progress line on stderr even when it is not a terminal (for logs)");
  cmd.add_flag("--quiet", a.quiet, "no progress line, even on a terminal")->excludes(progress);
  add_format_option(cmd, a.format, {{"json", output_format::json}, {"table", output_format::table}});
  add_audit_options(cmd, a.audit);
}

}  // namespace gpurent::tool::fleet_run_cmd

namespace gpurent::tool {
// `fleet run` under `fleet`; the runner to call when it was parsed.
runner setup_fleet_run(CLI::App& fleet) {
  auto a = std::make_shared<fleet_run_cmd::run_args>();
  CLI::App* cmd = fleet.add_subcommand("run", "a cluster over time: arrivals, departures, queueing, preemption (docs/formats/fleet.md)");
  fleet_run_cmd::add_options(*cmd, *a);
  return [a]() -> int { return fleet_run_cmd::run_command(*a); };
}
}  // namespace gpurent::tool
