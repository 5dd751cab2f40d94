// SPDX-License-Identifier: MIT
#pragma once
// The meter: usage records in any order to an invoice, under one tariff and one billing
// period. Records are deduplicated by id (an identical repeat counts once, a conflicting one
// is an error naming both lines), clipped to the period, rated exactly and summed per line.
// A meter is also a partial result: meters fed disjoint shards merge into the meter that
// would have seen every record, so their invoices are identical.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gpurent/core/bytes.hpp>
#include <gpurent/core/calendar.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/paged.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/metering/shard.hpp>
#include <gpurent/metering/usage.hpp>
#include <gpurent/tariff/commitment.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// A line's key in a carry book: (account, resource, mode).
using line_key = std::tuple<std::string, std::string, std::string>;
// Sub-minor-unit remainders carried from one invoice to the next (rounding_rule::carry).
using carry_book = std::map<line_key, ratio<>>;

class meter {
 public:
  // A meter for `period` (UTC instants), named `period_name` on the invoice.
  meter(const tariff& t, interval period, std::string period_name)
      : t_(&t), n_rates_(t.rates().size()), period_(period), period_name_(std::move(period_name)) {
    source_ = import_source(std::string());
  }
  // The meter of a calendar month ("2026-11") in the tariff's time zone (meter.md rule 1).
  [[nodiscard]] static expected<meter> for_month(const tariff& t, std::string_view yyyy_mm) {
    auto ym = parse_year_month(yyyy_mm);
    if (!ym) return unexpected(ym.error());
    return meter(t, t.month(*ym), std::string(yyyy_mm));
  }
  [[nodiscard]] const tariff& tariff_value() const noexcept { return *t_; }
  [[nodiscard]] const interval& period() const noexcept { return period_; }
  // Records that follow come from this file (errors name it with the line).
  void set_source(std::string file) { source_ = import_source(file); }
  // Sizes the id table for about `records` distinct records, so it is not rebuilt as they
  // come (the records themselves grow by pages: paged.hpp).
  void reserve(std::size_t records) {
    if (id_index_.slots() * 3 < records * 4) rehash_ids(records * 4 / 3 + 1);
  }
  // Starts loading the table slot of `id` into the cache: readers call it a few records
  // ahead of add(), so the slot (a likely cache miss in a table of millions) is there in time.
  // (An asm statement on x86: GCC 12 finds a function holding only __builtin_prefetch free of
  // effects and drops every call to it.)
  void prefetch(std::string_view id) const noexcept {
    const std::uint32_t* slot = id_index_.home_slot(hash_id(id));
    if (slot == nullptr) return;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    asm volatile("prefetcht0 %0" : : "m"(*slot));
#else
    __builtin_prefetch(slot);
#endif
  }
  [[nodiscard]] std::size_t distinct_records() const noexcept { return entries_.size(); }
  [[nodiscard]] std::int64_t records_out_of_period() const noexcept { return out_of_period_; }

  // The index of the tariff's rate for (resource, mode), or an error naming both.
  [[nodiscard]] expected<std::size_t> rate_index(std::string_view resource, std::string_view mode) const {
    if (auto ri = t_->find(resource, mode)) return *ri;
    return unexpected(error{error_code::unknown_name,
                            "resource",
                            "no rate in the tariff for resource \"" + std::string(resource) + "\" and mode \"" + std::string(mode) + "\"",
                            {}});
  }
  // Adds one record; `line` is where it came from (0: not from a file).
  [[nodiscard]] expected<void> add(const usage_record& r, std::size_t line = 0) {
    auto ri = rate_index(r.resource, r.mode);
    if (!ri) return locate(ri.error(), line);
    return add(r.id, r.account, *ri, r.quantity, r.start, r.end, line);
  }
  // The same from parsed fields and the index of the rate in the tariff (the readers' path).
  [[nodiscard]] expected<void> add(std::string_view id, std::string_view account, std::size_t rate_pos, nano_quantity quantity, instant start,
                                   instant end, std::size_t line) {
    if (auto v = validate_usage(id, account, quantity, start, end); !v) return locate(v.error(), line);
    if (auto v = packable(rate_pos, line); !v) return locate(v.error(), line);
    const record e{intern(account),
                   static_cast<std::uint32_t>(rate_pos),
                   source_,
                   quantity,
                   start.time_since_epoch().count(),
                   end.time_since_epoch().count(),
                   line};
    const std::uint64_t h = hash_id(id);
    if (const std::size_t at = find_id(id, h); at != npos) {
      const record first = unpack(at);
      if (differing(first, e, first.account == e.account).empty()) {
        ++duplicates_;
        return {};
      }
      return locate(conflict(id, first, e, first.account == e.account), line);
    }
    if (const contribution c = contribute_status(e, 1); c != contribution::ok) [[unlikely]]
      return locate(contribution_error(c), line);
    insert(id, h, e);
    return {};
  }

