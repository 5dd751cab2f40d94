// SPDX-License-Identifier: MIT
#pragma once
// The idle report `gpurent idle` prints (docs/monitoring.md), as JSON, CSV or a table: each
// GPU's observed and idle seconds and idle periods, the totals and the idle share; with usage,
// per account, resource and mode the billed seconds that fell in idle periods and what they
// cost under the tariff (metering/waste.hpp, bill_idle and idle_cost_of). And the check that every GPU the usage
// names is a series of the metrics (unmatched_gpus).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/monitor/gpu_metrics.hpp>
#include <gpurent/io/text/csv.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/waste.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent::io {

// What a report shows: the rules, every GPU's report, and the billing when usage was given.
struct idle_report {
  idle_rules rules;
  metric_unit unit;  // how the values were read
  gpu_reports gpus;
  std::optional<idle_billing> billing;
  std::vector<std::string> warnings;  // what the run assumed or let pass (also said on stderr)

  [[nodiscard]] seconds observed_seconds() const noexcept {
    seconds s{0};
    for (const auto& [gpu, r] : gpus) s += r.observed_seconds();
    return s;
  }
  [[nodiscard]] seconds idle_seconds() const noexcept {
    seconds s{0};
    for (const auto& [gpu, r] : gpus) s += r.idle_seconds();
    return s;
  }
};

// ---- usage GPUs without a series ----------------------------------------------------------------

// A GPU a usage record names (record_gpus) that no series of the metrics is: its time could
// only be unobserved, so it is an error unless the caller lets it pass, and then a warning.
struct unmatched_gpu {
  std::string gpu;
  std::size_t line = 0;     // the first usage line naming it
  std::size_t records = 0;  // how many records name it
  friend bool operator==(const unmatched_gpu&, const unmatched_gpu&) = default;
};

// Every GPU of `records` (each from line `lines[i]`) missing from `reports`, in the order
// of its first line.
[[nodiscard]] inline std::vector<unmatched_gpu> unmatched_gpus(std::span<const usage_record> records, std::span<const std::size_t> lines,
                                                               const gpu_reports& reports) {
  std::vector<unmatched_gpu> out;
  std::map<std::string_view, std::size_t> index;  // gpu -> its place in out
  for (std::size_t i = 0; i < records.size(); ++i) {
    for (std::string_view g : record_gpus(records[i])) {
      if (reports.contains(g)) continue;
      const auto [it, fresh] = index.try_emplace(g, out.size());
      if (fresh) out.push_back({std::string(g), i < lines.size() ? lines[i] : 0, 0});
      ++out[it->second].records;
    }
  }
  return out;
}

// "the 12 series are GPU-a, GPU-b, node-b:1, ...": what the series are called, the first few.
[[nodiscard]] inline std::string series_names(const gpu_reports& reports) {
  constexpr std::size_t shown = 3;
  std::string out = reports.size() == 1 ? "the 1 series is " : "the " + std::to_string(reports.size()) + " series are ";
  std::size_t k = 0;
  for (const auto& [gpu, r] : reports) {
    if (k == shown) {
      out += ", ...";
      break;
    }
    out += (k++ == 0 ? "" : ", ") + gpu;
  }
  return out;
}

// The error (or, let pass, the warning) of one unmatched GPU of usage file `usage`: its first
// line, the value, how many records and GPUs are like it, and what the series are called.
[[nodiscard]] inline error unmatched_gpu_error(const unmatched_gpu& u, std::size_t unmatched, std::string_view usage, const gpu_reports& reports) {
  std::string more;
  if (u.records > 1) more += " (" + std::to_string(u.records) + " records)";
  if (unmatched > 1)
    more += "; " + std::to_string(unmatched - 1) + (unmatched > 2 ? " other usage GPUs name" : " other usage GPU names") + " no series either";
  return error{error_code::invalid_argument, std::string(gpu_label),
               "\"" + u.gpu + "\" names no utilization series" + more + ": " + series_names(reports) +
                   " (a series is named by its UUID label, else Hostname:gpu; a MIG instance adds /GPU_I_ID)",
               std::string(usage) + ":" + std::to_string(u.line)};
}

// ---- the report -----------------------------------------------------------------------------------

// One line of the billed idle time: the whole line as billed, its idle parts, what its idle
// time cost (idle_cost_of), its unobserved seconds.
struct billed_idle_row {
  std::string_view account, resource, mode;
  const invoice_line* billed = nullptr;
  const invoice_line* idle = nullptr;  // null: nothing of the line was idle
  idle_cost cost;
  std::int64_t unobserved_seconds = 0;
};

