// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>

#include <gpurent/core/calendar.hpp>
#include <gpurent/core/format.hpp>
#include <gpurent/core/quantity.hpp>

using namespace gpurent;
using namespace std::chrono_literals;

namespace {
instant at(const char* s) {
  auto t = parse_instant(s);
  REQUIRE_MESSAGE(t, s);
  return *t;
}
double hours(const interval& i) { return static_cast<double>(i.length().count()) / 3600.0; }
interval month(const char* zone, int y, unsigned m) {
  auto z = find_zone(zone);
  REQUIRE_MESSAGE(z, zone);
  return month_period(*z, date::year(y) / date::month(m));
}
}  // namespace

TEST_CASE("durations: one grammar for every input, one written form read back") {
  struct spelling {
    const char* text;
    std::int64_t secs;
    const char* written;
  };
  const spelling table[] = {{"60s", 60, "1min"},
                            {"15min", 900, "15min"},
                            {"15m", 900, "15min"},
                            {"1h", 3600, "1h"},
                            {"1d", 86400, "1d"},
                            {"1w", 604800, "7d"},
                            {"1h30min", 5400, "1h30min"},
                            {"90min", 5400, "1h30min"},
                            {"5400s", 5400, "1h30min"},
                            {"1m30s", 90, "1min30s"},
                            {"62h30min", 225000, "2d14h30min"},
                            {"2d12h", 216000, "2d12h"},
                            {"30m", 1800, "30min"},
                            {"0s", 0, "0s"},
                            {"1w2d3h4min5s", 788645, "9d3h4min5s"},
                            {"26280h", 94608000, "1095d"},
                            {"45s", 45, "45s"}};
  for (const spelling& s : table) {
    CAPTURE(s.text);
    const auto d = parse_duration(s.text);
    REQUIRE(d);
    CHECK(d->count() == s.secs);
    CHECK(format_duration(*d) == s.written);
    CHECK(parse_duration(s.written).value() == *d);
  }
  for (const char* bad :
       {"", "s", "1", "1 h", " 1h", "1h ", "-1h", "1.5h", "h1", "1hr", "1H", "1h1h", "30min1h", "1m1min", "1min1m", "1ms", "1d1w"}) {
    CAPTURE(bad);
    const auto d = parse_duration(bad);
    REQUIRE_FALSE(d);
    CHECK(d.error().message.find("1h30min") != std::string::npos);  // the grammar, with examples
  }
  for (const char* big : {"99999999999999999999s", "4611686018427387905s", "76250274715436w", "1d4611686018427387900s", "1w4611686018427387904s"}) {
    CAPTURE(big);  // well formed, too long: said so, not "not a duration"
    const auto d = parse_duration(big);
    REQUIRE_FALSE(d);
    CHECK(d.error().message.find("out of range") != std::string::npos);
  }
  CHECK(parse_duration("4611686018427387905s").error().message.find("2^62") != std::string::npos);
  // The limit is 2^62 seconds however it is written (until 2026-12-07 nineteen digits were
  // refused: 4611686018427387903s was "out of range" though 7625597484987w was not).
  CHECK(parse_duration("4611686018427387904s").value() == seconds{std::int64_t{1} << 62});
  CHECK(parse_duration("4611686018427387903s").value() == seconds{(std::int64_t{1} << 62) - 1});
  CHECK(parse_duration("0000000000000000000090s").value() == 90s);
  CHECK(format_duration(-90s) == "-1min30s");
  std::mt19937_64 rng(35);
  for (int i = 0; i < 2000; ++i) {  // every written form reads back
    const seconds s{static_cast<std::int64_t>(rng() % (std::uint64_t{1} << (rng() % 50)))};
    CHECK(parse_duration(format_duration(s)).value() == s);
  }
}

TEST_CASE("RFC 3339 instants") {
  CHECK(format_instant(at("2026-11-03T10:15:00Z")) == "2026-11-03T10:15:00Z");
  CHECK(at("2026-11-03T05:15:00-05:00") == at("2026-11-03T10:15:00Z"));
  CHECK(at("2026-11-03T15:45:00+05:30") == at("2026-11-03T10:15:00Z"));
  for (const char* bad : {"2026-11-03 10:15:00Z", "2026-11-03T10:15:00", "2026-02-30T00:00:00Z", "2026-11-03T24:00:00Z", "2026-11-03T10:15:00.5Z",
                          "2026-13-01T00:00:00Z", "2026-11-03T10:15:00+0500", "", "x"}) {
    CHECK_MESSAGE(!parse_instant(bad), bad);
  }
}

