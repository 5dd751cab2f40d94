// SPDX-License-Identifier: MIT
#pragma once
// Reads usage records from CSV (../shared/protocols/meter.md): a header naming at least
// id,account,resource,mode,quantity,start,end (any order; other columns are labels), then
// one record per line. RFC 4180 quoting is understood within a line. Every error names the
// file, the line and the field. Rows are handed over as views, so a million of them go
// through without an allocation each.

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
// Splits one CSV line into fields; quoted fields are unescaped into `store`.
[[nodiscard]] inline bool split_csv_line(std::string_view line, std::vector<std::string_view>& out, std::vector<std::string>& store,
                                         std::string& why) {
  out.clear();
  if (line.find('"') == std::string_view::npos) {
    std::size_t b = 0;
    while (true) {
      const std::size_t c = line.find(',', b);
      if (c == std::string_view::npos) {
        out.push_back(line.substr(b));
        return true;
      }
      out.push_back(line.substr(b, c - b));
      b = c + 1;
    }
  }
  store.clear();
  store.reserve(line.size());  // views into store stay valid: no reallocation below
  std::size_t i = 0;
  while (true) {
    if (i < line.size() && line[i] == '"') {
      std::string v;
      ++i;
      while (true) {
        if (i >= line.size()) {
          why = "unterminated quoted field";
          return false;
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            v.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        v.push_back(line[i++]);
      }
      if (i < line.size() && line[i] != ',') {
        why = "text after a closing quote";
        return false;
      }
      store.push_back(std::move(v));
      out.push_back(store.back());
    } else {
      const std::size_t c = line.find(',', i);
      const std::string_view f = line.substr(i, c == std::string_view::npos ? std::string_view::npos : c - i);
      if (f.find('"') != std::string_view::npos) {
        why = "a quote inside an unquoted field";
        return false;
      }
      out.push_back(f);
      i = c == std::string_view::npos ? line.size() : c;
    }
    if (i >= line.size()) return true;
    ++i;  // the comma
    if (i == line.size()) {
      out.push_back({});
      return true;
    }
  }
}
}  // namespace detail

// Calls on_row(const usage_row&) -> expected<void> for each record line, in file order;
// stops at the first error (the reader's or the callback's).
template <class F>
[[nodiscard]] expected<void> read_usage_csv(std::string_view text, std::string_view file, F&& on_row) {
  const std::string fname(file);
  auto fail = [&](std::size_t line, std::string_view field, std::string msg) {
    return unexpected(error{error_code::parse_error, std::string(field), std::move(msg), fname + ":" + std::to_string(line)});
  };
  auto located = [&](std::size_t line, std::string_view field, const error& e) {
    return unexpected(error{e.code, std::string(field), e.message, fname + ":" + std::to_string(line)});
  };
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<std::string_view> fields;
  std::vector<std::string> store;
  std::string why;
  std::size_t pos = 0, line_no = 0;
  auto next_line = [&](std::string_view& out) {
    if (pos >= text.size()) return false;
    const std::size_t nl = text.find('\n', pos);
    out = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
    ++line_no;
    return true;
  };
  std::string_view line;
  if (!next_line(line) || line.empty()) {
    return fail(1, "id", "missing header (expected id,account,resource,mode,quantity,start,end)");
  }
  if (!detail::split_csv_line(line, fields, store, why)) return fail(1, "", "header: " + why);
  std::array<std::size_t, 7> col{};
  std::vector<std::string> header(fields.begin(), fields.end());
  for (std::size_t c = 0; c < usage_columns.size(); ++c) {
    std::optional<std::size_t> at;
    for (std::size_t k = 0; k < header.size(); ++k) {
      if (header[k] != usage_columns[c]) continue;
      if (at) return fail(1, usage_columns[c], "column appears twice in the header");
      at = k;
    }
    if (!at) {
      return fail(1, usage_columns[c], "missing column in the header (expected id,account,resource,mode,quantity,start,end; got \"" +
                                           std::string(line) + "\")");
    }
    col[c] = *at;
  }
  std::vector<std::string_view> label_names, label_values;
  for (std::size_t k = 0; k < header.size(); ++k) {
    bool known = false;
    for (std::size_t c : col) known = known || c == k;
    if (!known) label_names.emplace_back(header[k]);
  }
  const std::size_t n = header.size();
  usage_row row;
  row.label_names = label_names;
  while (next_line(line)) {
    if (line.empty()) continue;  // a blank line is no record
    if (!detail::split_csv_line(line, fields, store, why)) return fail(line_no, "", why);
    if (fields.size() != n) {
      const std::string_view f = fields.size() < n ? std::string_view(header[fields.size()]) : std::string_view("");
      return fail(line_no, f, "expected " + std::to_string(n) + " fields, found " + std::to_string(fields.size()));
    }
    row.line = line_no;
    row.id = fields[col[0]];
    row.account = fields[col[1]];
    row.resource = fields[col[2]];
    row.mode = fields[col[3]];
    if (row.id.empty()) return fail(line_no, "id", "empty id");
    if (row.account.empty()) return fail(line_no, "account", "empty account");
    auto q = parse_positive_nano(fields[col[4]]);
    if (!q) return located(line_no, "quantity", q.error());
    row.quantity = nano_quantity(*q);
    auto s = parse_instant(fields[col[5]]);
    if (!s) return located(line_no, "start", s.error());
    auto e = parse_instant(fields[col[6]]);
    if (!e) return located(line_no, "end", e.error());
    if (*e <= *s) return fail(line_no, "end", "end " + std::string(fields[col[6]]) + " is not after start " + std::string(fields[col[5]]));
    row.start = *s;
    row.end = *e;
    if (!label_names.empty()) {
      label_values.clear();
      for (std::size_t k = 0; k < n; ++k) {
        bool known = false;
        for (std::size_t c : col) known = known || c == k;
        if (!known) label_values.push_back(fields[k]);
      }
      row.label_values = label_values;
    }
    auto r = on_row(static_cast<const usage_row&>(row));
    if (!r) return r;
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
  const tariff& t = m.tariff_value();
  std::string last_resource, last_mode;
  std::size_t last_rate = 0;
  bool have_last = false;
  return read_usage_csv(text, file, [&](const usage_row& row) -> expected<void> {
    if (!have_last || row.resource != last_resource || row.mode != last_mode) {
      auto ri = t.find(row.resource, row.mode);
      if (!ri) {
        return unexpected(error{error_code::unknown_name, "resource",
                                "no rate in the tariff for resource \"" + std::string(row.resource) + "\" and mode \"" + std::string(row.mode) + "\"",
                                std::string(file) + ":" + std::to_string(row.line)});
      }
      last_resource = row.resource;
      last_mode = row.mode;
      last_rate = *ri;
      have_last = true;
    }
    return m.add(row.id, row.account, last_rate, row.quantity, row.start, row.end, row.line);
  });
}

}  // namespace gpurent::io
