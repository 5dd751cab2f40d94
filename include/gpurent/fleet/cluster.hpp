// SPDX-License-Identifier: MIT
#pragma once
// A fleet: its nodes in the matcher's inventory, each with its condition (up, down, drain),
// and its network topology, numbered alike. Built from node descriptions (the nodes CSV
// of docs/formats/fleet.md, or code) and then, optionally, placed into domains.

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

// One node as the nodes file describes it (the Alibaba trace's node row plus a condition).
struct fleet_node {
  std::string name;
  milli_cpu cpu_milli{0};
  mebibytes memory_mib{0};
  std::int32_t gpus = 0;
  std::string model;  // empty for a node without GPUs; any name (unknown models are opaque)
  node_condition condition = node_condition::up;
  std::string segment;              // network segment (InfiniBand partition key, VLAN); empty: none
  std::vector<std::string> labels;  // e.g. region=eu-west-1, jurisdiction=CH (residency)
  friend bool operator==(const fleet_node&, const fleet_node&) = default;
};

struct fleet_cluster {
  inventory inv;
  cluster_topology topology;
  std::map<std::string, label_mask, std::less<>> labels;  // the nodes' labels by name (the inventory's bits)

  // The nodes (in order: node i is inventory node i) over `levels` (none: no topology; the
  // nodes are placed into domains with topology.assign), each in its condition. An error
  // names the node when the GPU models exceed the inventory's 64.
  [[nodiscard]] static expected<fleet_cluster> make(std::span<const fleet_node> nodes, std::vector<std::string> levels = {}) {
    GPURENT_TRY(t, cluster_topology::make(std::move(levels), nodes.size()));
    fleet_cluster c;
    c.topology = std::move(*t);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const fleet_node& f = nodes[i];
      if (f.gpus < 0 || static_cast<std::size_t>(f.gpus) > max_gpus_per_node)
        return make_error(error_code::invalid_argument, "gpu", "node \"" + f.name + "\": at most " + std::to_string(max_gpus_per_node) + " GPUs");
      node_spec s;
      s.name = f.name;
      s.cpu_milli = f.cpu_milli;
      s.memory_mib = f.memory_mib;
      s.gpu_count = static_cast<std::uint8_t>(f.gpus);
      if (f.gpus > 0) {
        if (!c.inv.find_model(f.model) && c.inv.model_count() >= max_models)
          return make_error(error_code::invalid_argument, "model",
                            "node \"" + f.name + "\": more than " + std::to_string(max_models) + " GPU models");
        s.model = c.inv.add_model(gpu_model_info{f.model, {}, {}, nullptr});
      }
      if (!f.segment.empty()) s.segment = c.inv.segment(f.segment);
      GPURENT_TRY(mask, c.intern_labels(f));
      s.labels = *mask;
      const node_index n = c.inv.add_node(std::move(s));
      if (f.condition != node_condition::up) c.inv.set_condition(n, f.condition);
    }
    return c;
  }

  // The label mask of node f's labels, interning new names (at most max_labels in all).
  [[nodiscard]] expected<label_mask> intern_labels(const fleet_node& f) {
    label_mask m = 0;
    for (const std::string& l : f.labels) {
      if (!labels.contains(l) && labels.size() >= max_labels)
        return make_error(error_code::invalid_argument, "labels", "node \"" + f.name + "\": more than " + std::to_string(max_labels) + " labels");
      const label_mask bit = inv.label(l);
      labels.emplace(l, bit);
      m |= bit;
    }
    return m;
  }

  // GPUs of the nodes that are not down: the capacity occupancy is measured against.
  [[nodiscard]] std::int64_t gpus_up() const noexcept {
    std::int64_t g = 0;
    for (node_index n = 0; n < inv.size(); ++n)
      if (inv.condition(n) != node_condition::down) g += inv.spec(n).gpu_count;
    return g;
  }

  // The most common GPU count of the nodes with GPUs (0 when none has any).
  [[nodiscard]] std::int32_t common_gpus_per_node() const {
    std::map<std::int32_t, std::size_t> count;
    for (node_index n = 0; n < inv.size(); ++n)
      if (inv.spec(n).gpu_count > 0) ++count[inv.spec(n).gpu_count];
    std::int32_t best = 0;
    std::size_t most = 0;
    for (const auto& [g, k] : count)
      if (k > most) {
        best = g;
        most = k;
      }
    return best;
  }
};

}  // namespace gpurent
