// SPDX-License-Identifier: MIT
#pragma once
// The fleet's topology file (docs/formats/fleet.md):
//
//   { "levels": ["spine", "block"],
//     "nodes": { "n0000": ["spine-0", "block-000"], "n0001": ["spine-0", "block-000"] } }
//
// `levels` outermost first, the last the base block; `nodes` gives each listed node its
// domain at every level (a node not listed is in no domain). Read onto a cluster read from
// the nodes file: a node the nodes file lacks, a path of the wrong length, or a domain put
// under two different parents is an error naming the file, the line of the node's key and
// the field. Written back by fleet generate, one node per line.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/io/text/json_reader.hpp>

namespace gpurent::io {

namespace detail {
// One node's path (an array of domain names) onto the topology.
[[nodiscard]] inline expected<void> assign_path(cluster_topology& t, node_index n, const json& path, const std::string& field) {
  if (!path.is_array()) return json_fail(field, std::string("expected an array of domain names, got ") + path.type_name());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (!path[i].is_string()) return json_fail(json_item(field, i), std::string("expected a string, got ") + path[i].type_name());
    names.push_back(path[i].get<std::string>());
  }
  const std::vector<std::string_view> views(names.begin(), names.end());
  if (auto a = t.assign(n, views); !a) return json_fail(field, a.error().message);
  return {};
}

// The document onto cluster c (its nodes already read).
[[nodiscard]] inline expected<void> read_topology(const json& doc, fleet_cluster& c) {
  json_object top(doc, "");
  GPURENT_TRY(top.check());
  std::vector<std::string> levels;
  GPURENT_TRY(top.strings("levels", levels, true));
  if (levels.empty()) return top.fail("levels", "needs at least one level (the base block last)");
  GPURENT_TRY(t, cluster_topology::make(std::move(levels), c.inv.size()));
  const json* nodes = top.find("nodes");
  GPURENT_TRY(top.finish());  // a misspelt "nodes" is named as unknown, not as missing
  if (nodes == nullptr) return top.fail("nodes", "missing required field");
  if (!nodes->is_object()) return top.fail("nodes", std::string("expected an object, got ") + nodes->type_name());
  std::unordered_map<std::string_view, node_index> index;
  for (node_index n = 0; n < c.inv.size(); ++n) index.emplace(c.inv.spec(n).name, n);
  for (auto it = nodes->begin(); it != nodes->end(); ++it) {
    const std::string field = "nodes." + it.key();
    const auto at = index.find(it.key());
    if (at == index.end()) return json_fail(field, "node \"" + it.key() + "\" is not in the nodes file");
    GPURENT_TRY(assign_path(*t, at->second, it.value(), field));
  }
  c.topology = std::move(*t);
  return {};
}
}  // namespace detail

// The topology text onto cluster c; `file` names it in errors.
[[nodiscard]] inline expected<void> read_topology_json(std::string_view text, std::string_view file, fleet_cluster& c) {
  GPURENT_TRY(doc, parse_json_text(text, file));
  if (auto r = detail::read_topology(*doc, c); !r) return unexpected(json_located(r.error(), text, file));
  return {};
}

[[nodiscard]] inline expected<void> read_topology_file(const std::string& path, fleet_cluster& c) {
  GPURENT_TRY(text, read_file(path));
  return read_topology_json(*text, path, c);
}

// The topology file of a cluster: every node in a domain, in node order, one per line.
[[nodiscard]] inline std::string write_topology_json(const fleet_cluster& c) {
  const cluster_topology& t = c.topology;
  std::string out = "{ \"levels\": [";
  for (level_index l = 0; l < t.level_count(); ++l) out += (l == 0 ? "" : ", ") + json(std::string(t.level_name(l))).dump();
  out += "],\n  \"nodes\": {";
  const char* sep = "\n";
  for (node_index n = 0; n < c.inv.size(); ++n) {
    if (!t.in_topology(n)) continue;
    out += sep;
    out += "    " + json(c.inv.spec(n).name).dump() + ": [";
    for (level_index l = 0; l < t.level_count(); ++l) out += (l == 0 ? "" : ", ") + json(std::string(t.domain_name(l, t.domain_of(n, l)))).dump();
    out += "]";
    sep = ",\n";
  }
  out += "\n  } }\n";
  return out;
}

}  // namespace gpurent::io
