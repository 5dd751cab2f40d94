// SPDX-License-Identifier: MIT
#pragma once
// Reading CSV text (RFC 4180 within a line): the lines of a text one at a time, a line's
// fields, and a header's columns found by name. Every CSV reader of the io layer uses these,
// so a quoting rule or a line ending is handled in one place. Fields are views, so a
// million rows go through without an allocation each.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/io/text/byte_scan.hpp>

namespace gpurent::io {

// The lines of a text, numbered from 1, without their "\n" or "\r\n"; a UTF-8 byte-order
// mark at the start is skipped.
class csv_lines {
 public:
  explicit csv_lines(std::string_view text) noexcept : text_(without_bom(text)) {}
  // The lines of a later piece of a text, after its first `lines_before` lines (a stream read
  // in blocks of whole lines): numbered from lines_before + 1, no byte-order mark skipped.
  csv_lines(std::string_view piece, std::size_t lines_before) noexcept : text_(piece), number_(lines_before) {}
  // The next line into `out`; false at the end of the text.
  [[nodiscard]] bool next(std::string_view& out) noexcept {
    if (pos_ >= text_.size()) return false;
    const std::size_t nl = text_.find('\n', pos_);
    out = text_.substr(pos_, nl == std::string_view::npos ? std::string_view::npos : nl - pos_);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
    ++number_;
    return true;
  }
  // The number of the line last returned (0 before the first).
  [[nodiscard]] std::size_t number() const noexcept { return number_; }
  // The text after the line last returned.
  [[nodiscard]] std::string_view rest() const noexcept { return text_.substr(pos_); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
};

namespace detail {
// A quoted field from line[i] (at its opening quote), unescaped; i ends past the closing quote.
[[nodiscard]] inline bool read_quoted(std::string_view line, std::size_t& i, std::string& v, std::string& why) {
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
  return true;
}
}  // namespace detail

// Splits one CSV line into fields; quoted fields are unescaped into `store`, which must
// outlive the views. False, with the reason in `why`, for a malformed line.
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
      if (!detail::read_quoted(line, i, v, why)) return false;
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

// The lines of a piece of CSV text and, found in the same pass, the fields of each: the
// fast path of the big readers (usage). Lines and numbers as csv_lines gives them; a line
// with no quote comes with its fields exactly as split_csv_line would give them, a line with
// a quote without (the caller splits it with split_csv_line, which unescapes and checks it).
class csv_line_scanner {
 public:
  // The lines of a piece that follows the text's first `lines_before` lines.
  csv_line_scanner(std::string_view piece, std::size_t lines_before) noexcept : text_(piece), number_(lines_before), mask_(mask_at(0)) {}
  // The next line into `line` and its fields into `fields` (split false: it has a quote,
  // `fields` is empty); false at the end of the piece.
  [[nodiscard]] bool next(std::string_view& line, std::vector<std::string_view>& fields, bool& split) {
    const char* const d = text_.data();
    const std::size_t size = text_.size();
    if (pos_ >= size) return false;
    fields.clear();
    split = true;
    std::size_t base = base_, field = pos_, end = size;
    std::uint64_t mask = mask_;  // in locals: the compiler cannot keep members in registers across push_back
    while (true) {
      while (mask == 0 && base + 64 < size) mask = mask_at(base += 64);
      if (mask == 0) break;  // the piece ends without a '\n'
      const std::size_t at = base + static_cast<std::size_t>(std::countr_zero(mask));
      mask &= mask - 1;
      if (d[at] == '\n') {
        end = at;
        break;
      }
      if (d[at] == '"') split = false;
      fields.emplace_back(d + field, at - field);
      field = at + 1;
    }
    base_ = base;
    mask_ = mask;
    const std::size_t next = end == size ? end : end + 1;
    if (end > pos_ && d[end - 1] == '\r') --end;
    line = std::string_view(d + pos_, end - pos_);
    pos_ = next;
    ++number_;
    if (split) {
      fields.emplace_back(d + field, end - field);
    } else {
      fields.clear();
    }
    return true;
  }
  // The number of the line last returned (lines_before before the first).
  [[nodiscard]] std::size_t number() const noexcept { return number_; }

