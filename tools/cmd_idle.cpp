// SPDX-License-Identifier: MIT
// gpurent idle: GPU utilization from Prometheus (a query_range answer) or the DCGM exporter
// (text exposition) to each GPU's idle periods and idle share; with usage and a tariff, the
// billed seconds that fell in idle periods and what they cost, through the meter
// (docs/monitoring.md). The whole output is built before anything is printed, so an error
// leaves stdout empty; what the run assumed or let pass is said on stderr and in the JSON.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gpurent/io/monitor/idle_report.hpp>
#include <gpurent/io/monitor/idle_run.hpp>

#include "tool.hpp"

namespace {
using namespace gpurent;

struct idle_options {
  std::vector<std::string> metrics;
  std::string metric{io::default_utilization_metric};
  std::string threshold = "5";
  std::string min_idle = "30min";
  std::string max_gap = "5min";
  std::string usage_path, tariff_path, period;
  bool allow_unmatched = false;
  tool::output_format format{};
};

// io::parse_idle_rules, its fields named as the options are (max_gap: --max-gap).
expected<idle_rules> rules_of(const idle_options& o) {
  auto r = io::parse_idle_rules(o.threshold, o.min_idle, o.max_gap);
  if (!r) {
    std::string option = "--" + r.error().field;
    std::replace(option.begin(), option.end(), '_', '-');
    return unexpected(r.error().in_field(option));
  }
  return r;
}

// Reads, analyses and bills (io/monitor/idle_run.hpp); the report to print.
expected<io::idle_report> build_report(const idle_options& o) {
  GPURENT_TRY(rules, rules_of(o));
  GPURENT_TRY(io::utilization_unit(o.metric));  // before any file is read
  const bool billed = !o.usage_path.empty() || !o.tariff_path.empty() || !o.period.empty();
  if (billed && (o.usage_path.empty() || o.tariff_path.empty() || o.period.empty()))
    return make_error(error_code::invalid_argument, o.usage_path.empty() ? "--usage" : (o.tariff_path.empty() ? "--tariff" : "--period"),
                      "--usage, --tariff and --period go together");
  GPURENT_TRY(gpus, io::read_utilization_files(o.metrics, o.metric));
  std::optional<io::idle_billing_inputs> billing;
  if (billed) billing = io::idle_billing_inputs{o.usage_path, o.tariff_path, o.period, o.allow_unmatched, "--allow-unmatched"};
  auto report = io::build_idle_report(std::move(*gpus), o.metric, *rules, billing);
  if (!report && report.error().field == "period") return unexpected(report.error().in_field("--period"));
  return report;
}

tool::runner setup_idle(CLI::App& app) {
  auto o = std::make_shared<idle_options>();
  auto* cmd = app.add_subcommand(
      "idle", "idle GPUs from utilization metrics (Prometheus query_range JSON, DCGM exporter text), and what their idle billed time cost");
  cmd->add_option("--metrics", o->metrics, "utilization files: Prometheus query_range answers or DCGM exporter scrapes with timestamps")
      ->required()
      ->expected(1, -1);
  cmd->add_option("--metric", o->metric,
                  "the series to read (default DCGM_FI_DEV_GPU_UTIL; series without a name are always read); DCGM_FI_PROF_* activity fields "
                  "are read as ratios 0..1, a metric gpurent does not know as a percentage, with a warning");
  cmd->add_option("--threshold", o->threshold,
                  "a GPU is idle while its utilization is below this percentage (default 5; a ratio field is compared with it / 100)");
  cmd->add_option("--min-idle", o->min_idle, "idle periods of at most this are dropped (default 30min)")->type_name("DURATION");
  cmd->add_option("--max-gap", o->max_gap, "a sample holds at most this long; beyond, the GPU is not observed (default 5min)")->type_name("DURATION");
  cmd->add_option("--usage", o->usage_path, "usage CSV (as gpurent meter reads it) with a gpu column naming each record's GPU");
  cmd->add_option("--tariff", o->tariff_path, "tariff JSON (as gpurent meter reads it)");
  cmd->add_option("--period", o->period, "calendar month in the tariff's time zone, YYYY-MM");
  cmd->add_flag("--allow-unmatched", o->allow_unmatched,
                "a usage gpu that names no series is a warning, its time unobserved (default: an error, exit 2)");
  tool::add_format_option(*cmd, o->format,
                          {{"json", tool::output_format::json}, {"table", tool::output_format::table}, {"csv", tool::output_format::csv}});
  return [o] {
    auto report = build_report(*o);
    if (!report) return tool::fail(report.error());
    for (const std::string& w : report->warnings) fmt::print(stderr, "gpurent: warning: {}\n", w);
    std::string out;
    if (o->format == tool::output_format::csv) {
      out = io::write_idle_csv(*report);
    } else if (o->format == tool::output_format::table) {
      out = io::write_idle_table(*report);
    } else {
      auto j = io::write_idle_json(*report);
      if (!j) return tool::fail(j.error());
      out = std::move(*j);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return tool::exit_ok;  // main checks that stdout took it
  };
}
GPURENT_TOOL_COMMAND("idle", &setup_idle);
}  // namespace