// Every billed line, in the invoice's order (account, resource, mode).
[[nodiscard]] inline std::vector<billed_idle_row> billed_idle_rows(const idle_billing& b) {
  std::vector<billed_idle_row> out;
  for (const invoice_account& a : b.billed.accounts) {
    for (const invoice_line& l : a.lines) {
      billed_idle_row r{a.account, l.resource, l.mode, &l, find_line(b.idle, a.account, l.resource, l.mode), idle_cost_of(b, a.account, l), 0};
      for (const unobserved_line& u : b.unobserved)
        if (u.account == a.account && u.resource == l.resource && u.mode == l.mode) r.unobserved_seconds = u.seconds;
      out.push_back(r);
    }
  }
  return out;
}

// The sum of every account's total in `inv` (one currency).
[[nodiscard]] inline expected<money_value> invoice_total(const invoice& inv) {
  money_value sum(inv.ccy, int128(0));
  for (const invoice_account& a : inv.accounts) {
    GPURENT_TRY(s, sum.plus(a.total));
    sum = *s;
  }
  return sum;
}

namespace detail {

// A share as a JSON number with four decimals (0.2934).
[[nodiscard]] inline nlohmann::ordered_json share_json(seconds idle, seconds observed) {
  return static_cast<double>(share_basis_points(idle, observed)) / 10'000.0;
}

[[nodiscard]] inline nlohmann::ordered_json gpu_json(const std::string& gpu, const utilization_report& r) {
  using oj = nlohmann::ordered_json;
  oj periods = oj::array();
  for (const interval& p : r.idle)
    periods.push_back({{"start", format_instant(p.begin())}, {"end", format_instant(p.end())}, {"seconds", p.length().count()}});
  return {{"gpu", gpu},
          {"observed_s", r.observed_seconds().count()},
          {"idle_s", r.idle_seconds().count()},
          {"idle_share", share_json(r.idle_seconds(), r.observed_seconds())},
          {"scrape_interval_s", r.scrape_interval.count()},
          {"periods", std::move(periods)}};
}

[[nodiscard]] inline nlohmann::ordered_json billed_idle_line_json(const billed_idle_row& r) {
  return {{"account", r.account},
          {"resource", r.resource},
          {"mode", r.mode},
          {"records", r.billed->records},
          {"billed_seconds", r.billed->billed_seconds},
          {"amount", r.billed->amount.to_string()},
          {"idle_records", r.idle != nullptr ? r.idle->records : 0},
          {"idle_seconds", r.idle != nullptr ? r.idle->used_seconds : 0},
          {"idle_billed_seconds", r.cost.billed_seconds},
          {"idle_exact", format_exact(r.cost.exact)},
          {"idle_amount", r.cost.amount.to_string()},
          {"unobserved_seconds", r.unobserved_seconds}};
}

[[nodiscard]] inline expected<nlohmann::ordered_json> billing_json(const idle_billing& b) {
  using oj = nlohmann::ordered_json;
  oj lines = oj::array();
  std::int64_t billed_s = 0, idle_s = 0, unobserved_s = 0;
  money_value idle_amount(b.billed.ccy, int128(0));
  for (const billed_idle_row& r : billed_idle_rows(b)) {
    lines.push_back(billed_idle_line_json(r));
    billed_s += r.billed->billed_seconds;
    idle_s += r.idle != nullptr ? r.idle->used_seconds : 0;
    unobserved_s += r.unobserved_seconds;
    GPURENT_TRY(sum, idle_amount.plus(r.cost.amount));
    idle_amount = *sum;
  }
  GPURENT_TRY(amount, invoice_total(b.billed));
  return oj{{"currency", std::string(b.billed.ccy.code)},
            {"period", b.billed.period},
            {"timezone", b.billed.timezone},
            {"lines", std::move(lines)},
            {"billed_seconds", billed_s},
            {"idle_seconds", idle_s},
            {"unobserved_seconds", unobserved_s},
            {"amount", amount->to_string()},
            {"idle_amount", idle_amount.to_string()}};
}

}  // namespace detail

// The JSON of the command's contract, with a final newline; `unit` when the values were not
// read as a percentage of the table ("ratio", "percent (assumed)"), `warnings` when there are.
[[nodiscard]] inline expected<std::string> write_idle_json(const idle_report& r) {
  nlohmann::ordered_json j;
  j["threshold"] = percent_json<nlohmann::ordered_json>(r.rules.threshold);
  j["min_idle_s"] = r.rules.min_idle.count();
  j["max_gap_s"] = r.rules.max_gap.count();
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
  for (const auto& [gpu, rep] : r.gpus) gpus.push_back(detail::gpu_json(gpu, rep));
  j["gpus"] = std::move(gpus);
  j["observed_s"] = r.observed_seconds().count();
  j["idle_s"] = r.idle_seconds().count();
  j["idle_share"] = detail::share_json(r.idle_seconds(), r.observed_seconds());
  if (r.billing) {
    GPURENT_TRY(b, detail::billing_json(*r.billing));
    j["billed_idle"] = std::move(*b);
  }
  // Only when they say something, so the report of the default metric stays as it was.
  if (r.unit != metric_unit{}) j["unit"] = r.unit.text();
  if (!r.warnings.empty()) j["warnings"] = r.warnings;
  return j.dump(2) + "\n";
}

