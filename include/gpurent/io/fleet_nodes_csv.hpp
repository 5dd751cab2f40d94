// SPDX-License-Identifier: MIT
#pragma once
// The fleet's nodes file (../shared/protocols/fleet.md): the Alibaba trace's node format
// `sn,cpu_milli,memory_mib,gpu,model` with an optional `state` column (up, down, drain), read
// with every error at file:line naming the field, and written back (fleet generate).
// Integers are read as the trace reader reads them (trace_csv.hpp); columns are found by name
// (csv_split.hpp's read_csv_table): any order, and an unknown column is an error.

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/io/csv.hpp>
#include <gpurent/io/csv_split.hpp>
#include <gpurent/io/file.hpp>
#include <gpurent/io/trace_csv.hpp>

namespace gpurent::io {

namespace detail {
inline constexpr std::size_t node_sn = 0, node_cpu = 1, node_memory = 2, node_gpu = 3, node_model = 4, node_state = 5;

// One node row (fields by column) into a node; `models` counts the distinct GPU models.
[[nodiscard]] inline expected<fleet_node> read_fleet_node(std::span<const std::string_view> f, std::set<std::string, std::less<>>& models) {
  using ::gpurent::detail::parse_trace_int;
  fleet_node n;
  n.name = std::string(f[node_sn]);
  if (n.name.empty()) return make_error(error_code::invalid_argument, "sn", "empty node name");
  GPURENT_TRY(cpu, parse_trace_int<std::int64_t>(f[node_cpu], "cpu_milli", 0, ::gpurent::detail::trace_max_amount));
  GPURENT_TRY(mem, parse_trace_int<std::int64_t>(f[node_memory], "memory_mib", 0, ::gpurent::detail::trace_max_amount));
  GPURENT_TRY(gpu, parse_trace_int<std::int32_t>(f[node_gpu], "gpu", 0, trace_max_gpus_per_node));
  n.cpu_milli = *cpu;
  n.memory_mib = *mem;
  n.gpus = *gpu;
  n.model = std::string(f[node_model]);
  if (n.gpus > 0 && n.model.empty()) return make_error(error_code::invalid_argument, "model", "a node with GPUs needs a model");
  if (n.gpus > 0 && models.insert(n.model).second && models.size() > max_models)
    return make_error(error_code::invalid_argument, "model", "more than " + std::to_string(max_models) + " GPU models");
  if (!f[node_state].empty()) {
    GPURENT_TRY(c, parse_enum_field<node_condition>(f[node_state], "state"));
    n.condition = *c;
  }
  return n;
}
}  // namespace detail

// The nodes from CSV text; `file` names it in errors ("nodes.csv:4: field 'gpu': ...").
[[nodiscard]] inline expected<std::vector<fleet_node>> read_fleet_nodes_csv(std::string_view text, std::string_view file) {
  const csv_column columns[] = {{{"sn"}, false},  {{"cpu_milli"}, false}, {{"memory_mib"}, false},
                                {{"gpu"}, false}, {{"model"}, false},     {{"state"}, true}};
  std::vector<fleet_node> out;
  std::set<std::string, std::less<>> names, models;
  auto read = read_csv_table(text, file, columns, "sn,cpu_milli,memory_mib,gpu,model[,state]",
                             [&](std::span<const std::string_view> v, std::span<const std::string_view>) -> expected<void> {
                               GPURENT_TRY(n, detail::read_fleet_node(v, models));
                               if (!names.insert(n->name).second)
                                 return make_error(error_code::duplicate, "sn", "node \"" + n->name + "\" appears twice");
                               out.push_back(std::move(*n));
                               return {};
                             });
  if (!read) return unexpected(read.error());
  if (out.empty()) return unexpected(error{error_code::invalid_argument, "sn", "no nodes", {}}.at(file, 1));
  return out;
}

// The cluster of a nodes file, without a topology (io/topology_json.hpp adds one).
[[nodiscard]] inline expected<fleet_cluster> read_fleet_cluster_file(const std::string& path) {
  GPURENT_TRY(text, read_file(path));
  GPURENT_TRY(nodes, read_fleet_nodes_csv(*text, path));
  return fleet_cluster::make(*nodes);
}

// The nodes file of a cluster: sn,cpu_milli,memory_mib,gpu,model,state.
[[nodiscard]] inline std::string write_fleet_nodes_csv(const fleet_cluster& c) {
  std::string out = "sn,cpu_milli,memory_mib,gpu,model,state\n";
  for (node_index n = 0; n < c.inv.size(); ++n) {
    const node_spec& s = c.inv.spec(n);
    const std::string model = s.gpu_count > 0 ? c.inv.model(s.model).name : std::string();
    csv_row(out, {s.name, std::to_string(s.cpu_milli), std::to_string(s.memory_mib), std::to_string(s.gpu_count), model,
                  to_string(c.topology.condition(n))});
  }
  return out;
}

}  // namespace gpurent::io
