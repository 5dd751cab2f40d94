// SPDX-License-Identifier: MIT
#pragma once
// Usage CSV files into meters, streamed in blocks of whole lines (never a whole file in
// memory), optionally only one shard of the ids (--shard K/N): on one thread, on N threads
// (metering/scale/threads.hpp's runner, over usage_file_blocks) or on N ranks
// (metering/scale/rounds.hpp's protocol, over usage_ranges). This header only reads the
// files; how the records are split, exchanged and merged is the metering layer's.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/io/billing/meter_partial.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/io/text/csv_split.hpp>
#include <gpurent/io/text/line_blocks.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/scale/ranks.hpp>
#include <gpurent/metering/scale/rounds.hpp>
#include <gpurent/metering/scale/stream.hpp>
#include <gpurent/metering/scale/threads.hpp>
#include <gpurent/metering/shard.hpp>

namespace gpurent::io {

struct meter_run_options {
  shard_spec shard{};  // only the records of this shard
  unsigned jobs = 1;   // threads, and shards of the result
  std::size_t block_bytes = default_block_bytes;
};

// The number of threads this machine runs at once (at least 1).
[[nodiscard]] inline unsigned machine_cores() noexcept { return std::max(1U, std::thread::hardware_concurrency()); }

namespace detail {
// The records of all `files` are about this many (to reserve the meters' tables once).
[[nodiscard]] inline std::size_t estimated_records(std::span<const std::string> files) {
  std::uintmax_t bytes = 0;
  for (const std::string& f : files) {
    std::error_code ec;
    const std::uintmax_t n = std::filesystem::file_size(f, ec);
    if (!ec) bytes += n;
  }
  return static_cast<std::size_t>(bytes / 80);  // scripts/gen-usage rows are 80 to 90 bytes
}

// Opens a usage file and reads its header from the first block; `rest` is what follows it.
struct opened_usage {
  line_blocks blocks;
  std::unique_ptr<usage_header> header;  // rows' label names point into it: it never moves
  std::string first;                     // the first block
  std::size_t rest = 0;                  // where the first block's rows begin
};
[[nodiscard]] inline expected<opened_usage> open_usage(const std::string& path, std::size_t block_bytes) {
  GPURENT_TRY(blocks, line_blocks::open(path, block_bytes));
  opened_usage u{std::move(*blocks), std::make_unique<usage_header>(), {}, 0};
  GPURENT_TRY(u.blocks.take(u.first));
  csv_lines lines(u.first);
  GPURENT_TRY(read_usage_header(lines, path, *u.header));
  const std::size_t nl = u.first.find('\n');
  u.rest = nl == std::string::npos ? u.first.size() : nl + 1;
  return u;
}

// A parsed row with its rate, as the runners take it; a row matching no rate is an error.
template <class Sink>
[[nodiscard, gnu::always_inline]] inline expected<void> rated_row(row_rate& rates, const meter& m, const usage_row& row, std::string_view path,
                                                                  Sink& sink) {
  GPURENT_TRY(ri, rates.of(m, row, path));
  return sink(meter_row{row.id, row.account, *ri, row.quantity, row.start, row.end, row.line, row.labels});
}
}  // namespace detail

// Usage files as one stream of blocks (a usage_block_source): each file's header read from its
// first block, then its blocks of whole lines.
class usage_file_blocks {
 public:
  usage_file_blocks(std::span<const std::string> files, std::size_t block_bytes) : files_(files), block_bytes_(block_bytes) {}
  [[nodiscard]] const std::string& file_name(std::size_t k) const noexcept { return files_[k]; }

