// SPDX-License-Identifier: MIT
#pragma once
// A meter's state on disk (a "partial result"): versioned, checksummed, deterministic, so
// meters run anywhere (threads, processes, machines) merge exactly. The format, byte by
// byte, is in docs/tariff-metering.md ("Partial results"). Reading one back re-rates every
// record it holds and checks the result against its stored line totals, so a partial that
// is damaged, of another tariff, period or version is rejected with a message naming the
// file, never merged.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/labels.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/metering/scale/wire.hpp>
#include <gpurent/metering/shard.hpp>

namespace gpurent::io {

inline constexpr std::string_view partial_magic = "GPURENTP";
inline constexpr std::uint32_t partial_version = 2;      // 2: label sets (metering/labels.hpp)
inline constexpr std::size_t partial_header_bytes = 96;  // magic to the counts
inline constexpr std::size_t partial_line_bytes = 4 + 4 + 4 + 3 * 8 + 5 * 16;
inline constexpr std::size_t partial_min_record_bytes = 4 + 1 + 4 + 4 + 4 + 4 + 8 + 8 + 8 + 8;
// Header flag: a totals-only partial (lines and counts, no records nor files), for meters
// known to share no id (MPI ranks after the exchange): it is read by read_totals_partial.
inline constexpr std::uint32_t partial_totals_only = 1;

// The tariff's fingerprint: FNV-1a 64 of its canonical JSON (tariff_to_json, compact).
[[nodiscard]] inline expected<std::uint64_t> tariff_fingerprint(const tariff& t) {
  GPURENT_TRY(j, tariff_to_json(t));
  return fnv1a64(j->dump());
}

namespace detail {
// The format's integers and text (metering/scale/wire.hpp: little-endian whatever the machine).
using ::gpurent::detail::put_i128;
using ::gpurent::detail::put_i64;
using ::gpurent::detail::put_text;
using ::gpurent::detail::put_u32;
using ::gpurent::detail::put_u64;
using partial_cursor = ::gpurent::detail::wire_reader;

inline void put_totals(std::string& out, const line_totals& t) {
  put_i64(out, t.records);
  put_i64(out, t.billed_seconds);
  put_i64(out, t.used_seconds);
  put_i128(out, t.amount.raw());
  put_i128(out, t.waste.raw());
  put_i128(out, t.usage.raw());
  put_i128(out, t.used_usage.raw());
  put_i128(out, t.rounded_minor);
}
[[nodiscard]] inline bool read_totals(partial_cursor& c, line_totals& t) {
  ::gpurent::detail::i128 a = 0, w = 0, u = 0, uu = 0;
  const bool ok = c.i64(t.records) && c.i64(t.billed_seconds) && c.i64(t.used_seconds) && c.i128(a) && c.i128(w) && c.i128(u) && c.i128(uu) &&
                  c.i128(t.rounded_minor);
  t.amount = cost_numerator(a);
  t.waste = cost_numerator(w);
  t.usage = nano_usage(u);
  t.used_usage = nano_usage(uu);
  return ok;
}

// The sorted, distinct names `names` holds, and each one's index.
struct name_table {
  std::vector<std::string_view> names;
  void finish() {
    std::ranges::sort(names);
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  [[nodiscard]] std::uint32_t index(std::string_view n) const {
    return static_cast<std::uint32_t>(std::ranges::lower_bound(names, n) - names.begin());
  }
};

// The lines of all shards, by (account, label set, rate), their totals added.
using partial_line_key = std::tuple<std::string_view, std::string_view, std::size_t>;
using partial_lines = std::map<partial_line_key, line_totals>;
[[nodiscard]] inline expected<partial_lines> merged_lines(std::span<const meter> shards) {
  partial_lines lines;
  std::optional<partial_line_key> over;
  for (const meter& m : shards)
    m.for_each_line([&](std::string_view account, std::string_view labels, std::size_t rate, const line_totals& t) {
      if (!over && !lines[{account, labels, rate}].merge(t)) over = partial_line_key{account, labels, rate};
    });
  if (over) return ::gpurent::detail::line_overflow_error(shards.front().tariff_value(), std::get<0>(*over), std::get<1>(*over), std::get<2>(*over));
  return lines;
}

// Every record of every shard, sorted by id; an id twice is an error (shards must be disjoint).
struct record_ref {
  std::string_view id;
  std::uint32_t shard;
  std::size_t k;
};
[[nodiscard]] inline expected<std::vector<record_ref>> sorted_records(std::span<const meter> shards) {
  std::vector<record_ref> refs;
  for (std::size_t s = 0; s < shards.size(); ++s)
    for (std::size_t k = 0; k < shards[s].distinct_records(); ++k) refs.push_back({shards[s].record_at(k).id, static_cast<std::uint32_t>(s), k});
  std::ranges::sort(refs, [](const record_ref& a, const record_ref& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < refs.size(); ++i)
    if (refs[i].id == refs[i - 1].id)
      return make_error(error_code::invalid_argument, "id", "record \"" + std::string(refs[i].id) + "\" is in two shards: they must share no id");
  return refs;
}

inline void put_header(std::string& out, std::uint64_t fingerprint, const interval& period, const std::array<std::uint64_t, 5>& counts,
                       std::int64_t out_of_period, std::int64_t duplicates, std::uint32_t flags = 0) {
  out.append(partial_magic);
  put_u32(out, partial_version);
  put_u32(out, flags);
  put_u64(out, fingerprint);
  put_i64(out, period.begin().time_since_epoch().count());
  put_i64(out, period.end().time_since_epoch().count());
  for (const std::uint64_t c : counts) put_u64(out, c);
  put_i64(out, out_of_period);
  put_i64(out, duplicates);
}

// The names of the accounts and label sets of `lines` (and of more, added before finish()).
struct owner_tables {
  name_table accounts, label_sets;
  void add(const partial_lines& lines) {
    for (const auto& [key, t] : lines) {
      accounts.names.push_back(std::get<0>(key));
      label_sets.names.push_back(std::get<1>(key));
    }
  }
  void finish() {
    accounts.finish();
    label_sets.finish();
  }
};

// The account names, the label sets, then the lines by (account, label set, rate).
inline void put_lines(std::string& out, const owner_tables& owners, const partial_lines& lines) {
  for (std::string_view a : owners.accounts.names) put_text(out, a);
  for (std::string_view l : owners.label_sets.names) put_text(out, l);
  for (const auto& [key, t] : lines) {
    put_u32(out, owners.accounts.index(std::get<0>(key)));
    put_u32(out, owners.label_sets.index(std::get<1>(key)));
    put_u32(out, static_cast<std::uint32_t>(std::get<2>(key)));
    put_totals(out, t);
  }
}
}  // namespace detail

// The totals-only partial of a meter that shares no record id with the others it will be
// added to: its line totals and counts, no records, so its size grows with its lines (accounts
// x rates), not its records. Not for a tariff whose invoice needs the records
// (meter::finish_needs_records: record-point rounding of a tiered line).
[[nodiscard]] inline expected<std::string> write_totals_partial(const meter& m) {
  GPURENT_ASSERT(!m.finish_needs_records());
  GPURENT_TRY(fingerprint, tariff_fingerprint(m.tariff_value()));
  GPURENT_TRY(lines, detail::merged_lines(std::span<const meter>(&m, 1)));
  detail::owner_tables owners;
  owners.add(*lines);
  owners.finish();
  std::string out;
  detail::put_header(out, *fingerprint, m.period(), {0, owners.accounts.names.size(), owners.label_sets.names.size(), lines->size(), 0},
                     m.records_out_of_period(), m.duplicates_ignored(), partial_totals_only);
  detail::put_lines(out, owners, *lines);
  detail::put_u64(out, fnv1a64(out));
  return out;
}

// The partial result of meters that share no record id (one meter, or the shards of
// io::meter_usage_files): the same records give the same bytes, however they were sharded.
[[nodiscard]] inline expected<std::string> write_partial(std::span<const meter> shards) {
  GPURENT_ASSERT(!shards.empty());
  GPURENT_TRY(fingerprint, tariff_fingerprint(shards.front().tariff_value()));
  GPURENT_TRY(refs, detail::sorted_records(shards));
  GPURENT_TRY(lines, detail::merged_lines(shards));
  detail::owner_tables owners;
  detail::name_table sources;
  std::int64_t out_of_period = 0, duplicates = 0;
  for (const meter& m : shards) {
    out_of_period += m.records_out_of_period();
    duplicates += m.duplicates_ignored();
  }
  for (const auto& r : *refs) {
    const meter::record_view v = shards[r.shard].record_at(r.k);
    owners.accounts.names.push_back(v.account);
    owners.label_sets.names.push_back(v.labels);
    sources.names.push_back(v.source);
  }
  owners.add(*lines);
  owners.finish();
  sources.finish();
  std::string out;
  detail::put_header(out, *fingerprint, shards.front().period(),
                     {sources.names.size(), owners.accounts.names.size(), owners.label_sets.names.size(), lines->size(), refs->size()}, out_of_period,
                     duplicates);
  for (std::string_view s : sources.names) detail::put_text(out, s);
  detail::put_lines(out, owners, *lines);
  for (const auto& r : *refs) {
    const meter::record_view v = shards[r.shard].record_at(r.k);
    detail::put_text(out, v.id);
    detail::put_u32(out, owners.accounts.index(v.account));
    detail::put_u32(out, owners.label_sets.index(v.labels));
    detail::put_u32(out, static_cast<std::uint32_t>(v.rate));
    detail::put_u32(out, sources.index(v.source));
    detail::put_u64(out, v.line);
    detail::put_i64(out, v.quantity.raw());
    detail::put_i64(out, v.start.time_since_epoch().count());
    detail::put_i64(out, v.end.time_since_epoch().count());
  }
  detail::put_u64(out, fnv1a64(out));
  return out;
}

namespace detail {
// A partial's header, read and checked against the meter it is for.
struct partial_header {
  std::uint32_t flags = 0;
  std::uint64_t sources = 0, accounts = 0, label_sets = 0, lines = 0, records = 0;
  std::int64_t out_of_period = 0, duplicates = 0;
};

[[nodiscard]] inline expected<partial_header> read_partial_header(partial_cursor& c, const meter& blank,
                                                                  const std::function<unexpected<error>(std::string)>& bad) {
  if (c.bytes.size() < partial_header_bytes + 8) {
    return bad("truncated: " + std::to_string(c.bytes.size()) + " bytes, a partial result has at least " + std::to_string(partial_header_bytes + 8));
  }
  if (c.bytes.substr(0, 8) != partial_magic) return bad("not a gpurent partial result (it does not start with \"GPURENTP\")");
  c.at = 8;
  std::uint32_t version = 0, flags = 0;
  (void)c.u32(version);
  (void)c.u32(flags);
  if (version != partial_version) {
    return bad("partial result format version " + std::to_string(version) + "; this gpurent reads version " + std::to_string(partial_version));
  }
  partial_cursor tail{c.bytes, c.bytes.size() - 8};
  std::uint64_t sum = 0;
  (void)tail.u64(sum);
  if (sum != fnv1a64(c.bytes.substr(0, c.bytes.size() - 8)) || (flags & ~partial_totals_only) != 0)
    return bad("damaged or truncated: the checksum does not match");
  std::uint64_t fingerprint = 0;
  std::int64_t begin = 0, end = 0;
  (void)c.u64(fingerprint);
  GPURENT_TRY(mine, tariff_fingerprint(blank.tariff_value()));
  if (fingerprint != *mine) return bad("made under another tariff (its fingerprint differs from this tariff's)");
  (void)c.i64(begin);
  (void)c.i64(end);
  if (begin != blank.period().begin().time_since_epoch().count() || end != blank.period().end().time_since_epoch().count()) {
    return bad("of another period: " + format_instant(instant{seconds{begin}}) + " to " + format_instant(instant{seconds{end}}) + ", not " +
               format_instant(blank.period().begin()) + " to " + format_instant(blank.period().end()));
  }
  partial_header h;
  h.flags = flags;
  (void)(c.u64(h.sources) && c.u64(h.accounts) && c.u64(h.label_sets) && c.u64(h.lines) && c.u64(h.records) && c.i64(h.out_of_period) &&
         c.i64(h.duplicates));
  const std::uint64_t room = c.bytes.size() - 8 - c.at;
  if (h.sources > room / 4 || h.accounts > room / 4 || h.label_sets > room / 4 || h.lines > room / partial_line_bytes ||
      h.records > room / partial_min_record_bytes) {
    return bad("damaged: its counts do not fit its size");
  }
  return h;
}

// The names of a partial's string section, each checked to be UTF-8 (an invoice writes the
// accounts) and in strictly increasing order.
[[nodiscard]] inline bool read_names(partial_cursor& c, std::uint64_t n, std::vector<std::string_view>& out) {
  out.clear();
  for (std::uint64_t i = 0; i < n; ++i) {
    std::string_view s;
    if (!c.text(s) || !is_utf8(s) || (!out.empty() && !(out.back() < s))) return false;
    out.push_back(s);
  }
  return true;
}

// A partial's account and label set names.
struct partial_owners {
  std::vector<std::string_view> accounts, label_sets;
};

// The line section: (account, label set, rate) in increasing order, each within the tables.
[[nodiscard]] inline bool read_lines(partial_cursor& c, const partial_header& h, std::size_t rates, partial_lines& out, const partial_owners& o) {
  std::tuple<std::uint32_t, std::uint32_t, std::uint32_t> last{0, 0, 0};
  for (std::uint64_t i = 0; i < h.lines; ++i) {
    std::uint32_t a = 0, l = 0, r = 0;
    line_totals t;
    if (!c.u32(a) || !c.u32(l) || !c.u32(r) || !read_totals(c, t) || a >= o.accounts.size() || l >= o.label_sets.size() || r >= rates) return false;
    if (i > 0 && !(last < std::tuple{a, l, r})) return false;
    last = {a, l, r};
    out.emplace(partial_line_key{o.accounts[a], o.label_sets[l], std::size_t{r}}, t);
  }
  return true;
}
// The account and label set names; false when cut short, out of order or not UTF-8.
[[nodiscard]] inline bool read_owners(partial_cursor& c, const partial_header& h, partial_owners& o) {
  return read_names(c, h.accounts, o.accounts) && read_names(c, h.label_sets, o.label_sets) &&
         std::ranges::all_of(o.label_sets, [](std::string_view l) { return is_label_set_key(l); });
}

// The record section, re-rated into `m` (which checks each record and finds repeats).
[[nodiscard]] inline expected<void> read_records(partial_cursor& c, const partial_header& h, std::span<const std::string_view> sources,
                                                 const partial_owners& owners, meter& m, const std::function<unexpected<error>(std::string)>& bad) {
  std::string_view last_id, source;
  for (std::uint64_t i = 0; i < h.records; ++i) {
    std::string_view id;
    std::uint32_t a = 0, l = 0, r = 0, src = 0;
    std::uint64_t line = 0;
    std::int64_t q = 0, start = 0, end = 0;
    const std::string where = "record " + std::to_string(i + 1);
    if (!c.text(id) || !c.u32(a) || !c.u32(l) || !c.u32(r) || !c.u32(src) || !c.u64(line) || !c.i64(q) || !c.i64(start) || !c.i64(end))
      return bad("damaged: " + where + " is cut short");
    if (a >= owners.accounts.size() || l >= owners.label_sets.size() || r >= m.tariff_value().rates().size() || src >= sources.size())
      return bad("damaged: " + where + " names an account, label set, rate or file that is not there");
    if (i > 0 && !(last_id < id)) return bad("damaged: " + where + " is out of order or repeats an id");
    last_id = id;
    if (sources[src] != source || i == 0) m.set_source(std::string(sources[src]));
    source = sources[src];
    const auto added = m.add(id, owners.accounts[a], r, nano_quantity(q), instant{seconds{start}}, instant{seconds{end}},
                             static_cast<std::size_t>(line), owners.label_sets[l]);
    if (!added) return bad("damaged: " + where + " (\"" + std::string(id) + "\") is invalid: " + added.error().message);
  }
  return {};
}

// The lines the records rate to must be the lines stored, and the counts the counts stored.
[[nodiscard]] inline expected<void> check_totals(const meter& m, const partial_header& h, const partial_lines& stored,
                                                 const std::function<unexpected<error>(std::string)>& bad) {
  GPURENT_TRY(rated, merged_lines(std::span<const meter>(&m, 1)));
  if (*rated != stored) return bad("damaged: its line totals are not those of its records");
  if (m.records_out_of_period() != h.out_of_period) return bad("damaged: its count of records out of period is not that of its records");
  if (h.duplicates < 0) return bad("damaged: a negative count of repeats");
  return {};
}
}  // namespace detail

// A partial result read back: a copy of `blank` (a meter of the same tariff and period, with
// no records) holding its records, totals and counts. Every error names `file`.
[[nodiscard]] inline expected<meter> read_partial(const meter& blank, std::string_view bytes, std::string_view file) {
  const std::function<unexpected<error>(std::string)> bad = [&](std::string why) {
    return unexpected(error{error_code::parse_error, "partial", "invalid partial result: " + std::move(why), std::string(file)});
  };
  detail::partial_cursor c{bytes, 0};
  GPURENT_TRY(h, detail::read_partial_header(c, blank, bad));
  if (h->flags != 0) return bad("a totals-only partial (line totals without records) cannot be merged with others");
  std::vector<std::string_view> sources;
  detail::partial_owners owners;
  detail::partial_lines lines;
  if (!detail::read_names(c, h->sources, sources) || !detail::read_owners(c, *h, owners))
    return bad("damaged: its file, account or label set names are cut short, out of order, not UTF-8 or not label sets");
  if (!detail::read_lines(c, *h, blank.tariff_value().rates().size(), lines, owners))
    return bad("damaged: its line totals are cut short or out of order");
  meter m = blank;
  GPURENT_TRY(detail::read_records(c, *h, sources, owners, m, bad));
  if (c.at != bytes.size() - 8) return bad("damaged: " + std::to_string(bytes.size() - 8 - c.at) + " bytes after the last record");
  GPURENT_TRY(detail::check_totals(m, *h, lines, bad));
  if (!m.add_duplicates_ignored(h->duplicates)) return bad("damaged: too many repeats");
  return m;
}

// A totals-only partial (write_totals_partial) read back: a copy of `blank` holding its line
// totals and counts. Only its checksum vouches for the totals (there are no records to re-rate).
[[nodiscard]] inline expected<meter> read_totals_partial(const meter& blank, std::string_view bytes, std::string_view file) {
  const std::function<unexpected<error>(std::string)> bad = [&](std::string why) {
    return unexpected(error{error_code::parse_error, "partial", "invalid partial result: " + std::move(why), std::string(file)});
  };
  detail::partial_cursor c{bytes, 0};
  GPURENT_TRY(h, detail::read_partial_header(c, blank, bad));
  if (h->flags != partial_totals_only || h->sources != 0 || h->records != 0) return bad("not a totals-only partial");
  detail::partial_owners owners;
  detail::partial_lines lines;
  if (!detail::read_owners(c, *h, owners) || !detail::read_lines(c, *h, blank.tariff_value().rates().size(), lines, owners))
    return bad("damaged: its accounts, label sets or line totals are cut short, out of order or not UTF-8");
  if (c.at != bytes.size() - 8) return bad("damaged: " + std::to_string(bytes.size() - 8 - c.at) + " bytes after the last line");
  if (h->out_of_period < 0 || h->duplicates < 0) return bad("damaged: a negative count");
  meter m = blank;
  for (const auto& [key, t] : lines) GPURENT_TRY(m.add_line_totals(std::get<0>(key), std::get<1>(key), std::get<2>(key), t));
  if (!m.add_records_out_of_period(h->out_of_period) || !m.add_duplicates_ignored(h->duplicates)) return bad("damaged: too many records");
  return m;
}

// How a rank's meter crosses to rank 0 after the exchange of gpurent-mpi's rounds (the
// partial_codec of metering/scale/rounds.hpp): a totals-only partial, or a full one when the
// invoice needs the records (record-point rounding of a tiered line).
struct rank_partials {
  [[nodiscard]] expected<std::string> write(const meter& m) const {
    return m.finish_needs_records() ? write_partial(std::span<const meter>(&m, 1)) : write_totals_partial(m);
  }
  [[nodiscard]] expected<meter> read(const meter& blank, std::string_view bytes, std::string_view name) const {
    return blank.finish_needs_records() ? read_partial(blank, bytes, name) : read_totals_partial(blank, bytes, name);
  }
};

}  // namespace gpurent::io
