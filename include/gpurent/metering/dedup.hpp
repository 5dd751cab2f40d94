// SPDX-License-Identifier: MIT
#pragma once
// Deduplication by id: the meter's records with the files they came from. A repeated id
// with identical priced fields counts once; one with a different field is an error naming
// both lines. Records may also come out of file order (exchanged between MPI ranks in
// rounds): then each id keeps its earliest record, so repeats and conflicts resolve as in
// one run in file order.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/line_ledger.hpp>
#include <gpurent/metering/record_store.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// One distinct record as a meter holds it (meter::record_view; io/billing/meter_partial.hpp writes them).
struct meter_record_view {
  std::string_view id;
  std::string_view account;
  std::size_t rate;
  nano_quantity quantity;
  instant start, end;
  std::string_view source;  // the file it came from ("": none)
  std::size_t line;
  std::string_view labels;  // its label set's key (metering/labels.hpp), "" for none
};

namespace detail {

class record_book {
 public:
  static constexpr std::size_t npos = record_store::npos;

  record_book() { source_ = import_source(std::string()); }

  // Records that follow come from this file (errors name it with the line).
  void set_source(const std::string& file) { source_ = import_source(file); }
  [[nodiscard]] std::uint32_t source() const noexcept { return source_; }
  // The index of a file name (each name once, so merges stay linear in records).
  std::uint32_t import_source(const std::string& file) {
    auto it = source_index_.find(file);
    if (it != source_index_.end()) return it->second;
    sources_.push_back(file);
    const auto i = static_cast<std::uint32_t>(sources_.size() - 1);
    source_index_.emplace(file, i);
    return i;
  }
  [[nodiscard]] const std::vector<std::string>& sources() const noexcept { return sources_; }

  [[nodiscard]] const record_store& records() const noexcept { return records_; }
  [[nodiscard]] record_store& records() noexcept { return records_; }
  [[nodiscard]] meter_record_view view(std::size_t k, const line_ledger& lines) const {
    const meter_record e = records_.at(k);
    const instant start{seconds{e.start}}, end{seconds{e.end}};
    return {records_.id_of(k), lines.account(e.account), e.rate, e.quantity, start, end, sources_[e.source], e.line, lines.labels(e.account)};
  }

  // A checked record (from the current source) into the book: rated and kept when its id is
  // new, counted once more when it repeats the first record of its id, an error naming both
  // lines when it differs from it.
  [[nodiscard, gnu::always_inline]] expected<void> add(std::string_view id, const meter_record& e, line_ledger& lines) {
    const std::uint64_t h = record_store::hash(id);
    if (const std::size_t at = records_.find(id, h); at != npos) {
      const meter_record first = records_.at(at);
      const std::string_view owners = lines.owner_difference(first.account, e.account);
      if (differing(first, e, owners).empty()) {
        lines.count_duplicate();
        return {};
      }
      return locate(conflict(id, first, e, owners), e.line);
    }
    if (const auto c = lines.contribute_status(e, 1); c != line_ledger::contribution::ok) [[unlikely]]
      return locate(line_ledger::contribution_error(c), e.line);
    records_.insert(id, h, e);
    return {};
  }

  // Whether the record kept at `at` comes before `line` of the current source (then a record
  // arriving out of order is added as in order, after it).
  [[nodiscard]] bool kept_before(std::size_t at, std::size_t line) const {
    const meter_record kept = records_.at(at);
    return std::pair{kept.source, kept.line} < std::pair{source_, line};
  }
  // A checked record `e` of an earlier (source, line) than the one kept at `at` for its id:
  // it takes that one's place. An identical one counts as a repeat; a different one is a
  // conflict located at the later of the two (the one displaced, which `displaced` receives).
  [[nodiscard]] expected<void> replace_later(std::string_view id, std::size_t at, const meter_record& e, line_ledger& lines,
                                             meter_record_view* displaced) {
    const meter_record kept = records_.at(at);
    const std::string_view owners = lines.owner_difference(e.account, kept.account);
    if (differing(e, kept, owners).empty()) {
      records_.replace(at, e);
      lines.count_duplicate();
      return {};
    }
    if (displaced != nullptr) *displaced = view(at, lines);
    GPURENT_TRY(lines.contribute(kept, -1));
    GPURENT_TRY(lines.contribute(e, 1));
    records_.replace(at, e);
    error err = conflict(id, e, kept, owners);
    err.where = where(kept.source, kept.line);
    return unexpected(std::move(err));
  }

  // "file:line" (or "record N", or "input") of a record.
  [[nodiscard]] std::string where(std::uint32_t source, std::size_t line) const {
    const std::string& f = sources_[source];
    if (f.empty()) return line == 0 ? std::string("input") : "record " + std::to_string(line);
    return f + ":" + std::to_string(line);
  }
  // An error at `line` of the current source.
  [[nodiscard]] unexpected<error> locate(error e, std::size_t line) const {
    if (line != 0 || !sources_[source_].empty()) e.where = where(source_, line);
    return unexpected<error>(std::move(e));
  }
  // A record that repeats the id of `first` with a different field (`owners`: how their
  // accounts and labels differ, line_ledger::owner_difference).
  [[nodiscard]] error conflict(std::string_view id, const meter_record& first, const meter_record& now, std::string_view owners) const {
    return error{error_code::duplicate,
                 "id",
                 "record \"" + std::string(id) + "\" repeats the id of " + where(first.source, first.line) + " with a different " +
                     std::string(differing(first, now, owners)),
                 {}};
  }
  // The first field in which two records differ (account and labels as `owners` says); empty
  // when none does. Labels are fields of a record: a repeat with other labels is a conflict,
  // so which of two records is kept never decides a label set's amount.
  [[nodiscard]] static std::string_view differing(const meter_record& a, const meter_record& b, std::string_view owners) noexcept {
    if (owners == "account") return owners;
    if (a.rate != b.rate) return "resource/mode";
    if (a.quantity != b.quantity) return "quantity";
    if (a.start != b.start) return "start";
    if (a.end != b.end) return "end";
    return owners;
  }

 private:
  std::vector<std::string> sources_;
  std::unordered_map<std::string, std::uint32_t, string_hash, std::equal_to<>> source_index_;
  std::uint32_t source_ = 0;
  record_store records_;
};

}  // namespace detail
}  // namespace gpurent