  // The stream's next block; false at its end, or with `err` set when a file cannot be opened
  // or read.
  [[nodiscard]] bool next(usage_block& b, std::optional<placed_error>& err) {
    while (true) {
      if (!current_ && !open_next(err)) return false;
      b.file = file_;
      if (fresh_) {
        b.text.swap(current_->first);
        b.skip = current_->rest;
        b.lines_before = 1;
        fresh_ = false;
        return true;
      }
      auto more = current_->blocks.take(b.text);
      if (!more) {
        err = placed_error{file_, 0, more.error()};
        return false;
      }
      if (*more) {
        b.skip = 0;
        b.lines_before = current_->blocks.lines_before();
        return true;
      }
      current_.reset();
      ++file_;
    }
  }
  // Calls sink(const meter_row&) for each record line of `b` in order (the rate of each row
  // found in `m`'s tariff), ahead(id) for the id `lookahead` rows further on; stops at the
  // first error. Safe on several threads at once, each on its own block.
  template <class Sink, class Ahead = detail::no_lookahead>
  [[nodiscard]] expected<void> rows(const usage_block& b, const meter& m, Sink&& sink, Ahead&& ahead = Ahead{}) const {
    const std::string& path = files_[b.file];
    usage_row_parser parser(*headers_[b.file], path);
    row_rate rates;
    return parser.rows(
        std::string_view(b.text).substr(b.skip), b.lines_before, [&](const usage_row& row) { return detail::rated_row(rates, m, row, path, sink); },
        ahead);
  }

 private:
  [[nodiscard]] bool open_next(std::optional<placed_error>& err) {
    if (file_ >= files_.size()) return false;
    auto u = detail::open_usage(files_[file_], block_bytes_);
    if (!u) {
      err = placed_error{file_, error_line(u.error(), files_[file_]), u.error()};
      return false;
    }
    headers_.push_back(std::move(u->header));
    current_ = std::move(*u);
    current_->header = nullptr;
    fresh_ = true;
    return true;
  }

  std::span<const std::string> files_;
  std::size_t block_bytes_;
  std::vector<std::unique_ptr<detail::usage_header>> headers_;  // by file
  std::optional<detail::opened_usage> current_;
  bool fresh_ = false;
  std::size_t file_ = 0;
};

// Usage files read by byte ranges (a usage_range_source): what each MPI rank reads of them.
class usage_ranges {
 public:
  // `m` finds each row's rate.
  usage_ranges(std::span<const std::string> files, const meter& m) : files_(files), m_(&m) {}
  [[nodiscard]] std::span<const std::string> file_names() const noexcept { return files_; }
  [[nodiscard]] std::int64_t file_size(std::size_t k) const {
    std::error_code ec;
    const auto n = std::filesystem::file_size(files_[k], ec);
    return ec ? -1 : static_cast<std::int64_t>(n);
  }
  [[nodiscard]] std::size_t estimated_records() const { return detail::estimated_records(files_); }
  // The lines that start in range r of file k.
  [[nodiscard]] expected<std::uint64_t> count_lines(std::size_t k, byte_range r) const {
    if (r.begin >= r.end) return std::uint64_t{0};
    GPURENT_TRY(blocks, line_blocks::open(files_[k], default_block_bytes, r.begin, r.end));
    std::uint64_t lines = 0;
    std::string block;
    while (true) {
      GPURENT_TRY(more, blocks->take(block));
      if (!*more) break;
      lines += static_cast<std::uint64_t>(std::count(block.begin(), block.end(), '\n'));
      if (block.back() != '\n') ++lines;
    }
    return lines;
  }
  // Range r of file k, to read in blocks of `block` bytes; its header is read (a missing file
  // fails on every rank); false when the range is empty.
  [[nodiscard]] expected<bool> open(std::size_t k, byte_range r, std::size_t block) {
    const std::string& path = files_[k];
    GPURENT_TRY(head, detail::open_usage(path, std::size_t{1} << 16));
    if (r.begin >= r.end) return false;
    header_ = std::move(head->header);
    GPURENT_TRY(b, line_blocks::open(path, block, r.begin, r.end));
    blocks_.emplace(std::move(*b));
    parser_.emplace(*header_, path);
    k_ = k;
    begin_ = r.begin;
    first_ = true;
    return true;
  }
  // The open range's next block: sink(const meter_row&) for each record line after the
  // range's first `lines_before` lines; false, reading nothing, at the range's end.
  template <class Sink>
  [[nodiscard]] expected<bool> rows(std::uint64_t lines_before, Sink&& sink) {
    GPURENT_TRY(more, blocks_->take(block_));
    if (!*more) {
      blocks_.reset();
      return false;
    }
    std::string_view piece = block_;
    std::size_t before = lines_before + blocks_->lines_before();
    if (std::exchange(first_, false) && begin_ == 0) {  // the header is not a record
      const std::size_t nl = piece.find('\n');
      piece = nl == std::string_view::npos ? std::string_view() : piece.substr(nl + 1);
      before = 1;
    }
    const std::string& path = files_[k_];
    GPURENT_TRY(parser_->rows(piece, before, [&](const usage_row& row) { return detail::rated_row(rates_, *m_, row, path, sink); }));
    return true;
  }