// "0.2934": a share with four decimals.
[[nodiscard]] inline std::string format_share(seconds idle, seconds observed) {
  const std::int64_t bp = share_basis_points(idle, observed);
  return fmt::format("{}.{:04}", bp / 10'000, bp % 10'000);
}

// CSV, one row per GPU, idle period, total and billed line; columns
// kind,gpu,start,end,observed_s,idle_s,idle_share,account,resource,mode,billed_seconds,amount,idle_seconds,idle_amount,unobserved_seconds,currency
[[nodiscard]] inline std::string write_idle_csv(const idle_report& r) {
  std::string out =
      "kind,gpu,start,end,observed_s,idle_s,idle_share,account,resource,mode,billed_seconds,amount,idle_seconds,idle_amount,unobserved_seconds,"
      "currency\n";
  const auto n = [](auto v) { return std::to_string(v); };
  for (const auto& [gpu, rep] : r.gpus) {
    const std::string obs = n(rep.observed_seconds().count()), idle = n(rep.idle_seconds().count());
    csv_row(out, {"gpu", gpu, "", "", obs, idle, format_share(rep.idle_seconds(), rep.observed_seconds()), "", "", "", "", "", "", "", "", ""});
    for (const interval& p : rep.idle)
      csv_row(out,
              {"period", gpu, format_instant(p.begin()), format_instant(p.end()), "", n(p.length().count()), "", "", "", "", "", "", "", "", "", ""});
  }
  csv_row(out, {"total", "", "", "", n(r.observed_seconds().count()), n(r.idle_seconds().count()),
                format_share(r.idle_seconds(), r.observed_seconds()), "", "", "", "", "", "", "", "", ""});
  if (!r.billing) return out;
  const std::string ccy(r.billing->billed.ccy.code);
  for (const billed_idle_row& b : billed_idle_rows(*r.billing)) {
    const std::string idle_s = n(b.idle != nullptr ? b.idle->used_seconds : 0);
    csv_row(out, {"billed_idle", "", "", "", "", "", "", b.account, b.resource, b.mode, n(b.billed->billed_seconds), b.billed->amount.to_string(),
                  idle_s, b.cost.amount.to_string(), n(b.unobserved_seconds), ccy});
  }
  return out;
}

// For people: one row per GPU with its idle periods under it, the totals, then the billed lines.
[[nodiscard]] inline std::string write_idle_table(const idle_report& r) {
  std::string out = fmt::format("{:<44} {:>12} {:>12} {:>7} {:>7}\n", "gpu", "observed", "idle", "share", "periods");
  const auto pct = [](seconds i, seconds o) { return fmt::format("{:.2f}%", static_cast<double>(share_basis_points(i, o)) / 100.0); };
  for (const auto& [gpu, rep] : r.gpus) {
    out += fmt::format("{:<44} {:>12} {:>12} {:>7} {:>7}\n", gpu, format_duration(rep.observed_seconds()), format_duration(rep.idle_seconds()),
                       pct(rep.idle_seconds(), rep.observed_seconds()), rep.idle.size());
    for (const interval& p : rep.idle)
      out += fmt::format("  idle {} .. {} ({})\n", format_instant(p.begin()), format_instant(p.end()), format_duration(p.length()));
  }
  out += fmt::format("{:<44} {:>12} {:>12} {:>7}\n", "total", format_duration(r.observed_seconds()), format_duration(r.idle_seconds()),
                     pct(r.idle_seconds(), r.observed_seconds()));
  out += fmt::format("idle: below {}% for more than {}; a sample holds at most {}\n", format_percent(r.rules.threshold),
                     format_duration(r.rules.min_idle), format_duration(r.rules.max_gap));
  if (!r.billing) return out;
  const invoice& inv = r.billing->billed;
  out += fmt::format("\nbilled idle ({}, {} in {}):\n{:<16} {:<24} {:<12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", inv.ccy.code, inv.period,
                     inv.timezone, "account", "resource", "mode", "billed", "amount", "idle", "idle amount", "unobserved");
  for (const billed_idle_row& b : billed_idle_rows(*r.billing)) {
    out += fmt::format("{:<16} {:<24} {:<12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", b.account, b.resource, b.mode,
                       format_duration(seconds(b.billed->billed_seconds)), b.billed->amount.to_string(),
                       format_duration(seconds(b.idle != nullptr ? b.idle->used_seconds : 0)), b.cost.amount.to_string(),
                       format_duration(seconds(b.unobserved_seconds)));
  }
  return out;
}

}  // namespace gpurent::io
