// SPDX-License-Identifier: MIT
#pragma once
// An invoice: per account, one line per (resource, mode) with its exact amount next to the
// rounded one and the rounding between them, then totals, credits and what is due.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// A line's part for one label set of its records (metering/labels.hpp): what a line's amount
// comes to per label set, the parts adding up to the line's amount exactly.
struct invoice_label_share {
  std::string labels;  // the label set's key ("project=vision|team=cv"), "" for records without labels
  std::int64_t records = 0;
  std::int64_t billed_seconds = 0;
  std::int64_t used_seconds = 0;
  nano_usage usage{};       // quantity x billed seconds (nano unit-seconds), as the line's
  nano_usage used_usage{};  // quantity x seconds used (nano unit-seconds), as the line's
  ratio<> exact{};          // the set's exact amount (docs/formats/billing.md, "Labels")
  money_value amount;       // its part of the line's amount (largest remainder)
  friend bool operator==(const invoice_label_share&, const invoice_label_share&) = default;
};

struct invoice_line {
  std::string resource;
  std::string mode;
  std::int64_t records = 0;
  std::int64_t billed_seconds = 0;          // sum of the records' b (quantity not applied)
  std::int64_t used_seconds = 0;            // sum of the records' actual seconds in the period
  nano_usage usage{};                       // sum of quantity x billed seconds (nano unit-seconds)
  nano_usage used_usage{};                  // sum of quantity x seconds used (nano unit-seconds)
  ratio<> exact{};                          // unrounded amount, major units
  ratio<> carry_in{};                       // remainder carried from the previous invoice (carry rule)
  money_value amount;                       // what is charged
  ratio<> rounding{};                       // amount - (exact + carry_in): every rounding, visible
  bool forgiven = false;                    // below one minor unit and not charged
  ratio<> waste{};                          // the part of `exact` due to increments and minimums
  std::vector<invoice_label_share> labels;  // by label set (byte order), when any record has labels
  friend bool operator==(const invoice_line&, const invoice_line&) = default;
};

// A commitment's part of an account's invoice (docs/formats/billing.md, "Commitments"): its
// charge for the period, and how much of what it offered the usage used.
struct invoice_commitment {
  std::string resource;
  std::string mode;
  nano_quantity units{};
  interval window{};       // the part of the period its term covers
  ratio<> exact{};         // its charge for the period, exact
  money_value amount;      // charged: exact rounded once at the tariff's mode
  nano_usage used{};       // unit-seconds (nano) of usage it covered
  nano_usage available{};  // units x the window's length
  friend bool operator==(const invoice_commitment&, const invoice_commitment&) = default;
};

// A prepaid package's part of an account's invoice (docs/formats/billing.md, "Prepaid
// packages"): its price in the month it is bought, and its balance through the month, in FLOP
// (tflops_hours_of turns them into TFLOPS-hours): opening - drawn = closing + expired.
struct invoice_prepaid {
  std::string id;
  std::string per_tflops;
  nano_quantity tflops_hours{};  // its size
  instant bought{};
  std::optional<instant> expires;
  ratio<> exact{};     // its price when bought in the period, else 0
  money_value amount;  // charged: exact rounded once at the tariff's mode
  int128 opening = 0;  // at the start of the period (or of its purchase)
  int128 drawn = 0;    // by the period's usage
  int128 expired = 0;  // forfeited at its expiry in the period
  int128 closing = 0;  // carried into the next period
  nano_usage used{};   // GPU-seconds (nano) of use it paid for, padding aside
  friend bool operator==(const invoice_prepaid&, const invoice_prepaid&) = default;
};

struct invoice_account {
  std::string account;
  std::vector<invoice_line> lines;              // sorted by resource, then mode (byte order)
  std::vector<invoice_commitment> commitments;  // sorted by resource, then mode; in the total
  std::vector<invoice_prepaid> prepaid;         // in the order they are drawn; in the total
  ratio<> exact_total{};
  money_value total;  // the sum of the rounded lines, commitments and packages bought
  money_value credit_applied;
  money_value due;
  money_value credit_remaining;
  friend bool operator==(const invoice_account&, const invoice_account&) = default;
};

struct invoice {
  currency ccy{};
  std::string period;  // "2026-11"
  std::string timezone;
  interval span{};  // the period as UTC instants
  rounding_rule rounding{};
  std::vector<invoice_account> accounts;  // sorted by account (byte order)
  std::int64_t records_out_of_period = 0;
  std::int64_t duplicates_ignored = 0;  // identical repeats counted once
  friend bool operator==(const invoice&, const invoice&) = default;
};

}  // namespace gpurent
