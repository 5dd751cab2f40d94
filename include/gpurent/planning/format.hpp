// SPDX-License-Identifier: MIT
#pragma once
// Printing plans: fmt formatters for the planning enums and a plain-text table of a plan,
// readable at a terminal.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <gpurent/core/format.hpp>
#include <gpurent/matching/offers.hpp>
#include <gpurent/planning/planner.hpp>
#include <gpurent/planning/workload.hpp>

template <>
struct fmt::formatter<gpurent::job_kind> : gpurent::detail::string_view_formatter {
  auto format(gpurent::job_kind k, format_context& ctx) const { return put(std::string(gpurent::to_string(k)), ctx); }
};
template <>
struct fmt::formatter<gpurent::offer_mode> : gpurent::detail::string_view_formatter {
  auto format(gpurent::offer_mode m, format_context& ctx) const { return put(std::string(gpurent::to_string(m)), ctx); }
};
template <>
struct fmt::formatter<gpurent::offer_unit> : gpurent::detail::string_view_formatter {
  auto format(gpurent::offer_unit u, format_context& ctx) const { return put(std::string(gpurent::to_string(u)), ctx); }
};

namespace gpurent {

// The plan as a table: one row per job, totals, packing, then each job's reason.
[[nodiscard]] inline std::string format_plan_table(const plan_result& p) {
  struct row {
    std::vector<std::string> cells;
  };
  const std::vector<std::string> head = {"job", "kind", "offer", "mode", "sharing", "count", "expected", "naive"};
  std::vector<row> rows;
  for (const job_plan& j : p.jobs)
    rows.push_back({{j.name, std::string(to_string(j.kind)), j.offer, std::string(to_string(j.mode)), j.sharing, std::to_string(j.count),
                     j.expected_cost.to_string(), j.naive_cost.to_string()}});
  rows.push_back({{"total", "", "", "", "", "", p.total_cost.to_string(), p.naive_cost.to_string()}});
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const row& r : rows) width[c] = std::max(width[c], r.cells[c].size());
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool right = c >= 5;  // numbers right-aligned
      s += right ? fmt::format("{:>{}}", cells[c], width[c]) : fmt::format("{:<{}}", cells[c], width[c]);
      s += c + 1 < cells.size() ? "  " : "";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  const std::string ccy(p.ccy.code);
  std::string out = fmt::format("gpurent plan: {} jobs in {} ({}), amounts in {}\n\n", p.jobs.size(), p.period, p.timezone, ccy);
  out += line(head);
  std::size_t total_width = 0;
  for (std::size_t w : width) total_width += w + 2;
  out += std::string(total_width - 2, '-') + "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i + 1 == rows.size()) out += std::string(total_width - 2, '-') + "\n";
    out += line(rows[i].cells);
  }
  const money_value savings = p.naive_cost - p.total_cost;
  out += fmt::format("\nbilled total (meter.md rules, one rounding per line): {} {}\n", p.billed_total.to_string(), ccy);
  out += fmt::format("saved against the naive plan (exclusive whole GPUs, hourly, on demand): {} {}\n", savings.to_string(), ccy);
  out += fmt::format("packing: {} job(s) could share a GPU, {} shared unit(s), {}; cost {} {}, lower bound {} {} (gap {:.1f}%)\n",
                     p.packing.items, p.packing.bins, p.packing.exact ? "exact over all partitions" : "first-fit-decreasing heuristic",
                     p.packing.cost.to_string(), ccy, p.packing.lower_bound.to_string(), ccy, p.packing.gap * 100.0);
  out += "\nwhy:\n";
  for (const job_plan& j : p.jobs) out += fmt::format("  {}: {}\n", j.name, j.reason);
  return out;
}

}  // namespace gpurent
