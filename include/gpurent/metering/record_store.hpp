// SPDX-License-Identifier: MIT
#pragma once
// The meter's record storage: each distinct record once, in 40 bytes (issue 19: at most 64
// bytes per distinct record with its id and its index slot), found by its id. What is kept
// and found here; what a repeated id means is dedup.hpp's, what a record costs
// line_ledger.hpp's.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/bytes.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/metering/paged.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent::detail {

// A record's priced fields and origin, unpacked (what the meter checks, compares and rates):
// indices of its owner (account and label set: line_ledger), rate (the tariff's) and file
// (record_book).
struct meter_record {
  std::uint32_t account;  // the owner index
  std::uint32_t rate;
  std::uint32_t source;
  nano_quantity quantity;
  std::int64_t start;
  std::int64_t end;
  std::size_t line;
};

class record_store {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  static constexpr std::uint64_t low40 = (std::uint64_t{1} << 40) - 1;

  // What 40 bytes hold: a rate index below 2^16, a line below 2^40 (nothing real is larger).
  [[nodiscard, gnu::always_inline]] static expected<void> packable(std::size_t rate_pos, std::size_t line) {
    if (rate_pos > 0xFFFF) return make_error(error_code::invalid_argument, "resource", "a tariff of more than 65536 rates is not supported");
    if (line > low40) return make_error(error_code::invalid_argument, "line", "line number beyond 2^40");
    return {};
  }
  [[nodiscard]] static std::uint64_t hash(std::string_view id) noexcept { return table_hash(id); }

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  // Sizes the id table for about `records` distinct records, so it is not rebuilt as they
  // come (the records themselves grow by pages: paged.hpp).
  void reserve(std::size_t records) {
    if (id_index_.slots() * 3 < records * 4) rehash(records * 4 / 3 + 1);
  }
  // Starts loading the table slot of `id` into the cache: readers call it a few records
  // ahead of add(), so the slot (a likely cache miss in a table of millions) is there in time.
  // (An asm statement on x86: GCC 12 finds a function holding only __builtin_prefetch free of
  // effects and drops every call to it.)
  void prefetch(std::string_view id) const noexcept {
    const std::uint32_t* slot = id_index_.home_slot(hash(id));
    if (slot == nullptr) return;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    asm volatile("prefetcht0 %0" : : "m"(*slot));
#else
    __builtin_prefetch(slot);
#endif
  }
  // Record k's id, fields; the record of `id` (hash h), npos when there is none.
  [[nodiscard]] std::string_view id_of(std::size_t k) const noexcept {
    const std::uint64_t b = entries_[k].id_rate & low40;
    const std::uint64_t e = k + 1 < entries_.size() ? entries_[k + 1].id_rate & low40 : ids_.size();
    return ids_.view(b, e);
  }
  [[nodiscard]] meter_record at(std::size_t k) const {
    const entry& e = entries_[k];
    const std::int64_t end = e.length == long_length ? long_ends_.at(k) : e.start + std::int64_t{e.length};
    return {e.account, static_cast<std::uint32_t>(e.id_rate >> 48),  static_cast<std::uint32_t>(e.file_line >> 40), e.quantity, e.start,
            end,       static_cast<std::size_t>(e.file_line & low40)};
  }
  [[nodiscard]] std::size_t find(std::string_view id, std::uint64_t h) const noexcept {
    return id_index_.find(h, [&](std::size_t k) { return same_bytes(id_of(k), id); });
  }
  // A new record `r` of id `id` (hash h), not held yet.
  void insert(std::string_view id, std::uint64_t h, const meter_record& r) {
    GPURENT_ASSERT(entries_.size() < (std::size_t{1} << 31));
    entries_.push_back(pack(r, ids_.append(id), entries_.size()));
    id_index_.added(entries_.size(), h, [&](std::size_t k) { return hash(id_of(k)); });
  }
  // Record k's fields replaced by r's (its id stays).
  void replace(std::size_t k, const meter_record& r) { entries_[k] = pack(r, entries_[k].id_rate & low40, k); }

 private:
  // A distinct record as stored, 40 bytes. Its id lives in ids_ (pages of bytes), from its
  // offset to the next entry's; its hash is recomputed from the id when the table grows; file
  // and line share one word; the length (end - start) is 32 bits, a longer one kept in
  // long_ends_.
  struct entry {
    std::uint64_t id_rate;    // id offset (low 40 bits), rate (high 16 bits)
    std::uint64_t file_line;  // file (high 24 bits), line (low 40 bits)
    nano_quantity quantity;
    std::int64_t start;
    std::uint32_t length;  // end - start; long_length: see long_ends_
    std::uint32_t account;
  };
  static_assert(sizeof(entry) == 40);
  static constexpr std::uint32_t long_length = UINT32_MAX;

  // Entry k (entries_.size() for a new one) for record r, its id at id_offset.
  [[nodiscard]] entry pack(const meter_record& r, std::size_t id_offset, std::size_t k) {
    GPURENT_ASSERT(id_offset <= low40 && r.source < (1U << 24));
    const auto length = static_cast<std::uint64_t>(r.end - r.start);  // end > start: validated
    const bool long_span = length >= long_length;
    long_ends_.erase(k);
    if (long_span) long_ends_.emplace(k, r.end);
    return {id_offset | (std::uint64_t{r.rate} << 48),
            (std::uint64_t{r.source} << 40) | r.line,
            r.quantity,
            r.start,
            long_span ? long_length : static_cast<std::uint32_t>(length),
            r.account};
  }
  void rehash(std::size_t want) {
    id_index_.rebuild(want, entries_.size(), [&](std::size_t k) { return hash(id_of(k)); });
  }

  paged_vector<entry, 15> entries_;                          // 1.25 MiB pages
  paged_bytes ids_;                                          // the ids, entry k's from its offset
  key_index id_index_;                                       // the entries by id
  std::unordered_map<std::size_t, std::int64_t> long_ends_;  // entries spanning 2^32 - 1 s or more
};

}  // namespace gpurent::detail
