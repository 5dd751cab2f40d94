// SPDX-License-Identifier: MIT
#pragma once
// A text file streamed in blocks of whole lines, so a file of any size is read in memory of
// one block (plus its longest line): each block ends after a '\n' (the file's last may not).
// Errors name the file the way io::read_file does.

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <gpurent/core/error.hpp>

namespace gpurent::io {

inline constexpr std::size_t default_block_bytes = std::size_t{4} << 20;

class line_blocks {
 public:
  // Opens `path`; nothing read yet.
  [[nodiscard]] static expected<line_blocks> open(const std::string& path, std::size_t block_bytes = default_block_bytes) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return unexpected(error{error_code::io_error, {}, "cannot open \"" + path + "\" for reading", path});
    return line_blocks(path, f, std::max<std::size_t>(block_bytes, 64));
  }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  // The lines before the block last returned (its first line is number lines_before() + 1).
  [[nodiscard]] std::size_t lines_before() const noexcept { return lines_before_; }

  // The next block into `out` (valid until the next call); false at the end of the file.
  [[nodiscard]] expected<bool> next(std::string_view& out) {
    lines_before_ += lines_in_last_;
    drop_returned();
    while (true) {
      if (at_end_) {
        if (buf_.empty()) return false;
        return hand_out(buf_.size(), out);
      }
      if (buf_.size() >= block_) {
        const std::size_t nl = buf_.rfind('\n');
        if (nl != std::string::npos) return hand_out(nl + 1, out);
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
    returned_ = 0;
  }
  [[nodiscard]] expected<void> fill() {
    const std::size_t have = buf_.size();
    buf_.resize(block_);
    const std::size_t got = std::fread(buf_.data() + have, 1, block_ - have, file_.get());
    buf_.resize(have + got);
    if (got < block_ - have) {
      if (std::ferror(file_.get()) != 0) return unexpected(error{error_code::io_error, {}, "cannot read \"" + path_ + "\"", path_});
      at_end_ = true;
    }
    return {};
  }
  [[nodiscard]] bool hand_out(std::size_t n, std::string_view& out) {
    out = std::string_view(buf_).substr(0, n);
    returned_ = n;
    lines_in_last_ = static_cast<std::size_t>(std::count(out.begin(), out.end(), '\n'));
    return true;
  }

  std::string path_;
  std::unique_ptr<std::FILE, closer> file_;
  std::size_t block_;
  std::string buf_;
  std::size_t returned_ = 0;
  std::size_t lines_before_ = 0;
  std::size_t lines_in_last_ = 0;
  bool at_end_ = false;
};

}  // namespace gpurent::io
