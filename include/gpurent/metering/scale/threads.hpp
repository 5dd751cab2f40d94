// SPDX-License-Identifier: MIT
#pragma once
// The meter on N threads in one process. The records are split by id hash into N meters,
// disjoint shards whose merge is the one meter of a single thread: each batch of N blocks of
// the usage stream is parsed in parallel (every row checked, as one thread would), each row
// handed to the shard of its id; then each shard's thread adds its rows block by block in
// stream order, so a repeated id meets its first occurrence in the same order as on one
// thread. Every error carries its position (file, line); the run reports the earliest, which
// is the error one thread stops at: every row before it was parsed and every shard added all
// of its rows before it. (An overflow of a line's 128-bit totals, which no real usage
// reaches, is found at the merge instead.)
//
// The stream is read through a usage_block_source (io::usage_file_blocks reads files); this
// header holds the protocol: batches, sharding, the order of adds, the earliest error.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/scale/stream.hpp>
#include <gpurent/metering/shard.hpp>

namespace gpurent {

// A block of the usage stream: whole lines of one file.
struct usage_block {
  std::string text;
  std::size_t skip = 0;  // bytes before the first record line (the header, in a file's first block)
  std::size_t file = 0;  // the file's index in the stream
  std::size_t lines_before = 0;
};

// Where the threads' blocks come from. `next` reads the stream's next block into `b` (false
// at its end, or with `err` set when a file cannot be opened or read: the run stops there);
// `rows` parses a block, calling sink(const meter_row&) -> expected<void> for each record
// line in order and stopping at the first error, its own or the sink's; it is called on
// several threads at once, each on its own block.
template <class S>
concept usage_block_source = requires(S& s, const S& cs, usage_block& b, std::optional<placed_error>& err, const meter& m,
                                      detail::meter_row_sink_archetype sink, std::size_t file) {
  { cs.file_name(file) } -> std::convertible_to<const std::string&>;
  { s.next(b, err) } -> std::same_as<bool>;
  { cs.rows(std::as_const(b), m, sink) } -> std::same_as<expected<void>>;
};

namespace detail {

// The threaded run's state: the source, the batch of blocks, the shards.
template <usage_block_source Source>
class thread_run {
 public:
  thread_run(Source& source, shard_spec shard, std::vector<meter>& shards)
      : source_(&source), shard_(shard), shards_(shards), batch_(shards.size()), shard_errors_(shards.size()) {}

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
  // One block of a batch: its text, rows by shard, and the first error parsing it.
  struct batch_block {
    usage_block block;
    std::vector<std::vector<meter_row>> rows;  // by shard
    std::optional<placed_error> err;
    // The id and account of quoted fields, and label sets: the parser writes them into scratch
    // space that the next line overwrites, so a row kept past its line needs its own copy (a deque
    // never moves what it holds).
    std::deque<std::string> unquoted;
    // `field` as a view that lives as long as the block's rows.
    [[nodiscard]] std::string_view kept(std::string_view field) {
      const std::less<const char*> before;
      const char* begin = block.text.data();
      if (!before(field.data(), begin) && !before(begin + block.text.size(), field.data() + field.size())) return field;
      return unquoted.emplace_back(field);
    }
  };

  template <class F>
  static void in_parallel(std::size_t n, F&& f) {
    std::vector<std::jthread> threads;
    threads.reserve(n);
    for (std::size_t i = 1; i < n; ++i) threads.emplace_back([&f, i] { f(i); });
    if (n > 0) f(0);
  }

  // Up to one block per thread, in stream order; a file that cannot be read stops the run
  // after this batch.
  [[nodiscard]] std::size_t fill_batch() {
    std::size_t n = 0;
    while (n < batch_.size() && !stop_) {
      batch_block& b = batch_[n];
      b.err.reset();
      std::optional<placed_error> err;
      if (!source_->next(b.block, err)) {
        if (err) {
          keep_earliest(first_error_, std::move(*err));
          stop_ = true;
        }
        break;
      }
      ++n;
    }
    return n;
  }

  void parse_block(batch_block& b) {
    b.rows.resize(shards_.size());
    for (auto& r : b.rows) r.clear();
    b.unquoted.clear();
    const std::uint32_t count = shard_.count;
    const auto r = source_->rows(b.block, shards_.front(), [&](const meter_row& row) -> expected<void> {
      const std::uint64_t h = fnv1a64(row.id);
      if (count > 1 && h % count != shard_.index) return {};
      b.rows[(h / count) % shards_.size()].push_back(
          {b.kept(row.id), b.kept(row.account), row.rate, row.quantity, row.start, row.end, row.line, b.kept(row.labels)});
      return {};
    });
    if (!r) b.err = placed_error{b.block.file, error_line(r.error(), source_->file_name(b.block.file)), r.error()};
  }

  void add_shard(std::size_t k, std::size_t n) {
    meter& m = shards_[k];
    std::optional<placed_error>& err = shard_errors_[k];
    std::size_t file = SIZE_MAX;
    for (std::size_t b = 0; b < n && !err; ++b) {
      const batch_block& blk = batch_[b];
      if (blk.block.file != file) {
        file = blk.block.file;
        m.set_source(source_->file_name(file));
      }
      const std::vector<meter_row>& rows = blk.rows[k];
      for (std::size_t i = 0; i < rows.size(); ++i) {
        // The id's slot fetched rows ahead, as the one-thread path's parser does.
        if (i + meter::prefetch_distance < rows.size()) m.prefetch(rows[i + meter::prefetch_distance].id);
        const meter_row& r = rows[i];
        auto added = m.add(r.id, r.account, r.rate, r.quantity, r.start, r.end, r.line, r.labels);
        if (!added) {
          err = placed_error{blk.block.file, r.line, std::move(added.error())};
          break;
        }
      }
    }
  }

  Source* source_;
  shard_spec shard_;
  std::vector<meter>& shards_;
  std::vector<batch_block> batch_;
  bool stop_ = false;
  std::vector<std::optional<placed_error>> shard_errors_;
  std::optional<placed_error> first_error_;
};

}  // namespace detail

// Meters the stream `source` reads into `shards` (copies of one blank meter, at least two):
// disjoint shards of the records of `shard` by id, to finish with meter::finish_shards. The
// result, errors included, is that of one meter reading the stream in order.
template <usage_block_source Source>
[[nodiscard]] expected<void> meter_on_threads(Source& source, shard_spec shard, std::vector<meter>& shards) {
  GPURENT_ASSERT(!shards.empty());
  detail::thread_run<Source> run(source, shard, shards);
  return run.run();
}

}  // namespace gpurent
