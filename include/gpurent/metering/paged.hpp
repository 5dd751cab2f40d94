// SPDX-License-Identifier: MIT
#pragma once
// The meter's storage of distinct records (issue 19: at most 64 bytes per distinct record).
// A std::vector that doubles holds its old and its new buffer at once while it copies, so its
// peak is up to twice what it holds (and it needs a good reserve to avoid that); these grow by
// fixed pages that never move, so the peak is what they hold plus one page, whatever the
// estimate of the number of records.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpurent::detail {

// A growing array of trivially copyable values in pages of 2^PageBits values.
template <class T, unsigned PageBits>
class paged_vector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  static constexpr std::size_t page_size = std::size_t{1} << PageBits;

  paged_vector() = default;
  paged_vector(const paged_vector& o) : size_(o.size_) {
    pages_.reserve(o.pages_.size());
    for (std::size_t p = 0; p < o.pages_.size(); ++p) {
      pages_.push_back(std::make_unique_for_overwrite<T[]>(page_size));
      std::copy_n(o.pages_[p].get(), std::min(page_size, size_ - p * page_size), pages_[p].get());
    }
  }
  paged_vector& operator=(const paged_vector& o) {
    if (this != &o) *this = paged_vector(o);
    return *this;
  }
  paged_vector(paged_vector&&) noexcept = default;
  paged_vector& operator=(paged_vector&&) noexcept = default;
  ~paged_vector() = default;

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] T& operator[](std::size_t k) noexcept { return pages_[k >> PageBits][k & (page_size - 1)]; }
  [[nodiscard]] const T& operator[](std::size_t k) const noexcept { return pages_[k >> PageBits][k & (page_size - 1)]; }
  void push_back(const T& v) {
    if ((size_ >> PageBits) == pages_.size()) pages_.push_back(std::make_unique_for_overwrite<T[]>(page_size));
    (*this)[size_] = v;
    ++size_;
  }

 private:
  std::vector<std::unique_ptr<T[]>> pages_;
  std::size_t size_ = 0;
};

// Byte strings appended one after another, each whole on one page of 2^20 bytes (a longer one
// on a page of its own size, which takes the page numbers it covers); one is named by its
// offset, and ends at the next one's offset unless that is on a later page.
class paged_bytes {
 public:
  static constexpr unsigned page_bits = 20;
  static constexpr std::size_t page_size = std::size_t{1} << page_bits;

  paged_bytes() = default;
  paged_bytes(const paged_bytes& o) : used_(o.used_), room_(o.room_), end_(o.end_) {
    pages_.reserve(o.pages_.size());
    for (std::size_t p = 0; p < o.pages_.size(); ++p) {
      if (!o.pages_[p]) {
        pages_.emplace_back();
        continue;
      }
      pages_.push_back(std::make_unique_for_overwrite<char[]>(std::max(page_size, used_[p])));
      std::memcpy(pages_[p].get(), o.pages_[p].get(), used_[p]);
    }
  }
  paged_bytes& operator=(const paged_bytes& o) {
    if (this != &o) *this = paged_bytes(o);
    return *this;
  }
  paged_bytes(paged_bytes&&) noexcept = default;
  paged_bytes& operator=(paged_bytes&&) noexcept = default;
  ~paged_bytes() = default;

  // The offset after the last string (the "next offset" of the last one).
  [[nodiscard]] std::uint64_t size() const noexcept { return end_; }
  // Appends `s`; returns its offset.
  std::uint64_t append(std::string_view s) {
    if (pages_.empty() || s.size() > room_) new_page(s.size());
    const std::uint64_t at = end_;
    const std::size_t p = static_cast<std::size_t>(at >> page_bits);
    std::memcpy(pages_[p].get() + (at & (page_size - 1)), s.data(), s.size());
    used_[p] += s.size();
    room_ -= s.size();
    end_ += s.size();
    return at;
  }
  // The string at `begin`; `next` is the offset of the string appended after it, or size().
  [[nodiscard]] std::string_view view(std::uint64_t begin, std::uint64_t next) const noexcept {
    const std::size_t p = static_cast<std::size_t>(begin >> page_bits);
    if ((next >> page_bits) != p) next = (std::uint64_t{p} << page_bits) + used_[p];  // the last on its page
    return {pages_[p].get() + (begin & (page_size - 1)), static_cast<std::size_t>(next - begin)};
  }

 private:
  // A fresh page for a string of n bytes at the next page number.
  void new_page(std::size_t n) {
    const std::size_t bytes = std::max(page_size, n);
    end_ = std::uint64_t{pages_.size()} << page_bits;
    pages_.push_back(std::make_unique_for_overwrite<char[]>(bytes));
    used_.push_back(0);
    for (std::size_t covered = page_size; covered < bytes; covered += page_size) {
      pages_.emplace_back();
      used_.push_back(0);
    }
    room_ = bytes;
  }

  std::vector<std::unique_ptr<char[]>> pages_;  // null: covered by a longer page before it
  std::vector<std::size_t> used_;               // bytes used on each page
  std::size_t room_ = 0;                        // bytes left on the last page
  std::uint64_t end_ = 0;
};

}  // namespace gpurent::detail
