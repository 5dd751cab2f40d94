// SPDX-License-Identifier: MIT
// Fuzz target: the time and calendar parsers (parse_duration, parse_instant,
// parse_year_month, parse_currency, find_zone) and the billing calendar they feed. Accepted
// values print and parse back unchanged; a month of any zone is a non-empty interval that
// ends exactly where the next month begins (nothing billed twice, nothing lost across DST).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <date/date.h>
#include <date/tz.h>

#include <gpurent/core/core.hpp>

#include "fuzz.hpp"

namespace {

using namespace std::chrono_literals;

// Zones with DST rules of every shape: none, northern, southern, half-hour offsets, a
// 30-minute DST shift (Lord Howe), historic oddities.
constexpr std::string_view zones[] = {
    "UTC",          "America/New_York",  "Europe/London",  "Australia/Sydney", "Asia/Kolkata",    "Australia/Lord_Howe", "America/Santiago",
    "Pacific/Apia", "Africa/Casablanca", "Asia/Kathmandu", "Europe/Dublin",    "America/St_Johns"};

bool in_printable_range(gpurent::instant t) {
  const auto lo = date::sys_days(date::year(0) / 1 / 1);
  const auto hi = date::sys_days(date::year(10000) / 1 / 1);
  return t >= lo && t < hi;
}

void check_duration(std::string_view s) {
  const auto d = gpurent::parse_duration(s);
  if (!d) return;
  FUZZ_CHECK(d->count() >= 0, "a duration parsed negative");
  const std::string printed = gpurent::format_duration(*d);
  const auto again = gpurent::parse_duration(printed);
  FUZZ_CHECK(again && *again == *d, "format_duration does not parse back: " + printed);
}

void check_instant(std::string_view s) {
  const auto t = gpurent::parse_instant(s);
  if (!t) return;
  FUZZ_CHECK(s.size() == 20 || s.size() == 25, "an instant of unexpected length was accepted");
  if (!in_printable_range(*t)) return;  // an offset moved it out of years 0000..9999
  const std::string printed = gpurent::format_instant(*t);
  const auto again = gpurent::parse_instant(printed);
  FUZZ_CHECK(again && *again == *t, "format_instant does not parse back: " + printed);
}

void check_calendar(std::string_view s, std::uint8_t zone_pick) {
  const auto ym = gpurent::parse_year_month(s);
  if (!ym) return;
  FUZZ_CHECK(ym->ok(), "parse_year_month accepted a month that is not ok()");
  // Keep to the years the tz database describes sensibly and tz's arithmetic supports.
  if (ym->year() < date::year(1900) || ym->year() > date::year(2200)) return;
  const auto zone = gpurent::find_zone(zones[zone_pick % std::size(zones)]);
  FUZZ_CHECK(zone.has_value(), "a built-in zone name is not found");
  const gpurent::interval m = gpurent::month_period(*zone, *ym);
  const gpurent::interval next = gpurent::month_period(*zone, *ym + date::months(1));
  FUZZ_CHECK(m.end() == next.begin(), "consecutive months do not tile the time line");
  FUZZ_CHECK(m.length() >= 27 * 24h && m.length() <= 32 * 24h, "a month is not 28..31 days give or take DST");
  FUZZ_CHECK(gpurent::month_of(*zone, m.begin()) == *ym, "the first instant of a month is not in it");
  FUZZ_CHECK(gpurent::month_of(*zone, m.end() - 1s) == *ym, "the last second of a month is not in it");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpurent_fuzz::bytes_reader in(data, size);
  const std::uint8_t zone_pick = in.byte();
  const std::string_view s = in.rest();
  check_duration(s);
  check_instant(s);
  check_calendar(s, zone_pick);
  if (const auto c = gpurent::parse_currency(s)) FUZZ_CHECK(c->code == s, "parse_currency returned another code");
  if (s.size() < 64) {
    if (const auto z = gpurent::find_zone(s)) FUZZ_CHECK(*z != nullptr);
  }
  return 0;
}
