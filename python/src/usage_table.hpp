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

struct usage_table {
  std::vector<std::string> names;                      // the columns, as a usage file's header names them
  std::vector<std::vector<std::string_view>> columns;  // by column, a view of each row's cell
  std::vector<std::string> made;                       // the text of the cells written here (numbers, instants)
  std::vector<nanobind::object> kept;                  // the Python objects the other views point into
  std::size_t rows = 0;
};

// The table of `names` and `columns` (with the GIL held): each column a pair (kind, data) of
// kind "text" (a sequence of str), "int" (an int64 array: whole numbers) or "seconds" (an
// int64 array: instants, seconds since 1970 UTC). A cell that is not text is an error in its
// column's field at its row (`source`:row, rows counted from 1).
[[nodiscard]] usage_table table_of(const nanobind::list& names, const nanobind::list& columns, std::string_view source);

// The table's records into `m`, in order (without the GIL: the views' strings are kept alive
// by the table); errors name `source` and the row as a usage file's name its file and line.
[[nodiscard]] expected<void> meter_table(meter& m, const usage_table& t, std::string_view source);

}  // namespace gpurent::py
