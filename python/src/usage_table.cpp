// SPDX-License-Identifier: MIT
// Usage records as columns, metered through the usage CSV's readers (usage_table.hpp).
#include "usage_table.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <gpurent/core/time.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/io/text/csv.hpp>
#include <gpurent/metering/scale/threads.hpp>

#include "errors.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

using int_column = nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// Rows read from Python at a time: their views fit in a cache, the GIL is taken once each.
constexpr std::size_t chunk_rows = 16384;

[[noreturn]] void cell_error(std::string_view source, std::size_t row, const std::string& column, std::string message) {
  throw library_error(error{error_code::invalid_argument, column, std::move(message), std::string(source) + ":" + std::to_string(row + 1)});
}

// The objects of a text column: a NumPy object array's own pointers (its array interface,
// contiguous), else the items of the list (or any sequence, made a list once).
PyObject* const* column_items(usage_table& t, const nb::handle& data, std::size_t& n) {
  if (nb::hasattr(data, "__array_interface__")) {
    const nb::dict face = nb::cast<nb::dict>(data.attr("__array_interface__"));
    const nb::tuple shape = nb::cast<nb::tuple>(face["shape"]);
    if (nb::cast<std::string>(face["typestr"]) == "|O" && face["strides"].is_none() && shape.size() == 1) {
      n = nb::cast<std::size_t>(shape[0]);
      t.kept.push_back(nb::borrow(data));
      return reinterpret_cast<PyObject* const*>(nb::cast<std::uintptr_t>(nb::cast<nb::tuple>(face["data"])[0]));
    }
  }
  nb::object seq = nb::steal(PySequence_Fast(data.ptr(), "a usage column must be a sequence"));
  if (!seq.is_valid()) throw nb::python_error();
  n = static_cast<std::size_t>(PySequence_Fast_GET_SIZE(seq.ptr()));
  PyObject* const* items = PySequence_Fast_ITEMS(seq.ptr());
  t.kept.push_back(std::move(seq));
  return items;
}

// A column of int64 as text, each value written by `write` into one buffer, then viewed.
template <class Write>
std::vector<std::string_view> made_column(usage_table& t, const nb::handle& data, Write&& write, std::size_t& n) {
  const auto values = nb::cast<int_column>(data);
  n = values.shape(0);
  std::string& text = t.made_text.emplace_back();
  std::vector<std::size_t> ends(n);
  for (std::size_t r = 0; r < n; ++r) {
    write(text, values(r));
    ends[r] = text.size();
  }
  std::vector<std::string_view> out(n);
  for (std::size_t r = 0, begin = 0; r < n; begin = ends[r++]) out[r] = std::string_view(text).substr(begin, ends[r] - begin);
  return out;
}

void write_int(std::string& out, std::int64_t v) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, end);
}

void write_instant(std::string& out, std::int64_t s) { out += format_instant(instant(seconds(s))); }

// Whether a cell is a missing value: None, a float NaN, pandas' NA or NaT, a Decimal NaN.
bool is_missing(PyObject* item, PyObject* decimal) {
  if (item == Py_None) return true;
  if (PyFloat_Check(item)) return PyFloat_AS_DOUBLE(item) != PyFloat_AS_DOUBLE(item);
  const std::string_view type = Py_TYPE(item)->tp_name;
  if (type.ends_with("NAType") || type.ends_with("NaTType")) return true;
  if (PyObject_IsInstance(item, decimal) != 1) return false;
  nb::object nan = nb::steal(PyObject_CallMethod(item, "is_nan", nullptr));
  if (!nan.is_valid()) throw nb::python_error();
  return PyObject_IsTrue(nan.ptr()) == 1;
}

