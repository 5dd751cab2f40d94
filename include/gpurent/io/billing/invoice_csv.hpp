// SPDX-License-Identifier: MIT
#pragma once
// Writes an invoice as CSV (docs/formats/billing.md, "Invoice CSV"): one table a finance
// system loads and filters by its `kind` column, every row with the period; lines with their
// quantity, unit and unit price in the tariff's terms, a line's label sets, commitments and
// prepaid packages, then
// per account its total, credit applied and due. With `detail`, exact amounts as decimals of
// 9 fractional digits (half even) and, beside them, the exact fraction.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/line_pricing.hpp>
#include <gpurent/io/text/csv.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent::io {

namespace detail {
inline constexpr std::string_view invoice_csv_header =
    "kind,account,resource,mode,records,billed_seconds,amount,currency,period,quantity,unit,unit_price,labels";
inline constexpr std::string_view invoice_csv_detail_header = ",used_seconds,exact,exact_fraction,rounding,waste_amount";

// An exact amount as a decimal of 9 fractional digits, half even (--detail's `exact`).
[[nodiscard]] inline std::string nine_digits(const ratio<>& x) {
  return ::gpurent::detail::format_minor(x.round_to_digits(9, rounding_mode::half_even), 9);
}

class invoice_csv_writer {
 public:
  invoice_csv_writer(const invoice& inv, invoice_format_options opt, const tariff* t) : inv_(inv), opt_(opt), t_(t) {}

  [[nodiscard]] std::string write() {
    out_ = std::string(invoice_csv_header) + (opt_.detail ? std::string(invoice_csv_detail_header) : "") + "\n";
    for (const auto& a : inv_.accounts) account(a);
    row({"records_out_of_period", "", "", "", std::to_string(inv_.records_out_of_period), "", "", std::string(inv_.ccy.code)});
    return std::move(out_);
  }

 private:
  // One row: the eight first columns, the period, then quantity, unit, unit price and labels,
  // then (with detail) the five detail columns, each padded with empty cells.
  void row(std::vector<std::string> first, std::vector<std::string> pricing = {}, std::vector<std::string> detail = {}) {
    first.push_back(inv_.period);
    pricing.resize(4);
    first.insert(first.end(), pricing.begin(), pricing.end());
    if (opt_.detail) {
      detail.resize(5);
      first.insert(first.end(), detail.begin(), detail.end());
    }
    for (std::size_t i = 0; i < first.size(); ++i) {
      if (i > 0) out_ += ',';
      csv_field(out_, first[i]);
    }
    out_ += '\n';
  }
  [[nodiscard]] const rate* rate_of(const std::string& resource, const std::string& mode) const {
    if (t_ == nullptr) return nullptr;
    const auto at = t_->find(resource, mode);
    return at ? &t_->rate_at(*at) : nullptr;
  }
  [[nodiscard]] std::vector<std::string> detail_of(const invoice_line& l, bool whole_line) const {
    if (!whole_line) return {std::to_string(l.used_seconds), nine_digits(l.exact), format_exact(l.exact)};
    return {std::to_string(l.used_seconds), nine_digits(l.exact), format_exact(l.exact), nine_digits(l.rounding), nine_digits(l.waste)};
  }
  // A line, or one label set's part of it (kind `label`), with its pricing in the tariff's terms.
  void line(const std::string& kind, const std::string& account, const invoice_line& l, const std::string& labels) {
    const rate* r = rate_of(l.resource, l.mode);
    std::vector<std::string> pricing;
    if (r != nullptr) {
      const billing_detail::pricing p = billing_detail::pricing_of(l, r, billing_detail::facts_of(l.resource).unit);
      pricing = {p.quantity, p.unit, p.unit_price, labels};
    } else {
      pricing = {"", "", "", labels};
    }
    row({kind, account, l.resource, l.mode, std::to_string(l.records), std::to_string(l.billed_seconds), l.amount.to_string(),
         std::string(inv_.ccy.code)},
        std::move(pricing), detail_of(l, kind == "line"));
  }
  void account(const invoice_account& a) {
    std::int64_t recs = 0, billed = 0;
    const std::string ccy(inv_.ccy.code);
    for (const auto& l : a.lines) {
      recs += l.records;
      billed += l.billed_seconds;
      line("line", a.account, l, "");
      for (const invoice_label_share& s : l.labels) {
        line("label", a.account, billing_detail::label_part(l, s), s.labels);
      }
    }
    for (const invoice_commitment& k : a.commitments) {
      const std::string noun = billing_detail::facts_of(k.resource).unit;
      const std::string units = billing_detail::quantity_text(ratio<>(int128(k.units.raw()), int128(::gpurent::detail::nano_one)));
      row({"commitment", a.account, k.resource, k.mode, "", "", k.amount.to_string(), ccy}, {units, noun + "-Commitments", "", ""},
          {"", nine_digits(k.exact), format_exact(k.exact)});
    }
    for (const invoice_prepaid& k : a.prepaid) {
      row({"prepaid", a.account, k.id, "", "", "", k.amount.to_string(), ccy},
          {billing_detail::quantity_text(tflops_hours_of(k.drawn)), "TFLOPS-Hours", "", ""}, {"", nine_digits(k.exact), format_exact(k.exact)});
    }
    row({"total", a.account, "", "", std::to_string(recs), std::to_string(billed), a.total.to_string(), ccy}, {},
        {"", nine_digits(a.exact_total), format_exact(a.exact_total)});
    row({"credit_applied", a.account, "", "", "", "", a.credit_applied.to_string(), ccy});
    row({"due", a.account, "", "", "", "", a.due.to_string(), ccy});
  }

  const invoice& inv_;
  invoice_format_options opt_;
  const tariff* t_;
  std::string out_;
};
}  // namespace detail

// The invoice as CSV (docs/formats/billing.md, "Invoice CSV"). Columns: kind, account,
// resource, mode, records, billed_seconds, amount, currency, period, quantity, unit,
// unit_price, labels (and with `detail`: used_seconds, exact, exact_fraction, rounding,
// waste_amount). Rows: `line`, then its `label` parts, per line; `commitment`; `prepaid` (the
// package id as resource, the TFLOPS-hours drawn this month as quantity); `total`,
// `credit_applied`, `due` per account; last `records_out_of_period`. The tariff, when given,
// supplies quantity, unit and unit price.
[[nodiscard]] inline std::string write_invoice_csv(const invoice& inv, invoice_format_options opt = {}, const tariff* t = nullptr) {
  return detail::invoice_csv_writer(inv, opt, t).write();
}

}  // namespace gpurent::io
