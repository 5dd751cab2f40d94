// SPDX-License-Identifier: MIT
#pragma once
// The DCGM exporter's metrics as Prometheus text exposition, saved as a series of scrapes
// with timestamps. The format (https://prometheus.io/docs/instrumenting/exposition_formats/,
// "Text-based format"): comment lines (# HELP, # TYPE, other #), blank lines, and samples
//
//   metric_name{label="value",...} value [timestamp]
//
// with label values escaped (\\, \", \n), each label once, a float value, and a timestamp in
// milliseconds since the epoch (one before 2000 is refused: check_millisecond_epoch). A file
// ending with "# EOF" is OpenMetrics (https://openmetrics.io), whose timestamps are seconds
// (promtool tsdb create-blocks-from openmetrics reads it).
// The exporter's labels (NVIDIA/dcgm-exporter README, etc/default-counters.csv): gpu, UUID,
// device, modelName, Hostname; GPU_I_ID and GPU_I_PROFILE for a MIG instance.
//
// Every line is checked; errors name file:line. Samples of other metrics are checked and
// skipped; those of the metric asked for need a timestamp (an exporter's scrape carries none:
// see docs/monitoring.md for saving scrapes with their time) and a value in the metric's unit
// (utilization_unit). A DCGM "blank" (is_dcgm_blank: the field has no value) is no sample.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/io/monitor/gpu_metrics.hpp>
#include <gpurent/io/text/csv_split.hpp>

namespace gpurent::io {

// One sample line, taken apart.
struct exposition_sample {
  std::string_view name;
  metric_labels labels;
  std::string_view value;
  std::string_view timestamp;  // empty when the line has none
};

namespace detail {

[[nodiscard]] constexpr bool name_char(char c, bool first) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || (!first && c >= '0' && c <= '9');
}
inline void skip_blanks(std::string_view s, std::size_t& i) noexcept {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}
[[nodiscard]] inline std::string_view take_name(std::string_view s, std::size_t& i) noexcept {
  const std::size_t from = i;
  while (i < s.size() && name_char(s[i], i == from)) ++i;
  return s.substr(from, i - from);
}

// `"value"` at s[i] with \\, \" and \n escapes; false with `why` set when malformed.
[[nodiscard]] inline bool take_label_value(std::string_view s, std::size_t& i, std::string& out, std::string& why) {
  if (i >= s.size() || s[i] != '"') return why = "expected a quoted label value", false;
  out.clear();
  for (++i; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i >= s.size()) break;
    if (s[i] == 'n')
      out += '\n';
    else if (s[i] == '\\' || s[i] == '"')
      out += s[i];
    else
      return why = std::string("unknown escape \\") + s[i] + " in a label value", false;
  }
  if (i >= s.size()) return why = "unterminated label value", false;
  ++i;
  return true;
}

// The {label="value",...} part at s[i] (i at '{').
[[nodiscard]] inline bool take_labels(std::string_view s, std::size_t& i, metric_labels& out, std::string& why) {
  ++i;
  while (true) {
    skip_blanks(s, i);
    if (i < s.size() && s[i] == '}') return ++i, true;
    const std::string_view key = take_name(s, i);
    if (key.empty()) return why = "expected a label name or '}'", false;
    skip_blanks(s, i);
    if (i >= s.size() || s[i] != '=') return why = "expected '=' after label " + std::string(key), false;
    ++i;
    skip_blanks(s, i);
    std::string value;
    if (!take_label_value(s, i, value, why)) return false;
    if (!is_utf8(value)) return why = "label " + std::string(key) + ": " + utf8_problem(value), false;  // the format's values are UTF-8
    if (std::ranges::any_of(out, [&](const auto& l) { return l.first == key; })) return why = "label " + std::string(key) + " given twice", false;
    out.emplace_back(std::string(key), std::move(value));
    skip_blanks(s, i);
    if (i < s.size() && s[i] == ',')
      ++i;
    else if (i >= s.size() || s[i] != '}')
      return why = "expected ',' or '}' after a label", false;
  }
}

// A float as the format writes it: a decimal, or NaN, +Inf, -Inf.
[[nodiscard]] inline bool exposition_float(std::string_view v) {
  if (v == "NaN" || v == "+Inf" || v == "-Inf" || v == "Inf") return true;
  decimal_text d;
  return split_decimal(v, d);
}

}  // namespace detail

