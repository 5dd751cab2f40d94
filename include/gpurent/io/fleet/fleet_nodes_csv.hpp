// SPDX-License-Identifier: MIT
#pragma once
// The fleet's nodes file (docs/formats/fleet.md): the Alibaba trace's node format
// `sn,cpu_milli,memory_mib,gpu,model` with an optional `state` column (up, down, drain), read
// with every error at file:line naming the field, and written back (fleet generate). Two more
// optional columns (beyond the trace's node format): `segment`, the node's network segment
// (an InfiniBand partition key or a VLAN; empty: none), and `labels`, '|'-separated labels
// such as region=eu-west-1|jurisdiction=CH (docs/isolation.md).
// Integers are read as the trace reader reads them (trace_csv.hpp); columns are found by name
// (csv_split.hpp's read_csv_table): any order, and an unknown column is an error. What the
// cluster cannot hold is an error at its row, not later: a model name with a '|' (a job's
// gpu_spec separates models with it), a 65th GPU model, a 65th label.

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/io/fleet/trace_csv.hpp>
#include <gpurent/io/text/csv.hpp>
#include <gpurent/io/text/csv_split.hpp>
#include <gpurent/io/text/file.hpp>

namespace gpurent::io {

namespace detail {
inline constexpr std::size_t node_sn = 0, node_cpu = 1, node_memory = 2, node_gpu = 3, node_model = 4, node_state = 5, node_segment = 6,
                             node_labels = 7;

// A '|'-separated list of names (empty text: none); an empty name is an error.
[[nodiscard]] inline expected<std::vector<std::string_view>> bar_list(std::string_view text, std::string_view field) {
  std::vector<std::string_view> out;
  if (text.empty()) return out;
  for (std::size_t start = 0;;) {
    const std::size_t bar = text.find('|', start);
    out.push_back(text.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (out.back().empty()) return make_error(error_code::invalid_argument, std::string(field), "empty name in \"" + std::string(text) + "\"");
    if (bar == std::string_view::npos) return out;
    start = bar + 1;
  }
}

// The distinct GPU models and node labels of the rows read so far: the cluster holds at most
// max_models and max_labels, so the row that adds one too many is the error.
struct node_names {
  std::set<std::string, std::less<>> models, labels;
};

// One node row (fields by column) into a node.
[[nodiscard]] inline expected<fleet_node> read_fleet_node(std::span<const std::string_view> f, node_names& seen) {
  using ::gpurent::detail::parse_trace_int;
  fleet_node n;
  n.name = std::string(f[node_sn]);
  if (n.name.empty()) return make_error(error_code::invalid_argument, "sn", "empty node name");
  GPURENT_TRY(cpu, parse_trace_int<std::int64_t>(f[node_cpu], "cpu_milli", 0, ::gpurent::detail::trace_max_amount));
  GPURENT_TRY(mem, parse_trace_int<std::int64_t>(f[node_memory], "memory_mib", 0, ::gpurent::detail::trace_max_amount));
  GPURENT_TRY(gpu, parse_trace_int<std::int32_t>(f[node_gpu], "gpu", 0, trace_max_gpus_per_node));
  n.cpu_milli = milli_cpu(*cpu);
  n.memory_mib = mebibytes(*mem);
  n.gpus = *gpu;
  n.model = std::string(f[node_model]);
  GPURENT_TRY(::gpurent::detail::check_node_model(n.model, n.gpus));
  if (n.gpus > 0 && seen.models.insert(n.model).second && seen.models.size() > max_models)
    return make_error(error_code::invalid_argument, "model", "more than " + std::to_string(max_models) + " GPU models");
  if (!f[node_state].empty()) {
    GPURENT_TRY(c, parse_enum_field<node_condition>(f[node_state], "state"));
    n.condition = *c;
  }
  n.segment = std::string(f[node_segment]);
  GPURENT_TRY(labels, bar_list(f[node_labels], "labels"));
  for (const std::string_view l : *labels)
    if (seen.labels.emplace(l).second && seen.labels.size() > max_labels)
      return make_error(error_code::invalid_argument, "labels", "more than " + std::to_string(max_labels) + " node labels");
  n.labels.assign(labels->begin(), labels->end());
  return n;
}
}  // namespace detail

// The nodes from CSV text; `file` names it in errors ("nodes.csv:4: field 'gpu': ...").
[[nodiscard]] inline expected<std::vector<fleet_node>> read_fleet_nodes_csv(std::string_view text, std::string_view file) {
  const csv_column columns[] = {{{"sn"}, false},    {{"cpu_milli"}, false}, {{"memory_mib"}, false}, {{"gpu"}, false},
                                {{"model"}, false}, {{"state"}, true},      {{"segment"}, true},     {{"labels"}, true}};
  std::vector<fleet_node> out;
  std::set<std::string, std::less<>> names;
  detail::node_names seen;
  auto read = read_csv_table(text, file, columns, "sn,cpu_milli,memory_mib,gpu,model[,state][,segment][,labels]",
                             [&](std::span<const std::string_view> v, std::span<const std::string_view>) -> expected<void> {
                               GPURENT_TRY(n, detail::read_fleet_node(v, seen));
                               if (!names.insert(n->name).second)
                                 return make_error(error_code::duplicate, "sn", "node \"" + n->name + "\" appears twice");
                               out.push_back(std::move(*n));
                               return {};
                             });
  if (!read) return unexpected(read.error());
  if (out.empty()) return unexpected(error{error_code::invalid_argument, "sn", "no nodes", {}}.at(file, 1));
  return out;
}

// The cluster of a nodes file, without a topology (io/fleet/topology_json.hpp adds one).
[[nodiscard]] inline expected<fleet_cluster> read_fleet_cluster_file(const std::string& path) {
  GPURENT_TRY(text, read_file(path));
  GPURENT_TRY(nodes, read_fleet_nodes_csv(*text, path));
  return fleet_cluster::make(*nodes);
}

// The nodes file of a cluster: sn,cpu_milli,memory_mib,gpu,model,state.
// With a segment column when some node has a segment, and a labels column when some has labels.
[[nodiscard]] inline std::string write_fleet_nodes_csv(const fleet_cluster& c) {
  bool segments = false, labels = false;
  for (node_index n = 0; n < c.inv.size(); ++n) {
    segments = segments || c.inv.spec(n).segment != no_segment;
    labels = labels || c.inv.spec(n).labels != 0;
  }
  std::string out = std::string("sn,cpu_milli,memory_mib,gpu,model,state") + (segments ? ",segment" : "") + (labels ? ",labels" : "") + "\n";
  for (node_index n = 0; n < c.inv.size(); ++n) {
    const node_spec& s = c.inv.spec(n);
    const std::string model = s.gpu_count > 0 ? c.inv.model(s.model).name : std::string();
    std::vector<std::string> row{s.name, std::to_string(s.cpu_milli.count()),       std::to_string(s.memory_mib.count()), std::to_string(s.gpu_count),
                                 model,  std::string(to_string(c.inv.condition(n)))};
    if (segments) row.emplace_back(c.inv.segment_name(s.segment));
    if (labels) {
      std::string names;
      for (const auto& [name, bit] : c.labels)
        if ((s.labels & bit) != 0) names += (names.empty() ? "" : "|") + name;
      row.push_back(std::move(names));
    }
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) out += ',';
      csv_field(out, row[i]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace gpurent::io
