// SPDX-License-Identifier: MIT
#pragma once
// Reads usage records from CSV (docs/formats/billing.md): a header naming at least
// id,account,resource,mode,quantity,start,end (any order; a `labels` column of key=value
// pairs, and other columns, are labels: metering/labels.hpp), then
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
#include <type_traits>
#include <utility>
#include <vector>

#include <gpurent/core/bytes.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/text/csv.hpp>
#include <gpurent/io/text/csv_split.hpp>
#include <gpurent/metering/labels.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/usage.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent::io {

inline constexpr std::array<std::string_view, 7> usage_columns = {"id", "account", "resource", "mode", "quantity", "start", "end"};

// One parsed row; the views live until the callback returns.
struct usage_row {
  std::string_view id, account, resource, mode;
  nano_quantity quantity;  // > 0
  instant start{}, end{};  // end > start
  std::size_t line = 0;
  // The record's label set's key (metering/labels.hpp): the `labels` cell's pairs and the
  // other columns' (named by the column, empty cells left out); "" for none.
  std::string_view labels;
};

namespace detail {
// No lookahead hint (usage_row_parser::rows).
struct no_lookahead {
  void operator()(std::string_view) const noexcept {}
};

// An error at `file:line` in `field`.
[[nodiscard]] inline unexpected<error> csv_error(error_code code, std::string_view file, std::size_t line, std::string_view field,
                                                 std::string message) {
  return unexpected(error{code, std::string(field), std::move(message), std::string(file) + ":" + std::to_string(line)});
}

// The header: where each of usage_columns is, the `labels` column, and the other columns
// (each a label named by the column), in order.
struct usage_header {
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::vector<std::string> names;
  std::array<std::size_t, usage_columns.size()> col{};
  std::size_t labels_column = none;
  std::vector<std::size_t> label_columns;
  [[nodiscard]] bool has_labels() const noexcept { return labels_column != none || !label_columns.empty(); }
};

// A row's label scratch space: its pairs, its label set's key.
struct label_scratch {
  std::vector<label_pair> pairs;
  std::string text;
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
    if (h.names[k] == "labels") {
      if (h.labels_column != usage_header::none) return csv_error(error_code::parse_error, file, 1, "labels", "column appears twice in the header");
      h.labels_column = k;
      continue;
    }
    if (!is_utf8(h.names[k]))
      return csv_error(error_code::parse_error, file, 1, "", "label column " + std::to_string(k + 1) + ": " + utf8_problem(h.names[k]));
    if (!is_label_key(h.names[k]))
      return csv_error(error_code::parse_error, file, 1, h.names[k],
                       "label column \"" + h.names[k] + "\": a label's name is letters, digits, '_', '.' and '-'");
    h.label_columns.push_back(k);
  }
  return {};
}

// An instant field that is not the usage files' one shape, through parse_instant (which
// reads it or says what is wrong with it): out of line, as the errors are built here.
[[nodiscard, gnu::noinline]] inline expected<void> usage_instant_general(std::string_view text, std::string_view file, std::size_t line,
                                                                         std::string_view field, instant& out) {
  auto t = parse_instant(text);
  if (!t) return csv_error(t.error().code, file, line, field, t.error().message);
  out = *t;
  return {};
}
// An instant field into `out`: the usage files' one shape inline (GCC clears the whole
// error union of an expected<void> it returns, 112 bytes a call, unless the call inlines),
// anything else through usage_instant_general.
[[nodiscard, gnu::always_inline]] inline expected<void> usage_instant(std::string_view text, std::string_view file, std::size_t line,
                                                                      std::string_view field, instant& out) {
  if (auto t = ::gpurent::detail::parse_instant_utc_fast(text)) [[likely]] {
    out = *t;
    return {};
  }
  return usage_instant_general(text, file, line, field, out);
}

// The error for a text field that is not UTF-8 (id, account, then the labels in column
// order); out of line, as read_usage_fields only calls it when there is one.
[[nodiscard, gnu::noinline]] inline unexpected<error> usage_text_error(const usage_header& h, std::span<const std::string_view> fields,
                                                                       std::string_view file, std::size_t line) {
  for (std::size_t c = 0; c < 2; ++c)
    if (!is_utf8(fields[h.col[c]])) return csv_error(error_code::parse_error, file, line, usage_columns[c], utf8_problem(fields[h.col[c]]));
  for (std::size_t k : h.label_columns)
    if (!is_utf8(fields[k])) return csv_error(error_code::parse_error, file, line, h.names[k], utf8_problem(fields[k]));
  if (h.labels_column != usage_header::none && !is_utf8(fields[h.labels_column]))
    return csv_error(error_code::parse_error, file, line, "labels", utf8_problem(fields[h.labels_column]));
  return csv_error(error_code::parse_error, file, line, "", "not UTF-8");  // not reached: the caller found a field that is not
}

