// SPDX-License-Identifier: MIT
// core/utf8.hpp: utf8_invalid_at against a decoder written here from the definition (the
// bits of each form, then no overlong form, no surrogate, nothing above U+10FFFF), on every
// sequence of one and two bytes, every three-byte sequence with a three-byte lead, and the
// four-byte leads with every second byte; every code point encoded is valid; the message.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <gpurent/core/utf8.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_core_utf8 {

using gpurent::utf8_invalid_at;
constexpr std::size_t npos = std::string_view::npos;

// The definition: where the first ill-formed sequence starts, or npos.
std::size_t reference(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<std::uint8_t>(s[i]);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (b < 0x80) {
      ++i;
      continue;
    }
    if ((b & 0xE0) == 0xC0) {
      n = 2;
      cp = b & 0x1FU;
    } else if ((b & 0xF0) == 0xE0) {
      n = 3;
      cp = b & 0x0FU;
    } else if ((b & 0xF8) == 0xF0) {
      n = 4;
      cp = b & 0x07U;
    } else {
      return i;
    }
    if (s.size() - i < n) return i;
    for (std::size_t k = 1; k < n; ++k) {
      const auto c = static_cast<std::uint8_t>(s[i + k]);
      if ((c & 0xC0) != 0x80) return i;
      cp = cp << 6 | (c & 0x3FU);
    }
    const std::uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return i;
    i += n;
  }
  return npos;
}

std::string encode(std::uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    s.push_back(static_cast<char>(0xC0 | cp >> 6));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    s.push_back(static_cast<char>(0xE0 | cp >> 12));
    s.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    s.push_back(static_cast<char>(0xF0 | cp >> 18));
    s.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return s;
}

TEST_CASE("utf8_invalid_at agrees with the definition on every short sequence") {
  std::size_t checked = 0, disagree = 0, valid = 0;
  const auto check = [&](const std::string& s) {
    ++checked;
    const std::size_t want = reference(s);
    valid += want == npos ? 1U : 0U;
    if (utf8_invalid_at(s) != want) {
      ++disagree;
      CAPTURE(s);
      CHECK(utf8_invalid_at(s) == want);
    }
  };
  std::string s;
  for (int a = 0; a < 256; ++a) {
    check(std::string(1, static_cast<char>(a)));
    for (int b = 0; b < 256; ++b) check(std::string{static_cast<char>(a), static_cast<char>(b)});
  }
  for (int a = 0xE0; a <= 0xEF; ++a)
    for (int b = 0; b < 256; ++b)
      for (int c = 0; c < 256; ++c) check(std::string{static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)});
  const std::array<int, 6> edges{0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xFF};
  for (int a = 0xF0; a <= 0xF7; ++a)
    for (int b = 0; b < 256; ++b)
      for (const int c : edges)
        for (const int d : edges) check(std::string{static_cast<char>(a), static_cast<char>(b), static_cast<char>(c), static_cast<char>(d)});
  CHECK(disagree == 0);
  CHECK(checked > 1'000'000);
  CHECK(valid > 60'000);  // the definition accepts a good part of them: the comparison is not vacuous
}

TEST_CASE("every code point encoded is valid, alone and after ASCII; a surrogate is not") {
  std::size_t bad = 0;
  for (std::uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string s = "ab" + encode(cp);
    bad += utf8_invalid_at(s) == npos ? 0U : 1U;
  }
  CHECK(bad == 0);
  CHECK(utf8_invalid_at("ab" + encode(0xD800)) == 2);
  CHECK(utf8_invalid_at("ab" + encode(0x110000)) == 2);
  // The offset is that of the lead byte of the first bad sequence, after good ones.
  CHECK(utf8_invalid_at("caf\xC3\xA9 \xE2\x82") == 6);              // cut short
  CHECK(utf8_invalid_at("\xE2\x82\xAC\x80") == 3);                  // a stray continuation byte
  CHECK(utf8_invalid_at("\xC0\xAF") == 0);                          // overlong '/'
  CHECK(utf8_invalid_at("\xF4\x8F\xBF\xBF\xF4\x90\x80\x80") == 4);  // U+10FFFF, then above it
  CHECK(gpurent::is_utf8(""));
  CHECK(gpurent::is_utf8("Zürich, 東京, 🚀"));
}

TEST_CASE("utf8_problem names the byte and its offset; empty for UTF-8") {
  CHECK(gpurent::utf8_problem("acm\x9a") == "not UTF-8: byte 0x9A at offset 3");
  CHECK(gpurent::utf8_problem("\xFF") == "not UTF-8: byte 0xFF at offset 0");
  CHECK(gpurent::utf8_problem("Zürich").empty());
}

}  // namespace test_core_utf8
