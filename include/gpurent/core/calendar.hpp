// SPDX-License-Identifier: MIT
#pragma once
// Billing calendars: the calendar month, day and ISO week of an IANA time zone, as UTC
// intervals. A period starts at the first instant of its local date; where local midnight
// does not exist (a DST gap at midnight) it starts when the day begins, at the transition,
// and where midnight happens twice it starts at the first one. So consecutive periods tile
// the time line: nothing is billed twice and nothing is lost across a DST change.

#include <chrono>
#include <string>
#include <string_view>

#include <date/date.h>
#include <date/tz.h>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>

namespace gpurent {

// Whether `name` may name a billing zone. The machine's zoneinfo folder also holds files that
// are not IANA zones: "localtime" (this machine's own setting, so an invoice would depend on
// where it runs), "posixrules", "Factory", and the copies under "posix/" and "right/" (the
// latter count leap seconds, another time scale). None of them is accepted.
[[nodiscard]] constexpr bool is_iana_zone_name(std::string_view name) noexcept {
  if (name.empty() || name.front() == '/' || name.find("..") != std::string_view::npos) return false;
  if (name == "localtime" || name == "posixrules" || name == "Factory") return false;
  return !name.starts_with("posix/") && !name.starts_with("right/");
}

// The time zone with this IANA name, or an error naming it.
[[nodiscard]] inline expected<const date::time_zone*> find_zone(std::string_view name) {
  if (!is_iana_zone_name(name)) {
    return make_error(error_code::unknown_name, "timezone",
                      "\"" + std::string(name) + "\" is not an IANA time zone name (name the zone itself, such as \"Europe/Berlin\" or \"UTC\")");
  }
  try {
    return date::locate_zone(name);
  } catch (const std::exception&) {
    return make_error(error_code::unknown_name, "timezone", "unknown IANA time zone \"" + std::string(name) + "\"");
  }
}

// The UTC instant at which local date `d` begins in `zone`.
[[nodiscard]] inline instant start_of_local_day(const date::time_zone* zone, date::local_days d) {
  return std::chrono::time_point_cast<seconds>(zone->to_sys(date::local_seconds(d), date::choose::earliest));
}

// [start of local date `from`, start of local date `to`) in `zone`.
[[nodiscard]] inline interval local_date_range(const date::time_zone* zone, date::local_days from, date::local_days to) {
  return *interval::make(start_of_local_day(zone, from), start_of_local_day(zone, to));
}

// The calendar month `ym` in `zone`.
[[nodiscard]] inline interval month_period(const date::time_zone* zone, date::year_month ym) {
  const date::local_days first{ym / date::day(1)};
  const date::local_days next{(ym + date::months(1)) / date::day(1)};
  return local_date_range(zone, first, next);
}

// The calendar month `ym` in `zone`, when both its UTC bounds can be written as instants
// (years 0000-9999; the end is exclusive, so 9999-12 in UTC, ending at the start of the year
// 10000, cannot); else an error for the field "period".
[[nodiscard]] inline expected<interval> writable_month_period(const date::time_zone* zone, date::year_month ym) {
  const interval p = month_period(zone, ym);
  if (p.begin() < earliest_instant || p.end() > latest_instant)
    return make_error(error_code::invalid_argument, "period",
                      "the month's bounds in UTC fall outside 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z, the instants that can be written");
  return p;
}

// The calendar day `ymd` in `zone` (23, 24 or 25 hours around DST changes).
[[nodiscard]] inline interval day_period(const date::time_zone* zone, date::year_month_day ymd) {
  const date::local_days d{ymd};
  return local_date_range(zone, d, d + date::days(1));
}

// The ISO week (Monday to Monday) in `zone` that contains local date `ymd`.
[[nodiscard]] inline interval week_period(const date::time_zone* zone, date::year_month_day ymd) {
  const date::local_days d{ymd};
  const date::weekday wd{d};
  const date::local_days monday = d - (wd - date::Monday);
  return local_date_range(zone, monday, monday + date::days(7));
}

// The local calendar month containing instant t in `zone`.
[[nodiscard]] inline date::year_month month_of(const date::time_zone* zone, instant t) {
  const auto local = zone->to_local(t);
  const date::year_month_day ymd{std::chrono::floor<date::days>(local)};
  return ymd.year() / ymd.month();
}

// "2026-11" as a year and month.
[[nodiscard]] inline expected<date::year_month> parse_year_month(std::string_view s) {
  const auto y = s.size() == 7 && s[4] == '-' ? detail::parse_uint(s.substr(0, 4), 9999) : std::nullopt;
  const auto m = y ? detail::parse_uint(s.substr(5, 2), 12) : std::nullopt;
  if (!y || !m || *m == 0) {
    return make_error(error_code::parse_error, "period", "not a month: \"" + std::string(s) + "\" (expected YYYY-MM, e.g. 2026-11)");
  }
  return date::year(static_cast<int>(*y)) / date::month(static_cast<unsigned>(*m));
}

}  // namespace gpurent