TEST_CASE("RFC 3339 instants: the years 0000-9999 in UTC, and no instant outside them") {
  CHECK(at("0000-01-01T00:00:00Z") == gpurent::earliest_instant);
  CHECK(at("9999-12-31T23:59:59Z") == gpurent::latest_instant);
  CHECK(at("0000-01-01T00:59:59-01:00") == gpurent::earliest_instant + seconds{3599 + 3600});
  CHECK(gpurent::latest_instant - gpurent::earliest_instant == seconds{(std::int64_t{10000} * 365 + 2425) * 86400 - 1});
  // An offset that moves the instant out of those years (the meter subtracts instants).
  for (const char* bad : {"0000-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01"}) {
    const auto t = parse_instant(bad);
    REQUIRE_MESSAGE(!t, bad);
    CHECK(t.error().message.find("outside the years 0000-9999") != std::string::npos);
  }
}

// The usage files' shape is read by a word-at-a-time path; it must never accept what the
// general parser rejects nor read a value differently. Every byte of every position of
// instants at the edges (leap days, month ends, 23:59:59, year 0000 and 9999) is replaced by
// every byte value: 256 x 20 strings per instant.
TEST_CASE("RFC 3339 instants: the usage files' fast path agrees with the general parser") {
  const char* const bases[] = {"2026-11-03T10:15:00Z", "2024-02-29T23:59:59Z", "2100-02-28T00:00:00Z", "2000-02-29T12:30:30Z",
                               "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-04-30T09:09:09Z", "1970-01-01T00:00:00Z"};
  std::size_t accepted = 0;
  for (const char* base : bases) {
    const auto whole = detail::parse_instant_utc_fast(base);
    REQUIRE_MESSAGE(whole, base);
    CHECK(*whole == *detail::parse_instant_general(base));
    for (std::size_t k = 0; k < 20; ++k) {
      for (int v = 0; v < 256; ++v) {
        std::string s(base);
        s[k] = static_cast<char>(v);
        const auto fast = detail::parse_instant_utc_fast(s);
        if (!fast) continue;
        ++accepted;
        const auto general = detail::parse_instant_general(s);
        REQUIRE_MESSAGE(general, s);
        CHECK_MESSAGE(*fast == *general, s);
      }
    }
  }
  CHECK(accepted > 8 * 14 * 5);  // most digit positions take several digits
  CHECK_FALSE(detail::parse_instant_utc_fast("2023-02-29T00:00:00Z"));
  CHECK_FALSE(detail::parse_instant_utc_fast("2026-11-03T10:15:00+00:00"));
  CHECK_FALSE(detail::parse_instant_utc_fast("2026-11-03T24:00:00Z"));
  CHECK_FALSE(detail::parse_instant_utc_fast("2026-13-03T10:15:00Z"));
  CHECK_FALSE(detail::parse_instant_utc_fast("2026-11-00T10:15:00Z"));
}

TEST_CASE("intervals: overlap, intersection, splitting") {
  const auto a = *interval::make(at("2026-11-01T00:00:00Z"), at("2026-11-02T00:00:00Z"));
  const auto b = *interval::make(at("2026-11-01T12:00:00Z"), at("2026-11-03T00:00:00Z"));
  CHECK(a.overlaps(b));
  CHECK(a.intersect(b)->length() == 12h);
  const auto c = *interval::make(at("2026-11-02T00:00:00Z"), at("2026-11-04T00:00:00Z"));
  CHECK_FALSE(a.overlaps(c));  // half-open: touching is not overlapping
  CHECK_FALSE(a.intersect(c));
  const auto [l, r] = a.split_at(at("2026-11-01T06:00:00Z"));
  CHECK(l.length() == 6h);
  CHECK(r.length() == 18h);
  CHECK(l.end() == r.begin());
  CHECK_FALSE(interval::make(at("2026-11-02T00:00:00Z"), at("2026-11-01T00:00:00Z")));
  CHECK(fmt::format("{}", a) == "[2026-11-01T00:00:00Z, 2026-11-02T00:00:00Z)");
}

