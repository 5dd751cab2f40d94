// SPDX-License-Identifier: MIT
// A fleet run: the library calls `gpurent fleet run --jobs` (gangs) and `--pods` (the trace's
// one-member jobs) make (tools/cmd_fleet_run.cpp), as does the C API's gpurent_fleet_run_json:
// the readers of io/fleet/, fleet/run/named.hpp's run of the named policies, and the writers
// of io/fleet/fleet_run_json.hpp for the summary and every table.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <gpurent/fleet/run/metrics.hpp>
#include <gpurent/fleet/run/named.hpp>
#include <gpurent/fleet/run/usage.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/fleet_run_json.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/fleet/pod_jobs.hpp>
#include <gpurent/io/fleet/topology_json.hpp>
#include <gpurent/io/text/file.hpp>

#include "bind.hpp"
#include "errors.hpp"
#include "inputs.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

// An input of the run: a file (`text` absent, `name` its path) or text made by the caller
// (`name` names it in errors).
struct input {
  std::optional<std::string> text;
  std::string name;
};

std::string text_of(const input& in) { return input_text(in.text, in.name); }

// The settings that are not files, as the tool's options of the same names.
struct run_settings {
  std::string policy, victims;
  std::string notice, checkpoint_write, restart, min_runtime, timeline_step, epoch;
};

seconds duration_of(const std::string& text, std::string_view field) {
  auto d = parse_duration(text);
  if (!d) throw library_error(d.error().in_field(field));
  return *d;
}

// A finished run: its inputs (the tables name jobs and nodes), its result and metrics.
struct fleet_run {
  fleet_cluster cluster;
  std::vector<fleet_job> jobs;
  run_result result;
  run_metrics metrics;
  io::run_report report;
  seconds step{60};
  instant epoch;

  [[nodiscard]] std::string summary_json() const { return io::run_json(report, jobs, result, metrics).dump(2) + "\n"; }
  [[nodiscard]] std::string timeline_csv() const { return value_or_throw(io::run_timeline_csv(cluster, jobs, result, step, epoch)); }
  [[nodiscard]] std::string usage_csv() const { return io::write_usage_csv(value_or_throw(usage_of_run(jobs, result, cluster.inv, epoch))); }
};

run_options options_of(const run_settings& s) {
  run_options o;
  o.checkpoints =
      checkpoint_model{duration_of(s.notice, "notice"), duration_of(s.checkpoint_write, "checkpoint_write"), duration_of(s.restart, "restart")};
  o.min_runtime = duration_of(s.min_runtime, "min_runtime");
  return o;
}

// The workload: a jobs file on the gang placer, or a pod list (arrivals compressed `compress`-
// fold) on the node matcher; the result and the trace pods the trace never scheduled.
std::size_t run_workload(fleet_run& out, const std::optional<input>& jobs, const std::optional<input>& pods, std::int64_t compress,
                         const run_settings& s, const run_options& o) {
  if (!pods) {
    out.jobs = value_or_throw(io::read_fleet_jobs_csv(text_of(*jobs), jobs->name, out.cluster, io::job_durations::required));
    out.result = value_or_throw(run_fleet_gangs(out.cluster, out.jobs, s.policy, s.victims, o));
    return 0;
  }
  pod_jobs p = value_or_throw(io::read_pod_jobs(text_of(*pods), pods->name, out.cluster.inv, compress));
  out.jobs = std::move(p.jobs);
  out.result = value_or_throw(run_fleet_pods(out.cluster, out.jobs, s.policy, s.victims, o));
  return p.never_scheduled;
}

