// SPDX-License-Identifier: MIT
#pragma once
// Bytes a machine word at a time: loads that are one instruction on x86 and give the same
// word on every machine (byte k of the text is byte k of the word), and an equality test for
// the short strings of the hot paths (ids, accounts, resources) without a call to memcmp.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gpurent::detail {

// The n <= 8 bytes at p as a word whose byte k is p[k].
[[nodiscard]] inline std::uint64_t little_endian_word(const char* p, int n) noexcept {
  std::uint64_t w = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&w, p, static_cast<std::size_t>(n));
  } else {
    for (int k = 0; k < n; ++k) w |= std::uint64_t{static_cast<unsigned char>(p[k])} << (8 * k);
  }
  return w;
}

// The n < 8 bytes at p as one word, n fixed: distinct texts of one length give distinct
// words (from 4 bytes on, two overlapping 4-byte loads cover them all).
[[nodiscard]] inline std::uint64_t short_word(const char* p, std::size_t n) noexcept {
  if (n >= 4) return little_endian_word(p, 4) | (little_endian_word(p + n - 4, 4) << 32);
  std::uint64_t w = 0;
  for (std::size_t k = 0; k < n; ++k) w |= std::uint64_t{static_cast<unsigned char>(p[k])} << (8 * k);
  return w;
}

// a == b, eight bytes at a time (the last word overlapping the one before).
[[nodiscard, gnu::always_inline]] inline bool same_bytes(std::string_view a, std::string_view b) noexcept {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  if (n < 8) return short_word(a.data(), n) == short_word(b.data(), n);
  for (std::size_t i = 0; i + 8 < n; i += 8)
    if (little_endian_word(a.data() + i, 8) != little_endian_word(b.data() + i, 8)) return false;
  return little_endian_word(a.data() + n - 8, 8) == little_endian_word(b.data() + n - 8, 8);
}

}  // namespace gpurent::detail
