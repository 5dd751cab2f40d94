// SPDX-License-Identifier: MIT
#pragma once
// The meter on N ranks, in rounds (`gpurent-mpi meter`, docs/tariff-metering.md "On MPI"):
// what each rank reads, what it sends in which round, and how the partial results merge,
// over any rank_transport (scale/ranks.hpp).
//
// The files, taken as one stream, are cut into N byte ranges; each rank reads the lines that
// start in its range, numbers them after the lines of the ranks before it (exclusive_sum of
// a first counting pass), parses and checks every row, and packs each record for the rank of
// its id's hash (FNV-1a 64 mod N, metering/shard.hpp). It does so in rounds: a rank reads
// blocks until its outboxes hold the round's bytes, one all_to_all moves them, and a min
// over the ranks tells when every rank is done. Records of an earlier (file, line) can
// arrive in a later round, so a rank adds them with meter::add_out_of_order, which keeps each
// id's earliest record: repeats and conflicts resolve as in one run. Ids are then disjoint
// between ranks, so rank 0 needs only the others' line totals and counts (a partial_codec
// writes them; io::rank_partials: totals-only partials, full ones when the invoice needs
// the records), adds them to its own meter and has the invoice. Errors: every rank keeps its
// earliest (file, line); all agree on the earliest of all, which rank 0 reports.

#include <algorithm>
#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/scale/ranks.hpp>
#include <gpurent/metering/scale/stream.hpp>
#include <gpurent/metering/scale/wire.hpp>
#include <gpurent/metering/shard.hpp>

namespace gpurent {

// Where a rank's rows come from (io::usage_ranges reads files). `file_size` is read at rank 0
// only (-1: the file cannot be read); `count_lines` counts the lines that start in a range;
// `open` opens a range of a file for reading in blocks of `block` bytes, checking its header
// (false: the range is empty); `rows` reads the open range's next block, calling
// sink(const meter_row&) -> expected<void> for each record line after the range's first
// `lines_before` lines, and returns false, reading nothing, at the range's end.
template <class S>
concept usage_range_source = requires(S& s, const S& cs, std::size_t file, byte_range r, std::size_t block, std::uint64_t lines_before,
                                      detail::meter_row_sink_archetype sink) {
  { cs.file_names() } -> std::convertible_to<std::span<const std::string>>;
  { cs.file_size(file) } -> std::same_as<std::int64_t>;
  { cs.estimated_records() } -> std::same_as<std::size_t>;
  { s.count_lines(file, r) } -> std::same_as<expected<std::uint64_t>>;
  { s.open(file, r, block) } -> std::same_as<expected<bool>>;
  { s.rows(lines_before, sink) } -> std::same_as<expected<bool>>;
};

// How a rank's meter crosses to rank 0 after the exchange: write(m) at the rank, read(blank,
// bytes, name) at rank 0 into a copy of the blank meter (errors name `name`).
template <class C>
concept partial_codec = requires(const C& c, const meter& m, std::string_view bytes, std::string_view name) {
  { c.write(m) } -> std::same_as<expected<std::string>>;
  { c.read(m, bytes, name) } -> std::same_as<expected<meter>>;
};

struct round_options {
  std::size_t round_bytes = std::size_t{64} << 20;  // packed records a rank sends per round, at most
  std::size_t block_bytes = std::size_t{4} << 20;   // blocks read (at most round_bytes)
  const carry_book* carry = nullptr;                // what finish() takes over from the previous
  const prepaid_balances* opening = nullptr;        // month (meter::finish); none when null
};

// What a rank did, for --stats.
struct round_counters {
  std::uint64_t rounds = 0, records = 0, sent = 0, received = 0, reduced = 0;
};

struct round_outcome {
  rank_verdict verdict;                     // a rank failed before the reduction (rank 0 reports it)
  std::optional<expected<invoice>> result;  // rank 0, when none did: the invoice, or the reduction's error
  round_counters counters;
};

namespace detail {

// One record on its way to the rank of its id.
inline void pack_record(std::string& out, std::size_t file, const meter_row& row) {
  put_u32(out, static_cast<std::uint32_t>(file));
  put_u64(out, row.line);
  put_text(out, row.id);
  put_text(out, row.account);
  put_u32(out, static_cast<std::uint32_t>(row.rate));
  put_i64(out, row.quantity.raw());
  put_i64(out, row.start.time_since_epoch().count());
  put_i64(out, row.end.time_since_epoch().count());
  put_text(out, row.labels);
}

// This rank's lines of every file, read block by block over the rounds: each row parsed,
// checked and packed for the rank of its id. Stops at its first error (later lines cannot
// hold an earlier one).
template <usage_range_source Source>
class range_reading {
 public:
  range_reading(Source& s, std::vector<byte_range> ranges, std::vector<std::uint64_t> before, std::size_t block)
      : s_(&s), ranges_(std::move(ranges)), before_(std::move(before)), block_(block) {}
  [[nodiscard]] bool done() const noexcept { return k_ >= ranges_.size(); }
  // Reads blocks while the outboxes stay within `budget` bytes (at least one block).
  void fill(std::vector<std::string>& outbox, std::size_t budget, rank_failure& f, round_counters& c) {
    std::size_t held = 0;
    for (const std::string& b : outbox) held += b.size();
    while (!done()) {
      if (auto r = step(outbox, held, budget, c); !r) {
        f.note(stream_position(k_, error_line(r.error(), s_->file_names()[k_])), r.error());
        k_ = ranges_.size();
      } else if (!*r) {
        return;
      }
    }
  }

