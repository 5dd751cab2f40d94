// SPDX-License-Identifier: MIT
#pragma once
// The parts of an invoice built beside its lines (metering/invoice_builder.hpp): a line's
// amount told per label set, a line's amount rounded per record, a line partly paid by a
// commitment or a prepaid package, and a commitment's charge with what it covered.

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
#include <gpurent/metering/record_store.hpp>
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

// exact x weight / sum, exactly when the reduced fraction fits 128 bits; else (a tiered or
// package line whose sets have many-digit quantities: the fraction can need 256 bits) rounded
// half to even to label_share_digits decimal places, at least 14 past any currency's minor
// unit. The product and its scaling are formed in 512 bits: nothing in between overflows.
inline constexpr int label_share_digits = 18;
[[nodiscard]] inline ratio<> label_share_of(const ratio<>& exact, const int128& weight, const int128& sum) {
  try {
    return exact * ratio<>(weight, sum);
  } catch (const exception&) {  // the ratio's overflow, named
  }
  using int512 = boost::multiprecision::number<
      boost::multiprecision::cpp_int_backend<512, 512, boost::multiprecision::signed_magnitude, boost::multiprecision::checked, void>,
      boost::multiprecision::et_off>;
  const int512 num = int512(exact.num()) * int512(weight) * pow10<int256>(label_share_digits).convert_to<int512>();
  const int512 den = int512(exact.den()) * int512(sum);  // > 0: a ratio's denominator and a sum of weights
  const int512 n = num < 0 ? int512(-num) : num;
  int512 q = n / den;
  const int512 twice_r = (n % den) * 2;
  if (twice_r > den || (twice_r == den && q % 2 != 0)) q += 1;
  return ratio<>((num < 0 ? int512(-q) : q).convert_to<int128>(), pow10<int128>(label_share_digits));
}

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
                                                     : label_share_of(l.exact, weights[i], sum);
    out.push_back({.labels = std::string(sets[i].labels),
                   .records = t.records,
                   .billed_seconds = t.billed_seconds,
                   .used_seconds = t.used_seconds,
                   .usage = t.usage,
                   .used_usage = t.used_usage,
                   .exact = exact,
                   .amount = money_value(l.amount.currency_value(), parts[i])});
  }
  return out;
}

// One record of a line as the invoice reads it (record-point rounding, commitments, prepaid
// packages): the line's records are kept in (start, id) order.
struct ordered_record {
  std::int64_t start;
  std::string_view id;
  meter_record e;
};

// Each record's share of a tiered line (graduated: laid after the records before it;
// volume: at the line's step, the step's flat fee with the first record), rounded alone.
[[nodiscard]] inline expected<int128> round_tiered_records(const tariff& t, const interval& period, const rate& r,
                                                           std::span<const ordered_record> recs, const line_totals& tot) {
  nano_usage before;
  cost_numerator before_cost, total_cost;
  if (!tiered_cost(r, tot.usage, total_cost)) return overflow_error("a tiered line");
  const bool volume = r.kind == price_kind::tiers && r.tiers.mode() == tier_mode::volume;
  const nano_price vprice = volume ? r.tiers.steps()[r.tiers.volume_step(tot.usage)].unit_price : nano_price{};
  int128 sum = 0;
  bool first = true;
  for (const ordered_record& p : recs) {
    rated_usage u;
    if (rate_usage(r, period, instant{seconds{p.e.start}}, instant{seconds{p.e.end}}, p.e.quantity, u) != rating_status::rated) continue;
    cost_numerator part;
    if (volume) {
      cost_numerator all;
      if (!mul_into(vprice, u.usage, part) || (first && !mul_into(vprice, tot.usage, all))) return overflow_error("a tiered record");
      if (first) part = part + (total_cost - all);
    } else {
      cost_numerator upto;
      if (!tiered_cost(r, before + u.usage, upto)) return overflow_error("a tiered record");
      part = upto - before_cost;
      before_cost = upto;
    }
    before = before + u.usage;
    first = false;
    sum += round_minor(t, usage_cost(part));
  }
  return sum;
}

// Record point: the sum of the line's records, each rounded alone (unit prices: summed as
// they came; tiered lines: round_tiered_records).
[[nodiscard]] inline expected<int128> record_point_amount(const tariff& t, const interval& period, const rate& r,
                                                          std::span<const ordered_record> recs, const line_totals& tot) {
  if (r.kind == price_kind::unit) return to_int128(tot.rounded_minor);
  return round_tiered_records(t, period, r, recs, tot);
}

// What a line's commitment changed: what each label set's (owner's) records pay, what it
// covered.
struct committed_parts {
  bool committed = false;
  std::unordered_map<std::uint32_t, cost_numerator> by_owner;
  nano_usage covered{};
};

// A line whose records are partly paid for already (`paid`: by a commitment or a prepaid
// package; records in (start, id) order, with their owners): its exact amount and waste are
// what its records pay; at the record point each record's payment is rounded alone.
[[nodiscard]] inline expected<void> settle_covered_line(const tariff& t, const rate& r, const committed_line& paid,
                                                        std::span<const std::uint32_t> owners, invoice_line& l, committed_parts& cp) {
  cp.committed = true;
  cp.covered = paid.covered;
  int128 rounded = 0;
  for (std::size_t i = 0; i < owners.size(); ++i) {
    if (!add_to(cp.by_owner[owners[i]], paid.by_record[i])) return overflow_error("a covered line");
    rounded += round_minor(t, exact_amount(paid.by_record[i], r.denominator()));
  }
  l.exact = exact_amount(paid.amount, r.denominator());
  l.waste = exact_amount(paid.waste, r.denominator());
  if (t.rounding().point == rounding_point::record) l.amount = money_value(t.currency_value(), rounded);
  return {};
}

// A line a commitment covers (commitment_cover.hpp).
[[nodiscard]] inline expected<void> commit_line(const tariff& t, const interval& period, const tariff_commitment& c,
                                                std::span<const committed_record> recs, std::span<const std::uint32_t> owners, invoice_line& l,
                                                committed_parts& cp) {
  const rate& r = t.rate_at(c.rate);
  GPURENT_TRY(paid, rate_committed(r, period, c.window(period), c.units, recs));
  return settle_covered_line(t, r, *paid, owners, l, cp);
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