// The text of a cell that is not a str (kept by the table): an int's digits (a bool is no
// int here), a decimal.Decimal's in fixed point (format "f": never an exponent, "1E-7" is
// "0.0000001"); a missing value, a float (inexact) or any other object is an error.
PyObject* cell_str(usage_table& t, PyObject* item, std::size_t row, const std::string& column) {
  static PyObject* const decimal = nb::object(nb::module_::import_("decimal").attr("Decimal")).release().ptr();
  if (is_missing(item, decimal)) cell_error(t.source, row, column, "missing value");
  if (PyFloat_Check(item))
    cell_error(t.source, row, column, "a float is not exact: give text, an int or a decimal.Decimal (read CSVs with dtype=str)");
  const std::string_view type = Py_TYPE(item)->tp_name;
  nb::object text;
  if (PyObject_IsInstance(item, decimal) == 1) {
    text = nb::steal(PyObject_Format(item, nb::str("f").ptr()));
  } else if (!PyBool_Check(item) && type != "numpy.bool" && type != "numpy.bool_" && PyIndex_Check(item)) {
    nb::object whole = nb::steal(PyNumber_Index(item));
    if (!whole.is_valid()) throw nb::python_error();
    text = nb::steal(PyObject_Str(whole.ptr()));
  } else {
    cell_error(t.source, row, column, "expected text, an int or a decimal.Decimal, got " + std::string(type));
  }
  if (!text.is_valid()) throw nb::python_error();
  t.kept.push_back(text);
  return text.ptr();
}

// The text of a cell: a str's own UTF-8 (no copy), or cell_str's; a str that UTF-8 cannot
// write (a lone surrogate) is an error.
std::string_view cell_text(usage_table& t, PyObject* item, std::size_t row, const std::string& column) {
  if (!PyUnicode_Check(item)) item = cell_str(t, item, row, column);
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(item, &size);
  if (text == nullptr) {
    PyErr_Clear();
    Py_ssize_t at = 0;
    while (at < PyUnicode_GetLength(item) && (PyUnicode_ReadChar(item, at) & 0xFFFFF800U) != 0xD800U) ++at;
    cell_error(t.source, row, column, "not UTF-8 text: a lone surrogate at character " + std::to_string(at + 1));
  }
  return {text, static_cast<std::size_t>(size)};
}

// The views of rows [begin, end) of every column into `cells` (row-major), with the GIL; the
// rows read. A cell that cannot be read ends the chunk before its row, its error kept in
// `late`: the rows before it are metered first, so the earliest error is the one reported.
std::size_t read_chunk(usage_table& t, std::size_t begin, std::size_t end, std::vector<std::string_view>& cells, std::optional<library_error>& late) {
  nb::gil_scoped_acquire locked;
  const std::size_t width = t.columns.size();
  for (std::size_t r = begin; r < end; ++r) {
    for (std::size_t c = 0; c < width; ++c) {
      const usage_column& col = t.columns[c];
      try {
        cells[(r - begin) * width + c] = col.items != nullptr ? cell_text(t, col.items[r], r, t.names[c]) : col.made[r];
      } catch (const library_error& e) {
        late.emplace(e);
        return r;
      }
    }
  }
  return end;
}

// The table's column names read as a usage file's header line is, into `h`.
expected<void> read_header(const usage_table& t, io::detail::usage_header& h) {
  std::string head;
  for (std::size_t c = 0; c < t.names.size(); ++c) {
    if (c > 0) head += ',';
    io::csv_field(head, t.names[c]);
  }
  io::csv_lines lines(head);
  return io::detail::read_usage_header(lines, t.source, h);
}

// The table as the meter threads' stream of blocks (a usage_block_source): each block a chunk
// of rows, its cells read with the GIL and packed into the block's text (each cell its length,
// then its bytes: no quoting, any byte); rows() unpacks them on a thread, without Python, into
// the usage CSV's field reader. Row r (from 0) is line r + 1 of the source, as meter_table says.
class table_blocks {
 public:
  table_blocks(usage_table& t, const io::detail::usage_header& h) : t_(&t), h_(&h), cells_(chunk_rows * t.names.size()) {}
  [[nodiscard]] const std::string& file_name(std::size_t) const noexcept { return t_->source; }

  [[nodiscard]] bool next(usage_block& b, std::optional<placed_error>& err) {
    if (late_) {  // the rows before the unreadable cell went in the last block
      err = placed_error{0, late_row_ + 1, late_->err()};
      late_.reset();
      return false;
    }
    if (pos_ >= t_->rows) return false;
    const std::size_t begin = pos_, end = read_chunk(*t_, begin, std::min(t_->rows, begin + chunk_rows), cells_, late_);
    late_row_ = end;
    pos_ = late_ ? t_->rows : end;
    if (end == begin) return next(b, err);
    b.text.clear();
    b.skip = 0;
    b.file = 0;
    b.lines_before = begin;
    for (std::size_t i = 0; i < (end - begin) * t_->names.size(); ++i) {
      const auto size = static_cast<std::uint32_t>(cells_[i].size());
      b.text.append(reinterpret_cast<const char*>(&size), sizeof size).append(cells_[i]);
    }
    return true;
  }