std::unique_ptr<fleet_run> run(const input& nodes, const std::optional<input>& topology, const std::optional<input>& jobs,
                               const std::optional<input>& pods, std::int64_t compress, const run_settings& s) {
  if (!jobs == !pods) throw library_error(error{error_code::invalid_argument, "jobs", "give jobs or pods (one of them)", {}});
  auto out = std::make_unique<fleet_run>();
  nb::gil_scoped_release unlocked;
  const run_options o = options_of(s);
  out->step = duration_of(s.timeline_step, "timeline_step");
  if (out->step.count() <= 0) throw library_error(error{error_code::invalid_argument, "timeline_step", "must be at least 1s", {}});
  auto epoch = parse_instant(s.epoch);
  if (!epoch) throw library_error(epoch.error().in_field("epoch"));
  out->epoch = *epoch;
  out->cluster = value_or_throw(fleet_cluster::make(value_or_throw(io::read_fleet_nodes_csv(text_of(nodes), nodes.name))));
  if (topology) value_or_throw(io::read_topology_json(text_of(*topology), topology->name, out->cluster));
  const std::int64_t gpus = out->cluster.gpus_up();
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t never_scheduled = run_workload(*out, jobs, pods, compress, s, o);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out->metrics = metrics_of(out->jobs, out->result, gpus);
  out->report = io::run_report{s.policy, s.victims, pods ? std::optional(compress) : std::nullopt, never_scheduled, false, std::nullopt, elapsed};
  return out;
}

}  // namespace

void bind_fleet(nb::module_& m) {
  nb::class_<fleet_run>(m, "FleetRun", "A finished fleet run; every table is the tool's, written by the library's writers")
      .def("summary_json", &fleet_run::summary_json, "The JSON `gpurent fleet run --format json` prints.")
      .def(
          "jobs_csv", [](const fleet_run& r) { return io::run_jobs_csv(r.jobs, r.result); }, "The CSV of --jobs-out.")
      .def("timeline_csv", &fleet_run::timeline_csv, "The CSV of --timeline (at the run's timeline step and epoch).")
      .def(
          "placements_csv", [](const fleet_run& r) { return io::run_placements_csv(r.cluster, r.jobs, r.result); }, "The CSV of --placements.")
      .def(
          "preemptions_csv", [](const fleet_run& r) { return io::run_preemptions_csv(r.jobs, r.result); }, "The CSV of --preemptions.")
      .def("usage_csv", &fleet_run::usage_csv, "The usage CSV of --emit-usage (at the run's epoch).");
  m.def(
      "fleet_run",
      [](std::optional<std::string> nodes_text, const std::string& nodes, std::optional<std::string> topology_text,
         std::optional<std::string> topology, std::optional<std::string> jobs_text, std::optional<std::string> jobs,
         std::optional<std::string> pods_text, std::optional<std::string> pods, std::int64_t compress, const std::string& policy,
         const std::string& victims, const std::string& notice, const std::string& checkpoint_write, const std::string& restart,
         const std::string& min_runtime, const std::string& timeline_step, const std::string& epoch) {
        const auto maybe = [](std::optional<std::string>& text, const std::optional<std::string>& name) {
          return name ? std::optional(input{std::move(text), *name}) : std::nullopt;
        };
        return run(input{std::move(nodes_text), nodes}, maybe(topology_text, topology), maybe(jobs_text, jobs), maybe(pods_text, pods), compress,
                   run_settings{policy, victims, notice, checkpoint_write, restart, min_runtime, timeline_step, epoch});
      },
      nb::arg("nodes_text").none(), nb::arg("nodes"), nb::arg("topology_text").none(), nb::arg("topology").none(), nb::arg("jobs_text").none(),
      nb::arg("jobs").none(), nb::arg("pods_text").none(), nb::arg("pods").none(), nb::arg("compress"), nb::arg("policy"), nb::arg("victims"),
      nb::arg("notice"), nb::arg("checkpoint_write"), nb::arg("restart"), nb::arg("min_runtime"), nb::arg("timeline_step"), nb::arg("epoch"),
      "A fleet run on jobs (gangs) or pods (the trace's, compressed K-fold): each input a file (its text None) or a text (named in errors).");
}

}  // namespace gpurent::py