// One sample line: name, labels, value, timestamp; an error saying what is wrong otherwise.
[[nodiscard]] inline expected<exposition_sample> parse_exposition_line(std::string_view line) {
  exposition_sample out;
  std::string why;
  std::size_t i = 0;
  out.name = detail::take_name(line, i);
  if (out.name.empty()) return make_error(error_code::parse_error, {}, "expected a metric name");
  if (i < line.size() && line[i] == '{' && !detail::take_labels(line, i, out.labels, why)) return make_error(error_code::parse_error, {}, why);
  detail::skip_blanks(line, i);
  std::size_t from = i;
  while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
  out.value = line.substr(from, i - from);
  if (out.value.empty() || !detail::exposition_float(out.value))
    return make_error(error_code::parse_error, {}, "expected a value after the labels, got \"" + std::string(out.value) + "\"");
  detail::skip_blanks(line, i);
  from = i;
  while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
  out.timestamp = line.substr(from, i - from);
  detail::skip_blanks(line, i);
  if (i < line.size() && line[i] != '#')  // '#' starts an OpenMetrics exemplar
    return make_error(error_code::parse_error, {}, "unexpected text after the timestamp: \"" + std::string(line.substr(i)) + "\"");
  out.labels.emplace(out.labels.begin(), "__name__", std::string(out.name));
  return out;
}

namespace detail {

// Whether the text is OpenMetrics: a line of it is "# EOF" (the last non-blank one, or the
// reader reports the text after it, rather than misreading the timestamps before it).
[[nodiscard]] inline bool is_openmetrics(std::string_view text) noexcept {
  for (std::size_t at = text.find("# EOF"); at != std::string_view::npos; at = text.find("# EOF", at + 1)) {
    const std::size_t begin = text.find_last_not_of(" \t", at == 0 ? std::string_view::npos : at - 1);
    const std::size_t end = text.find_first_not_of(" \t\r", at + 5);
    if ((at == 0 || begin == std::string_view::npos || text[begin] == '\n') && (end == std::string_view::npos || text[end] == '\n')) return true;
  }
  return false;
}

// Prometheus text timestamps are milliseconds; seconds (OpenMetrics without its "# EOF", or a
// hand-made file) read so fall in 1970 and would collapse a day of samples into minutes. No
// GPU was sampled from 1970 to 1999: a millisecond timestamp there is an error saying so.
[[nodiscard]] inline expected<void> check_millisecond_epoch(instant at, std::string_view written) {
  constexpr instant plausible{seconds{946'684'800}};  // 2000-01-01T00:00:00Z
  if (at < instant{} || at >= plausible) return {};
  return make_error(error_code::parse_error, "timestamp",
                    "\"" + std::string(written) + "\" read as milliseconds (Prometheus text) is " + format_instant(at) +
                        ", before 2000: if the file's timestamps are seconds, it is OpenMetrics and must end with a \"# EOF\" line");
}

// One sample of the metric asked for, read in `unit`, to `out`; false for a DCGM blank.
[[nodiscard]] inline expected<bool> take_exposition_sample(const exposition_sample& s, const metric_unit& unit, bool seconds_timestamps,
                                                           gpu_utilization_set& out) {
  const std::string gpu = gpu_series_name(s.labels);
  if (gpu.empty()) return make_error(error_code::invalid_argument, "labels", "name no GPU (needs a UUID label, or Hostname and gpu)");
  if (s.timestamp.empty())
    return make_error(error_code::invalid_argument, "timestamp",
                      "missing: a saved scrape needs its time on each sample (milliseconds since the epoch)");
  auto at = parse_epoch(s.timestamp, seconds_timestamps ? 1 : 1000);
  if (!at) return unexpected<error>(at.error().in_field("timestamp"));
  if (!seconds_timestamps) GPURENT_TRY(check_millisecond_epoch(*at, s.timestamp));
  auto busy = read_utilization_value(s.value, s.name, unit);
  if (!busy) return unexpected<error>(busy.error().in_field("value"));
  if (!*busy) return false;
  out.add(gpu, utilization_sample{*at, **busy});
  return true;
}

}  // namespace detail

// Adds the samples of `metric` in an exposition text to `out`; returns how many it took.
[[nodiscard]] inline expected<std::size_t> read_exposition_text(std::string_view text, std::string_view file, std::string_view metric,
                                                                gpu_utilization_set& out) {
  GPURENT_TRY(unit, utilization_unit(metric));
  const bool openmetrics = detail::is_openmetrics(text);
  std::size_t taken = 0;
  bool ended = false;
  csv_lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const auto where = [&] { return std::string(file) + ":" + std::to_string(lines.number()); };
    std::size_t i = 0;
    detail::skip_blanks(line, i);
    if (i == line.size()) continue;
    if (ended) return unexpected(error{error_code::parse_error, {}, "text after \"# EOF\"", where()});
    if (line[i] == '#') {
      ended = line.substr(i) == "# EOF";
      continue;
    }
    auto s = parse_exposition_line(line.substr(i));
    if (!s) return unexpected(error{s.error().code, {}, s.error().message, where()});
    if (s->name != metric) continue;
    auto took = detail::take_exposition_sample(*s, *unit, openmetrics, out);
    if (!took) return unexpected(error{took.error().code, took.error().field, took.error().message, where()});
    if (*took) ++taken;
  }
  return taken;
}

}  // namespace gpurent::io