// A row's label set (usage_row::labels) into `scratch`; out of line, as most files have none.
[[nodiscard, gnu::noinline]] inline expected<void> read_row_labels(const usage_header& h, std::span<const std::string_view> fields,
                                                                   std::string_view file, std::size_t line, label_scratch& scratch) {
  scratch.pairs.clear();
  for (std::size_t k : h.label_columns)
    if (!fields[k].empty()) scratch.pairs.emplace_back(h.names[k], fields[k]);
  if (h.labels_column != usage_header::none) {
    if (auto v = parse_label_cell(fields[h.labels_column], scratch.pairs); !v)
      return csv_error(error_code::parse_error, file, line, "labels", v.error().message);
  }
  if (auto v = label_set_text(scratch.pairs, scratch.text); !v) return csv_error(error_code::parse_error, file, line, "labels", v.error().message);
  return {};
}

// One record line's fields into `row` (whose views point into `fields` and `scratch`);
// inlined into the row loop, so that a row read costs no expected<void> of its own.
[[nodiscard, gnu::always_inline]] inline expected<void> read_usage_fields(const usage_header& h, std::span<const std::string_view> fields,
                                                                          std::string_view file, std::size_t line, usage_row& row,
                                                                          label_scratch& scratch) {
  if (fields.size() != h.names.size()) return unexpected(field_count_error(h.names, fields.size()).at(file, line));
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
  GPURENT_TRY(usage_instant(fields[h.col[5]], file, line, "start", row.start));
  GPURENT_TRY(usage_instant(fields[h.col[6]], file, line, "end", row.end));
  if (row.end <= row.start) {
    return csv_error(error_code::parse_error, file, line, "end",
                     "end " + std::string(fields[h.col[6]]) + " is not after start " + std::string(fields[h.col[5]]));
  }
  // Text kept for output must be UTF-8 (validate_usage's rule for the id and account: what
  // the reader accepts, the meter accepts); a resource or mode that is not matches no rate
  // (the tariff's JSON is UTF-8) and is turned down with its field named.
  bool text_ok = is_utf8(row.id) && is_utf8(row.account);
  for (std::size_t k : h.label_columns) text_ok = text_ok && is_utf8(fields[k]);
  if (h.labels_column != usage_header::none) text_ok = text_ok && is_utf8(fields[h.labels_column]);
  if (!text_ok) [[unlikely]]
    return usage_text_error(h, fields, file, line);
  if (h.has_labels()) [[unlikely]] {
    GPURENT_TRY(read_row_labels(h, fields, file, line, scratch));
    row.labels = scratch.text;
  }
  return {};
}
}  // namespace detail

// Parses the record lines of a usage CSV after its header, piece by piece (a stream read in
// blocks of whole lines): one parser per thread, as it holds the scratch space of a row.
// Each byte of a piece is looked at once (csv_line_scanner finds the lines and their commas
// together); a line with a quote goes through split_csv_line.
class usage_row_parser {
 public:
  // `header` must outlive the parser.
  usage_row_parser(const detail::usage_header& header, std::string_view file) : header_(&header), file_(file) {}
  // Calls on_row(const usage_row&) -> expected<void> for each record line of a piece that
  // follows the text's first `lines_before` lines, in order; stops at the first error (the
  // reader's or the callback's). ahead(id) is told the id of the record `lookahead` lines
  // further on (a hint, such as meter::prefetch).
  template <class F, class A = detail::no_lookahead>
  [[nodiscard]] expected<void> rows(std::string_view piece, std::size_t lines_before, F&& on_row, A&& ahead = A{}) {
    csv_line_scanner scan(piece, lines_before);
    std::size_t scanned = 0;
    while (scanned < lookahead && scan_one(scan, scanned, ahead)) ++scanned;
    for (std::size_t k = 0; k < scanned; ++k) {
      GPURENT_TRY(row_of(ring_[k % ring], on_row));
      if (scan_one(scan, scanned, ahead)) ++scanned;
    }
    return {};
  }
  // How far ahead() runs: as far as the meter prefetches.
  static constexpr std::size_t lookahead = meter::prefetch_distance;

