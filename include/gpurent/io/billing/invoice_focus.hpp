// SPDX-License-Identifier: MIT
#pragma once
// Writes an invoice as a FOCUS 1.0 CSV (FinOps Open Cost and Usage Specification): every
// FOCUS 1.0 column, one Usage row per invoice line and label set (Tags), one Credit row per account with a credit
// applied, then the gpurent columns (x_...). Amounts are exact decimals with the currency's
// minor-unit digits; the BilledCost of an account's rows adds up to its due. docs/focus.md
// says what gpurent writes where FOCUS leaves a choice.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/format.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/billing/line_pricing.hpp>
#include <gpurent/io/text/csv.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/labels.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent::io {

struct focus_options {
  std::string provider = "gpurent";  // ProviderName, PublisherName and InvoiceIssuerName
  std::string service = "GPU Rental";
};

// The columns, in the order written: FOCUS 1.0's in alphabetical order; the five names under
// which the FinOps Foundation's focus-validator 1.0.0
// looks for five of them (ChargeType,
// InvoiceIssuer, Provider, Publisher, ResourceID: same values); then gpurent's (x_).
inline constexpr std::array<std::string_view, 55> focus_columns{// clang-format off
    "AvailabilityZone", "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
    "BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription",
    "ChargeFrequency", "ChargePeriodEnd", "ChargePeriodStart", "CommitmentDiscountCategory", "CommitmentDiscountId",
    "CommitmentDiscountName", "CommitmentDiscountStatus", "CommitmentDiscountType", "ConsumedQuantity", "ConsumedUnit",
    "ContractedCost", "ContractedUnitPrice", "EffectiveCost", "InvoiceIssuerName", "ListCost",
    "ListUnitPrice", "PricingCategory", "PricingQuantity", "PricingUnit", "ProviderName",
    "PublisherName", "RegionId", "RegionName", "ResourceId", "ResourceName",
    "ResourceType", "ServiceCategory", "ServiceName", "SkuId", "SkuPriceId",
    "SubAccountId", "SubAccountName", "Tags",
    "ChargeType", "InvoiceIssuer", "Provider", "Publisher", "ResourceID",
    "x_GpuModel", "x_MigProfile", "x_SharingMode", "x_Mode", "x_Records", "x_BilledSeconds", "x_UsedSeconds"};
// clang-format on

