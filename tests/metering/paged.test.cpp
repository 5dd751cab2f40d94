// SPDX-License-Identifier: MIT
// The meter's paged storage (issue 19's memory bound): values and byte strings across page
// boundaries, strings longer than a page, copies; a meter whose ids fill several pages still
// finds every repeat and conflict and merges as before.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/paged.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_paged {

using namespace gpurent;
using detail::paged_bytes;

namespace {
// Every string read back from its offset and the next one's.
void check_all(const paged_bytes& b, const std::vector<std::uint64_t>& at, const std::vector<std::string>& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::uint64_t next = i + 1 < s.size() ? at[i + 1] : b.size();
    REQUIRE(b.view(at[i], next) == s[i]);
  }
}

// The i-th id: 1000 to 1499 bytes, so 2 MiB of them cross a page every ~800 ids.
std::string long_id(int i) { return std::string(1000 + static_cast<std::size_t>(i % 500), static_cast<char>('a' + i % 26)) + std::to_string(i); }
}  // namespace

TEST_CASE("paged_vector: values across pages, written in place, copied") {
  detail::paged_vector<std::uint64_t, 4> v;  // 16 values a page
  for (std::uint64_t k = 0; k < 1000; ++k) v.push_back(k * 3);
  v[17] = 7;
  REQUIRE(v.size() == 1000);
  const detail::paged_vector<std::uint64_t, 4> c = v;
  v[999] = 1;
  CHECK(c.size() == 1000);
  CHECK(c[17] == 7);
  CHECK(c[999] == 999 * 3);
  CHECK(v[999] == 1);
  for (std::uint64_t k = 18; k < 999; ++k) REQUIRE(c[k] == k * 3);
}

TEST_CASE("paged_bytes: strings end at a page's end, fill one exactly, or are longer than a page") {
  paged_bytes b;
  std::vector<std::string> s;
  std::vector<std::uint64_t> at;
  const auto add = [&](std::string x) {
    at.push_back(b.append(x));
    s.push_back(std::move(x));
  };
  add("r1");
  add(std::string(paged_bytes::page_size - 2 - 5, 'x'));  // leaves 5 bytes on page 0
  add("tooo-long");                                       // does not fit: page 1
  add(std::string(paged_bytes::page_size - 9, 'y'));      // fills page 1 exactly
  add("z");                                               // page 2
  add(std::string(2 * paged_bytes::page_size + 3, 'w'));  // a page of its own: numbers 3 to 5
  add("after");                                           // page 6
  CHECK(at[2] == paged_bytes::page_size);
  CHECK(at[4] == 2 * paged_bytes::page_size);
  CHECK(at[5] == 3 * paged_bytes::page_size);
  CHECK(at[6] == 6 * paged_bytes::page_size);
  check_all(b, at, s);
  paged_bytes c;
  c = b;
  add("more");  // the copy keeps its own end
  check_all(b, at, s);
  at.pop_back();
  s.pop_back();
  check_all(c, at, s);
  CHECK(c.size() == 6 * paged_bytes::page_size + 5);
}

TEST_CASE("a meter whose ids fill several pages finds repeats and conflicts, copies and merges") {
  auto t = io::parse_tariff_json(
      R"({"currency":"USD","timezone":"UTC","rates":[{"resource":"gpu","mode":"od","unit_price":"1.00","per":"1h","increment":"1s"}]})", "t.json");
  REQUIRE(t);
  auto a = meter::for_month(*t, "2026-11");
  REQUIRE(a);
  meter b = *a;
  const instant s0 = *parse_instant("2026-11-02T00:00:00Z");
  const auto add = [&](meter& m, int i, std::int64_t secs) {
    return m.add(long_id(i), "acme", 0, nano_quantity(1'000'000'000), s0, s0 + seconds{secs}, static_cast<std::size_t>(i + 2));
  };
  const std::string huge(3 * paged_bytes::page_size, 'h');  // an id longer than a page
  REQUIRE(a->add(huge, "acme", 0, nano_quantity(1'000'000'000), s0, s0 + seconds{7}, 1));
  for (int i = 0; i < 3000; ++i) REQUIRE(add(i % 2 == 0 ? *a : b, i, 60 + i));
  for (int i = 0; i < 3000; i += 2) REQUIRE(add(*a, i, 60 + i));  // identical repeats
  CHECK(a->duplicates_ignored() == 1500);
  const auto clash = add(*a, 2998, 1);
  REQUIRE_FALSE(clash);
  CHECK(clash.error().message.find("with a different end") != std::string::npos);
  const meter copy = *a;
  REQUIRE(a->merge(b));
  REQUIRE(a->merge(b));  // every record of b again: repeats only
  CHECK(a->distinct_records() == 3001);
  CHECK(a->duplicates_ignored() == 1500 + 1500);
  CHECK(copy.distinct_records() == 1501);
  CHECK(copy.record_at(0).id == huge);
  for (std::size_t k = 1; k < copy.distinct_records(); ++k) REQUIRE(copy.record_at(k).id == long_id(static_cast<int>(2 * (k - 1))));
  for (std::size_t k = 0; k < a->distinct_records(); ++k) REQUIRE(a->record_at(k).id.size() >= 1000);
}

}  // namespace test_metering_paged