 private:
  std::span<const std::string> files_;
  const meter* m_;
  std::size_t k_ = 0;
  std::uint64_t begin_ = 0;
  std::unique_ptr<detail::usage_header> header_;
  std::optional<line_blocks> blocks_;
  std::optional<usage_row_parser> parser_;
  row_rate rates_;
  std::string block_;
  bool first_ = true;
};

namespace detail {
// One thread: the stream block by block, each row of the shard into the meter.
[[nodiscard]] inline expected<void> meter_serially(meter& m, std::span<const std::string> files, const meter_run_options& o) {
  usage_file_blocks source(files, o.block_bytes);
  usage_block b;
  std::optional<placed_error> err;
  std::size_t file = SIZE_MAX;
  const auto add = [&](const meter_row& row) -> expected<void> {
    if (!o.shard.holds(row.id)) return {};
    return m.add(row.id, row.account, row.rate, row.quantity, row.start, row.end, row.line, row.labels);
  };
  const auto ahead = [&](std::string_view id) { m.prefetch(id); };
  while (source.next(b, err)) {
    if (b.file != file) m.set_source(source.file_name(file = b.file));
    GPURENT_TRY(source.rows(b, m, add, ahead));
  }
  if (err) return unexpected(std::move(err->err));
  return {};
}
}  // namespace detail

// Meters usage `files` (in order, as one stream) into copies of `blank`: one meter per job,
// disjoint shards of the records by id (finish them with meter::finish_shards, write them
// with write_partial). The result, errors included, is the same for every number of jobs.
[[nodiscard]] inline expected<std::vector<meter>> meter_usage_files(const meter& blank, std::span<const std::string> files,
                                                                    const meter_run_options& o = {}) {
  const std::size_t jobs = std::max(1U, o.jobs);
  std::vector<meter> shards(jobs, blank);
  const std::size_t expect = detail::estimated_records(files) / o.shard.count / jobs;
  for (meter& m : shards) m.reserve(expect);
  if (jobs == 1) {
    GPURENT_TRY(detail::meter_serially(shards.front(), files, o));
    return shards;
  }
  usage_file_blocks source(files, o.block_bytes);
  GPURENT_TRY(meter_on_threads(source, o.shard, shards));
  return shards;
}

// Meters usage `files` on the ranks of transport `t` (every rank calls it with a fresh meter
// `m` of the run's tariff and period): metering/scale/rounds.hpp's protocol over the files'
// byte ranges, rank_partials to rank 0. See meter_in_rounds for what each rank gets back.
template <rank_transport T>
[[nodiscard]] round_outcome meter_usage_ranks(T& t, meter& m, std::span<const std::string> files, std::size_t round_bytes,
                                              const carry_book& carry = {}, const prepaid_balances& opening = {}) {
  usage_ranges source(files, m);
  return meter_in_rounds(t, source, rank_partials{}, m,
                         {.round_bytes = round_bytes, .block_bytes = default_block_bytes, .carry = &carry, .opening = &opening});
}

}  // namespace gpurent::io
