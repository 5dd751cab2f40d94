// SPDX-License-Identifier: MIT
#pragma once
// Bytes that cross between processes and machines, the same on every one: little-endian
// fixed-size integers whatever the machine's byte order, `i128` as its low then its high 8
// bytes (two's complement), text as a u32 byte length and the bytes. The partial result format
// (io/billing/meter_partial.hpp) and the records ranks exchange (scale/rounds.hpp) are written in it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <gpurent/core/wide.hpp>

namespace gpurent::detail {

inline constexpr std::int64_t wire_two32 = std::int64_t{1} << 32;

inline void put_u64(std::string& out, std::uint64_t v) {
  std::array<char, 8> b{};
  for (std::size_t i = 0; i < 8; ++i) b[i] = static_cast<char>(static_cast<unsigned char>(v >> (8 * i)));
  out.append(b.data(), b.size());
}
inline void put_u32(std::string& out, std::uint32_t v) {
  std::array<char, 4> b{};
  for (std::size_t i = 0; i < 4; ++i) b[i] = static_cast<char>(static_cast<unsigned char>(v >> (8 * i)));
  out.append(b.data(), b.size());
}
inline void put_i64(std::string& out, std::int64_t v) { put_u64(out, static_cast<std::uint64_t>(v)); }
inline void put_i128(std::string& out, i128 v) {
  const auto lo = static_cast<std::uint64_t>(v);
  const auto hi = static_cast<std::uint64_t>((v - i128(lo)) / wire_two32 / wire_two32);
  put_u64(out, lo);
  put_u64(out, hi);
}
inline void put_text(std::string& out, std::string_view s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}

// Bounds-checked reads from `bytes` at `at`; false past the end.
struct wire_reader {
  std::string_view bytes;
  std::size_t at = 0;
  [[nodiscard]] bool u64(std::uint64_t& v) {
    if (bytes.size() - at < 8) return false;
    v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    at += 8;
    return true;
  }
  [[nodiscard]] bool u32(std::uint32_t& v) {
    std::uint64_t w = 0;
    if (bytes.size() - at < 4) return false;
    for (int i = 3; i >= 0; --i) w = (w << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    at += 4;
    v = static_cast<std::uint32_t>(w);
    return true;
  }
  [[nodiscard]] bool i64(std::int64_t& v) {
    std::uint64_t w = 0;
    if (!u64(w)) return false;
    v = static_cast<std::int64_t>(w);
    return true;
  }
  [[nodiscard]] bool i128(detail::i128& v) {
    std::uint64_t lo = 0, hi = 0;
    if (!u64(lo) || !u64(hi)) return false;
    v = detail::i128(static_cast<std::int64_t>(hi)) * wire_two32 * wire_two32 + detail::i128(lo);
    return true;
  }
  [[nodiscard]] bool text(std::string_view& s) {
    std::uint32_t n = 0;
    if (!u32(n) || bytes.size() - at < n) return false;
    s = bytes.substr(at, n);
    at += n;
    return true;
  }
};

}  // namespace gpurent::detail
