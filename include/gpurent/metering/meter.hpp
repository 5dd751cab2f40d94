// SPDX-License-Identifier: MIT
#pragma once
// The meter: usage records in any order to an invoice, under one tariff and one billing
// period. Records are deduplicated by id (an identical repeat counts once, a conflicting one
// is an error naming both lines), clipped to the period, rated exactly and summed per line.
// A meter is also a partial result: meters fed disjoint shards merge into the meter that
// would have seen every record, so their invoices are identical.
//
// The meter is the one class users call; each concept behind it has its own header: record
// storage (record_store.hpp), deduplication by id (dedup.hpp), the rated lines
// (line_ledger.hpp), merging partial states (merge.hpp), building the invoice
// (invoice_builder.hpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/calendar.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/dedup.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/invoice_builder.hpp>
#include <gpurent/metering/labels.hpp>
#include <gpurent/metering/line_ledger.hpp>
#include <gpurent/metering/merge.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/metering/record_store.hpp>
#include <gpurent/metering/shard.hpp>
#include <gpurent/metering/usage.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

class meter {
 public:
  // What a partial result holds of each distinct record (io/billing/meter_partial.hpp).
  using record_view = meter_record_view;

  // A meter for `period` (UTC instants), named `period_name` on the invoice.
  meter(const tariff& t, interval period, std::string period_name) : lines_(t, period), period_name_(std::move(period_name)) {}
  // The meter of a calendar month ("2026-11") in the tariff's time zone (docs/formats/billing.md, rule 1).
  [[nodiscard]] static expected<meter> for_month(const tariff& t, std::string_view yyyy_mm) {
    auto ym = parse_year_month(yyyy_mm);
    if (!ym) return unexpected(ym.error());
    GPURENT_TRY(month, writable_month_period(t.zone(), *ym));
    return meter(t, *month, std::string(yyyy_mm));
  }
  [[nodiscard]] const tariff& tariff_value() const noexcept { return lines_.tariff_value(); }
  [[nodiscard]] const interval& period() const noexcept { return lines_.period(); }
  // Records that follow come from this file (errors name it with the line).
  void set_source(std::string file) { book_.set_source(file); }
  // Sizes the id table for about `records` distinct records, so it is not rebuilt as they
  // come (the records themselves grow by pages: paged.hpp).
  void reserve(std::size_t records) { book_.records().reserve(records); }
  // Starts loading the table slot of `id` into the cache, prefetch_distance records ahead of
  // add(): enough rows to hide a cache miss behind their parsing.
  void prefetch(std::string_view id) const noexcept { book_.records().prefetch(id); }
  static constexpr std::size_t prefetch_distance = 8;
  [[nodiscard]] std::size_t distinct_records() const noexcept { return book_.records().size(); }
  [[nodiscard]] std::int64_t records_out_of_period() const noexcept { return lines_.out_of_period(); }

  // The index of the tariff's rate for (resource, mode), or an error naming both.
  [[nodiscard]] expected<std::size_t> rate_index(std::string_view resource, std::string_view mode) const {
    if (auto ri = tariff_value().find(resource, mode)) return *ri;
    return unexpected(error{error_code::unknown_name,
                            "resource",
                            "no rate in the tariff for resource \"" + std::string(resource) + "\" and mode \"" + std::string(mode) + "\"",
                            {}});
  }
  // Adds one record; `line` is where it came from (0: not from a file).
  [[nodiscard]] expected<void> add(const usage_record& r, std::size_t line = 0) {
    auto ri = rate_index(r.resource, r.mode);
    if (!ri) return book_.locate(ri.error(), line);
    std::vector<label_pair> pairs(r.labels.begin(), r.labels.end());
    std::string labels;
    if (auto v = label_set_text(pairs, labels); !v) return book_.locate(v.error(), line);
    return add(r.id, r.account, *ri, r.quantity, r.start, r.end, line, labels);
  }
  // The same from parsed fields and the index of the rate in the tariff (the readers' path);
  // `labels` is a label set's key (metering/labels.hpp: label_set_text), "" for none.
  [[nodiscard]] expected<void> add(std::string_view id, std::string_view account, std::size_t rate_pos, nano_quantity quantity, instant start,
                                   instant end, std::size_t line, std::string_view labels = {}) {
    if (auto v = validate_usage(id, account, quantity, start, end); !v) return book_.locate(v.error(), line);
    if (auto v = detail::record_store::packable(rate_pos, line); !v) return book_.locate(v.error(), line);
    return book_.add(id, checked(account, labels, rate_pos, quantity, start, end, line), lines_);
  }
  // add() for records that may arrive after records of a later (source, line), as records
  // exchanged between MPI ranks in rounds do (sources numbered in the order set_source first
  // met them, so file order). Of one id's records the earliest is kept, so repeats and
  // conflicts resolve as in one run in file order; a conflict is located at the later of the
  // two, and when that is the record kept so far, `displaced` receives it.
  [[nodiscard]] expected<void> add_out_of_order(std::string_view id, std::string_view account, std::size_t rate_pos, nano_quantity quantity,
                                                instant start, instant end, std::size_t line, record_view* displaced = nullptr,
                                                std::string_view labels = {}) {
    const std::size_t at = book_.records().find(id, detail::record_store::hash(id));
    if (at == detail::record_store::npos || book_.kept_before(at, line)) return add(id, account, rate_pos, quantity, start, end, line, labels);
    if (auto v = validate_usage(id, account, quantity, start, end); !v) return book_.locate(v.error(), line);
    GPURENT_TRY(detail::record_store::packable(rate_pos, line));
    return book_.replace_later(id, at, checked(account, labels, rate_pos, quantity, start, end, line), lines_, displaced);
  }

