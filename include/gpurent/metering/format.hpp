// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the metering types. A usage record, an invoice line and an account
// print as one line each; an invoice prints as a table for a person (what `gpurent meter
// --format table` shows), with every line's exact amount and its rounding next to the
// amount charged, so no rounding is hidden. Amounts print exactly: a terminating decimal,
// else a fraction ("83/2000"). Width, fill and alignment work as for strings.

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gpurent/core/format.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/usage.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/format.hpp>

namespace gpurent::detail::metering_format {

// "+1/300", "-0.004", "0": the sign always shown, so the direction of a rounding is plain.
[[nodiscard]] inline std::string signed_exact(const ratio<>& r) {
  const std::string s = format_exact(r);
  return r.num() > 0 ? "+" + s : s;
}

[[nodiscard]] inline std::string record_text(const usage_record& r) {
  std::string s = r.id + ": " + r.account + " " + r.resource + " " + r.mode + " x" + tariff_format::nano_text(r.quantity) + " [" +
                  format_instant(r.start) + ", " + format_instant(r.end) + ")";
  if (!r.labels.empty()) {
    s += " {";
    for (std::size_t i = 0; i < r.labels.size(); ++i) s += (i == 0 ? "" : ", ") + r.labels[i].first + "=" + r.labels[i].second;
    s += "}";
  }
  return s;
}

[[nodiscard]] inline std::string line_text(const invoice_line& l) {
  std::string s = l.resource + " " + l.mode + ": " + money_text(l.amount) + " (" + plural(l.records, "record", "records") + ", " +
                  std::to_string(l.billed_seconds) + " s billed, exact " + format_exact(l.exact);
  if (l.carry_in.num() != 0) s += ", carry in " + signed_exact(l.carry_in);
  s += ", rounding " + signed_exact(l.rounding);
  if (l.forgiven) s += ", forgiven";
  return s + ")";
}

[[nodiscard]] inline std::string account_text(const invoice_account& a) {
  std::string s = a.account + ": " + money_text(a.total) + " in " + plural(static_cast<std::int64_t>(a.lines.size()), "line", "lines");
  if (a.credit_applied.minor_units() != 0) s += ", credit applied " + money_text(a.credit_applied);
  s += ", due " + money_text(a.due);
  if (a.credit_remaining.minor_units() != 0) s += ", credit remaining " + money_text(a.credit_remaining);
  return s;
}

// The invoice as a table: a title line, a header, per account its lines, then total,
// credit applied and due (credit rows only when there is a credit), and the counts of
// records left out, so that nothing the meter saw goes unmentioned.
[[nodiscard]] inline std::string invoice_table(const invoice& inv) {
  using row = std::array<std::string, 8>;
  std::vector<row> rows;
  rows.push_back({"ACCOUNT", "RESOURCE", "MODE", "RECORDS", "BILLED_S", "AMOUNT", "EXACT", "ROUNDING"});
  for (const invoice_account& a : inv.accounts) {
    for (const invoice_line& l : a.lines) {
      std::string rounding = signed_exact(l.rounding);
      if (l.carry_in.num() != 0) rounding += " (carry in " + signed_exact(l.carry_in) + ")";
      if (l.forgiven) rounding += " (forgiven)";
      rows.push_back({a.account, l.resource, l.mode, std::to_string(l.records), std::to_string(l.billed_seconds), l.amount.to_string(),
                      format_exact(l.exact), rounding});
    }
    for (const invoice_commitment& k : a.commitments) {
      const std::string used = format_exact(ratio<>(detail::to_int128(k.used.raw()), int128(detail::nano_one) * 3600));
      const std::string offered = format_exact(ratio<>(detail::to_int128(k.available.raw()), int128(detail::nano_one) * 3600));
      rows.push_back({a.account, "commitment " + k.resource, k.mode, "", "", k.amount.to_string(), format_exact(k.exact),
                      "used " + used + " of " + offered + " unit-hours"});
    }
    for (const invoice_prepaid& k : a.prepaid) {
      const auto th = [](const int128& flop) { return detail::format_minor(tflops_hours_of(flop).round_to_digits(3, rounding_mode::half_even), 3); };
      rows.push_back({a.account, "prepaid " + k.id, k.per_tflops, "", "", k.amount.to_string(), format_exact(k.exact),
                      "opened " + th(k.opening) + ", drew " + th(k.drawn) + (k.expired != 0 ? ", expired " + th(k.expired) : "") + ", left " +
                          th(k.closing) + " TFLOPS-h"});
    }
    rows.push_back({a.account, "total", "", "", "", a.total.to_string(), format_exact(a.exact_total), ""});
    if (a.credit_applied.minor_units() != 0 || a.credit_remaining.minor_units() != 0) {
      rows.push_back({a.account, "credit applied", "", "", "", (-a.credit_applied).to_string(), "", ""});
      rows.push_back({a.account, "credit remaining", "", "", "", a.credit_remaining.to_string(), "", ""});
    }
    rows.push_back({a.account, "due", "", "", "", a.due.to_string(), "", ""});
  }
  std::array<std::size_t, 8> width{};
  for (const row& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  constexpr std::array<bool, 8> right{false, false, false, true, true, true, true, false};

  std::string s = "invoice " + inv.period + " (" + inv.timezone + ", " + format_instant(inv.span.begin()) + " to " + format_instant(inv.span.end()) +
                  "), " + std::string(inv.ccy.code) + ", rounding " + tariff_format::rounding(inv.rounding) + "\n";
  for (const row& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string pad(width[c] - r[c].size(), ' ');
      line += right[c] ? pad + r[c] : r[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    s += line + "\n";
  }
  if (inv.accounts.empty()) s += "(no usage in the period)\n";
  s += plural(inv.records_out_of_period, "record", "records") + " out of period, " +
       plural(inv.duplicates_ignored, "identical repeat", "identical repeats") + " counted once\n";
  return s;
}

}  // namespace gpurent::detail::metering_format

// "r1: acme gpu/H100-80GB on_demand x0.5 [2026-11-01T00:00:00Z, 2026-11-01T01:00:00Z) {job=a}"
template <>
struct fmt::formatter<gpurent::usage_record> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::usage_record& r, format_context& ctx) const { return put(gpurent::detail::metering_format::record_text(r), ctx); }
};

// "gpu/H100-80GB on_demand: 12.34 USD (3 records, 7200 s billed, exact 12.3375, rounding -0.0025)"
template <>
struct fmt::formatter<gpurent::invoice_line> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::invoice_line& l, format_context& ctx) const { return put(gpurent::detail::metering_format::line_text(l), ctx); }
};

// "acme: 12.34 USD in 2 lines, credit applied 5.00 USD, due 7.34 USD"
template <>
struct fmt::formatter<gpurent::invoice_account> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::invoice_account& a, format_context& ctx) const { return put(gpurent::detail::metering_format::account_text(a), ctx); }
};

// The invoice as a table, ending in a newline.
template <>
struct fmt::formatter<gpurent::invoice> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::invoice& inv, format_context& ctx) const { return put(gpurent::detail::metering_format::invoice_table(inv), ctx); }
};
