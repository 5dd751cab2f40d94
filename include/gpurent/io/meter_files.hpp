// SPDX-License-Identifier: MIT
#pragma once
// Usage CSV files into meters, streamed in blocks of whole lines (never a whole file in
// memory), optionally only one shard of the ids (--shard K/N), on one or more threads.
//
// With N threads the records are split by id hash into N meters, disjoint shards whose
// merge is the one meter of a single thread: each batch of N blocks is parsed in parallel
// (every row checked, as one thread would), each row handed to the shard of its id; then each
// shard's thread adds its rows block by block in file order, so a repeated id meets its first
// occurrence in the same order as on one thread. Every error carries its position (file,
// line); the run reports the earliest, which is the error one thread stops at: every row
// before it was parsed and every shard added all of its rows before it. (An overflow of a
// line's 128-bit totals, which no real usage reaches, is found at the merge instead.)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/io/csv_split.hpp>
#include <gpurent/io/line_blocks.hpp>
#include <gpurent/io/usage_csv.hpp>
#include <gpurent/metering/meter.hpp>
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
// Where an error was found: file index, line (0: opening the file).
struct placed_error {
  std::size_t file = 0;
  std::size_t line = 0;
  error err;
};
inline void keep_earliest(std::optional<placed_error>& best, placed_error e) {
  if (!best || std::tie(e.file, e.line) < std::tie(best->file, best->line)) best = std::move(e);
}

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

// One thread: every file in turn, block by block, each row of the shard into the meter.
[[nodiscard]] inline expected<void> meter_serially(meter& m, std::span<const std::string> files, const meter_run_options& o) {
  for (const std::string& path : files) {
    GPURENT_TRY(u, open_usage(path, o.block_bytes));
    m.set_source(path);
    usage_row_parser parser(*u->header, path);
    row_rate rates;
    const auto add = [&](const usage_row& row) -> expected<void> {
      GPURENT_TRY(ri, rates.of(m, row, path));
      if (!o.shard.holds(row.id)) return {};
      return m.add(row.id, row.account, *ri, row.quantity, row.start, row.end, row.line);
    };
    const auto ahead = [&](std::string_view id) { m.prefetch(id); };
    GPURENT_TRY(parser.rows(std::string_view(u->first).substr(u->rest), 1, add, ahead));
    std::string block;
    while (true) {
      GPURENT_TRY(more, u->blocks.take(block));
      if (!*more) break;
      GPURENT_TRY(parser.rows(block, u->blocks.lines_before(), add, ahead));
    }
  }
  return {};
}

// A parsed row on its way to its shard; the views point into its block, or into the
// block's copies of the fields that quoting changed (batch_block::unquoted).
struct shard_row {
  std::string_view id, account;
  std::size_t rate;
  nano_quantity quantity;
  instant start, end;
  std::size_t line;
};

// One block of a batch: its text, rows by shard, and the first error parsing it.
struct batch_block {
  std::string text;
  std::size_t skip = 0;  // the header, in a file's first block
  std::size_t file = 0;
  std::size_t lines_before = 0;
  std::vector<std::vector<shard_row>> rows;  // by shard
  std::optional<placed_error> err;
  // The id and account of quoted fields: the parser unquotes them into scratch space that
  // the next quoted line overwrites, so a row kept past its line needs its own copy (a deque
  // never moves what it holds).
  std::deque<std::string> unquoted;
  // `field` as a view that lives as long as the block's rows.
  [[nodiscard]] std::string_view kept(std::string_view field) {
    const std::less<const char*> before;
    const char* begin = text.data();
    if (!before(field.data(), begin) && !before(begin + text.size(), field.data() + field.size())) return field;
    return unquoted.emplace_back(field);
  }
};

// The parallel run's state: the files, where reading is, the shards.
class parallel_run {
 public:
  parallel_run(std::span<const std::string> files, const meter_run_options& o, std::vector<meter>& shards)
      : files_(files), o_(o), shards_(shards), batch_(shards.size()), shard_errors_(shards.size()) {}

  [[nodiscard]] expected<void> run() {
    while (true) {
      const std::size_t n = fill_batch();
      if (n == 0) break;
      in_parallel(n, [&](std::size_t b) { parse_block(batch_[b]); });
      in_parallel(shards_.size(), [&](std::size_t k) { add_shard(k, n); });
      for (std::size_t b = 0; b < n; ++b)
        if (batch_[b].err) keep_earliest(first_error_, std::move(*batch_[b].err));
      for (auto& e : shard_errors_)
        if (e) keep_earliest(first_error_, std::move(*e));
      if (first_error_ || stop_) break;
    }
    if (first_error_) return unexpected(std::move(first_error_->err));
    return {};
  }

