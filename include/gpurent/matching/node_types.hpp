// SPDX-License-Identifier: MIT
#pragma once
// What the inventory (matching/inventory.hpp) is made of: a GPU model as the matcher needs
// it, a node's spec, its live state and the hot summary every candidate check reads, the
// journal of changed nodes that incremental indexes follow, and the interned vocabulary
// (GPU models by index, labels by bit) that requests and nodes refer to.

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/spec/mig.hpp>
#include <gpurent/spec/node_condition.hpp>

namespace gpurent {

// A GPU model as the matcher needs it (the catalog has the full spec).
struct gpu_model_info {
  std::string name;
  bytes vram{0};                      // 0: unknown
  gflops compute{0};                  // 0: unknown
  const mig_geometry* mig = nullptr;  // MIG geometry (find_mig_geometry); null: no MIG
  friend bool operator==(const gpu_model_info&, const gpu_model_info&) = default;
};

using model_index = std::uint8_t;

struct node_spec {
  std::string name;
  milli_cpu cpu_milli{0};
  mebibytes memory_mib{0};
  std::uint8_t gpu_count = 0;
  model_index model = 0;                                        // meaningful when gpu_count > 0
  std::array<std::uint8_t, max_gpus_per_node> nvlink_domain{};  // per GPU; equal ids share a domain
  std::array<std::uint8_t, max_gpus_per_node> pcie_switch{};    // per GPU
  label_mask labels = 0;
  tenant_id reserved_for = no_tenant;  // no_tenant: open to all
  bool spot = false;                   // preemptible capacity
  std::uint16_t mig_gpus = 0;          // bit g: GPU g is in MIG mode (MIG requests only)
  segment_id segment = no_segment;     // network segment (inventory::segment); network isolation
  friend bool operator==(const node_spec&, const node_spec&) = default;
};

// Live state of one node. The summary fields every constraint reads come first, with copies
// of the spec fields they need, so a candidate check touches one cache line.
struct node_state {
  milli_cpu cpu_free{0};
  mebibytes memory_free{0};
  label_mask labels = 0;               // copy of the spec's
  tenant_id reserved_for = no_tenant;  // copy of the spec's
  std::int32_t idle_total = 0;
  std::int32_t max_idle = 0;
  std::uint32_t version = 0;                             // bumped on every change; caches key on it
  std::uint32_t placements = 0;                          // live placements on the node
  std::uint16_t mig_gpus = 0;                            // copy of the spec's
  std::uint16_t open_gpus = 0;                           // bit g: every user of GPU g asked for no isolation (tenancy.hpp)
  std::uint8_t full_idle = 0;                            // GPUs with all 1000 milli idle
  std::uint8_t gpu_count = 0;                            // copy of the spec's
  model_index model = 0;                                 // copy of the spec's
  bool spot = false;                                     // copy of the spec's
  node_condition condition = node_condition::up;         // the node's, held here only
  std::array<std::int32_t, max_gpus_per_node> idle{};    // milli-GPU idle per GPU
  std::array<tenant_id, max_gpus_per_node> owner{};      // tenant holding the GPU (while used)
  std::array<std::uint16_t, max_gpus_per_node> users{};  // placements on the GPU
};

// The 32 bytes of a node that every candidate check reads, kept in their own dense array
// so that a scan over thousands of nodes stays in cache (a copy of node_state's summary).
struct node_hot {
  milli_cpu cpu_free{0};
  mebibytes memory_free{0};
  std::int32_t idle_total = 0;
  std::uint32_t version = 0;
  std::int16_t max_idle = 0;
  std::uint8_t full_idle = 0;
  std::uint8_t gpu_count = 0;
  model_index model = 0;
  bool drained = false;  // condition != up: takes nothing new
  bool spot = false;
  bool reserved = false;  // reserved_for != no_tenant
};

namespace detail {
// The inventory's journal of changed nodes: a counter and the last `capacity` node indices.
// An observer that remembers the counter can replay what changed since, or learns that it
// fell too far behind. Assigning an inventory moves the counter past anything an observer
// of the old contents remembers, so that observer rebuilds instead of replaying the wrong
// journal, and bumps the generation, because node versions and the release epoch then
// repeat earlier values.
struct change_journal {
  // 1,024: what a preemption's trial releases and restores, or one instant's departures, change
  // on an 800-block fleet fits, so readers catch up instead of reading every node again.
  static constexpr std::size_t capacity = 1024;
  std::uint64_t count = 0;
  std::uint64_t generation = 0;
  std::array<std::uint32_t, capacity> nodes{};

  change_journal() = default;
  change_journal(const change_journal&) = default;
  change_journal& operator=(const change_journal& o) noexcept {
    if (this != &o) {
      count = std::max(count, o.count) + capacity + 1;
      generation = std::max(generation, o.generation) + 1;
      nodes = o.nodes;
    }
    return *this;
  }
  ~change_journal() = default;
  void note(std::uint32_t n) noexcept { nodes[count++ % capacity] = n; }
};
}  // namespace detail

// GPU models and labels: interned once, referred to by index / bit afterwards (a request's
// model mask and required labels, a node's model and labels).
class gpu_vocabulary {
 public:
  model_index add_model(gpu_model_info m) {
    if (auto id = find_model(m.name)) return *id;
    GPURENT_ASSERT(models_.size() < max_models);
    models_.push_back(std::move(m));
    return static_cast<model_index>(models_.size() - 1);
  }
  [[nodiscard]] std::optional<model_index> find_model(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < models_.size(); ++i) {
      if (models_[i].name == name) return static_cast<model_index>(i);
    }
    return std::nullopt;
  }
  [[nodiscard]] const gpu_model_info& model(model_index i) const noexcept { return models_[i]; }
  [[nodiscard]] std::size_t model_count() const noexcept { return models_.size(); }
  // A '|'-separated list of model names as a mask; an unknown name is an error naming it.
  [[nodiscard]] expected<model_mask> models_mask(std::string_view list) const {
    if (list.empty()) return any_model;
    model_mask m = 0;
    std::size_t start = 0;
    for (;;) {
      const std::size_t bar = list.find('|', start);
      const std::string_view name = list.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
      auto id = find_model(name);
      if (!id) return make_error(error_code::unknown_name, "gpu_spec", "unknown GPU model \"" + std::string(name) + "\"");
      m |= model_mask{1} << *id;
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
    return m;
  }

  label_mask label(std::string_view name) {
    for (std::size_t i = 0; i < labels_.size(); ++i) {
      if (labels_[i] == name) return label_mask{1} << i;
    }
    GPURENT_ASSERT(labels_.size() < max_labels);
    labels_.emplace_back(name);
    return label_mask{1} << (labels_.size() - 1);
  }

 private:
  std::vector<gpu_model_info> models_;
  std::vector<std::string> labels_;
};

}  // namespace gpurent
