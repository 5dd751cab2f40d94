// SPDX-License-Identifier: MIT
#pragma once
// Usage records held as columns (a pandas DataFrame's, a list of dicts'), metered through the
// usage CSV's own readers (io/billing/usage_csv.hpp: its header check, its field reader, its
// rate lookup), so that a record in memory reads, rates and fails exactly as the same line of
// a usage file does. Only the cells' text comes from Python: a view of each string (no copy),
// or the text of a number or an instant written here.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nanobind/nanobind.h>

#include <gpurent/core/error.hpp>
#include <gpurent/metering/meter.hpp>

namespace gpurent::py {

// A column: Python objects whose text is read a chunk of rows at a time (with the GIL), or
// cells written here once.
struct usage_column {
  PyObject* const* items = nullptr;  // a column of objects (str, or int and Decimal: their text)
  std::vector<std::string_view> made;
};

struct usage_table {
  std::string source;  // what errors name as their file ("<records>")
  std::vector<std::string> names;
  std::vector<usage_column> columns;
  std::vector<std::string> made_text;  // the text the made cells view
  std::vector<nanobind::object> kept;  // the Python objects the columns point into
  std::size_t rows = 0;
};

// The table of `names` and `columns` (with the GIL held): each column a pair (kind, data) of
// kind "text" (a list or a NumPy object array), "int" (an int64 array: whole numbers) or
// "seconds" (an int64 array: instants, seconds since 1970 UTC). A cell that is neither text,
// an int nor a Decimal (a bool, bytes, a float...) is an error in its column's field at its row
// (`source`:row, from 1), a missing value (None, NaN, pandas' NA and NaT) "missing value".
[[nodiscard]] usage_table table_of(const nanobind::list& names, const nanobind::list& columns, std::string source);

// The table's records into `m`, in order; called without the GIL, it takes it back for a
// moment for each chunk of rows, to read their cells' text.
[[nodiscard]] expected<void> meter_table(meter& m, usage_table& t);

// The same into `shards` (copies of one blank meter, at least two) on as many threads, by the
// meter's thread protocol (metering/scale/threads.hpp): disjoint shards by id whose finish is
// the invoice of meter_table, errors included. Chunks of rows are read with the GIL on the
// calling thread; the threads parse and add them without it.
[[nodiscard]] expected<void> meter_table_on_threads(std::vector<meter>& shards, usage_table& t);

}  // namespace gpurent::py
