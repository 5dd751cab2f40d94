// SPDX-License-Identifier: MIT
// The one-pass line and field scanner of the usage reader (csv_line_scanner) against the
// line reader and the field splitter it replaces there (csv_lines, split_csv_line): the same
// lines, numbers and fields on random text full of commas, quotes, CR, blank lines, lines
// across the 64-byte windows and pieces that end without a newline.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/text/byte_scan.hpp>
#include <gpurent/io/text/csv_split.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_io_csv_scanner {

using namespace gpurent::io;

namespace {
std::string random_text(std::mt19937_64& rng) {
  static constexpr char alphabet[] = {'a', 'b', '0', '9', ',', ',', ',', '"', '\r', '\n', '\n', 'Z', ' ', '\0'};
  std::uniform_int_distribution<std::size_t> length(0, 400), pick(0, sizeof alphabet - 1), runs(0, 90);
  std::string s;
  const std::size_t n = length(rng);
  while (s.size() < n) {
    if (pick(rng) == 0) s.append(runs(rng), 'x');  // long fields: lines across windows
    s.push_back(alphabet[pick(rng)]);
  }
  return s;
}
}  // namespace

TEST_CASE("csv_line_scanner: the lines and fields csv_lines and split_csv_line give, in one pass") {
  std::mt19937_64 rng(19);
  std::size_t lines_seen = 0, split_seen = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string text = random_text(rng);
    const std::size_t before = static_cast<std::size_t>(round % 5);
    csv_lines ref(text, before);
    csv_line_scanner scan(text, before);
    std::string_view want, got;
    std::vector<std::string_view> want_fields, got_fields;
    std::vector<std::string> store;
    std::string why;
    bool split = false;
    while (ref.next(want)) {
      REQUIRE(scan.next(got, got_fields, split));
      CHECK(got == want);
      CHECK(scan.number() == ref.number());
      ++lines_seen;
      if (want.find('"') != std::string_view::npos) {
        CHECK_FALSE(split);
        CHECK(got_fields.empty());
        continue;
      }
      REQUIRE(split);
      ++split_seen;
      REQUIRE(split_csv_line(want, want_fields, store, why));
      CHECK(got_fields == want_fields);
    }
    CHECK_FALSE(scan.next(got, got_fields, split));
  }
  CHECK(lines_seen > 10000);
  CHECK(split_seen > 5000);
}

TEST_CASE("count_byte and byte_mask: every length around the 64-byte window") {
  for (std::size_t n = 0; n < 200; ++n) {
    std::string s(n, 'a');
    std::size_t want = 0;
    for (std::size_t k = 0; k < n; k += 3) {
      s[k] = '\n';
      ++want;
    }
    CHECK(count_byte(s, '\n') == want);
    CHECK(count_byte(s, 'b') == 0);
  }
  std::string w(64, 'x');
  w[0] = ',';
  w[63] = '"';
  w[10] = '\n';
  CHECK(byte_mask(w.data(), ',', '\n', '"') == ((std::uint64_t{1} << 63) | (std::uint64_t{1} << 10) | 1U));
  CHECK(byte_mask_tail(w.data(), 11, ',', '\n', '"') == ((std::uint64_t{1} << 10) | 1U));
  CHECK(byte_mask_tail(w.data(), 0, ',', '\n', '"') == 0);
}

}  // namespace test_io_csv_scanner