 private:
  template <class F>
  static void in_parallel(std::size_t n, F&& f) {
    std::vector<std::jthread> threads;
    threads.reserve(n);
    for (std::size_t i = 1; i < n; ++i) threads.emplace_back([&f, i] { f(i); });
    if (n > 0) f(0);
  }

  // Up to one block per thread, in file order; false from a file that cannot be read stops
  // the run after this batch.
  [[nodiscard]] std::size_t fill_batch() {
    std::size_t n = 0;
    while (n < batch_.size() && !stop_) {
      if (!current_ && !open_next()) break;
      batch_block& b = batch_[n];
      b.file = file_;
      b.err.reset();
      if (fresh_) {
        b.text.swap(current_->first);
        b.skip = current_->rest;
        b.lines_before = 1;
        fresh_ = false;
        ++n;
        continue;
      }
      auto more = current_->blocks.take(b.text);
      if (!more) {
        keep_earliest(first_error_, {file_, 0, more.error()});
        stop_ = true;
        break;
      }
      if (!*more) {
        current_.reset();
        ++file_;
        continue;
      }
      b.skip = 0;
      b.lines_before = current_->blocks.lines_before();
      ++n;
    }
    return n;
  }
  [[nodiscard]] bool open_next() {
    if (file_ >= files_.size()) return false;
    auto u = open_usage(files_[file_], o_.block_bytes);
    if (!u) {
      keep_earliest(first_error_, {file_, line_of(u.error(), files_[file_]), u.error()});
      stop_ = true;
      return false;
    }
    headers_.push_back(std::move(u->header));
    current_ = std::move(*u);
    current_->header = nullptr;
    fresh_ = true;
    return true;
  }

  void parse_block(batch_block& b) {
    const std::string& path = files_[b.file];
    b.rows.resize(shards_.size());
    for (auto& r : b.rows) r.clear();
    b.unquoted.clear();
    usage_row_parser parser(*headers_[b.file], path);
    row_rate rates;
    const meter& m = shards_.front();
    const std::uint32_t count = o_.shard.count;
    const auto r = parser.rows(std::string_view(b.text).substr(b.skip), b.lines_before, [&](const usage_row& row) -> expected<void> {
      GPURENT_TRY(ri, rates.of(m, row, path));
      const std::uint64_t h = fnv1a64(row.id);
      if (count > 1 && h % count != o_.shard.index) return {};
      b.rows[(h / count) % shards_.size()].push_back({b.kept(row.id), b.kept(row.account), *ri, row.quantity, row.start, row.end, row.line});
      return {};
    });
    if (!r) b.err = placed_error{b.file, line_of(r.error(), path), r.error()};
  }
  // The line an error in `path` names ("path:line"; 0 when it names none).
  [[nodiscard]] static std::size_t line_of(const error& e, std::string_view path) {
    std::size_t line = 0;
    if (!e.where.starts_with(path) || e.where.size() <= path.size() + 1 || e.where[path.size()] != ':') return 0;
    for (std::size_t i = path.size() + 1; i < e.where.size() && e.where[i] >= '0' && e.where[i] <= '9'; ++i)
      line = line * 10 + static_cast<std::size_t>(e.where[i] - '0');
    return line;
  }

  void add_shard(std::size_t k, std::size_t n) {
    meter& m = shards_[k];
    std::optional<placed_error>& err = shard_errors_[k];
    std::size_t source = files_.size();
    for (std::size_t b = 0; b < n && !err; ++b) {
      const batch_block& blk = batch_[b];
      if (blk.file != source) {
        source = blk.file;
        m.set_source(files_[source]);
      }
      const std::vector<shard_row>& rows = blk.rows[k];
      for (std::size_t i = 0; i < rows.size(); ++i) {
        // The id's slot fetched rows ahead, as the serial path's parser does.
        if (i + usage_row_parser::lookahead < rows.size()) m.prefetch(rows[i + usage_row_parser::lookahead].id);
        const shard_row& r = rows[i];
        auto added = m.add(r.id, r.account, r.rate, r.quantity, r.start, r.end, r.line);
        if (!added) {
          err = placed_error{blk.file, r.line, std::move(added.error())};
          break;
        }
      }
    }
  }

  std::span<const std::string> files_;
  meter_run_options o_;
  std::vector<meter>& shards_;
  std::vector<batch_block> batch_;
  std::vector<std::unique_ptr<usage_header>> headers_;
  std::optional<opened_usage> current_;
  bool fresh_ = false;
  std::size_t file_ = 0;
  bool stop_ = false;
  std::vector<std::optional<placed_error>> shard_errors_;
  std::optional<placed_error> first_error_;
};
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
  detail::parallel_run run(files, o, shards);
  GPURENT_TRY(run.run());
  return shards;
}

}  // namespace gpurent::io