namespace focus_detail {

using billing_detail::facts_of;
using billing_detail::gpu_facts;
using billing_detail::pricing;
using billing_detail::pricing_of;
using billing_detail::quantity_text;
using billing_detail::time_unit;

// One CSV row from the columns' values, in focus_columns order.
inline void focus_row(std::string& out, const std::array<std::string, focus_columns.size()>& v) {
  std::vector<std::string_view> views(v.begin(), v.end());
  for (std::size_t i = 0; i < views.size(); ++i) {
    if (i > 0) out += ',';
    csv_field(out, views[i]);
  }
  out += '\n';
}

struct row_context {
  const invoice& inv;
  const invoice_account& account;
  const focus_options& opt;
};

// The columns every row shares: account, currency, periods, provider.
[[nodiscard]] inline std::array<std::string, focus_columns.size()> common_row(const row_context& c) {
  std::array<std::string, focus_columns.size()> v{};
  v[2] = v[3] = c.account.account;
  v[4] = std::string(c.inv.ccy.code);
  v[5] = v[11] = format_instant(c.inv.span.end());
  v[6] = v[12] = format_instant(c.inv.span.begin());
  v[23] = v[29] = v[30] = v[44] = v[45] = v[46] = c.opt.provider;
  v[36] = "Compute";
  v[37] = c.opt.service;
  return v;
}

// Nano unit-seconds as unit-hours (GPU-hours, slice-hours, ...), exact.
[[nodiscard]] inline ratio<> unit_hours(const nano_usage& q) {
  return ratio<>(gpurent::detail::to_int128(q.raw()), int128(gpurent::detail::nano_one) * 3600);
}

// A label set as FOCUS's Tags: a JSON object of its pairs ("" for none).
[[nodiscard]] inline std::string tags_text(std::string_view labels) {
  if (labels.empty()) return {};
  nlohmann::ordered_json tags = nlohmann::ordered_json::object();
  for (const auto& [k, v] : label_set_pairs(labels)) tags[k] = v;
  return tags.dump();
}

// What a line used and a commitment of its account did not cover (the commitment's Used row
// carries the rest), so that ConsumedQuantity adds up over the file to what was used.
[[nodiscard]] inline nano_usage uncovered_use(const invoice_account& a, const invoice_line& l) {
  for (const invoice_commitment& k : a.commitments) {
    if (k.resource == l.resource && k.mode == l.mode) return l.used_usage - k.used;
  }
  return l.used_usage;
}

// Each label set's part of the use the line's uncovered_use leaves: split in proportion to
// the sets' own use by largest remainders, so that a labelled line's rows add up to it as an
// unlabelled line's one row does (the label shares carry the whole use, covered part and all).
[[nodiscard]] inline std::vector<nano_usage> label_uses(const invoice_account& a, const invoice_line& l) {
  std::vector<nano_usage> uses;
  std::vector<int128> weights;
  for (const invoice_label_share& s : l.labels) {
    uses.push_back(s.used_usage);
    weights.push_back(gpurent::detail::to_int128(s.used_usage.raw()));
  }
  const nano_usage uncovered = uncovered_use(a, l);
  if (uncovered == l.used_usage) return uses;
  auto parts = allocate(gpurent::detail::to_int128(uncovered.raw()), weights);
  if (!parts) return uses;  // no set used anything: nothing to split
  for (std::size_t i = 0; i < uses.size(); ++i) uses[i] = nano_usage(*gpurent::detail::to_i128((*parts)[i]));
  return uses;
}

inline void usage_row(std::string& out, const row_context& c, const invoice_line& l, const rate* r, std::string_view labels = {}) {
  const gpu_facts f = facts_of(l.resource);
  const pricing p = pricing_of(l, r, f.unit);
  auto v = common_row(c);
  const std::string billed = l.amount.to_string();
  const std::string list = money_value::round(c.inv.ccy, l.exact, rounding_mode::half_even).to_string();
  v[1] = v[22] = billed;
  v[7] = v[43] = "Usage";
  v[9] = l.resource + " (" + l.mode + "): " + plural(l.records, "record", "records") + ", " +
         plural(l.billed_seconds, "billed second", "billed seconds");
  v[10] = "Usage-Based";
  // What was used (quantity x seconds used, without increments and minimums), in unit-hours.
  v[18] = quantity_text(unit_hours(l.used_usage));
  v[19] = f.unit + "-Hours";
  v[20] = v[24] = list;
  v[21] = v[25] = p.unit_price;
  v[26] = p.category;
  v[27] = p.quantity;
  v[28] = p.unit;
  v[35] = f.unit;
  v[38] = l.resource;
  v[39] = l.resource + ":" + l.mode;
  v[42] = tags_text(labels);
  v[48] = f.model;
  v[49] = f.mig_profile;
  v[50] = f.sharing;
  v[51] = l.mode;
  v[52] = std::to_string(l.records);
  v[53] = std::to_string(l.billed_seconds);
  v[54] = std::to_string(l.used_seconds);
  focus_row(out, v);
}

inline void credit_row(std::string& out, const row_context& c) {
  auto v = common_row(c);
  v[1] = v[22] = (-c.account.credit_applied).to_string();
  v[7] = v[43] = "Credit";
  v[9] = "prepaid credit applied";
  v[10] = "One-Time";
  v[20] = v[24] = money_value(c.inv.ccy, 0).to_string();
  focus_row(out, v);
}

// A commitment's rows: its Purchase (BilledCost, ListCost and ContractedCost the charge,
// EffectiveCost 0, as FOCUS amortizes a commitment into the usage it covers), then its Used
// and Unused parts, each only when its unit-seconds are not zero (a zero Unused row would
// say nothing FOCUS needs): EffectiveCost the charge split by used and unused unit-seconds,
// half even, the Unused row taking the rest, so the two add up to the charge; BilledCost,
// ListCost and ContractedCost 0, so that each cost column adds up over the file to what was
// charged (the charge is on the Purchase row once).
inline void commitment_rows(std::string& out, const row_context& c, const invoice_commitment& k, const rate* r) {
  const gpu_facts f = facts_of(k.resource);
  const std::string zero = money_value(c.inv.ccy, 0).to_string();
  const std::string id = c.account.account + ":" + k.resource + ":" + k.mode;
  auto v = common_row(c);
  v[13] = "Usage";
  v[14] = v[15] = id;
  v[17] = "Reservation";
  v[26] = "Committed";
  v[35] = f.unit;
  v[38] = k.resource;
  v[39] = k.resource + ":" + k.mode;
  v[48] = f.model;
  v[49] = f.mig_profile;
  v[50] = f.sharing;
  v[51] = k.mode;
  v[11] = format_instant(k.window.end());
  v[12] = format_instant(k.window.begin());
  auto purchase = v;
  purchase[1] = purchase[20] = purchase[24] = k.amount.to_string();
  purchase[22] = zero;
  purchase[7] = purchase[43] = "Purchase";
  purchase[9] = "commitment: " + quantity_text(ratio<>(int128(k.units.raw()), int128(gpurent::detail::nano_one))) + " " + f.unit + " of " +
                k.resource + " (" + k.mode + ")";
  purchase[10] = "Recurring";
  purchase[27] = quantity_text(ratio<>(int128(k.units.raw()), int128(gpurent::detail::nano_one)));
  purchase[28] = f.unit + "-Commitments";
  focus_row(out, purchase);
  if (k.available == nano_usage{}) return;
  const int128 used = ratio<>(k.amount.minor_units() * gpurent::detail::to_int128(k.used.raw()), gpurent::detail::to_int128(k.available.raw()))
                          .round_to_digits(0, rounding_mode::half_even);
  const std::int64_t per = r != nullptr ? r->per.count() : 3600;
  const auto part = [&](std::string_view status, const nano_usage& q, const int128& effective) {
    if (q == nano_usage{}) return;
    auto row = v;
    row[1] = zero;
    row[7] = row[43] = "Usage";
    row[9] = std::string("commitment ") + (status == "Used" ? "used" : "unused") + ": " + k.resource + " (" + k.mode + ")";
    row[10] = "Usage-Based";
    row[16] = std::string(status);
    row[22] = money_value(c.inv.ccy, effective).to_string();
    row[20] = row[24] = zero;
    const ratio<> unit_seconds(gpurent::detail::to_int128(q.raw()), int128(gpurent::detail::nano_one));
    if (status == "Used") {
      row[18] = quantity_text(unit_hours(q));
      row[19] = f.unit + "-Hours";
    }
    row[27] = quantity_text(unit_seconds * ratio<>(int128(1), int128(per)));
    row[28] = f.unit + "-" + time_unit(per);
    focus_row(out, row);
  };
  part("Used", k.used, used);
  part("Unused", k.available - k.used, k.amount.minor_units() - used);
}

// A prepaid package's rows: in the month it is bought, a Purchase row, One-Time, BilledCost and
// EffectiveCost its price (a prepayment: the months it is drawn in are other invoices, so it
// is not amortized into their usage); in a month it is drawn, a Usage row with BilledCost and
// EffectiveCost 0 carrying what it paid for (PricingQuantity the TFLOPS-hours drawn,
// ConsumedQuantity the GPU-hours of use), as a commitment's Used row does.
inline void prepaid_rows(std::string& out, const row_context& c, const invoice_prepaid& k) {
  auto v = common_row(c);
  const std::string zero = money_value(c.inv.ccy, 0).to_string();
  v[38] = "prepaid/" + k.per_tflops;
  v[39] = k.id;
  v[28] = "TFLOPS-Hours";
  if (c.inv.span.contains(k.bought)) {
    auto purchase = v;
    const std::string size = quantity_text(ratio<>(int128(k.tflops_hours.raw()), int128(gpurent::detail::nano_one)));
    purchase[1] = purchase[20] = purchase[22] = purchase[24] = k.amount.to_string();
    purchase[7] = purchase[43] = "Purchase";
    purchase[9] = "prepaid package " + k.id + ": " + size + " TFLOPS-hours (" + k.per_tflops + ")";
    purchase[10] = "One-Time";
    purchase[27] = size;
    focus_row(out, purchase);
  }
  if (k.drawn == 0) return;
  v[1] = v[20] = v[22] = v[24] = zero;
  v[7] = v[43] = "Usage";
  v[9] = "prepaid package " + k.id + " drawn";
  v[10] = "Usage-Based";
  v[18] = quantity_text(unit_hours(k.used));
  v[19] = "GPU-Hours";
  v[27] = quantity_text(tflops_hours_of(k.drawn));
  focus_row(out, v);
}

}  // namespace focus_detail