  template <class Sink>
  [[nodiscard]] expected<void> rows(const usage_block& b, const meter& m, Sink&& sink) const {
    io::row_rate rates;
    io::usage_row row;
    io::detail::label_scratch scratch;
    std::vector<std::string_view> fields(t_->names.size());
    const std::string_view text = b.text;
    for (std::size_t at = 0, line = b.lines_before + 1; at < text.size(); ++line) {
      for (std::string_view& f : fields) {
        std::uint32_t size = 0;
        std::memcpy(&size, text.data() + at, sizeof size);
        f = text.substr(at + sizeof size, size);
        at += sizeof size + size;
      }
      GPURENT_TRY(io::detail::read_usage_fields(*h_, fields, t_->source, line, row, scratch));
      GPURENT_TRY(ri, rates.of(m, row, t_->source));
      GPURENT_TRY(sink(meter_row{row.id, row.account, *ri, row.quantity, row.start, row.end, row.line, row.labels}));
    }
    return {};
  }

 private:
  usage_table* t_;
  const io::detail::usage_header* h_;
  std::vector<std::string_view> cells_;
  std::size_t pos_ = 0;
  std::optional<library_error> late_;
  std::size_t late_row_ = 0;
};
static_assert(usage_block_source<table_blocks>);

}  // namespace

expected<void> meter_table_on_threads(std::vector<meter>& shards, usage_table& t) {
  io::detail::usage_header h;
  GPURENT_TRY(read_header(t, h));
  for (meter& m : shards) m.reserve(t.rows / shards.size());
  table_blocks source(t, h);
  return meter_on_threads(source, shard_spec{}, shards);
}

usage_table table_of(const nb::list& names, const nb::list& columns, std::string source) {
  usage_table t;
  t.source = std::move(source);
  for (nb::handle n : names) t.names.push_back(nb::cast<std::string>(n));
  if (t.names.size() != columns.size()) throw nb::value_error("usage: one column for each name");
  for (std::size_t c = 0; c < t.names.size(); ++c) {
    const auto pair = nb::cast<nb::tuple>(columns[c]);
    const auto kind = nb::cast<std::string>(pair[0]);
    usage_column& col = t.columns.emplace_back();
    std::size_t n = 0;
    if (kind == "text") {
      col.items = column_items(t, pair[1], n);
    } else if (kind == "int") {
      col.made = made_column(t, pair[1], write_int, n);
    } else if (kind == "seconds") {
      col.made = made_column(t, pair[1], write_instant, n);
    } else {
      throw nb::value_error(("usage: unknown column kind " + kind).c_str());
    }
    if (c > 0 && n != t.rows) throw nb::value_error("usage: the columns differ in length");
    t.rows = n;
  }
  return t;
}

expected<void> meter_table(meter& m, usage_table& t) {
  io::detail::usage_header h;
  GPURENT_TRY(read_header(t, h));
  m.set_source(t.source);
  m.reserve(t.rows);
  io::row_rate rates;
  io::usage_row row;
  io::detail::label_scratch scratch;
  const std::size_t width = t.names.size(), id = h.col[0];
  std::vector<std::string_view> cells(chunk_rows * width);
  std::optional<library_error> late;
  for (std::size_t begin = 0; begin < t.rows && !late; begin += chunk_rows) {
    const std::size_t end = read_chunk(t, begin, std::min(t.rows, begin + chunk_rows), cells, late);
    for (std::size_t r = begin; r < end; ++r) {
      const std::span<const std::string_view> fields(cells.data() + (r - begin) * width, width);
      if (r + meter::prefetch_distance < end) m.prefetch(cells[(r - begin + meter::prefetch_distance) * width + id]);
      GPURENT_TRY(io::detail::read_usage_fields(h, fields, t.source, r + 1, row, scratch));
      GPURENT_TRY(ri, rates.of(m, row, t.source));
      GPURENT_TRY(m.add(row.id, row.account, *ri, row.quantity, row.start, row.end, row.line, row.labels));
    }
  }
  if (late) return unexpected(late->err());
  return {};
}

}  // namespace gpurent::py
