// SPDX-License-Identifier: MIT
#pragma once
// Reads an hourly load profile (docs/advisors.md): a header `hour,gpus` or `start,gpus` (the
// count column may also be named `units`), then one row per hour, in order and without gaps:
//
//   hour,gpus            start,gpus
//   0,4                  2026-11-02T00:00:00Z,4
//   1,6                  2026-11-02T01:00:00Z,6
//
// `hour` is a whole number, each row one more than the last; `start` an RFC 3339 instant,
// each row one hour after the last. The count is a whole number of GPUs (or units) in use,
// 0..2^20. Every error names the file, the line and the field.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/text/csv_split.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/planning/commitment.hpp>

namespace gpurent::io {

struct load_profile {
  std::vector<std::int64_t> hourly;  // units in use each hour, in order
  std::optional<instant> start;      // the first hour's start, when the file gives instants
  std::int64_t first_hour = 0;       // the first hour's number, when it gives hour numbers
};

namespace detail {
// A whole number in [0, max], or an error in `field` saying what the text is instead.
[[nodiscard]] inline expected<std::int64_t> whole_number(std::string_view text, std::string_view field, std::int64_t max) {
  const std::string f(field);
  if (text.empty()) return make_error(error_code::parse_error, f, "missing value");
  if (text.front() == '-' && ::gpurent::detail::parse_uint(text.substr(1), max))
    return make_error(error_code::invalid_argument, f, "must not be negative, got \"" + std::string(text) + "\"");
  if (auto v = ::gpurent::detail::parse_uint(text, max)) return *v;
  if (text.find_first_not_of("0123456789") == std::string_view::npos)
    return make_error(error_code::invalid_argument, f, "must be at most " + std::to_string(max) + ", got \"" + std::string(text) + "\"");
  return make_error(error_code::parse_error, f, "not a whole number: \"" + std::string(text) + "\"");
}

// The time of one row: its hour number or instant, which must follow the previous row's.
[[nodiscard]] inline expected<void> next_hour(std::string_view text, bool instants, load_profile& p, std::string_view field) {
  const std::string f(field);
  const auto n = static_cast<std::int64_t>(p.hourly.size());
  if (instants) {
    auto t = parse_instant(text);
    if (!t) return unexpected(t.error().in_field(f));
    if (!p.start) p.start = *t;
    const instant want = *p.start + std::chrono::hours(n);
    if (*t != want)
      return make_error(error_code::invalid_argument, f,
                        "expected " + format_instant(want) + " (one hour after the previous row), got \"" + std::string(text) + "\"");
    return {};
  }
  GPURENT_TRY(h, whole_number(text, field, std::int64_t{1} << 40));
  if (n == 0) p.first_hour = *h;
  if (*h != p.first_hour + n)
    return make_error(error_code::invalid_argument, f,
                      "expected hour " + std::to_string(p.first_hour + n) + " (one after the previous row), got " + std::to_string(*h));
  return {};
}
}  // namespace detail

// A load profile from CSV text; `file` names it in errors ("load.csv:5: field 'gpus': ...").
[[nodiscard]] inline expected<load_profile> read_load_csv(std::string_view text, std::string_view file) {
  const csv_column columns[] = {{{"hour", "start"}, false}, {{"gpus", "units"}, false}};
  load_profile p;
  std::string count_name = "gpus";
  auto read = read_csv_table(text, file, columns, "hour,gpus or start,gpus",
                             [&](std::span<const std::string_view> v, std::span<const std::string_view> names) -> expected<void> {
                               GPURENT_TRY(detail::next_hour(v[0], names[0] == "start", p, names[0]));
                               GPURENT_TRY(count, detail::whole_number(v[1], names[1], max_hourly_load));
                               p.hourly.push_back(*count);
                               count_name = std::string(names[1]);
                               return {};
                             });
  if (!read) return unexpected(read.error());
  if (p.hourly.empty())
    return unexpected(error{error_code::invalid_argument, count_name, "no rows: the profile needs at least one hour", {}}.at(file, 1));
  return p;
}

// The same from a file.
[[nodiscard]] inline expected<load_profile> read_load_file(const std::string& path) {
  GPURENT_TRY(text, read_file(path));
  return read_load_csv(*text, path);
}

}  // namespace gpurent::io
