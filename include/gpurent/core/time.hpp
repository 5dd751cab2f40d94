// SPDX-License-Identifier: MIT
#pragma once
// Time: instants are std::chrono::sys_seconds (UTC, whole seconds); intervals are half-open
// [begin, end); durations are read and written in one grammar ("90s", "1h30min", "2d12h"); instants
// from RFC 3339.

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <date/date.h>

#include <gpurent/core/bytes.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/fleet_time.hpp>

namespace gpurent {

using instant = std::chrono::sys_seconds;
using std::chrono::seconds;

// The instants RFC 3339 writes (years 0000 to 9999): parse_instant reads no other, and a
// usage record holds no other (validate_usage), so an end minus a start always fits.
inline constexpr instant earliest_instant{std::chrono::sys_days{std::chrono::year{0} / 1 / 1}};
inline constexpr instant latest_instant{std::chrono::sys_days{std::chrono::year{9999} / 12 / 31} + std::chrono::hours{24} - seconds{1}};

// A half-open interval of time [begin, end) with begin <= end.
class interval {
 public:
  constexpr interval() = default;
  // Checked construction: end must not be before begin.
  [[nodiscard]] static expected<interval> make(instant begin, instant end) {
    if (end < begin) return make_error(error_code::invalid_argument, "end", "interval ends before it begins");
    return interval(begin, end);
  }
  [[nodiscard]] constexpr instant begin() const noexcept { return b_; }
  [[nodiscard]] constexpr instant end() const noexcept { return e_; }
  [[nodiscard]] constexpr seconds length() const noexcept { return e_ - b_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return b_ == e_; }
  [[nodiscard]] constexpr bool contains(instant t) const noexcept { return b_ <= t && t < e_; }
  [[nodiscard]] constexpr bool overlaps(const interval& o) const noexcept { return b_ < o.e_ && o.b_ < e_; }
  // The common part, or nothing when they do not overlap.
  [[nodiscard]] constexpr std::optional<interval> intersect(const interval& o) const noexcept {
    const instant b = b_ > o.b_ ? b_ : o.b_;
    const instant e = e_ < o.e_ ? e_ : o.e_;
    if (b >= e) return std::nullopt;
    return interval(b, e);
  }
  // [begin, t) and [t, end); t is clamped into the interval.
  [[nodiscard]] constexpr std::pair<interval, interval> split_at(instant t) const noexcept {
    const instant m = t < b_ ? b_ : (t > e_ ? e_ : t);
    return {interval(b_, m), interval(m, e_)};
  }
  friend constexpr bool operator==(const interval&, const interval&) = default;
  friend constexpr auto operator<=>(const interval&, const interval&) = default;

 private:
  constexpr interval(instant b, instant e) noexcept : b_(b), e_(e) {}
  instant b_{};
  instant e_{};
};

namespace detail {
// Parses an unsigned decimal integer that is the whole of s and at most max (>= 0), or nothing.
constexpr std::optional<std::int64_t> parse_uint(std::string_view s, std::int64_t max) noexcept {
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const int d = c - '0';
    if (v > (max - d) / 10) return std::nullopt;  // v * 10 + d > max, tested without overflowing
    v = v * 10 + d;
  }
  return v;
}
}  // namespace detail

