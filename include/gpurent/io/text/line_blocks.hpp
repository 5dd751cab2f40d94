// SPDX-License-Identifier: MIT
#pragma once
// A text file streamed in blocks of whole lines, so a file of any size is read in memory of
// one block (plus its longest line): each block ends after a '\n' (the file's last may not).
// Errors name the file the way io::read_file does.

#include <sys/types.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <gpurent/core/error.hpp>
#include <gpurent/io/text/byte_scan.hpp>
#include <gpurent/io/text/file.hpp>

namespace gpurent::io {

inline constexpr std::size_t default_block_bytes = std::size_t{4} << 20;

class line_blocks {
 public:
  // Opens `path`; nothing read yet. With a byte range [begin, end), only the lines that start
  // inside it are read (so ranges that tile a file read each line once: how MPI ranks split
  // a file); line numbers then count from the range's first line.
  [[nodiscard]] static expected<line_blocks> open(const std::string& path, std::size_t block_bytes = default_block_bytes, std::uint64_t begin = 0,
                                                  std::uint64_t end = UINT64_MAX) {
    GPURENT_TRY(check_input_path(path));
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return unexpected(error{error_code::io_error, {}, "cannot open \"" + path + "\" for reading", path});
    line_blocks b(path, f, std::max<std::size_t>(block_bytes, 64));
    b.limit_ = end;
    if (begin > 0) {
      // From the byte before the range: the range's first line starts after its first '\n'.
      if (fseeko(f, static_cast<off_t>(begin - 1), SEEK_SET) != 0)
        return unexpected(error{error_code::io_error, {}, "cannot read \"" + path + "\"", path});
      b.pos_ = begin - 1;
      b.skip_partial_ = true;
    }
    return b;
  }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  // The lines before the block last returned (its first line is number lines_before() + 1).
  [[nodiscard]] std::size_t lines_before() const noexcept { return lines_before_; }

  // The next block into `out` (valid until the next call); false at the end of the file.
  [[nodiscard]] expected<bool> next(std::string_view& out) {
    lines_before_ += lines_in_last_;
    lines_in_last_ = 0;
    drop_returned();
    if (done_) return false;
    while (true) {
      if (skip_partial_) GPURENT_TRY(skip_partial_line());
      if (!skip_partial_ && (at_end_ || buf_.size() >= block_)) {
        std::size_t n = at_end_ ? buf_.size() : buf_.rfind('\n');
        if (n != std::string::npos) {
          if (!at_end_) ++n;
          return hand_out(within_limit(n), out);
        }
        block_ *= 2;  // a line longer than a block
      }
      GPURENT_TRY(fill());
    }
  }
  // The same, the block moved into `out` (whose storage becomes the next buffer), so that
  // several blocks can be held at once without copying them.
  [[nodiscard]] expected<bool> take(std::string& out) {
    std::string_view v;
    GPURENT_TRY(more, next(v));
    if (!*more) return false;
    out.assign(buf_, returned_, std::string::npos);
    buf_.swap(out);
    out.resize(returned_);
    pos_ += returned_;
    returned_ = 0;
    return true;
  }

 private:
  struct closer {
    void operator()(std::FILE* f) const noexcept { std::fclose(f); }
  };
  line_blocks(std::string path, std::FILE* f, std::size_t block) : path_(std::move(path)), file_(f), block_(block) { buf_.reserve(block_); }

  void drop_returned() {
    buf_.erase(0, returned_);
    pos_ += returned_;
    returned_ = 0;
  }
  // Drops the bytes up to the first line start at or after the range's beginning.
  [[nodiscard]] expected<void> skip_partial_line() {
    const std::size_t nl = buf_.find('\n');
    if (nl == std::string::npos && !at_end_) {
      if (buf_.size() >= block_) {
        pos_ += buf_.size();
        buf_.clear();
      }
      return {};
    }
    const std::size_t drop = nl == std::string::npos ? buf_.size() : nl + 1;
    buf_.erase(0, drop);
    pos_ += drop;
    skip_partial_ = false;
    return {};
  }
  // `n` bytes of the buffer cut before the first line that starts at or after the range's end.
  [[nodiscard]] std::size_t within_limit(std::size_t n) {
    if (limit_ == UINT64_MAX || pos_ + n <= limit_) return n;
    done_ = true;
    if (pos_ >= limit_) return 0;
    const auto q = static_cast<std::size_t>(limit_ - pos_);
    if (buf_[q - 1] == '\n') return q;
    const std::size_t nl = buf_.find('\n', q);
    return nl == std::string::npos ? n : std::min(n, nl + 1);
  }
  [[nodiscard]] expected<void> fill() {
    const std::size_t have = buf_.size();
    buf_.resize(have + block_);
    const std::size_t got = std::fread(buf_.data() + have, 1, block_, file_.get());
    buf_.resize(have + got);
    if (got < block_) {
      if (std::ferror(file_.get()) != 0) return unexpected(error{error_code::io_error, {}, "cannot read \"" + path_ + "\"", path_});
      at_end_ = true;
    }
    return {};
  }
  [[nodiscard]] bool hand_out(std::size_t n, std::string_view& out) {
    if (n == 0) return false;
    out = std::string_view(buf_).substr(0, n);
    returned_ = n;
    lines_in_last_ = count_byte(out, '\n');
    return true;
  }

  std::string path_;
  std::unique_ptr<std::FILE, closer> file_;
  std::size_t block_;
  std::string buf_;
  std::size_t returned_ = 0;
  std::size_t lines_before_ = 0;
  std::size_t lines_in_last_ = 0;
  std::uint64_t pos_ = 0;             // the file offset of buf_[0]
  std::uint64_t limit_ = UINT64_MAX;  // lines starting here or later are not this reader's
  bool skip_partial_ = false;
  bool at_end_ = false;
  bool done_ = false;  // the range's end is reached
};

}  // namespace gpurent::io
