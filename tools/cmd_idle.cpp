// SPDX-License-Identifier: MIT
// gpurent idle: GPU utilization from Prometheus (a query_range answer) or the DCGM exporter
// (text exposition) to each GPU's idle periods and idle share; with usage and a tariff, the
// billed seconds that fell in idle periods and what they cost, through the meter
// (docs/monitoring.md). The whole output is built before anything is printed, so an error
// leaves stdout empty; what the run assumed or let pass is said on stderr and in the JSON.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/io/monitor/idle_report.hpp>
#include <gpurent/io/monitor/utilization_file.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/waste.hpp>

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

expected<idle_rules> rules_of(const idle_options& o) {
  idle_rules r;
  auto t = io::parse_percent(o.threshold, true);
  if (!t) return unexpected(t.error().in_field("--threshold"));
  r.threshold = *t;
  GPURENT_TRY(m, tool::duration_option(o.min_idle, "--min-idle"));
  GPURENT_TRY(g, tool::duration_option(o.max_gap, "--max-gap", {.positive = true}));
  r.min_idle = *m;
  r.max_gap = *g;
  return r;
}

// The usage's records and lines; an error when no record can name its GPU.
expected<std::pair<std::vector<usage_record>, std::vector<std::size_t>>> read_usage(const std::string& path) {
  GPURENT_TRY(text, io::read_file(path));
  GPURENT_TRY(located, io::parse_usage_csv(*text, path));
  std::pair<std::vector<usage_record>, std::vector<std::size_t>> out;
  bool named = false;
  for (io::located_record& r : *located) {
    for (const auto& label : r.record.labels) named = named || label.first == gpu_label;
    out.first.push_back(std::move(r.record));
    out.second.push_back(r.line);
  }
  if (!named && !out.first.empty())
    return unexpected(
        error{error_code::invalid_argument, std::string(gpu_label),
              "no record of the usage names a GPU (a gpu column, or gpu=... in the labels column): each record names the GPU it ran on (its UUID, "
              "or Hostname:index) for idle time to be billed",
              path + ":1"});
  return out;
}

// Every usage GPU that names no series: an error, or with --allow-unmatched a warning each.
expected<void> check_usage_gpus(const idle_options& o, const std::vector<usage_record>& records, const std::vector<std::size_t>& lines,
                                io::idle_report& report) {
  const auto unmatched = io::unmatched_gpus(records, lines, report.gpus);
  if (unmatched.empty()) return {};
  if (!o.allow_unmatched) {
    error e = io::unmatched_gpu_error(unmatched.front(), unmatched.size(), o.usage_path, report.gpus);
    e.message += "; --allow-unmatched counts such time unobserved instead";
    return unexpected(std::move(e));
  }
  for (const io::unmatched_gpu& u : unmatched)
    report.warnings.push_back(io::unmatched_gpu_error(u, 1, o.usage_path, report.gpus).describe() +
                              "; its time is counted unobserved (--allow-unmatched)");
  return {};
}

// Reads, analyses and bills; the report to print.
expected<io::idle_report> build_report(const idle_options& o) {
  io::idle_report report;
  GPURENT_TRY(rules, rules_of(o));
  report.rules = *rules;
  GPURENT_TRY(unit, io::utilization_unit(o.metric));
  report.unit = *unit;
  if (unit->assumed)
    report.warnings.push_back(o.metric + " is not a DCGM field gpurent knows: its values are read as a percentage (0 to 100), threshold " +
                              format_percent(report.rules.threshold) + "%");
  io::gpu_utilization_set set;
  for (const std::string& f : o.metrics) GPURENT_TRY(io::read_utilization_file(f, o.metric, set));
  const bool billed = !o.usage_path.empty() || !o.tariff_path.empty() || !o.period.empty();
  if (billed && (o.usage_path.empty() || o.tariff_path.empty() || o.period.empty()))
    return make_error(error_code::invalid_argument, o.usage_path.empty() ? "--usage" : (o.tariff_path.empty() ? "--tariff" : "--period"),
                      "--usage, --tariff and --period go together");
  if (!billed) {
    GPURENT_TRY(gpus, io::analyze_gpus(set.take(), report.rules));
    report.gpus = std::move(*gpus);
    return report;
  }
  GPURENT_TRY(t, io::load_tariff_json(o.tariff_path));
  auto month = meter::for_month(*t, o.period);
  if (!month) return unexpected(month.error().in_field("--period"));
  GPURENT_TRY(gpus, io::analyze_gpus(set.take(), report.rules, month->period()));
  report.gpus = std::move(*gpus);
  GPURENT_TRY(usage, read_usage(o.usage_path));
  GPURENT_TRY(check_usage_gpus(o, usage->first, usage->second, report));
  GPURENT_TRY(bill, bill_idle(*t, o.period, usage->first, usage->second, o.usage_path, report.gpus));
  report.billing = std::move(*bill);
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
