// SPDX-License-Identifier: MIT
#pragma once
// Reads usage records from CSV (../shared/protocols/meter.md): a header naming at least
// id,account,resource,mode,quantity,start,end (any order; other columns are labels), then
// one record per line. RFC 4180 quoting is understood within a line. Every error names the
// file, the line and the field. Rows are handed over as views, so a million of them go
// through without an allocation each.

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/csv.hpp>
#include <gpurent/io/csv_split.hpp>
#include <gpurent/io/tariff_json.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/usage.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent::io {

inline constexpr std::array<std::string_view, 7> usage_columns = {"id", "account", "resource", "mode", "quantity", "start", "end"};

// One parsed row; the views live until the callback returns.
struct usage_row {
  std::string_view id, account, resource, mode;
  nano_quantity quantity;  // > 0
  instant start{}, end{};     // end > start
  std::size_t line = 0;
  std::span<const std::string_view> label_names;
  std::span<const std::string_view> label_values;
};


namespace detail {
// An error at `file:line` in `field`.
[[nodiscard]] inline unexpected<error> csv_error(error_code code, std::string_view file, std::size_t line, std::string_view field, std::string message) {
  return unexpected(error{code, std::string(field), std::move(message), std::string(file) + ":" + std::to_string(line)});
}

// The header: where each of usage_columns is, and the other columns (labels), in order.
struct usage_header {
  std::vector<std::string> names;
  std::array<std::size_t, usage_columns.size()> col{};
  std::vector<std::size_t> label_columns;
  std::vector<std::string_view> label_names;  // views into `names`
};

[[nodiscard]] inline expected<void> read_usage_header(csv_lines& lines, std::string_view file, usage_header& h) {
  std::string_view line;
  if (!lines.next(line) || line.empty()) {
    return csv_error(error_code::parse_error, file, 1, "id", "missing header (expected id,account,resource,mode,quantity,start,end)");
  }
  std::vector<std::string_view> fields;
  std::vector<std::string> store;
  std::string why;
  if (!split_csv_line(line, fields, store, why)) return csv_error(error_code::parse_error, file, 1, "", "header: " + why);
  h.names.assign(fields.begin(), fields.end());
  for (std::size_t c = 0; c < usage_columns.size(); ++c) {
    std::optional<std::size_t> at;
    for (std::size_t k = 0; k < h.names.size(); ++k) {
      if (h.names[k] != usage_columns[c]) continue;
      if (at) return csv_error(error_code::parse_error, file, 1, usage_columns[c], "column appears twice in the header");
      at = k;
    }
    if (!at) {
      return csv_error(error_code::parse_error, file, 1, usage_columns[c],
                       "missing column in the header (expected id,account,resource,mode,quantity,start,end; got \"" + std::string(line) + "\")");
    }
    h.col[c] = *at;
  }
  for (std::size_t k = 0; k < h.names.size(); ++k) {
    if (std::find(h.col.begin(), h.col.end(), k) != h.col.end()) continue;
    h.label_columns.push_back(k);
    h.label_names.emplace_back(h.names[k]);
  }
  return {};
}

// One record line's fields into `row` (whose views point into `fields`).
[[nodiscard]] inline expected<void> read_usage_fields(const usage_header& h, std::span<const std::string_view> fields, std::string_view file,
                                                      std::size_t line, usage_row& row, std::vector<std::string_view>& label_values) {
  if (fields.size() != h.names.size()) {
    const std::string_view f = fields.size() < h.names.size() ? std::string_view(h.names[fields.size()]) : std::string_view("");
    return csv_error(error_code::parse_error, file, line, f,
                     "expected " + std::to_string(h.names.size()) + " fields, found " + std::to_string(fields.size()));
  }
  row.line = line;
  row.id = fields[h.col[0]];
  row.account = fields[h.col[1]];
  row.resource = fields[h.col[2]];
  row.mode = fields[h.col[3]];
  if (row.id.empty()) return csv_error(error_code::parse_error, file, line, "id", "empty id");
  if (row.account.empty()) return csv_error(error_code::parse_error, file, line, "account", "empty account");
  auto q = parse_positive_nano(fields[h.col[4]]);
  if (!q) return csv_error(q.error().code, file, line, "quantity", q.error().message);
  row.quantity = nano_quantity(*q);
  auto s = parse_instant(fields[h.col[5]]);
  if (!s) return csv_error(s.error().code, file, line, "start", s.error().message);
  auto e = parse_instant(fields[h.col[6]]);
  if (!e) return csv_error(e.error().code, file, line, "end", e.error().message);
  if (*e <= *s) {
    return csv_error(error_code::parse_error, file, line, "end",
                     "end " + std::string(fields[h.col[6]]) + " is not after start " + std::string(fields[h.col[5]]));
  }
  row.start = *s;
  row.end = *e;
  label_values.clear();
  for (std::size_t k : h.label_columns) label_values.push_back(fields[k]);
  row.label_values = label_values;
  return {};
}
}  // namespace detail