 private:
  static constexpr std::size_t ring = 2 * lookahead;
  struct scanned_line {
    std::string_view text;
    std::vector<std::string_view> fields;
    bool split = false;
    std::size_t number = 0;
  };
  // Scans the next line into ring slot `k` and tells ahead() its id; false at the end.
  template <class A>
  [[nodiscard]] bool scan_one(csv_line_scanner& scan, std::size_t k, A& ahead) {
    scanned_line& s = ring_[k % ring];
    if (!scan.next(s.text, s.fields, s.split)) return false;
    s.number = scan.number();
    if constexpr (!std::is_same_v<std::remove_cvref_t<A>, detail::no_lookahead>) {
      if (s.split && header_->col[0] < s.fields.size()) ahead(s.fields[header_->col[0]]);
    }
    return true;
  }
  // One scanned line as a row, handed to on_row; a blank line is no record.
  template <class F>
  [[nodiscard]] expected<void> row_of(scanned_line& s, F& on_row) {
    if (s.text.empty()) return {};
    if (!s.split && !split_csv_line(s.text, s.fields, store_, why_)) return detail::csv_error(error_code::parse_error, file_, s.number, "", why_);
    GPURENT_TRY(detail::read_usage_fields(*header_, s.fields, file_, s.number, row_, labels_));
    return on_row(static_cast<const usage_row&>(row_));
  }
  const detail::usage_header* header_;
  std::string_view file_;
  usage_row row_;
  std::array<scanned_line, ring> ring_;
  detail::label_scratch labels_;
  std::vector<std::string> store_;
  std::string why_;
};

// Calls on_row(const usage_row&) -> expected<void> for each record line, in file order;
// stops at the first error (the reader's or the callback's).
template <class F>
[[nodiscard]] expected<void> read_usage_csv(std::string_view text, std::string_view file, F&& on_row) {
  csv_lines lines(text);
  detail::usage_header header;
  GPURENT_TRY(detail::read_usage_header(lines, file, header));
  usage_row_parser parser(header, file);
  return parser.rows(lines.rest(), lines.number(), std::forward<F>(on_row));
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
    usage_record u{
        std::string(row.id), std::string(row.account), std::string(row.resource), std::string(row.mode), row.quantity, row.start, row.end, {}};
    u.labels = label_set_pairs(row.labels);
    out.push_back({std::move(u), row.line});
    return {};
  });
  if (!r) return unexpected(r.error());
  return out;
}

// The rate of each row: the (resource, mode) pairs last seen are remembered with their rate
// (a file uses a few rates, mixed), so most rows cost a few short compares instead of a
// hash lookup; a row matching no rate is an error naming its line.
class row_rate {
 public:
  [[nodiscard]] expected<std::size_t> of(const meter& m, const usage_row& row, std::string_view file) {
    for (std::size_t k = 0; k < used_; ++k) {
      const seen& s = seen_[k];
      if (::gpurent::detail::same_bytes(s.resource, row.resource) && ::gpurent::detail::same_bytes(s.mode, row.mode)) return s.rate;
    }
    auto ri = m.rate_index(row.resource, row.mode);
    if (!ri) return unexpected(ri.error().at(file, row.line));
    seen& s = seen_[used_ < seen_.size() ? used_++ : next_++ % seen_.size()];
    s.resource.assign(row.resource);
    s.mode.assign(row.mode);
    s.rate = *ri;
    return *ri;
  }

 private:
  struct seen {
    std::string resource, mode;
    std::size_t rate = 0;
  };
  std::array<seen, 8> seen_;
  std::size_t used_ = 0;
  std::size_t next_ = 0;
};

// Feeds a CSV text into a meter: each record's rate is looked up (a record matching no
// rate is an error naming its line), then the meter deduplicates, clips and rates it.
[[nodiscard]] inline expected<void> meter_usage_csv(meter& m, std::string_view text, std::string_view file = "usage.csv") {
  m.set_source(std::string(file));
  row_rate rates;
  return read_usage_csv(text, file, [&](const usage_row& row) -> expected<void> {
    GPURENT_TRY(ri, rates.of(m, row, file));
    return m.add(row.id, row.account, *ri, row.quantity, row.start, row.end, row.line, row.labels);
  });
}

// Usage records as CSV in the format read_usage_csv reads (docs/formats/billing.md): the seven columns,
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