// Durations as every input and output of gpurent writes them: whole numbers with units,
// largest first, each unit once, no spaces, no sign: "90s", "15min", "1h30min", "2d12h", "1w".
// Units: w (7 days), d, h, min (or m), s. "0s" is zero.
[[nodiscard]] inline expected<seconds> parse_duration(std::string_view s) {
  struct unit {
    std::string_view name;
    std::int64_t secs;
  };
  constexpr unit units[] = {{"w", 604800}, {"d", 86400}, {"h", 3600}, {"min", 60}, {"m", 60}, {"s", 1}};
  constexpr std::int64_t limit = std::int64_t{1} << 62;
  std::int64_t total = 0;
  std::size_t next_unit = 0;  // units before this one were used or skipped: largest first
  std::string_view rest = s;
  while (!rest.empty() && next_unit < std::size(units)) {
    const std::size_t digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
    if (digits == 0) break;
    std::size_t u = next_unit;
    while (u < std::size(units) && !rest.substr(digits).starts_with(units[u].name)) ++u;
    if (u == std::size(units)) break;
    const auto n = detail::parse_uint(rest.substr(0, digits), limit / units[u].secs);
    if (!n || total > limit - *n * units[u].secs)
      return make_error(error_code::invalid_argument, {}, "duration out of range: \"" + std::string(s) + "\" (at most 2^62 seconds)");
    total += *n * units[u].secs;
    rest.remove_prefix(digits + units[u].name.size());
    next_unit = units[u].secs == 60 ? u + (units[u].name == "min" ? 2 : 1) : u + 1;
  }
  if (rest.empty() && next_unit > 0) return seconds(total);
  return make_error(error_code::parse_error, {},
                    "not a duration: \"" + std::string(s) +
                        "\" (expected whole numbers with units w, d, h, min or m, s, largest first, no spaces: 90s, 15min, 1h30min, 2d12h, 1w)");
}

// The one written form of a duration, which parse_duration reads back: days, hours, minutes
// and seconds, largest first, zero parts left out ("1d2h", "1h30min", "45s", "0s"); a negative
// duration with a leading "-".
[[nodiscard]] inline std::string format_duration(seconds d) {
  const std::int64_t n = d.count();
  if (n < 0) return "-" + format_duration(seconds{-n});
  if (n == 0) return "0s";
  std::string out;
  std::int64_t left = n;
  for (const auto& [name, secs] : {std::pair<const char*, std::int64_t>{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}}) {
    if (left >= secs) out += std::to_string(left / secs) + name;
    left %= secs;
  }
  return out;
}

namespace detail {
// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
[[nodiscard]] constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + std::int64_t{doe} - 719468;
}
// True when the bytes of `w` under `digits` (0xFF per byte) are all '0'-'9': their high
// nibble is 3 and adding 6 keeps it 3 (no carry leaves a byte whose high nibble is 3).
[[nodiscard]] constexpr bool all_digits(std::uint64_t w, std::uint64_t digits) noexcept {
  const std::uint64_t hi = digits & 0xF0F0F0F0F0F0F0F0U, three = digits & 0x3030303030303030U;
  return (w & hi) == three && (((w & digits) + (digits & 0x0606060606060606U)) & hi) == three;
}
// The two-digit number at byte k of `w` (bytes already checked to be digits).
[[nodiscard]] constexpr unsigned two_digits(std::uint64_t w, int k) noexcept {
  return static_cast<unsigned>((w >> (8 * k)) & 0xF) * 10 + static_cast<unsigned>((w >> (8 * k + 8)) & 0xF);
}
// The usage files' one shape, "YYYY-MM-DDTHH:MM:SSZ", read as three words (separators and
// digits checked a word at a time); nothing for anything else (parse_instant then reads it,
// or says what is wrong with it).
[[nodiscard, gnu::always_inline]] inline std::optional<instant> parse_instant_utc_fast(std::string_view s) noexcept {
  if (s.size() != 20) return std::nullopt;
  // "YYYY-MM-", "DDTHH:MM", ":SSZ" as words whose byte k is s[k] (one load each on x86).
  const std::uint64_t a = little_endian_word(s.data(), 8), b = little_endian_word(s.data() + 8, 8), c = little_endian_word(s.data() + 16, 4);
  if ((a & 0xFF0000FF00000000U) != 0x2D00002D00000000U || (b & 0x0000FF0000FF0000U) != 0x00003A0000540000U || (c & 0xFF0000FFU) != 0x5A00003AU)
    return std::nullopt;
  if (!all_digits(a, 0x00FFFF00FFFFFFFFU) || !all_digits(b, 0xFFFF00FFFF00FFFFU) || !all_digits(c, 0x00FFFF00U)) return std::nullopt;
  const unsigned y = two_digits(a, 0) * 100 + two_digits(a, 2), mo = two_digits(a, 5), d = two_digits(b, 0), h = two_digits(b, 3),
                 mi = two_digits(b, 6), se = two_digits(c, 1);
  constexpr unsigned char month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo - 1 > 11 || d == 0 || d > month_days[mo - 1] || h > 23 || mi > 59 || se > 59) return std::nullopt;
  if (mo == 2 && d == 29 && (y % 4 != 0 || (y % 100 == 0 && y % 400 != 0))) return std::nullopt;
  const std::int64_t secs = days_from_civil(y, mo, d) * 86400 + std::int64_t{h} * 3600 + std::int64_t{mi} * 60 + se;
  return instant(seconds(secs));
}
}  // namespace detail

