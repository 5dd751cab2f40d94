// SPDX-License-Identifier: MIT
#pragma once
// `fleet run --node-events`: node failures and repairs over time, a CSV `time,node,state`
// (header required, columns in any order): integer seconds, a node of the nodes file by
// name, and `down` (fails: what runs there stops at once), `drain` (nothing new) or `up`.
// Rows in any order; the run takes them by time, rows of one instant in file order.
// Every error names file, line and field.

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/run/run.hpp>
#include <gpurent/io/fleet/trace_csv.hpp>
#include <gpurent/io/text/csv_split.hpp>
#include <gpurent/io/text/file.hpp>

namespace gpurent::io {

[[nodiscard]] inline expected<std::vector<node_event>> read_node_events_csv(std::string_view text, std::string_view file, const fleet_cluster& c) {
  std::map<std::string, node_index, std::less<>> index;
  for (node_index n = 0; n < c.inv.size(); ++n) index.emplace(c.inv.spec(n).name, n);
  const csv_column columns[] = {{{"time"}, false}, {{"node"}, false}, {{"state"}, false}};
  std::vector<node_event> out;
  auto read = read_csv_table(text, file, columns, "time,node,state",
                             [&](std::span<const std::string_view> f, std::span<const std::string_view>) -> expected<void> {
                               node_event e;
                               GPURENT_TRY(t, ::gpurent::detail::parse_trace_int<std::int64_t>(f[0], "time", 0, std::int64_t{1} << 40));
                               e.time = fleet_time::at_second(*t);
                               const auto at = index.find(f[1]);
                               if (at == index.end())
                                 return make_error(error_code::invalid_argument, "node", "no node \"" + std::string(f[1]) + "\" in the nodes file");
                               e.node = at->second;
                               GPURENT_TRY(s, parse_enum_field<node_condition>(f[2], "state"));
                               e.condition = *s;
                               out.push_back(e);
                               return {};
                             });
  if (!read) return unexpected(read.error());
  std::stable_sort(out.begin(), out.end(), [](const node_event& a, const node_event& b) { return a.time < b.time; });
  return out;
}

[[nodiscard]] inline expected<std::vector<node_event>> read_node_events_file(const std::string& path, const fleet_cluster& c) {
  GPURENT_TRY(text, read_file(path));
  return read_node_events_csv(*text, path, c);
}

}  // namespace gpurent::io