 private:
  // The delimiters of the 64 bytes from `at` (a quote counts: it sends its line to split_csv_line).
  [[nodiscard]] std::uint64_t mask_at(std::size_t at) const noexcept {
    const std::size_t n = text_.size() - std::min(at, text_.size());
    return n >= 64 ? byte_mask(text_.data() + at, ',', '\n', '"') : byte_mask_tail(text_.data() + at, n, ',', '\n', '"');
  }
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
  std::size_t base_ = 0;
  std::uint64_t mask_ = 0;
};

// A header whose columns are all known: where each named column is, or an error naming the
// column that is missing, repeated, unknown or without a name (then by its place, from 1).
// `names[k]` lists the names column k may have (its first is the one messages use); a
// column with `optional[k]` may be absent.
struct csv_column {
  std::vector<std::string_view> names;
  bool optional = false;
};

[[nodiscard]] inline expected<std::vector<std::optional<std::size_t>>> csv_header_columns(std::span<const std::string_view> header,
                                                                                          std::span<const csv_column> columns) {
  std::vector<std::optional<std::size_t>> at(columns.size());
  for (std::size_t h = 0; h < header.size(); ++h) {
    // A trailing comma, or two in a row: no name to quote, so the column's place.
    if (header[h].empty()) return make_error(error_code::parse_error, "column " + std::to_string(h + 1), "empty column name in the header");
    std::optional<std::size_t> which;
    for (std::size_t c = 0; c < columns.size() && !which; ++c)
      for (std::string_view n : columns[c].names)
        if (header[h] == n) which = c;
    if (!which) return make_error(error_code::parse_error, std::string(header[h]), "unknown column in the header");
    if (at[*which]) return make_error(error_code::parse_error, std::string(header[h]), "column appears twice in the header");
    at[*which] = h;
  }
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (!at[c] && !columns[c].optional)
      return make_error(error_code::parse_error, std::string(columns[c].names.front()), "missing column in the header");
  return at;
}

// The error of a row whose field count is not its header's: the field named is the first
// one missing, or for a row with more, the header's last column (the extra ones follow it;
// most often an unquoted comma). Every CSV reader words it the same.
[[nodiscard]] inline error field_count_error(std::span<const std::string> header, std::size_t found) {
  std::string msg = "expected " + std::to_string(header.size()) + " fields, found " + std::to_string(found);
  if (found < header.size()) return error{error_code::parse_error, header[found], std::move(msg), {}};
  msg += " (" + std::to_string(found - header.size()) + " after the last column; quote a field that holds a comma)";
  return error{error_code::parse_error, header.empty() ? std::string() : header.back(), std::move(msg), {}};
}

// Reads a CSV text whose header names only `columns` (in any order): for each row that is not
// blank, on_row(values, names) -> expected<void>, where values[k] is column k's field (empty
// when an optional column is absent) and names[k] the name the header gave it. Every field
// must be UTF-8 (core/utf8.hpp: names end up in JSON output). Every error,
// the reader's or on_row's, is located at its line of `file`; `want` is the header shown
// when there is none.
template <class F>
[[nodiscard]] expected<void> read_csv_table(std::string_view text, std::string_view file, std::span<const csv_column> columns, std::string_view want,
                                            F&& on_row) {
  csv_lines lines(text);
  std::vector<std::string_view> fields, values(columns.size()), names(columns.size());
  std::vector<std::string> store, header;
  std::string why;
  std::string_view line;
  const auto located = [&](const error& e) { return unexpected(e.at(file, lines.number() == 0 ? 1 : lines.number())); };
  const auto fail = [&](std::string field, std::string msg) { return located(error{error_code::parse_error, std::move(field), std::move(msg), {}}); };
  if (!lines.next(line) || line.empty())
    return fail(std::string(columns.front().names.front()), "missing header (expected " + std::string(want) + ")");
  if (!split_csv_line(line, fields, store, why)) return fail({}, "header: " + why);
  header.assign(fields.begin(), fields.end());
  const std::vector<std::string_view> header_views(header.begin(), header.end());
  auto at = csv_header_columns(header_views, columns);
  if (!at) return located(error{at.error().code, at.error().field, at.error().message + " (expected " + std::string(want) + ")", {}});
  for (std::size_t c = 0; c < columns.size(); ++c) names[c] = (*at)[c] ? header_views[*(*at)[c]] : columns[c].names.front();
  while (lines.next(line)) {
    if (line.empty()) continue;  // a blank line is no row
    if (!split_csv_line(line, fields, store, why)) return fail({}, why);
    if (fields.size() != header.size()) return located(field_count_error(header, fields.size()));
    for (std::size_t k = 0; k < fields.size(); ++k)
      if (!is_utf8(fields[k])) return fail(header[k], utf8_problem(fields[k]));
    for (std::size_t c = 0; c < columns.size(); ++c) values[c] = (*at)[c] ? fields[*(*at)[c]] : std::string_view();
    if (auto r = on_row(std::span<const std::string_view>(values), std::span<const std::string_view>(names)); !r)
      return r.error().where.empty() ? located(r.error()) : unexpected(r.error());
  }
  return {};
}

}  // namespace gpurent::io
