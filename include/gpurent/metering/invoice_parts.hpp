// SPDX-License-Identifier: MIT
#pragma once
// The parts of an invoice built beside its lines (metering/invoice_builder.hpp): a line's
// amount told per label set, a committed line's amount, and a commitment's charge with what
// it covered.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/metering/commitment_cover.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/line_ledger.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/tariff/commitment.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent::detail {

// One label set of a line: its key, its totals, and, on a committed line, what its records
// pay (metering/commitment_cover.hpp).
struct label_set_totals {
  std::string_view labels;
  const line_totals* totals = nullptr;
  std::optional<cost_numerator> committed;
};

// A line's amount per label set (docs/formats/billing.md, "Labels on the invoice"): each
// set's exact amount (unit prices: what its records pay; tiers and packages: the line's
// amount in proportion to its billed unit-hours) and its part of the line's charged amount by
// largest remainder of those (ties: the set first, in byte order), the parts adding up to the
// line exactly; a line whose sets all weigh nothing gives its amount to its first set.
[[nodiscard]] inline expected<std::vector<invoice_label_share>> label_shares(const rate& r, const invoice_line& l,
                                                                             std::span<const label_set_totals> sets) {
  std::vector<int128> weights;
  int128 sum = 0;
  for (const label_set_totals& s : sets) {
    const cost_numerator amount = s.committed.value_or(s.totals->amount);
    weights.push_back(to_int128(r.kind == price_kind::unit ? amount.raw() : s.totals->usage.raw()));
    sum += weights.back();
  }
  std::vector<int128> parts(sets.size(), int128(0));
  parts.front() = l.amount.minor_units();
  if (sum != 0) {
    GPURENT_TRY(split, allocate(l.amount.minor_units(), weights));
    parts = std::move(*split);
  }
  std::vector<invoice_label_share> out;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const line_totals& t = *sets[i].totals;
    const ratio<> exact = r.kind == price_kind::unit ? exact_amount(sets[i].committed.value_or(t.amount), r.denominator())
                          : sum == 0                 ? ratio<>{}
                                                     : l.exact * ratio<>(weights[i], sum);
    out.push_back({.labels = std::string(sets[i].labels),
                   .records = t.records,
                   .billed_seconds = t.billed_seconds,
                   .used_seconds = t.used_seconds,
                   .exact = exact,
                   .amount = money_value(l.amount.currency_value(), parts[i])});
  }
  return out;
}

// What a line's commitment changed: what each label set's (owner's) records pay, what it
// covered.
struct committed_parts {
  bool committed = false;
  std::unordered_map<std::uint32_t, cost_numerator> by_owner;
  nano_usage covered{};
};

// A line a commitment covers (commitment_cover.hpp): its exact amount and waste are what its
// records (in (start, id) order, with their owners) pay; at the record point each record's
// payment is rounded alone.
[[nodiscard]] inline expected<void> commit_line(const tariff& t, const interval& period, const tariff_commitment& c,
                                                std::span<const committed_record> recs, std::span<const std::uint32_t> owners, invoice_line& l,
                                                committed_parts& cp) {
  const rate& r = t.rate_at(c.rate);
  GPURENT_TRY(paid, rate_committed(r, period, c.window(period), c.units, recs));
  cp.committed = true;
  cp.covered = paid->covered;
  int128 rounded = 0;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    if (!add_to(cp.by_owner[owners[i]], paid->by_record[i])) return overflow_error("a committed line");
    rounded += round_minor(t, exact_amount(paid->by_record[i], r.denominator()));
  }
  l.exact = exact_amount(paid->amount, r.denominator());
  l.waste = exact_amount(paid->waste, r.denominator());
  if (t.rounding().point == rounding_point::record) l.amount = money_value(t.currency_value(), rounded);
  return {};
}

// A commitment's entry in its account's invoice for `period`: its charge (exact, and rounded
// once at the tariff's mode), what it offered and what it covered.
[[nodiscard]] inline invoice_commitment commitment_entry(const tariff& t, const tariff_commitment& c, const interval& period, nano_usage covered) {
  const ratio<> exact = c.charge(period);
  return {.resource = c.resource,
          .mode = c.mode,
          .units = c.units,
          .window = c.window(period),
          .exact = exact,
          .amount = money_value(t.currency_value(), round_minor(t, exact)),
          .used = covered,
          .available = c.available(period)};
}

}  // namespace gpurent::detail
