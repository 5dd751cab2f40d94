// SPDX-License-Identifier: MIT
// core/bytes.hpp: same_bytes agrees with == for every length up to 40 and a difference at
// every position; short_word tells apart texts of one length that differ in any one byte.
#include <doctest/doctest.h>

#include <cstddef>
#include <set>
#include <string>
#include <string_view>

#include <gpurent/core/bytes.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_core_bytes {

using gpurent::detail::same_bytes;
using gpurent::detail::short_word;

TEST_CASE("same_bytes: equal texts, a byte changed at each position, other lengths") {
  std::size_t compared = 0;
  for (std::size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'x');
    for (std::size_t k = 0; k < n; ++k) a[k] = static_cast<char>('a' + (k * 7) % 26);
    const std::string copy = a;  // other storage, same bytes
    REQUIRE(same_bytes(a, copy));
    for (std::size_t k = 0; k < n; ++k) {
      for (const char c : {'\0', 'A', static_cast<char>(0xFF), static_cast<char>(a[k] ^ 0x01)}) {
        std::string b = a;
        b[k] = c;
        INFO("length " << n << " position " << k);
        REQUIRE(same_bytes(a, b) == (a == b));
        ++compared;
      }
    }
    REQUIRE_FALSE(same_bytes(a, a + "y"));
    if (n > 0) REQUIRE_FALSE(same_bytes(std::string_view(a).substr(1), a));
  }
  CHECK(compared == 4 * (40 * 41 / 2));
  CHECK(same_bytes({}, ""));
}

TEST_CASE("short_word: texts of one length under 8 bytes that differ in one byte differ as words") {
  for (std::size_t n = 0; n < 8; ++n) {
    const std::string a = std::string("abcdefg").substr(0, n);
    std::set<unsigned long long> words{short_word(a.data(), n)};
    std::size_t variants = 1;
    for (std::size_t k = 0; k < n; ++k) {
      for (int v = 0; v < 256; ++v) {
        if (static_cast<char>(v) == a[k]) continue;
        std::string b = a;
        b[k] = static_cast<char>(v);
        words.insert(short_word(b.data(), n));
        ++variants;
      }
    }
    INFO("length " << n);
    CHECK(words.size() == variants);
  }
}

}  // namespace test_core_bytes
