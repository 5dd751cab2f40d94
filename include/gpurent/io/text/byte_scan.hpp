// SPDX-License-Identifier: MIT
#pragma once
// Finding bytes 64 at a time: which of 64 bytes are one of three given characters, as the
// bits of a word (SSE2 on x86-64, byte by byte elsewhere), and how often a byte occurs in a
// text. The line and field finder of the CSV readers (csv_line_scanner) and the line count
// of line_blocks use these, so the usage reader looks at each byte of its input once.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpurent::io {

// Bit k set when p[k] is a, b or c, for k in [0, 64); p must have 64 readable bytes.
[[nodiscard]] inline std::uint64_t byte_mask(const char* p, char a, char b, char c) noexcept {
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c);
  std::uint64_t m = 0;
  for (int k = 0; k < 4; ++k) {
    __m128i x;
    std::memcpy(&x, p + 16 * k, sizeof x);
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vc));
    m |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(hit))} << (16 * k);
  }
  return m;
#else
  std::uint64_t m = 0;
  for (int k = 0; k < 64; ++k) m |= (p[k] == a || p[k] == b || p[k] == c ? std::uint64_t{1} : 0U) << k;
  return m;
#endif
}

// The same for the n < 64 bytes at p (the bits past n clear).
[[nodiscard]] inline std::uint64_t byte_mask_tail(const char* p, std::size_t n, char a, char b, char c) noexcept {
  char tail[64] = {};
  if (n != 0) std::memcpy(tail, p, n);  // p may be null when n is 0
  const std::uint64_t m = byte_mask(tail, a, b, c);
  return n == 0 ? 0 : m & (~std::uint64_t{0} >> (64 - n));
}

// How many bytes of `text` are `c`.
[[nodiscard]] inline std::size_t count_byte(std::string_view text, char c) noexcept {
  std::size_t n = 0, at = 0;
  for (; at + 64 <= text.size(); at += 64) n += static_cast<std::size_t>(std::popcount(byte_mask(text.data() + at, c, c, c)));
  return n + static_cast<std::size_t>(std::popcount(byte_mask_tail(text.data() + at, text.size() - at, c, c, c)));
}

}  // namespace gpurent::io
