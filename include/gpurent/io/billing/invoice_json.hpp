// SPDX-License-Identifier: MIT
#pragma once
// Writes an invoice as JSON (docs/formats/billing.md, "Invoice JSON"; the CSV is
// invoice_csv.hpp's). Amounts are
// strings with exactly the currency's minor-unit digits; accounts and lines come sorted.
// With `detail`, every rounding is shown: the exact amount, the rounding applied, waste.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/labels.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent::io {

struct invoice_format_options {
  bool detail = false;  // add exact amounts, roundings, carries and waste
};

// A line's amount per label set (docs/formats/billing.md, "Labels"): each set's labels as an
// object, its records, billed seconds and part of the line's amount (with `detail`, also its
// exact amount and used seconds).
[[nodiscard]] inline nlohmann::ordered_json label_shares_json(const invoice_line& l, invoice_format_options opt) {
  using oj = nlohmann::ordered_json;
  oj out = oj::array();
  for (const invoice_label_share& s : l.labels) {
    oj tags = oj::object();
    for (const auto& [k, v] : label_set_pairs(s.labels)) tags[k] = v;
    oj js;
    js["labels"] = std::move(tags);
    js["records"] = s.records;
    js["billed_seconds"] = s.billed_seconds;
    js["amount"] = s.amount.to_string();
    if (opt.detail) {
      js["used_seconds"] = s.used_seconds;
      js["exact"] = format_exact(s.exact);
    }
    out.push_back(std::move(js));
  }
  return out;
}

// An account's commitments (docs/formats/billing.md, "Commitments"): each one's units, the
// part of the period it covered, its charge, and the unit-seconds it offered and the usage
// used (exact decimals); `detail` adds the exact charge.
[[nodiscard]] inline nlohmann::ordered_json commitments_json(const invoice_account& a, invoice_format_options opt) {
  using oj = nlohmann::ordered_json;
  const auto unit_seconds = [](const nano_usage& u) {
    return format_exact(ratio<>(::gpurent::detail::to_int128(u.raw()), int128(::gpurent::detail::nano_one)));
  };
  oj out = oj::array();
  for (const invoice_commitment& k : a.commitments) {
    oj j;
    j["resource"] = k.resource;
    j["mode"] = k.mode;
    j["units"] = format_exact(ratio<>(int128(k.units.raw()), int128(::gpurent::detail::nano_one)));
    j["start"] = format_instant(k.window.begin());
    j["end"] = format_instant(k.window.end());
    j["amount"] = k.amount.to_string();
    j["used_unit_seconds"] = unit_seconds(k.used);
    j["unused_unit_seconds"] = unit_seconds(k.available - k.used);
    if (opt.detail) j["exact"] = format_exact(k.exact);
    out.push_back(std::move(j));
  }
  return out;
}

// An account's prepaid packages (docs/formats/billing.md, "Prepaid packages"): each one's
// size, its charge in this period (its price in the month it is bought, else 0), and its
// balance through the period in exact TFLOPS-hours; the closing balance is what the next
// month's `--previous` reads. `detail` adds the exact charge.
[[nodiscard]] inline nlohmann::ordered_json prepaid_json(const invoice_account& a, invoice_format_options opt) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const invoice_prepaid& k : a.prepaid) {
    nlohmann::ordered_json j;
    j["id"] = k.id;
    j["per_tflops"] = k.per_tflops;
    j["tflops_hours"] = format_exact(ratio<>(int128(k.tflops_hours.raw()), int128(::gpurent::detail::nano_one)));
    j["bought"] = format_instant(k.bought);
    if (k.expires) j["expires"] = format_instant(*k.expires);
    j["amount"] = k.amount.to_string();
    j["opening_tflops_hours"] = format_exact(tflops_hours_of(k.opening));
    j["drawn_tflops_hours"] = format_exact(tflops_hours_of(k.drawn));
    j["expired_tflops_hours"] = format_exact(tflops_hours_of(k.expired));
    j["closing_tflops_hours"] = format_exact(tflops_hours_of(k.closing));
    if (opt.detail) j["exact"] = format_exact(k.exact);
    out.push_back(std::move(j));
  }
  return out;
}

[[nodiscard]] inline nlohmann::ordered_json invoice_to_json(const invoice& inv, invoice_format_options opt = {}) {
  using oj = nlohmann::ordered_json;
  oj j;
  j["currency"] = std::string(inv.ccy.code);
  j["period"] = inv.period;
  j["timezone"] = inv.timezone;
  if (opt.detail) {
    j["start"] = format_instant(inv.span.begin());
    j["end"] = format_instant(inv.span.end());
    j["rounding"] = {{"mode", std::string(to_string(inv.rounding.mode))},
                     {"point", std::string(to_string(inv.rounding.point))},
                     {"forgive_below_minor_unit", inv.rounding.forgive_below_minor_unit},
                     {"carry", inv.rounding.carry}};
  }
  oj accounts = oj::array();
  for (const auto& a : inv.accounts) {
    oj ja;
    ja["account"] = a.account;
    oj lines = oj::array();
    for (const auto& l : a.lines) {
      oj jl;
      jl["resource"] = l.resource;
      jl["mode"] = l.mode;
      jl["records"] = l.records;
      jl["billed_seconds"] = l.billed_seconds;
      jl["amount"] = l.amount.to_string();
      if (opt.detail) {
        jl["used_seconds"] = l.used_seconds;
        jl["exact"] = format_exact(l.exact);
        if (!(l.carry_in == ratio<>{})) jl["carry_in"] = format_exact(l.carry_in);
        jl["rounding"] = format_exact(l.rounding);
        if (inv.rounding.carry) jl["carry_out"] = format_exact(-l.rounding);
        jl["forgiven"] = l.forgiven;
        jl["waste_seconds"] = l.billed_seconds - l.used_seconds;
        jl["waste_amount"] = format_exact(l.waste);
      }
      if (!l.labels.empty()) jl["labels"] = label_shares_json(l, opt);
      lines.push_back(std::move(jl));
    }
    ja["lines"] = std::move(lines);
    if (!a.commitments.empty()) ja["commitments"] = commitments_json(a, opt);
    if (!a.prepaid.empty()) ja["prepaid"] = prepaid_json(a, opt);
    ja["total"] = a.total.to_string();
    ja["credit_applied"] = a.credit_applied.to_string();
    ja["due"] = a.due.to_string();
    if (opt.detail) {
      ja["exact_total"] = format_exact(a.exact_total);
      ja["credit_remaining"] = a.credit_remaining.to_string();
    }
    accounts.push_back(std::move(ja));
  }
  j["accounts"] = std::move(accounts);
  j["records_out_of_period"] = inv.records_out_of_period;
  if (opt.detail) j["duplicates_ignored"] = inv.duplicates_ignored;
  return j;
}

// The JSON text, indented by two spaces, with a final newline.
[[nodiscard]] inline std::string write_invoice_json(const invoice& inv, invoice_format_options opt = {}) {
  return invoice_to_json(inv, opt).dump(2) + "\n";
}

}  // namespace gpurent::io