TEST_CASE("calendar months in time zones, across DST") {
  CHECK(hours(month("America/New_York", 2026, 11)) == 721.0);  // DST ends on the 1st
  CHECK(format_instant(month("America/New_York", 2026, 11).begin()) == "2026-11-01T04:00:00Z");
  CHECK(format_instant(month("America/New_York", 2026, 11).end()) == "2026-12-01T05:00:00Z");
  CHECK(hours(month("Europe/Berlin", 2026, 3)) == 743.0);
  CHECK(hours(month("Australia/Lord_Howe", 2026, 10)) == 743.5);  // half-hour DST starts
  CHECK(hours(month("Australia/Lord_Howe", 2026, 4)) == 720.5);   // and ends
  CHECK(hours(month("Asia/Shanghai", 2028, 2)) == 696.0);         // leap year
  CHECK(hours(month("UTC", 2026, 2)) == 672.0);
  // Consecutive months tile the time line: no gap, no overlap.
  for (const char* zone : {"America/New_York", "Australia/Lord_Howe", "America/Santiago", "Asia/Kolkata"}) {
    for (unsigned m = 1; m <= 12; ++m) {
      const auto cur = month(zone, 2026, m);
      const auto next = m == 12 ? month(zone, 2027, 1) : month(zone, 2026, m + 1);
      CHECK_MESSAGE(cur.end() == next.begin(), zone << " " << m);
    }
  }
  auto z = *find_zone("America/New_York");
  CHECK(day_period(z, date::year(2026) / date::November / 1).length() == 25h);
  CHECK(day_period(z, date::year(2026) / date::March / 8).length() == 23h);
  CHECK(week_period(z, date::year(2026) / date::November / 1).length() == 169h);  // Mon Oct 26 .. Mon Nov 2
  CHECK(format_instant(week_period(z, date::year(2026) / date::November / 1).begin()) == "2026-10-26T04:00:00Z");
  CHECK(week_period(z, date::year(2026) / date::November / 4).length() == 168h);
  CHECK(format_instant(week_period(z, date::year(2026) / date::November / 4).begin()) == "2026-11-02T05:00:00Z");
  CHECK(month_of(z, at("2026-11-01T03:59:59Z")) == date::year(2026) / date::October);
  CHECK(month_of(z, at("2026-11-01T04:00:00Z")) == date::year(2026) / date::November);
  CHECK_FALSE(find_zone("Mars/Olympus_Mons"));
  CHECK(*parse_year_month("2026-11") == date::year(2026) / date::November);
  for (const char* bad : {"2026-13", "2026-00", "26-11", "2026/11", "2026-1"}) CHECK_MESSAGE(!parse_year_month(bad), bad);
  // A month whose UTC bounds cannot be written (years 0000-9999) is refused, not printed as
  // "-001-12-31T23:06:32Z" or "10000-01-01T05:00:00Z" (a probe's finding).
  const auto writable = [](const char* zone, int y, unsigned m) { return writable_month_period(*find_zone(zone), date::year(y) / date::month(m)); };
  CHECK_FALSE(writable("Europe/Berlin", 0, 1));
  CHECK_FALSE(writable("America/New_York", 9999, 12));
  CHECK_FALSE(writable("UTC", 9999, 12));  // ends at the first instant of the year 10000
  CHECK(writable("UTC", 0, 1));
  CHECK(writable("America/New_York", 0, 1));
  CHECK(writable("Europe/Berlin", 9999, 12));
  CHECK(writable("UTC", 9999, 11)->end() == at("9999-12-01T00:00:00Z"));
  CHECK(writable("Europe/Berlin", 0, 1).error().field == "period");
}

TEST_CASE("quantities") {
  using namespace gpurent::literals;
  CHECK(80_GiB == gib(80));
  CHECK(to_mib(1_GiB) == 1024);
  CHECK((1_GB).count() == 1000000000);
  CHECK(500_mgpu + 500_mgpu == whole_gpu);
  CHECK(2_TFLOPS == 2000_GFLOPS);
  CHECK(fmt::format("{}", 470_mgpu) == "470 mGPU");
}