  // Merges another meter's partial result (same tariff, same period) into this one; a failed
  // merge changes nothing.
  [[nodiscard]] expected<void> merge(const meter& o) {
    GPURENT_TRY(same_terms(o));
    return detail::merge_meters({book_, lines_}, {o.book_, o.lines_});
  }
  // The invoice of meters that share no record id (the shards of one id partition, as
  // io::meter_usage_files gives them): their line totals are added, their records are not
  // copied unless the invoice needs them (record-point rounding of a tiered line).
  [[nodiscard]] static expected<invoice> finish_shards(std::span<const meter> shards, const carry_book& carry = {},
                                                       const prepaid_balances& opening = {}) {
    GPURENT_ASSERT(!shards.empty());
    if (shards.size() == 1) return shards.front().finish(carry, opening);
    const meter& first = shards.front();
    meter all(first.tariff_value(), first.period(), first.period_name_);
    for (const meter& m : shards) {
      if (all.finish_needs_records()) {
        GPURENT_TRY(all.merge(m));
      } else {
        GPURENT_TRY(all.same_terms(m));
        GPURENT_TRY(all.lines_.merge_totals(m.lines_));
      }
    }
    return all.finish(carry, opening);
  }

  // Distinct record k (k < distinct_records()), as a partial result writes it.
  [[nodiscard]] record_view record_at(std::size_t k) const noexcept { return book_.view(k, lines_); }
  // Adds the totals of a line that a meter sharing no id with this one rated, without its
  // records (a totals-only partial, io/billing/meter_partial.hpp); not when finish() needs records.
  [[nodiscard]] expected<void> add_line_totals(std::string_view account, std::string_view labels, std::size_t rate_pos, const line_totals& t) {
    if (finish_needs_records() || rate_pos >= tariff_value().rates().size())
      return make_error(error_code::invalid_argument, "partial", "line totals without records cannot be added here");
    if (!lines_.add_line(account, labels, static_cast<std::uint32_t>(rate_pos), t))
      return detail::line_overflow_error(tariff_value(), account, labels, rate_pos);
    return {};
  }
  // Counts records out of period that another meter rated (a totals-only partial's).
  [[nodiscard]] bool add_records_out_of_period(std::int64_t n) noexcept { return lines_.add_out_of_period(n); }
  // Calls f(account, labels, rate index, totals) for each line (and label set) with records,
  // in no particular order.
  template <class F>
  void for_each_line(F&& f) const {
    lines_.for_each_line(std::forward<F>(f));
  }
  [[nodiscard]] std::int64_t duplicates_ignored() const noexcept { return lines_.duplicates(); }
  // Counts identical repeats that were ignored elsewhere (a partial result's).
  [[nodiscard]] bool add_duplicates_ignored(std::int64_t n) noexcept { return lines_.add_duplicates(n); }

  // The invoice: lines rounded at the tariff's rounding point, totals, credits. `carry` holds
  // the remainders of the previous invoice when the tariff carries them; `opening`, the
  // balances its prepaid packages bought before the period closed the previous one with.
  [[nodiscard]] expected<invoice> finish(const carry_book& carry = {}, const prepaid_balances& opening = {}) const {
    return detail::invoice_builder(lines_, book_, period_name_, carry, opening).build();
  }
  // finish() looks at the records themselves only for record-point rounding of tiered lines
  // and for the lines a commitment covers or a prepaid package pays.
  [[nodiscard]] bool finish_needs_records() const noexcept {
    if (!tariff_value().commitments().empty() || !tariff_value().prepaid().empty()) return true;
    if (tariff_value().rounding().point != rounding_point::record) return false;
    return std::ranges::any_of(tariff_value().rates(), [](const rate& r) { return r.kind != price_kind::unit; });
  }

 private:
  [[nodiscard]] expected<void> same_terms(const meter& o) const {
    if (lines_.same_terms(o.lines_)) return {};
    return make_error(error_code::invalid_argument, "period", "only meters of the same tariff and period merge");
  }
  // A record checked by validate_usage and packable, as the book stores it.
  [[nodiscard, gnu::always_inline]] detail::meter_record checked(std::string_view account, std::string_view labels, std::size_t rate_pos,
                                                                 nano_quantity quantity, instant start, instant end, std::size_t line) {
    return {lines_.intern(account, labels),
            static_cast<std::uint32_t>(rate_pos),
            book_.source(),
            quantity,
            start.time_since_epoch().count(),
            end.time_since_epoch().count(),
            line};
  }

  detail::record_book book_;
  detail::line_ledger lines_;
  std::string period_name_;
};

}  // namespace gpurent
