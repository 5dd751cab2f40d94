// SPDX-License-Identifier: MIT
#pragma once
// What the meter's runners (scale/threads.hpp on threads, scale/rounds.hpp on ranks) share:
// usage files read as one stream, a row of it on its way to a meter, and where in the stream
// an error is. Every error carries its (file, line), and a run reports the earliest, which is
// the one a single thread reading the files in order stops at.

#include <cstddef>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent {

// A parsed usage row with its rate found: views of its id and account (valid as long as the
// text they point into), the index of its rate in the tariff, its priced fields, its line,
// its label set's key (metering/labels.hpp; a view into the parser's scratch space).
struct meter_row {
  std::string_view id, account;
  std::size_t rate;
  nano_quantity quantity;
  instant start, end;
  std::size_t line;
  std::string_view labels;
};

// An error and where it was found: the file's index in the stream and the line (0: before any
// line, such as opening the file).
struct placed_error {
  std::size_t file = 0;
  std::size_t line = 0;
  error err;
};
// Keeps in `best` whichever of the two is earlier in the stream.
inline void keep_earliest(std::optional<placed_error>& best, placed_error e) {
  if (!best || std::tie(e.file, e.line) < std::tie(best->file, best->line)) best = std::move(e);
}

// The line an error found in `path` names ("path:line"), 0 when it names none.
[[nodiscard]] inline std::size_t error_line(const error& e, std::string_view path) {
  std::size_t line = 0;
  if (!e.where.starts_with(path) || e.where.size() <= path.size() + 1 || e.where[path.size()] != ':') return 0;
  for (std::size_t i = path.size() + 1; i < e.where.size() && e.where[i] >= '0' && e.where[i] <= '9'; ++i)
    line = line * 10 + static_cast<std::size_t>(e.where[i] - '0');
  return line;
}

namespace detail {
// A callable taking rows, for the concepts of the runners' sources (declared, never called).
struct meter_row_sink_archetype {
  expected<void> operator()(const meter_row&) const;
};
}  // namespace detail

}  // namespace gpurent
