// SPDX-License-Identifier: MIT
#pragma once
// The meter's storage of distinct records (issue 19: at most 64 bytes per distinct record).
// A std::vector that doubles holds its old and its new buffer at once while it copies, so its
// peak is up to twice what it holds (and it needs a good reserve to avoid that); these grow by
// fixed pages that never move, so the peak is what they hold plus one page, whatever the
// estimate of the number of records.
// key_index finds a record by its id (and an account by its name) in them, by table_hash.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <gpurent/core/bytes.hpp>

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

// Where the keys of a sequence are (the meter's record ids, its accounts): open addressing
// with linear probing at a load of at most 3/4, in a table of any size (the home slot is the
// top half of the hash's product with key_index::mix scaled to the size: Lemire's
// multiply-shift, so a reserve sizes it to the keys, not to a power of two). A slot holds key
// index + 1 in its low bits (0: empty) and the hash's top bits above them, so a probe rarely
// compares a key that differs. The keys themselves stay with the caller.
class key_index {
 public:
  static constexpr std::uint64_t mix = 0x9E3779B97F4A7C15ULL;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  [[nodiscard]] std::size_t slots() const noexcept { return slots_.size(); }
  // Key k whose hash is h and for which same(k) holds; npos when there is none.
  template <class Same>
  [[nodiscard]] std::size_t find(std::uint64_t h, Same&& same) const noexcept {
    if (slots_.empty()) return npos;
    const std::size_t size = slots_.size();
    const std::uint64_t index_mask = (std::uint64_t{1} << bits_) - 1, tag = slot_of(h, 0) & ~index_mask;
    for (std::size_t i = home(h, size);; i = i + 1 == size ? 0 : i + 1) {
      const std::uint32_t s = slots_[i];
      if (s == 0) return npos;
      if ((s & ~index_mask) != tag) continue;
      const auto k = static_cast<std::size_t>((s & index_mask) - 1);
      if (same(k)) return k;
    }
  }
  // The address of h's home slot (to prefetch); null in an empty table.
  [[nodiscard]] const std::uint32_t* home_slot(std::uint64_t h) const noexcept { return slots_.empty() ? nullptr : &slots_[home(h, slots_.size())]; }
  // Key `count - 1` (hash h) was appended: placed, or the table rebuilt twice as large from
  // hash_of(k) for every key.
  template <class HashOf>
  void added(std::size_t count, std::uint64_t h, HashOf&& hash_of) {
    if (4 * count > 3 * slots_.size()) {
      rebuild(2 * slots_.size(), count, hash_of);
    } else {
      place(count - 1, h);
    }
  }
  // A table of `want` slots (at least 16, below 2^32) for `count` keys. The old table is freed
  // first: the peak is the new table.
  template <class HashOf>
  void rebuild(std::size_t want, std::size_t count, HashOf&& hash_of) {
    const std::size_t size = std::clamp<std::size_t>(want, 16, UINT32_MAX);
    bits_ = static_cast<std::size_t>(std::bit_width(size));  // key index + 1 <= size
    slots_ = std::vector<std::uint32_t>();
    slots_.resize(size);
    for (std::size_t k = 0; k < count; ++k) place(k, hash_of(k));
  }

 private:
  [[nodiscard]] static std::size_t home(std::uint64_t h, std::size_t size) noexcept {
    return static_cast<std::size_t>((((h * mix) >> 32) * size) >> 32);
  }
  [[nodiscard]] std::uint32_t slot_of(std::uint64_t h, std::size_t k) const noexcept {
    const std::uint64_t tag = bits_ >= 32 ? 0 : h >> (32 + bits_);
    return static_cast<std::uint32_t>((tag << bits_) | (k + 1));
  }
  void place(std::size_t k, std::uint64_t h) noexcept {
    const std::size_t size = slots_.size();
    std::size_t i = home(h, size);
    while (slots_[i] != 0) i = i + 1 == size ? 0 : i + 1;
    slots_[i] = slot_of(h, k);
  }

  std::vector<std::uint32_t> slots_;
  std::size_t bits_ = 0;  // bits of a key index + 1 in a slot
};

// The tables' hash of an id or an account: eight bytes at a time, each word mixed in by a
// multiply and a shift, murmur3's finaliser at the end. It lives only in this process's
// tables (the shard hash is fnv1a64, shard.hpp: a byte at a time, 4 cycles a byte), and
// reads the bytes as a little-endian word on every machine, so probes are the same
// everywhere (key_index, above, turns it into a slot).
[[nodiscard]] inline std::uint64_t table_mix_word(std::uint64_t h, std::uint64_t w) noexcept {
  h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}
[[nodiscard]] inline std::uint64_t table_hash(std::string_view s) noexcept {
  std::uint64_t h = s.size() * key_index::mix;
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) h = table_mix_word(h, little_endian_word(s.data() + i, 8));
  if (i < s.size()) h = table_mix_word(h, s.size() >= 8 ? little_endian_word(s.data() + s.size() - 8, 8) : short_word(s.data(), s.size()));
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  return h ^ (h >> 33);
}

}  // namespace gpurent::detail