  // Merges another meter's partial result (same tariff, same period) into this one.
  [[nodiscard]] expected<void> merge(const meter& o) {
    if (o.t_ != t_ || !(o.period_ == period_)) {
      return make_error(error_code::invalid_argument, "period", "only meters of the same tariff and period merge");
    }
    // Check every id first, so a failed merge changes nothing.
    std::vector<std::size_t> repeats;
    std::vector<std::size_t> fresh;
    for (std::size_t k = 0; k < o.entries_.size(); ++k) {
      const std::string_view id = o.id_of(k);
      const std::size_t at = find_id(id, hash_id(id));
      if (at == npos) {
        fresh.push_back(k);
        continue;
      }
      const record mine = unpack(at);
      const record theirs = o.unpack(k);
      if (!differing(mine, theirs, accounts_[mine.account] == o.accounts_[theirs.account]).empty()) {
        error e = conflict(id, mine, theirs, accounts_[mine.account] == o.accounts_[theirs.account]);
        e.where = o.where(theirs.source, theirs.line);
        return unexpected(std::move(e));
      }
      repeats.push_back(k);
    }
    std::vector<std::uint32_t> sources(o.sources_.size());  // once per file, not per record
    for (std::size_t k = 0; k < o.sources_.size(); ++k) sources[k] = import_source(o.sources_[k]);
    for (const std::size_t k : fresh) {
      record e = remap(o, o.unpack(k));
      e.source = sources[e.source];
      insert(o.id_of(k), hash_id(o.id_of(k)), e);
    }
    GPURENT_TRY(merge_totals(o));
    for (const std::size_t k : repeats) {
      // Counted by both sides: take one contribution back out.
      auto r = contribute(remap(o, o.unpack(k)), -1);
      if (!r) return unexpected(r.error());
      ++duplicates_;
    }
    return {};
  }

  // The invoice of meters that share no record id (the shards of one id partition, as
  // io::meter_usage_files gives them): their line totals are added, their records are not
  // copied unless the invoice needs them (record-point rounding of a tiered line).
  [[nodiscard]] static expected<invoice> finish_shards(std::span<const meter> shards, const carry_book& carry = {}) {
    GPURENT_ASSERT(!shards.empty());
    if (shards.size() == 1) return shards.front().finish(carry);
    const meter& first = shards.front();
    meter all(*first.t_, first.period_, first.period_name_);
    for (const meter& m : shards) {
      if (all.finish_needs_records()) {
        GPURENT_TRY(all.merge(m));
      } else {
        GPURENT_TRY(all.merge_totals(m));
      }
    }
    return all.finish(carry);
  }

