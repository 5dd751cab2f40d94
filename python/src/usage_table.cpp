// SPDX-License-Identifier: MIT
// Usage records as columns, metered through the usage CSV's readers (usage_table.hpp).
#include "usage_table.hpp"

#include <charconv>
#include <cstdint>
#include <span>

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <gpurent/core/time.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/io/text/csv.hpp>

#include "errors.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

using int_column = nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

[[noreturn]] void cell_error(std::string_view source, std::size_t row, const std::string& column, std::string message) {
  throw library_error(error{error_code::invalid_argument, column, std::move(message), std::string(source) + ":" + std::to_string(row + 1)});
}

// The text of a cell that is not a str: str() of an int or a decimal.Decimal (exact), kept
// alive by the table; a missing value (None, NaN) or a float (inexact) is an error.
PyObject* cell_text(usage_table& t, PyObject* item, std::string_view source, std::size_t row, const std::string& column) {
  if (item == Py_None || (PyFloat_Check(item) && PyFloat_AS_DOUBLE(item) != PyFloat_AS_DOUBLE(item)))
    cell_error(source, row, column, "missing value");
  if (PyFloat_Check(item)) cell_error(source, row, column, "a float is not exact: give text, an int or a decimal.Decimal (read CSVs with dtype=str)");
  nb::object text = nb::steal(PyObject_Str(item));
  if (!text.is_valid()) throw nb::python_error();
  t.kept.push_back(text);
  return text.ptr();
}

// A column of str: a view of each (CPython keeps a str's UTF-8 with it, so none is copied).
std::vector<std::string_view> text_column(usage_table& t, const nb::handle& data, std::string_view source, const std::string& name) {
  nb::object seq = nb::steal(PySequence_Fast(data.ptr(), "a usage column must be a sequence"));
  if (!seq.is_valid()) throw nb::python_error();
  const auto n = static_cast<std::size_t>(PySequence_Fast_GET_SIZE(seq.ptr()));
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  std::vector<std::string_view> out(n);
  for (std::size_t r = 0; r < n; ++r) {
    PyObject* item = items[r];
    if (!PyUnicode_Check(item)) item = cell_text(t, item, source, r, name);
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(item, &size);
    if (text == nullptr) throw nb::python_error();
    out[r] = std::string_view(text, static_cast<std::size_t>(size));
  }
  t.kept.push_back(std::move(seq));
  return out;
}

// A column of int64 as text, each value written by `write` into one buffer, then viewed.
template <class Write>
std::vector<std::string_view> made_column(usage_table& t, const nb::handle& data, Write&& write) {
  const auto values = nb::cast<int_column>(data);
  std::string& text = t.made.emplace_back();
  std::vector<std::size_t> ends(values.shape(0));
  for (std::size_t r = 0; r < ends.size(); ++r) {
    write(text, values(r));
    ends[r] = text.size();
  }
  std::vector<std::string_view> out(ends.size());
  for (std::size_t r = 0, begin = 0; r < ends.size(); begin = ends[r++]) out[r] = std::string_view(text).substr(begin, ends[r] - begin);
  return out;
}

void write_int(std::string& out, std::int64_t v) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, end);
}

void write_instant(std::string& out, std::int64_t s) { out += format_instant(instant(seconds(s))); }

}  // namespace

usage_table table_of(const nb::list& names, const nb::list& columns, std::string_view source) {
  usage_table t;
  for (nb::handle n : names) t.names.push_back(nb::cast<std::string>(n));
  if (t.names.size() != columns.size()) throw nb::value_error("usage: one column for each name");
  for (std::size_t c = 0; c < t.names.size(); ++c) {
    const auto pair = nb::cast<nb::tuple>(columns[c]);
    const auto kind = nb::cast<std::string>(pair[0]);
    if (kind == "text") {
      t.columns.push_back(text_column(t, pair[1], source, t.names[c]));
    } else if (kind == "int") {
      t.columns.push_back(made_column(t, pair[1], write_int));
    } else if (kind == "seconds") {
      t.columns.push_back(made_column(t, pair[1], write_instant));
    } else {
      throw nb::value_error(("usage: unknown column kind " + kind).c_str());
    }
    if (c > 0 && t.columns[c].size() != t.columns[0].size()) throw nb::value_error("usage: the columns differ in length");
  }
  t.rows = t.columns.empty() ? 0 : t.columns.front().size();
  return t;
}

expected<void> meter_table(meter& m, const usage_table& t, std::string_view source) {
  std::string head;
  for (std::size_t c = 0; c < t.names.size(); ++c) {
    if (c > 0) head += ',';
    io::csv_field(head, t.names[c]);
  }
  io::csv_lines lines(head);
  io::detail::usage_header h;
  GPURENT_TRY(io::detail::read_usage_header(lines, source, h));
  m.set_source(std::string(source));
  m.reserve(t.rows);
  io::row_rate rates;
  io::usage_row row;
  io::detail::label_scratch scratch;
  std::vector<std::string_view> fields(t.names.size());
  const std::vector<std::string_view>& ids = t.columns[h.col[0]];
  for (std::size_t r = 0; r < t.rows; ++r) {
    if (r + meter::prefetch_distance < t.rows) m.prefetch(ids[r + meter::prefetch_distance]);
    for (std::size_t c = 0; c < fields.size(); ++c) fields[c] = t.columns[c][r];
    GPURENT_TRY(io::detail::read_usage_fields(h, fields, source, r + 1, row, scratch));
    GPURENT_TRY(ri, rates.of(m, row, source));
    GPURENT_TRY(m.add(row.id, row.account, *ri, row.quantity, row.start, row.end, row.line, row.labels));
  }
  return {};
}

}  // namespace gpurent::py
