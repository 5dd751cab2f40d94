// SPDX-License-Identifier: MIT
#pragma once
// Whether text is UTF-8: the one rule every reader applies to the names it keeps (ids,
// accounts, GPU and label names), so that a byte which is not UTF-8 is an input error at its
// file, line and field, not an exception from a JSON writer long after the input was read.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <gpurent/core/bytes.hpp>

namespace gpurent {

namespace detail {
// The second byte's range for a lead byte (Unicode 15, table 3-7); the bytes after it are
// 0x80-0xBF. {0, 0}: not a lead byte (0x80-0xC1, 0xF5-0xFF).
struct utf8_lead {
  std::uint8_t length = 0;
  std::uint8_t lo = 0x80, hi = 0xBF;
};
[[nodiscard]] constexpr utf8_lead utf8_lead_of(std::uint8_t b) noexcept {
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};  // no overlong 3-byte form
  if (b == 0xED) return {3, 0x80, 0x9F};  // no surrogates
  if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};  // no overlong 4-byte form
  if (b == 0xF4) return {4, 0x80, 0x8F};  // nothing above U+10FFFF
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  return {};
}
}  // namespace detail

// The offset of the first byte of the first ill-formed sequence in s (a stray continuation
// byte, a truncated sequence, an overlong form, a surrogate, a code point above U+10FFFF),
// or npos when s is UTF-8. ASCII (what ids, accounts and resources nearly always are) is
// tested eight bytes at a time.
[[nodiscard]] inline std::size_t utf8_invalid_at(std::string_view s) noexcept {
  constexpr std::uint64_t high = 0x8080808080808080ULL;
  std::size_t i = 0;
  while (s.size() - i >= 8 && (detail::little_endian_word(s.data() + i, 8) & high) == 0) i += 8;
  if (i == s.size()) return std::string_view::npos;  // (an empty view may have no data to load from)
  if (s.size() - i < 8 && (detail::little_endian_word(s.data() + i, static_cast<int>(s.size() - i)) & high) == 0) return std::string_view::npos;
  while (i < s.size()) {
    const auto b = static_cast<std::uint8_t>(s[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    const detail::utf8_lead l = detail::utf8_lead_of(b);
    if (l.length == 0 || s.size() - i < l.length) return i;
    const auto second = static_cast<std::uint8_t>(s[i + 1]);
    if (second < l.lo || second > l.hi) return i;
    for (std::size_t k = 2; k < l.length; ++k)
      if ((static_cast<std::uint8_t>(s[i + k]) & 0xC0) != 0x80) return i;
    i += l.length;
  }
  return std::string_view::npos;
}

[[nodiscard]] inline bool is_utf8(std::string_view s) noexcept { return utf8_invalid_at(s) == std::string_view::npos; }

// What a reader says of text that is not UTF-8: "not UTF-8: byte 0x9A at offset 3" (empty
// when it is).
[[nodiscard]] inline std::string utf8_problem(std::string_view s) {
  const std::size_t at = utf8_invalid_at(s);
  if (at == std::string_view::npos) return {};
  constexpr std::array<char, 16> hex{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'};
  const auto b = static_cast<std::uint8_t>(s[at]);
  return std::string("not UTF-8: byte 0x") + hex[b >> 4] + hex[b & 15] + " at offset " + std::to_string(at);
}

// A text file may start with a UTF-8 byte-order mark (spreadsheets and Windows editors write
// one): every reader skips it, the one rule for CSV, JSON and metric text alike.
inline constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";
[[nodiscard]] constexpr std::string_view without_bom(std::string_view text) noexcept {
  return text.starts_with(utf8_bom) ? text.substr(utf8_bom.size()) : text;
}

}  // namespace gpurent
