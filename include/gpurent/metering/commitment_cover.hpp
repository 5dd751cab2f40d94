// SPDX-License-Identifier: MIT
#pragma once
// A commitment's coverage of a line's records (docs/formats/billing.md, "Commitments"): at
// every instant of the commitment's window, the records in use are covered in (start, id)
// order, each by as much of its quantity as the units left allow; what is not covered is
// billed at the rate. The sweep is exact (integer unit-seconds) and costs O(segments x
// records in use); cover_by_second in the tests is its slow twin.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// One record of a line, clipped to the billing period: [start, end) x quantity.
struct covered_span {
  std::int64_t start = 0;
  std::int64_t end = 0;
  nano_quantity quantity{};
};

// The unit-seconds (nano) of each span that `units` cover over `window`, the spans taken in
// the order given (the caller's (start, id) order) wherever they compete. The spans must be
// sorted by start. False on overflow.
[[nodiscard]] inline bool cover_in_order(std::span<const covered_span> spans, const interval& window, nano_quantity units,
                                         std::vector<nano_usage>& covered) {
  covered.assign(spans.size(), nano_usage{});
  std::vector<std::int64_t> cuts = {window.begin().time_since_epoch().count(), window.end().time_since_epoch().count()};
  for (const covered_span& s : spans) {
    cuts.push_back(s.start);
    cuts.push_back(s.end);
  }
  std::ranges::sort(cuts);
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  const std::int64_t wb = window.begin().time_since_epoch().count(), we = window.end().time_since_epoch().count();
  std::vector<std::size_t> active;  // in the spans' order, as they start in it
  std::size_t next = 0;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const std::int64_t b = cuts[k], e = cuts[k + 1];
    std::erase_if(active, [&](std::size_t i) { return spans[i].end <= b; });
    while (next < spans.size() && spans[next].start <= b) {
      if (spans[next].end > b) active.push_back(next);
      ++next;
    }
    if (b < wb || b >= we) continue;
    std::int64_t left = units.raw();
    for (std::size_t i : active) {
      if (left == 0) break;
      const std::int64_t q = std::min(left, spans[i].quantity.raw());
      left -= q;
      if (!add_to(covered[i], nano_quantity(q) * seconds{e - b})) return false;
    }
  }
  return true;
}

// A record of a committed line as the meter holds it: unclipped, in (start, id) order.
struct committed_record {
  std::int64_t start = 0;
  std::int64_t end = 0;
  nano_quantity quantity{};
};

// What a line's records pay where part of their usage is paid for already (a commitment, a
// prepaid package).
struct committed_line {
  cost_numerator amount;                  // the line's
  cost_numerator waste;                   // the padding it pays
  nano_usage covered{};                   // unit-seconds covered (as the commitment or package counts them)
  std::vector<cost_numerator> by_record;  // each record's amount, in the order given
};

// What records pay when `covered` of each one's billed unit-seconds (at most its usage) is
// paid for already, by a commitment or a prepaid package: the rest at the rate (one unit
// price), its padding (billed - actual) counted as waste as far as it is not covered (a
// record is covered from its start: its padding comes last). Amounts are numerators over
// r.denominator(), as rate_usage's.
[[nodiscard]] inline expected<committed_line> pay_uncovered(const rate& r, std::span<const rated_usage> rated, std::span<const nano_usage> covered) {
  committed_line out;
  for (std::size_t i = 0; i < rated.size(); ++i) {
    const rated_usage& u = rated[i];
    const nano_usage rest = u.usage - covered[i];
    const nano_usage padding = u.usage - u.used_usage;
    cost_numerator pay, pad;
    if (!mul_into(r.price.base(), rest, pay) || !mul_into(r.price.base(), rest < padding ? rest : padding, pad) || !add_to(out.amount, pay) ||
        !add_to(out.waste, pad) || !add_to(out.covered, covered[i]))
      return detail::overflow_error("a covered line");
    out.by_record.push_back(pay);
  }
  return out;
}

// Each record rated in `period` (a record outside it rates to nothing).
[[nodiscard]] inline expected<std::vector<rated_usage>> rate_records(const rate& r, const interval& period,
                                                                     std::span<const committed_record> records) {
  std::vector<rated_usage> rated(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const committed_record& e = records[i];
    if (rate_usage(r, period, instant{seconds{e.start}}, instant{seconds{e.end}}, e.quantity, rated[i]) == rating_status::overflow)
      return detail::overflow_error("a covered line");
  }
  return rated;
}

// What a line's records pay under a commitment of `units` of their rate `r` over `window`:
// a record's covered unit-seconds are free; a record with any part uncovered pays its
// uncovered unit-seconds and its padding (rule 3's billed - actual seconds, times its
// quantity) at the rate; a record wholly covered pays nothing.
[[nodiscard]] inline expected<committed_line> rate_committed(const rate& r, const interval& period, const interval& window, nano_quantity units,
                                                             std::span<const committed_record> records) {
  GPURENT_TRY(rated, rate_records(r, period, records));
  std::vector<covered_span> spans;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const committed_record& e = records[i];
    const std::int64_t b = std::max(e.start, period.begin().time_since_epoch().count());
    const std::int64_t en = std::min(e.end, period.end().time_since_epoch().count());
    spans.push_back((*rated)[i].usage > nano_usage{} ? covered_span{b, en, e.quantity} : covered_span{b, b, e.quantity});
  }
  std::vector<nano_usage> covered;
  if (!cover_in_order(spans, window, units, covered)) return detail::overflow_error("a committed line");
  nano_usage used{};
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!add_to(used, covered[i])) return detail::overflow_error("a committed line");
    if (covered[i] == (*rated)[i].used_usage) covered[i] = (*rated)[i].usage;  // wholly covered: its padding too
  }
  GPURENT_TRY(paid, pay_uncovered(r, *rated, covered));
  paid->covered = used;  // what the commitment offered and the usage used, padding aside
  return paid;
}

}  // namespace gpurent