namespace detail {
// parse_instant for everything but the usage files' one shape: out of line, so that the
// shape's check inlines where it is read.
[[nodiscard, gnu::noinline]] inline expected<instant> parse_instant_general(std::string_view s) {
  const auto bad = [&](std::string why) {
    return make_error(error_code::parse_error, {},
                      "not an RFC 3339 instant: \"" + std::string(s) + "\" (" + why + "; expected e.g. 2026-11-03T10:15:00Z)");
  };
  if (s.size() < 20) return bad("too short");
  const auto num = [&](std::size_t at, std::size_t n, std::int64_t max) { return detail::parse_uint(s.substr(at, n), max); };
  const auto y = num(0, 4, 9999), mo = num(5, 2, 12), d = num(8, 2, 31), h = num(11, 2, 23), mi = num(14, 2, 59), se = num(17, 2, 60);
  if (!y || !mo || !d || !h || !mi || !se || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':') {
    return bad("date or time fields malformed");
  }
  if (*se == 60) return bad("leap seconds are not billed");
  const date::year_month_day ymd{date::year(static_cast<int>(*y)), date::month(static_cast<unsigned>(*mo)), date::day(static_cast<unsigned>(*d))};
  if (!ymd.ok()) return bad("no such date");
  std::string_view zone = s.substr(19);
  if (!zone.empty() && zone[0] == '.') return bad("fractional seconds are not allowed");
  seconds offset{0};
  if (zone == "Z" || zone == "z") {
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    const auto oh = detail::parse_uint(zone.substr(1, 2), 23), om = detail::parse_uint(zone.substr(4, 2), 59);
    if (!oh || !om) return bad("offset malformed");
    offset = seconds(*oh * 3600 + *om * 60);
    if (zone[0] == '-') offset = -offset;
  } else {
    return bad("missing or malformed time zone (Z or +hh:mm)");
  }
  const auto local = date::sys_days(ymd) + std::chrono::hours(*h) + std::chrono::minutes(*mi) + seconds(*se);
  const instant t(local - offset);
  if (t < earliest_instant || t > latest_instant) return bad("in UTC outside the years 0000-9999");
  return t;
}
}  // namespace detail

// An RFC 3339 instant with whole seconds: "2026-11-03T10:15:00Z" or with an offset
// "2026-11-03T05:15:00-05:00". A fraction of a second is rejected (billing is in seconds).
[[nodiscard]] inline expected<instant> parse_instant(std::string_view s) {
  if (auto t = detail::parse_instant_utc_fast(s)) [[likely]]
    return *t;
  return detail::parse_instant_general(s);
}

// "2026-11-03T10:15:00Z".
[[nodiscard]] inline std::string format_instant(instant t) {
  const auto day = std::chrono::floor<date::days>(t);
  const date::year_month_day ymd{day};
  const date::hh_mm_ss hms{t - day};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

}  // namespace gpurent