// The FOCUS 1.0 CSV of an invoice. The tariff, when given, supplies unit prices, pricing
// units and categories; without it quantities are in billed hours and prices are left null.
[[nodiscard]] inline std::string write_invoice_focus(const invoice& inv, const tariff* t = nullptr, const focus_options& opt = {}) {
  std::string out;
  for (std::size_t i = 0; i < focus_columns.size(); ++i) out += (i > 0 ? "," : "") + std::string(focus_columns[i]);
  out += '\n';
  for (const auto& a : inv.accounts) {
    const focus_detail::row_context c{inv, a, opt};
    for (const auto& l : a.lines) {
      const auto at = t != nullptr ? t->find(l.resource, l.mode) : std::nullopt;
      const rate* r = at ? &t->rate_at(*at) : nullptr;
      if (l.labels.empty()) {
        invoice_line uncovered = l;
        uncovered.used_usage = focus_detail::uncovered_use(a, l);
        focus_detail::usage_row(out, c, uncovered, r);
        continue;
      }
      const std::vector<nano_usage> uses = focus_detail::label_uses(a, l);
      for (std::size_t i = 0; i < l.labels.size(); ++i) {  // one row per label set, adding up to the line
        invoice_line part = billing_detail::label_part(l, l.labels[i]);
        part.used_usage = uses[i];
        focus_detail::usage_row(out, c, part, r, l.labels[i].labels);
      }
    }
    for (const invoice_commitment& k : a.commitments) {
      const auto at = t != nullptr ? t->find(k.resource, k.mode) : std::nullopt;
      focus_detail::commitment_rows(out, c, k, at ? &t->rate_at(*at) : nullptr);
    }
    for (const invoice_prepaid& k : a.prepaid) focus_detail::prepaid_rows(out, c, k);
    if (a.credit_applied.minor_units() != 0) focus_detail::credit_row(out, c);
  }
  return out;
}

}  // namespace gpurent::io
