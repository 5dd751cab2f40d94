// SPDX-License-Identifier: MIT
#pragma once
// Reads the node status the scaling rules decide on (planning/scaling.hpp; docs/advisors.md):
//
//   node,utilization,busy,last_checkpoint,last_progress
//   gpu-01,0.92,true,2026-11-03T10:00:00Z,2026-11-03T10:40:00Z
//   gpu-02,0.00,false,,
//
// `node` names it (unique); `utilization` is its mean over the last window as a decimal in
// [0, 1]; `busy` is true while a job runs on it; `last_checkpoint` is when that job last wrote
// a checkpoint and `last_progress` when it last did work after that (RFC 3339 instants, both
// required when busy, may be empty otherwise; the two columns may be left out when no node is
// busy). A busy node is safe to release when last_checkpoint >= last_progress. Every error
// names the file, the line and the field.

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/text/csv_split.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/planning/scaling.hpp>

namespace gpurent::io {

namespace detail {
// The columns, in the order read_nodes_csv lists them.
inline constexpr std::size_t col_node = 0, col_utilization = 1, col_busy = 2, col_checkpoint = 3, col_progress = 4;

// One row's fields (by column) into a node status.
[[nodiscard]] inline expected<node_status> read_node_row(std::span<const std::string_view> f) {
  node_status s;
  s.id = std::string(f[col_node]);
  if (s.id.empty()) return make_error(error_code::invalid_argument, "node", "empty node name");
  auto u = decimal<6>::parse(f[col_utilization]);
  if (!u) return unexpected(u.error().in_field("utilization"));
  if (u->sign() < 0 || decimal<6>(1) < *u)
    return make_error(error_code::invalid_argument, "utilization", "must be in [0, 1], got \"" + std::string(f[col_utilization]) + "\"");
  s.utilization = static_cast<double>(u->raw().convert_to<std::int64_t>()) / 1e6;
  if (f[col_busy] != "true" && f[col_busy] != "false")
    return make_error(error_code::invalid_argument, "busy", "expected true or false, got \"" + std::string(f[col_busy]) + "\"");
  s.busy = f[col_busy] == "true";
  const std::tuple<std::size_t, const char*, instant*> times[] = {{col_checkpoint, "last_checkpoint", &s.last_checkpoint},
                                                                  {col_progress, "last_progress", &s.last_progress}};
  for (const auto& [col, name, out] : times) {
    if (f[col].empty()) {
      if (s.busy) return make_error(error_code::invalid_argument, name, "a busy node needs it (when its job last checkpointed and last progressed)");
      continue;
    }
    auto t = parse_instant(f[col]);
    if (!t) return unexpected(t.error().in_field(name));
    *out = *t;
  }
  return s;
}
}  // namespace detail

// Node statuses from CSV text; `file` names it in errors ("nodes.csv:3: field 'busy': ...").
[[nodiscard]] inline expected<std::vector<node_status>> read_nodes_csv(std::string_view text, std::string_view file) {
  const csv_column columns[] = {
      {{"node"}, false}, {{"utilization"}, false}, {{"busy"}, false}, {{"last_checkpoint"}, true}, {{"last_progress"}, true}};
  std::vector<node_status> out;
  std::set<std::string, std::less<>> seen;
  auto read = read_csv_table(text, file, columns, "node,utilization,busy,last_checkpoint,last_progress",
                             [&](std::span<const std::string_view> v, std::span<const std::string_view>) -> expected<void> {
                               GPURENT_TRY(s, detail::read_node_row(v));
                               if (!seen.insert(s->id).second)
                                 return make_error(error_code::duplicate, "node", "node \"" + s->id + "\" appears twice");
                               out.push_back(std::move(*s));
                               return {};
                             });
  if (!read) return unexpected(read.error());
  return out;
}

// The same from a file.
[[nodiscard]] inline expected<std::vector<node_status>> read_nodes_file(const std::string& path) {
  GPURENT_TRY(text, read_file(path));
  return read_nodes_csv(*text, path);
}

}  // namespace gpurent::io
