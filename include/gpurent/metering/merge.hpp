// SPDX-License-Identifier: MIT
#pragma once
// Merging partial states: the records and lines of another meter (same tariff, same period)
// into this one, as if this one had seen its records too. A repeat across the two counts
// once, a conflicting one is an error naming both files and lines, and a failed merge
// changes nothing. Meters known to share no id (shards of one id partition) add only their
// line totals and counts (line_ledger::merge_totals).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/metering/dedup.hpp>
#include <gpurent/metering/line_ledger.hpp>
#include <gpurent/metering/record_store.hpp>

namespace gpurent::detail {

// One side of a merge: a meter's records and lines.
struct meter_state {
  record_book& book;
  line_ledger& lines;
};
struct const_meter_state {
  const record_book& book;
  const line_ledger& lines;
};

// The records of `from` that `into` does not hold, and those it holds identically; the
// first conflicting one is an error located at its own file and line.
struct merge_plan {
  std::vector<std::size_t> fresh;
  std::vector<std::size_t> repeats;
};
[[nodiscard]] inline expected<merge_plan> plan_merge(const_meter_state into, const_meter_state from) {
  merge_plan plan;
  const record_store& mine = into.book.records();
  const record_store& theirs = from.book.records();
  for (std::size_t k = 0; k < theirs.size(); ++k) {
    const std::string_view id = theirs.id_of(k);
    const std::size_t at = mine.find(id, record_store::hash(id));
    if (at == record_store::npos) {
      plan.fresh.push_back(k);
      continue;
    }
    const meter_record a = mine.at(at);
    const meter_record b = theirs.at(k);
    const std::string_view owners = into.lines.account(a.account) != from.lines.account(b.account) ? "account"
                                    : into.lines.labels(a.account) != from.lines.labels(b.account) ? "labels"
                                                                                                   : "";
    if (!record_book::differing(a, b, owners).empty()) {
      error e = into.book.conflict(id, a, b, owners);
      e.where = from.book.where(b.source, b.line);
      return unexpected(std::move(e));
    }
    plan.repeats.push_back(k);
  }
  return plan;
}

// Record k of `from` as `into` numbers its account and file.
[[nodiscard]] inline meter_record remap(meter_state into, const_meter_state from, std::size_t k) {
  meter_record r = from.book.records().at(k);
  r.account = into.lines.intern(from.lines.account(r.account), from.lines.labels(r.account));
  return r;
}

// Merges `from` into `into` (the caller checked that their terms are the same). Every id is
// checked first, so a failed merge changes nothing.
[[nodiscard]] inline expected<void> merge_meters(meter_state into, const_meter_state from) {
  GPURENT_TRY(plan, plan_merge(const_meter_state{into.book, into.lines}, from));
  const std::vector<std::string>& names = from.book.sources();
  std::vector<std::uint32_t> sources(names.size());  // once per file, not per record
  for (std::size_t k = 0; k < names.size(); ++k) sources[k] = into.book.import_source(names[k]);
  record_store& mine = into.book.records();
  for (const std::size_t k : plan->fresh) {
    meter_record e = remap(into, from, k);
    e.source = sources[e.source];
    const std::string_view id = from.book.records().id_of(k);
    mine.insert(id, record_store::hash(id), e);
  }
  GPURENT_TRY(into.lines.merge_totals(from.lines));
  for (const std::size_t k : plan->repeats) {
    // Counted by both sides: take one contribution back out.
    GPURENT_TRY(into.lines.contribute(remap(into, from, k), -1));
    into.lines.count_duplicate();
  }
  return {};
}

}  // namespace gpurent::detail