 private:
  // One block (or the opening or end of a file); false when the budget is reached.
  expected<bool> step(std::vector<std::string>& outbox, std::size_t& held, std::size_t budget, round_counters& c) {
    if (!open_) {
      GPURENT_TRY(has_lines, s_->open(k_, ranges_[k_], block_));  // the header; a missing file fails on every rank
      if (!*has_lines) {
        ++k_;
        return true;
      }
      open_ = true;
    }
    if (held > 0 && held + block_ > budget) return false;
    const auto n = static_cast<std::uint32_t>(outbox.size());
    GPURENT_TRY(more, s_->rows(before_[k_], [&](const meter_row& row) -> expected<void> {
      std::string& box = outbox[shard_of(row.id, n)];
      const std::size_t was = box.size();
      pack_record(box, k_, row);
      held += box.size() - was;
      ++c.records;
      return {};
    }));
    if (!*more) {
      open_ = false;
      ++k_;
    }
    return true;
  }

  Source* s_;
  std::vector<byte_range> ranges_;
  std::vector<std::uint64_t> before_;
  std::size_t block_;
  std::size_t k_ = 0;
  bool open_ = false;
};

// The reading of this rank's lines: its ranges, numbered after the lines of the ranks before
// it (a first pass counts them).
template <rank_transport T, usage_range_source Source>
[[nodiscard]] range_reading<Source> open_rank_rows(T& t, Source& s, std::size_t block) {
  const std::size_t nf = s.file_names().size();
  std::vector<std::int64_t> sizes(nf, -1);
  if (t.rank() == 0)
    for (std::size_t k = 0; k < nf; ++k) sizes[k] = s.file_size(k);
  t.broadcast(sizes);  // every rank cuts the same ranges
  std::vector<byte_range> ranges = rank_ranges(sizes, t.rank(), t.size());
  std::vector<std::uint64_t> mine(nf, 0), before(nf, 0);
  for (std::size_t k = 0; k < nf; ++k) {
    auto n = s.count_lines(k, ranges[k]);
    if (n) mine[k] = *n;  // a file that cannot be read fails when it is opened
  }
  t.exclusive_sum(mine, before);
  if (t.rank() == 0) std::ranges::fill(before, 0);
  return range_reading<Source>(s, std::move(ranges), std::move(before), block);
}

// One round: every rank's outboxes to their ranks; what this rank got, in rank order.
template <rank_transport T>
void exchange(T& t, std::vector<std::string>& outbox, std::string& in, round_counters& c) {
  for (std::size_t k = 0; k < outbox.size(); ++k)
    if (k != t.rank()) c.sent += outbox[k].size();
  t.all_to_all(outbox, in);
  c.received += in.size() - outbox[t.rank()].size();
  for (std::string& b : outbox) b.clear();
  ++c.rounds;
}

// A failed add: a conflict is kept with the record at its line, to add again at the end.
inline void note_failed_add(const error& e, const rank_record& rec, const meter::record_view& displaced, std::span<const std::string> files,
                            rank_failure& f) {
  if (e.code != error_code::duplicate) return f.note(stream_position(rec.file, rec.line), e);
  if (displaced.id.empty()) return f.note(stream_position(rec.file, rec.line), e, rec);
  const auto file = static_cast<std::uint32_t>(std::ranges::find(files, displaced.source) - files.begin());  // the first: files are set in order
  f.note(stream_position(file, displaced.line), e,
         rank_record{file, displaced.line, std::string(displaced.id), std::string(displaced.account), displaced.rate, displaced.quantity,
                     displaced.start, displaced.end, std::string(displaced.labels)});
}

// A record into the meter, wherever it comes in stream order.
inline expected<void> add_record(meter& m, const rank_record& r, std::string_view id, std::string_view account, std::string_view labels,
                                 meter::record_view* displaced) {
  return m.add_out_of_order(id, account, r.rate, r.quantity, r.start, r.end, r.line, displaced, labels);
}

// The records this rank got in a round into its meter. After an error it goes on: a conflict
// at an earlier line may still be in what comes.
inline void add_exchanged(std::string_view in, std::span<const std::string> files, meter& m, rank_failure& f) {
  wire_reader c{in, 0};
  std::uint32_t source = UINT32_MAX;
  while (c.at < in.size()) {
    rank_record r;
    std::uint32_t rate = 0;
    std::uint64_t line = 0;
    std::string_view id, account, labels;
    std::int64_t q = 0, start = 0, end = 0;
    if (!(c.u32(r.file) && c.u64(line) && c.text(id) && c.text(account) && c.u32(rate) && c.i64(q) && c.i64(start) && c.i64(end) && c.text(labels))) {
      f.note(0, error{error_code::io_error, {}, "a record exchanged between ranks is cut short", {}});
      return;
    }
    r = rank_record{r.file, static_cast<std::size_t>(line), {}, {}, rate, nano_quantity(q), instant{seconds{start}}, instant{seconds{end}}, {}};
    if (r.file != source) m.set_source(files[source = r.file]);
    meter::record_view displaced{};
    if (auto added = add_record(m, r, id, account, labels, &displaced); !added) {
      r.id = id;
      r.account = account;
      r.labels = labels;
      note_failed_add(added.error(), r, displaced, files, f);
    }
  }
}

// This rank's earliest conflict added again, now that every record is in: it then names the
// first occurrence of its id, as one run does.
inline void settle_conflict(meter& m, std::span<const std::string> files, rank_failure& f) {
  if (!f.again) return;
  m.set_source(files[f.again->file]);
  if (auto r = add_record(m, *f.again, f.again->id, f.again->account, f.again->labels, nullptr); !r) f.err = r.error();
}

// Reading and exchanging in rounds until every rank has read all its lines.
template <rank_transport T, usage_range_source Source>
void read_and_exchange(T& t, Source& s, meter& m, const round_options& o, rank_failure& f, round_counters& c) {
  // A round's receipts (at most `size` x budget) must fit an int count (MPI's).
  const std::size_t budget = std::clamp<std::size_t>(o.round_bytes, 1, INT_MAX / t.size());
  range_reading<Source> reader = open_rank_rows(t, s, std::min(o.block_bytes, budget));
  m.reserve(s.estimated_records() / t.size());  // no table grown by doubling
  std::vector<std::string> outbox(t.size());
  std::string in;
  while (true) {
    reader.fill(outbox, budget, f, c);
    const std::uint64_t mine = reader.done() ? 1 : 0;
    exchange(t, outbox, in, c);
    add_exchanged(in, s.file_names(), m, f);
    if (t.min(mine) == 1) break;
  }
  settle_conflict(m, s.file_names(), f);
}

// Every rank but 0 sends its partial; rank 0 reads each as it arrives (every one, even after
// a failure) and has the invoice of its own meter (moved from `m`) and theirs.
template <rank_transport T, partial_codec C>
[[nodiscard]] std::optional<expected<invoice>> reduce(T& t, const C& codec, meter& m, const meter& blank, const round_options& o, round_counters& c) {
  if (t.rank() != 0) {
    auto bytes = codec.write(m);
    t.send_to_root(bytes ? std::string_view(*bytes) : std::string_view());  // rank 0 rejects an empty one
    c.reduced += bytes ? bytes->size() : 0;
    return std::nullopt;
  }
  std::vector<meter> parts;
  parts.push_back(std::move(m));  // not copied: rank 0's own records may be many
  std::optional<error> failed;
  for (std::size_t k = 1; k < t.size(); ++k) {
    const std::string bytes = t.receive_at_root(k);
    c.reduced += bytes.size();
    if (failed) continue;
    auto p = codec.read(blank, bytes, "rank " + std::to_string(k));
    if (!p)
      failed = p.error();
    else
      parts.push_back(std::move(*p));
  }
  if (failed) return expected<invoice>(unexpected(*failed));
  return meter::finish_shards(parts, o.carry != nullptr ? *o.carry : carry_book{}, o.opening != nullptr ? *o.opening : prepaid_balances{});
}

}  // namespace detail

// Meters the stream `source` reads on the ranks of `t` into `m` (a fresh meter of the run's
// tariff and period; rank 0's is moved into the result). Every rank calls it; each returns
// whether any failed (rank 0 with the earliest error's description) and its counters; rank
// 0, when none did, the invoice of all the records (or the error of the reduction), byte for
// byte that of one meter reading the stream in order.
template <rank_transport T, usage_range_source Source, partial_codec C>
[[nodiscard]] round_outcome meter_in_rounds(T& t, Source& source, const C& codec, meter& m, const round_options& o = {}) {
  for (const std::string& f : source.file_names()) m.set_source(f);  // numbered in stream order
  const meter blank = m;
  round_outcome out;
  rank_failure f;
  detail::read_and_exchange(t, source, m, o, f, out.counters);
  out.verdict = agree(t, f);
  if (!out.verdict.failed) out.result = detail::reduce(t, codec, m, blank, o, out.counters);
  return out;
}

}  // namespace gpurent