// Calls on_row(const usage_row&) -> expected<void> for each record line, in file order;
// stops at the first error (the reader's or the callback's).
template <class F>
[[nodiscard]] expected<void> read_usage_csv(std::string_view text, std::string_view file, F&& on_row) {
  csv_lines lines(text);
  detail::usage_header header;
  GPURENT_TRY(detail::read_usage_header(lines, file, header));
  std::vector<std::string_view> fields, label_values;
  std::vector<std::string> store;
  std::string why;
  usage_row row;
  row.label_names = header.label_names;
  std::string_view line;
  while (lines.next(line)) {
    if (line.empty()) continue;  // a blank line is no record
    if (!split_csv_line(line, fields, store, why)) return detail::csv_error(error_code::parse_error, file, lines.number(), "", why);
    GPURENT_TRY(detail::read_usage_fields(header, fields, file, lines.number(), row, label_values));
    GPURENT_TRY(on_row(static_cast<const usage_row&>(row)));
  }
  return {};
}

// A record with the line it came from.
struct located_record {
  usage_record record;
  std::size_t line = 0;
};

// Every record of a CSV text, as values.
[[nodiscard]] inline expected<std::vector<located_record>> parse_usage_csv(std::string_view text, std::string_view file = "usage.csv") {
  std::vector<located_record> out;
  auto r = read_usage_csv(text, file, [&](const usage_row& row) -> expected<void> {
    usage_record u{std::string(row.id), std::string(row.account), std::string(row.resource), std::string(row.mode), row.quantity, row.start, row.end, {}};
    for (std::size_t k = 0; k < row.label_names.size(); ++k) u.labels.emplace_back(row.label_names[k], row.label_values[k]);
    out.push_back({std::move(u), row.line});
    return {};
  });
  if (!r) return unexpected(r.error());
  return out;
}

// Feeds a CSV text into a meter: each record's rate is looked up (a record matching no
// rate is an error naming its line), then the meter deduplicates, clips and rates it.
[[nodiscard]] inline expected<void> meter_usage_csv(meter& m, std::string_view text, std::string_view file = "usage.csv") {
  m.set_source(std::string(file));
  std::string last_resource, last_mode;
  std::size_t last_rate = 0;
  bool have_last = false;
  return read_usage_csv(text, file, [&](const usage_row& row) -> expected<void> {
    if (!have_last || row.resource != last_resource || row.mode != last_mode) {
      auto ri = m.rate_index(row.resource, row.mode);
      if (!ri) return unexpected(ri.error().at(file, row.line));
      last_resource = row.resource;
      last_mode = row.mode;
      last_rate = *ri;
      have_last = true;
    }
    return m.add(row.id, row.account, last_rate, row.quantity, row.start, row.end, row.line);
  });
}

// Usage records as CSV in the format read_usage_csv reads (meter.md): the seven columns,
// then one column per label name (in order of first appearance); quantities as the
// shortest exact decimal ("0.25", "4").
[[nodiscard]] inline std::string write_usage_csv(std::span<const usage_record> records) {
  std::vector<std::string> names;
  for (const usage_record& r : records)
    for (const auto& [name, value] : r.labels)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::string out = "id,account,resource,mode,quantity,start,end";
  for (const std::string& n : names) {
    out += ',';
    csv_field(out, n);
  }
  out += '\n';
  for (const usage_record& r : records) {
    const std::string q = format_exact(ratio<>(int128(r.quantity.raw()), int128(::gpurent::detail::nano_one)));
    std::string row;
    for (std::string_view f : {std::string_view(r.id), std::string_view(r.account), std::string_view(r.resource), std::string_view(r.mode)}) {
      csv_field(row, f);
      row += ',';
    }
    row += q + "," + format_instant(r.start) + "," + format_instant(r.end);
    for (const std::string& n : names) {
      row += ',';
      for (const auto& [name, value] : r.labels)
        if (name == n) csv_field(row, value);
    }
    out += row + "\n";
  }
  return out;
}

}  // namespace gpurent::io
