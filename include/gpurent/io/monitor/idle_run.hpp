// SPDX-License-Identifier: MIT
#pragma once
// gpurent idle as one library call, made by the tool's `idle` and by Python's gpurent.idle:
// every GPU's samples analysed under idle_rules and, given usage, a tariff and a month, the
// billed seconds that fell in idle periods and their cost (docs/monitoring.md). The samples
// are read by utilization_file.hpp; what was assumed or let pass is in the report's warnings.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/io/monitor/idle_report.hpp>
#include <gpurent/io/monitor/utilization_file.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/waste.hpp>

namespace gpurent::io {

// What idle time is billed with: a usage CSV whose records name their GPU, a tariff JSON and
// a calendar month of its time zone.
struct idle_billing_inputs {
  std::string usage_path, tariff_path, period;
  bool allow_unmatched = false;  // a usage GPU naming no series: a warning, its time unobserved
  // How the caller's user lets unmatched GPUs pass ("--allow-unmatched" for the tool), named in
  // the error and the warnings.
  std::string allow_hint = "allow_unmatched";
};

// The rules as options write them: `threshold` a percentage, `min_idle` and `max_gap`
// durations (max_gap positive); an error in the field of that name.
[[nodiscard]] inline expected<idle_rules> parse_idle_rules(std::string_view threshold, std::string_view min_idle, std::string_view max_gap) {
  idle_rules r;
  auto t = parse_percent(threshold, true);
  if (!t) return unexpected(t.error().in_field("threshold"));
  auto m = parse_duration(min_idle);
  if (!m) return unexpected(m.error().in_field("min_idle"));
  auto g = parse_duration(max_gap);
  if (!g) return unexpected(g.error().in_field("max_gap"));
  if (g->count() <= 0) return make_error(error_code::invalid_argument, "max_gap", "must be positive");
  r.threshold = *t;
  r.min_idle = *m;
  r.max_gap = *g;
  return r;
}

// A usage file's records and their lines; an error when no record names its GPU.
struct idle_usage {
  std::vector<usage_record> records;
  std::vector<std::size_t> lines;
};

[[nodiscard]] inline expected<idle_usage> read_idle_usage(const std::string& path) {
  GPURENT_TRY(text, read_file(path));
  GPURENT_TRY(located, parse_usage_csv(*text, path));
  idle_usage out;
  bool named = false;
  for (located_record& r : *located) {
    for (const auto& label : r.record.labels) named = named || label.first == gpu_label;
    out.records.push_back(std::move(r.record));
    out.lines.push_back(r.line);
  }
  if (!named && !out.records.empty())
    return unexpected(
        error{error_code::invalid_argument, std::string(gpu_label),
              "no record of the usage names a GPU (a gpu column, or gpu=... in the labels column): each record names the GPU it ran on (its UUID, "
              "or Hostname:index) for idle time to be billed",
              path + ":1"});
  return out;
}

namespace detail {

// Every usage GPU that names no series: an error, or when let pass a warning each.
[[nodiscard]] inline expected<void> check_usage_gpus(const idle_billing_inputs& b, const idle_usage& usage, idle_report& report) {
  const auto unmatched = unmatched_gpus(usage.records, usage.lines, report.gpus);
  if (unmatched.empty()) return {};
  if (!b.allow_unmatched) {
    error e = unmatched_gpu_error(unmatched.front(), unmatched.size(), b.usage_path, report.gpus);
    e.message += "; " + b.allow_hint + " counts such time unobserved instead";
    return unexpected(std::move(e));
  }
  for (const unmatched_gpu& u : unmatched)
    report.warnings.push_back(unmatched_gpu_error(u, 1, b.usage_path, report.gpus).describe() + "; its time is counted unobserved (" + b.allow_hint +
                              ")");
  return {};
}

}  // namespace detail

// The report of `gpus` (the samples of `metric`, read by read_utilization_file) under
// `rules`; with `billing`, the month's billed idle time. The window is the samples' own, or
// with billing the month. An error names the field ("period", "gpu") or the file and line.
[[nodiscard]] inline expected<idle_report> build_idle_report(std::vector<gpu_utilization> gpus, std::string_view metric, const idle_rules& rules,
                                                             const std::optional<idle_billing_inputs>& billing) {
  idle_report report;
  report.rules = rules;
  GPURENT_TRY(unit, utilization_unit(metric));
  report.unit = *unit;
  if (unit->assumed)
    report.warnings.push_back(std::string(metric) + " is not a DCGM field gpurent knows: its values are read as a percentage (0 to 100), threshold " +
                              format_percent(rules.threshold) + "%");
  if (!billing) {
    GPURENT_TRY(analysed, analyze_gpus(std::move(gpus), rules));
    report.gpus = std::move(*analysed);
    return report;
  }
  GPURENT_TRY(t, load_tariff_json(billing->tariff_path));
  auto month = meter::for_month(*t, billing->period);
  if (!month) return unexpected(month.error().in_field("period"));
  GPURENT_TRY(analysed, analyze_gpus(std::move(gpus), rules, month->period()));
  report.gpus = std::move(*analysed);
  GPURENT_TRY(usage, read_idle_usage(billing->usage_path));
  GPURENT_TRY(detail::check_usage_gpus(*billing, *usage, report));
  GPURENT_TRY(bill, bill_idle(*t, billing->period, usage->records, usage->lines, billing->usage_path, report.gpus));
  report.billing = std::move(*bill);
  return report;
}

// The samples of `metric` in every file of `paths`, by GPU (utilization_file.hpp).
[[nodiscard]] inline expected<std::vector<gpu_utilization>> read_utilization_files(const std::vector<std::string>& paths, std::string_view metric) {
  gpu_utilization_set set;
  for (const std::string& f : paths) GPURENT_TRY(read_utilization_file(f, metric, set));
  return set.take();
}

}  // namespace gpurent::io