  // What a partial result holds (io/meter_partial.hpp): each distinct record, each line's
  // totals, the counts.
  struct record_view {
    std::string_view id;
    std::string_view account;
    std::size_t rate;
    nano_quantity quantity;
    instant start, end;
    std::string_view source;  // the file it came from ("": none)
    std::size_t line;
  };
  [[nodiscard]] record_view record_at(std::size_t k) const noexcept {
    const record e = unpack(k);
    return {id_of(k), accounts_[e.account], e.rate, e.quantity, instant{seconds{e.start}}, instant{seconds{e.end}}, sources_[e.source], e.line};
  }
  // add() for records that may arrive after records of a later (source, line), as records
  // exchanged between MPI ranks in rounds do (sources numbered in the order set_source first
  // met them, so file order). Of one id's records the earliest is kept, so repeats and
  // conflicts resolve as in one run in file order; a conflict is located at the later of the
  // two, and when that is the record kept so far, `displaced` receives it.
  [[nodiscard]] expected<void> add_out_of_order(std::string_view id, std::string_view account, std::size_t rate_pos, nano_quantity quantity,
                                                instant start, instant end, std::size_t line, record_view* displaced = nullptr) {
    const std::size_t at = find_id(id, hash_id(id));
    if (at == npos) return add(id, account, rate_pos, quantity, start, end, line);
    const record kept = unpack(at);
    if (std::pair{kept.source, kept.line} < std::pair{source_, line}) return add(id, account, rate_pos, quantity, start, end, line);
    if (auto v = validate_usage(id, account, quantity, start, end); !v) return locate(v.error(), line);
    GPURENT_TRY(packable(rate_pos, line));
    record e = kept;
    e.account = intern(account);
    e.rate = static_cast<std::uint32_t>(rate_pos);
    e.quantity = quantity;
    e.start = start.time_since_epoch().count();
    e.end = end.time_since_epoch().count();
    e.source = source_;
    e.line = line;
    const std::size_t id_offset = entries_[at].id_rate & low40;
    if (differing(e, kept, e.account == kept.account).empty()) {
      entries_[at] = pack(e, id_offset, at);
      ++duplicates_;
      return {};
    }
    if (displaced != nullptr) *displaced = record_at(at);
    GPURENT_TRY(contribute(kept, -1));
    GPURENT_TRY(contribute(e, 1));
    entries_[at] = pack(e, id_offset, at);
    error err = conflict(id, e, kept, true);
    err.where = where(kept.source, kept.line);
    return unexpected(std::move(err));
  }
  // Adds the totals of a line that a meter sharing no id with this one rated, without its
  // records (a totals-only partial, io/meter_partial.hpp); not when finish() needs records.
  [[nodiscard]] expected<void> add_line_totals(std::string_view account, std::size_t rate_pos, const line_totals& t) {
    if (finish_needs_records() || rate_pos >= n_rates_)
      return make_error(error_code::invalid_argument, "partial", "line totals without records cannot be added here");
    if (!lines_[line_index(intern(account), static_cast<std::uint32_t>(rate_pos))].merge(t)) return detail::overflow_error("line totals");
    return {};
  }
  // Counts records out of period that another meter rated (a totals-only partial's).
  [[nodiscard]] bool add_records_out_of_period(std::int64_t n) noexcept { return detail::add_to(out_of_period_, n); }

  // Calls f(account, rate index, totals) for each line with records, in no particular order.
  template <class F>
  void for_each_line(F&& f) const {
    for (std::size_t k = 0; k < lines_.size(); ++k)
      if (!(lines_[k] == line_totals{})) f(std::string_view(accounts_[k / n_rates_]), k % n_rates_, lines_[k]);
  }
  [[nodiscard]] std::int64_t duplicates_ignored() const noexcept { return duplicates_; }
  // Counts identical repeats that were ignored elsewhere (a partial result's).
  [[nodiscard]] bool add_duplicates_ignored(std::int64_t n) noexcept { return detail::add_to(duplicates_, n); }

  // The invoice: lines rounded at the tariff's rounding point, totals, credits.
  // `carry` holds the remainders of the previous invoice when the tariff carries them.
  [[nodiscard]] expected<invoice> finish(const carry_book& carry = {}) const {
    try {
      return finish_lines(carry);
    } catch (const exception& e) {
      return unexpected(e.err());
    } catch (const std::overflow_error&) {
      return detail::overflow_error("the invoice");
    }
  }

 private:
  // A record's priced fields and origin, unpacked (what add() checks and rates).
  struct record {
    std::uint32_t account;
    std::uint32_t rate;
    std::uint32_t source;
    nano_quantity quantity;
    std::int64_t start;
    std::int64_t end;
    std::size_t line;
  };
  // A distinct record as stored, 40 bytes (issue 19: at most 64 bytes per distinct record
  // with its id and slot). Its id lives in ids_ (pages of bytes), from its offset to the
  // next entry's; its hash is recomputed from the id when the table grows; file and line share
  // one word; the length (end - start) is 32 bits, a longer one kept in long_ends_.
  struct entry {
    std::uint64_t id_rate;    // id offset (low 40 bits), rate (high 16 bits)
    std::uint64_t file_line;  // file (high 24 bits), line (low 40 bits)
    nano_quantity quantity;
    std::int64_t start;
    std::uint32_t length;  // end - start; long_length: see long_ends_
    std::uint32_t account;
  };
  static_assert(sizeof(entry) == 40);
  static constexpr std::uint64_t low40 = (std::uint64_t{1} << 40) - 1;
  static constexpr std::uint32_t long_length = UINT32_MAX;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  // What 40 bytes hold: a rate index below 2^16, a line below 2^40 (nothing real is larger).
  [[nodiscard, gnu::always_inline]] static expected<void> packable(std::size_t rate_pos, std::size_t line) {
    if (rate_pos > 0xFFFF) return make_error(error_code::invalid_argument, "resource", "a tariff of more than 65536 rates is not supported");
    if (line > low40) return make_error(error_code::invalid_argument, "line", "line number beyond 2^40");
    return {};
  }
  // Entry k (entries_.size() for a new one) for record r, its id at id_offset.
  [[nodiscard]] entry pack(const record& r, std::size_t id_offset, std::size_t k) {
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
  [[nodiscard]] record unpack(std::size_t k) const {
    const entry& e = entries_[k];
    const std::int64_t end = e.length == long_length ? long_ends_.at(k) : e.start + std::int64_t{e.length};
    return {e.account, static_cast<std::uint32_t>(e.id_rate >> 48),  static_cast<std::uint32_t>(e.file_line >> 40), e.quantity, e.start,
            end,       static_cast<std::size_t>(e.file_line & low40)};
  }
  // The tables' hash of an id or an account: eight bytes at a time, each word mixed in by a
  // multiply and a shift, murmur3's finaliser at the end. It lives only in this process's
  // tables (the shard hash is fnv1a64, shard.hpp: a byte at a time, 4 cycles a byte), and
  // reads the bytes as a little-endian word on every machine, so probes are the same
  // everywhere (detail::key_index, paged.hpp, turns it into a slot).
  [[nodiscard]] static std::uint64_t table_hash(std::string_view s) noexcept {
    std::uint64_t h = s.size() * detail::key_index::mix;
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) h = mix_word(h, detail::little_endian_word(s.data() + i, 8));
    if (i < s.size())
      h = mix_word(h, s.size() >= 8 ? detail::little_endian_word(s.data() + s.size() - 8, 8) : detail::short_word(s.data(), s.size()));
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    return h ^ (h >> 33);
  }
  [[nodiscard]] static std::uint64_t mix_word(std::uint64_t h, std::uint64_t w) noexcept {
    h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 31);
  }
  [[nodiscard]] static std::uint64_t hash_id(std::string_view id) noexcept { return table_hash(id); }
  [[nodiscard]] std::string_view id_of(std::size_t k) const noexcept {
    const std::uint64_t b = entries_[k].id_rate & low40;
    const std::uint64_t e = k + 1 < entries_.size() ? entries_[k + 1].id_rate & low40 : ids_.size();
    return ids_.view(b, e);
  }
  [[nodiscard]] std::size_t find_id(std::string_view id, std::uint64_t h) const noexcept {
    return id_index_.find(h, [&](std::size_t k) { return detail::same_bytes(id_of(k), id); });
  }
  void rehash_ids(std::size_t want) {
    id_index_.rebuild(want, entries_.size(), [&](std::size_t k) { return hash_id(id_of(k)); });
  }
  void insert(std::string_view id, std::uint64_t h, const record& r) {
    GPURENT_ASSERT(entries_.size() < (std::size_t{1} << 31));
    entries_.push_back(pack(r, ids_.append(id), entries_.size()));
    id_index_.added(entries_.size(), h, [&](std::size_t k) { return hash_id(id_of(k)); });
  }
  // The first priced field in which two records differ; empty when none does.
  [[nodiscard]] static std::string_view differing(const record& a, const record& b, bool same_account) noexcept {
    if (!same_account) return "account";
    if (a.rate != b.rate) return "resource/mode";
    if (a.quantity != b.quantity) return "quantity";
    if (a.start != b.start) return "start";
    if (a.end != b.end) return "end";
    return {};
  }

 public:
  // finish() looks at the records themselves only for record-point rounding of tiered lines.
  [[nodiscard]] bool finish_needs_records() const noexcept {
    if (t_->rounding().point != rounding_point::record) return false;
    return std::ranges::any_of(t_->rates(), [](const rate& r) { return r.kind != price_kind::unit; });
  }

 private:
  // merge() for a meter known to share no id with this one: totals and counts only.
  [[nodiscard]] expected<void> merge_totals(const meter& o) {
    if (o.t_ != t_ || !(o.period_ == period_)) {
      return make_error(error_code::invalid_argument, "period", "only meters of the same tariff and period merge");
    }
    for (std::size_t k = 0; k < o.lines_.size(); ++k) {
      if (o.lines_[k] == line_totals{}) continue;
      const std::size_t key = line_index(intern(o.accounts_[k / n_rates_]), static_cast<std::uint32_t>(k % n_rates_));
      if (!lines_[key].merge(o.lines_[k])) return detail::overflow_error("line totals");
    }
    if (!detail::add_to(out_of_period_, o.out_of_period_) || !detail::add_to(duplicates_, o.duplicates_))
      return detail::overflow_error("record counts");
    return {};
  }
  [[nodiscard]] std::size_t line_index(std::uint32_t account, std::uint32_t rate) const noexcept { return std::size_t{account} * n_rates_ + rate; }

  // The account's index, a new one for an account not seen before (the same key_index as
  // the ids').
  std::uint32_t intern(std::string_view account) {
    if (last_account_ != UINT32_MAX && detail::same_bytes(accounts_[last_account_], account)) return last_account_;
    const std::uint64_t h = table_hash(account);
    const std::size_t k = account_index_.find(h, [&](std::size_t i) { return detail::same_bytes(accounts_[i], account); });
    if (k != npos) return last_account_ = static_cast<std::uint32_t>(k);
    last_account_ = static_cast<std::uint32_t>(accounts_.size());
    accounts_.emplace_back(account);
    lines_.resize(accounts_.size() * n_rates_);
    account_index_.added(accounts_.size(), h, [&](std::size_t i) { return table_hash(accounts_[i]); });
    return last_account_;
  }
  record remap(const meter& o, const record& e) {
    record r = e;
    r.account = intern(o.accounts_[e.account]);
    return r;
  }
  // The index of a file name (each name once, so merges stay linear in records).
  std::uint32_t import_source(const std::string& file) {
    auto it = source_index_.find(file);
    if (it != source_index_.end()) return it->second;
    sources_.push_back(file);
    const auto i = static_cast<std::uint32_t>(sources_.size() - 1);
    source_index_.emplace(file, i);
    return i;
  }

  // Rates an entry and adds (sign +1) or removes (-1) its contribution.
  expected<void> contribute(const record& e, int sign) {
    const contribution c = contribute_status(e, sign);
    if (c == contribution::ok) return {};
    return unexpected(contribution_error(c));
  }
  // The same as a status, for the per-record path (an expected<void> returned from a call
  // costs GCC a clear of its 112-byte error union).
  enum class contribution : std::uint8_t { ok, record_overflow, line_overflow };
  [[nodiscard]] static error contribution_error(contribution c) {
    return detail::overflow_error(c == contribution::record_overflow ? "the amount of this record" : "the line totals").value();
  }
  [[nodiscard]] contribution contribute_status(const record& e, int sign) {
    const rate& r = t_->rate_at(e.rate);
    rated_usage u;
    switch (rate_usage(r, period_, instant{seconds{e.start}}, instant{seconds{e.end}}, e.quantity, u)) {
      case rating_status::out_of_period: out_of_period_ += sign; return contribution::ok;
      case rating_status::overflow: return contribution::record_overflow;
      case rating_status::rated: break;
    }
    detail::i128 rounded = 0;
    if (t_->rounding().point == rounding_point::record && r.kind == price_kind::unit) {
      rounded = round_record(exact_amount(u.amount, r.denominator()));
    }
    line_totals& l = lines_[line_index(e.account, e.rate)];
    const bool with_waste = sums_waste(r);
    if (!(sign > 0 ? l.add(u, rounded, with_waste) : l.subtract(u, rounded, with_waste))) return contribution::line_overflow;
    return contribution::ok;
  }
  // The one rounding of an amount to minor units, with the tariff's mode; 0 when the tariff
  // forgives amounts below one minor unit and this is one.
  [[nodiscard]] int128 round_minor(const ratio<>& exact) const {
    if (forgiven(exact)) return 0;
    return exact.round_to_digits(t_->currency_value().minor_units, t_->rounding().mode);
  }
  [[nodiscard]] bool forgiven(const ratio<>& exact) const {
    return t_->rounding().forgive_below_minor_unit &&
           detail::abs(exact.num()) * detail::pow10<int128>(t_->currency_value().minor_units) < exact.den();
  }
  [[nodiscard]] detail::i128 round_record(const ratio<>& exact) const {
    auto v = detail::to_i128(round_minor(exact));
    GPURENT_ASSERT(v.has_value());
    return *v;
  }

  // One in-period record of a tiered line, for record-point rounding.
  struct placed {
    std::int64_t start;
    std::string_view id;
    record e;
  };
  // A line with records, on its way to the invoice.
  struct pending {
    std::uint32_t account;
    std::uint32_t rate;
    std::size_t key;  // into lines_
  };
  using tiered_records = std::unordered_map<std::size_t, std::vector<placed>>;

  // " in the invoice of account \"acme\"": where an error of the invoice arose.
  [[nodiscard]] std::string in_account(std::uint32_t a) const { return " in the invoice of account \"" + std::string(accounts_[a]) + "\""; }

  [[nodiscard]] expected<invoice> finish_lines(const carry_book& carry) const {
    invoice inv{.ccy = t_->currency_value(),
                .period = period_name_,
                .timezone = t_->zone_name(),
                .span = period_,
                .rounding = t_->rounding(),
                .accounts = {},
                .records_out_of_period = out_of_period_,
                .duplicates_ignored = duplicates_};
    const std::vector<pending> ls = sorted_lines();
    const tiered_records ordered = t_->rounding().point == rounding_point::record ? order_tiered_records() : tiered_records{};
    for (std::size_t i = 0; i < ls.size();) {
      std::size_t end = i;
      while (end < ls.size() && ls[end].account == ls[i].account) ++end;
      try {  // an overflow names the account whose lines overflowed
        GPURENT_TRY(acc, finish_account(std::span(ls).subspan(i, end - i), carry, ordered));
        inv.accounts.push_back(std::move(*acc));
      } catch (const exception& e) {
        return make_error(e.err().code, "account", e.err().message + in_account(ls[i].account));
      } catch (const std::overflow_error& e) {
        return make_error(error_code::overflow, "account", std::string("overflow: ") + e.what() + in_account(ls[i].account));
      } catch (const std::range_error& e) {
        return make_error(error_code::overflow, "account", std::string("overflow: ") + e.what() + in_account(ls[i].account));
      }
      i = end;
    }
    return inv;
  }

  // The lines with records, by account, resource and mode (byte order).
  [[nodiscard]] std::vector<pending> sorted_lines() const {
    std::vector<pending> ls;
    for (std::size_t k = 0; k < lines_.size(); ++k) {
      if (lines_[k].records > 0) ls.push_back({static_cast<std::uint32_t>(k / n_rates_), static_cast<std::uint32_t>(k % n_rates_), k});
    }
    std::ranges::sort(ls, [&](const pending& a, const pending& b) {
      const rate& ra = t_->rate_at(a.rate);
      const rate& rb = t_->rate_at(b.rate);
      return std::tie(accounts_[a.account], ra.resource, ra.mode) < std::tie(accounts_[b.account], rb.resource, rb.mode);
    });
    return ls;
  }

  // Record-point rounding of tiered lines needs their records in (start, id) order.
  [[nodiscard]] tiered_records order_tiered_records() const {
    tiered_records ordered;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      const record e = unpack(k);
      if (t_->rate_at(e.rate).kind == price_kind::unit) continue;
      ordered[line_index(e.account, e.rate)].push_back({e.start, id_of(k), e});
    }
    for (auto& [k, v] : ordered) {
      std::ranges::sort(v, [](const placed& a, const placed& b) { return a.start != b.start ? a.start < b.start : a.id < b.id; });
    }
    return ordered;
  }

  // One account: its lines rounded at the tariff's rounding point, their total, its credit.
  [[nodiscard]] expected<invoice_account> finish_account(std::span<const pending> ls, const carry_book& carry, const tiered_records& ordered) const {
    const money_value zero(t_->currency_value(), 0);
    invoice_account acc{
        .account = accounts_[ls.front().account], .lines = {}, .total = zero, .credit_applied = zero, .due = zero, .credit_remaining = zero};
    for (const pending& p : ls) {
      GPURENT_TRY(l, finish_line(p, acc.account, carry, ordered));
      acc.exact_total += l->exact;
      acc.lines.push_back(std::move(*l));
    }
    if (t_->rounding().point == rounding_point::invoice) allocate_invoice(acc);
    settle(acc);
    return acc;
  }

  // One line: its exact amount and waste (the rating of metering/rating.hpp), rounded at the
  // line or record point (the invoice point rounds the account's total in allocate_invoice).
  [[nodiscard]] expected<invoice_line> finish_line(const pending& p, const std::string& account, const carry_book& carry,
                                                   const tiered_records& ordered) const {
    const rate& r = t_->rate_at(p.rate);
    const line_totals& tot = lines_[p.key];
    auto exact = line_exact(r, tot);
    if (!exact) return detail::overflow_error("the amount of line " + r.resource + "/" + r.mode);
    auto waste = line_waste(r, tot, *exact);
    if (!waste) return detail::overflow_error("the waste of line " + r.resource);
    invoice_line l{.resource = r.resource,
                   .mode = r.mode,
                   .records = tot.records,
                   .billed_seconds = tot.billed_seconds,
                   .used_seconds = tot.used_seconds,
                   .exact = *exact,
                   .amount = money_value(t_->currency_value(), 0),
                   .waste = *waste};
    if (t_->rounding().point == rounding_point::line) round_line(l, account, carry);
    if (t_->rounding().point == rounding_point::record) {
      auto it = ordered.find(p.key);
      GPURENT_TRY(minor, record_point_amount(r, it == ordered.end() ? std::span<const placed>{} : std::span<const placed>(it->second), tot));
      l.amount = money_value(t_->currency_value(), *minor);
    }
    return l;
  }

  // Line point (meter.md): the exact amount, plus the previous invoice's carry when the tariff
  // carries remainders, rounded once.
  void round_line(invoice_line& l, const std::string& account, const carry_book& carry) const {
    ratio<> base = l.exact;
    if (t_->rounding().carry) {
      auto it = carry.find(line_key{account, l.resource, l.mode});
      if (it != carry.end()) l.carry_in = it->second;
      base += l.carry_in;
    }
    l.forgiven = forgiven(base);
    l.amount = money_value(t_->currency_value(), round_minor(base));
  }

  // Record point: the sum of the line's records, each rounded alone (unit prices: summed as
  // they came; tiered lines: see round_tiered_records).
  [[nodiscard]] expected<int128> record_point_amount(const rate& r, std::span<const placed> recs, const line_totals& tot) const {
    if (r.kind == price_kind::unit) return detail::to_int128(tot.rounded_minor);
    return round_tiered_records(r, recs, tot);
  }

  // Each record's share of a tiered line (graduated: laid after the records before it;
  // volume: at the line's step, the step's flat fee with the first record), rounded alone.
  [[nodiscard]] expected<int128> round_tiered_records(const rate& r, std::span<const placed> recs, const line_totals& tot) const {
    nano_usage before;
    cost_numerator before_cost, total_cost;
    if (!tiered_cost(r, tot.usage, total_cost)) return detail::overflow_error("a tiered line");
    const bool volume = r.kind == price_kind::tiers && r.tiers.mode() == tier_mode::volume;
    const nano_price vprice = volume ? r.tiers.steps()[r.tiers.volume_step(tot.usage)].unit_price : nano_price{};
    int128 sum = 0;
    bool first = true;
    for (const placed& p : recs) {
      rated_usage u;
      if (rate_usage(r, period_, instant{seconds{p.e.start}}, instant{seconds{p.e.end}}, p.e.quantity, u) != rating_status::rated) continue;
      cost_numerator part;
      if (volume) {
        cost_numerator all;
        if (!mul_into(vprice, u.usage, part) || (first && !mul_into(vprice, tot.usage, all))) return detail::overflow_error("a tiered record");
        if (first) part = part + (total_cost - all);
      } else {
        cost_numerator upto;
        if (!tiered_cost(r, before + u.usage, upto)) return detail::overflow_error("a tiered record");
        part = upto - before_cost;
        before_cost = upto;
      }
      before = before + u.usage;
      first = false;
      sum += round_minor(usage_cost(part));
    }
    return sum;
  }

  // Invoice point: the account's exact total rounded once, allocated over its lines by the
  // largest remainder of each line's exact amount (ties: the earlier line).
  void allocate_invoice(invoice_account& acc) const {
    const currency& c = t_->currency_value();
    const int128 minor_one = detail::pow10<int128>(c.minor_units);
    const int128 total = round_minor(acc.exact_total);
    std::vector<int128> parts(acc.lines.size());
    std::vector<ratio<>> remainders(acc.lines.size());
    for (std::size_t i = 0; i < acc.lines.size(); ++i) {
      parts[i] = acc.lines[i].exact.round_to_digits(c.minor_units, rounding_mode::down);
      remainders[i] = acc.lines[i].exact - ratio<>(parts[i], minor_one);
    }
    distribute_remainder(total, parts, remainders);
    for (std::size_t i = 0; i < acc.lines.size(); ++i) {
      acc.lines[i].amount = money_value(c, parts[i]);
      acc.lines[i].forgiven = parts[i] == 0 && total == 0 && !(acc.lines[i].exact == ratio<>{});
    }
  }

  // The account's total (the sum of its rounded lines), each line's rounding, and its
  // prepaid credit drawn down by the total (tariff/commitment.hpp's credit_balance).
  void settle(invoice_account& acc) const {
    const currency& c = t_->currency_value();
    const int128 minor_one = detail::pow10<int128>(c.minor_units);
    int128 total = 0;
    for (auto& l : acc.lines) {
      total += l.amount.minor_units();
      l.rounding = ratio<>(l.amount.minor_units(), minor_one) - (l.exact + l.carry_in);
    }
    acc.total = money_value(c, total);
    credit_balance credit(t_->credit_for(acc.account));
    const credit_balance::draw_result d = credit.draw(acc.total);
    acc.credit_applied = d.applied;
    acc.due = d.due;
    acc.credit_remaining = credit.remaining();
  }

  [[nodiscard]] std::string where(std::uint32_t source, std::size_t line) const {
    const std::string& f = sources_[source];
    if (f.empty()) return line == 0 ? std::string("input") : "record " + std::to_string(line);
    return f + ":" + std::to_string(line);
  }
  [[nodiscard]] unexpected<error> locate(error e, std::size_t line) const {
    if (line != 0 || !sources_[source_].empty()) e.where = where(source_, line);
    return unexpected<error>(std::move(e));
  }
  [[nodiscard]] error conflict(std::string_view id, const record& first, const record& now, bool same_account) const {
    return error{error_code::duplicate,
                 "id",
                 "record \"" + std::string(id) + "\" repeats the id of " + where(first.source, first.line) + " with a different " +
                     std::string(differing(first, now, same_account)),
                 {}};
  }
  const tariff* t_;
  std::size_t n_rates_;
  interval period_;
  std::string period_name_;
  std::vector<std::string> sources_;
  std::unordered_map<std::string, std::uint32_t, detail::string_hash, std::equal_to<>> source_index_;
  std::uint32_t source_ = 0;
  std::vector<std::string> accounts_;
  detail::key_index account_index_;
  std::uint32_t last_account_ = UINT32_MAX;
  detail::paged_vector<entry, 15> entries_;                  // 1.25 MiB pages
  detail::paged_bytes ids_;                                  // the ids, entry k's from its offset
  detail::key_index id_index_;                               // the entries by id
  std::unordered_map<std::size_t, std::int64_t> long_ends_;  // entries spanning 2^32 - 1 s or more
  std::vector<line_totals> lines_;                           // account x n_rates_ + rate
  std::int64_t out_of_period_ = 0;
  std::int64_t duplicates_ = 0;
};

}  // namespace gpurent
