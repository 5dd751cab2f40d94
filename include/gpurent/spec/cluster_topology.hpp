// SPDX-License-Identifier: MIT
#pragma once
// The network between a cluster's nodes: named levels, outermost first, the last one the
// base block (Slurm's topology/block: for GB200 NVL72, one rack of 18 nodes in one NVLink
// domain) and each node's domain at every level. Which nodes are up is the inventory's
// (node_condition, matching/inventory.hpp), not the network's.
// A node that is not assigned belongs to no domain: only jobs without topology rules may use
// it. Nodes are numbered 0..n-1 by the caller (the same numbers as the matcher's inventory);
// domains are numbered per level in order of first appearance.
//
// A domain belongs to exactly one domain of the level above (a block to one spine): assign
// says which node broke that rule. The value is built in code (assign) or read from the
// topology JSON (io/fleet/topology_json.hpp; docs/formats/fleet.md).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/error.hpp>

namespace gpurent {

using level_index = std::uint8_t;
inline constexpr level_index no_level = std::numeric_limits<level_index>::max();
inline constexpr std::size_t max_levels = 16;
using domain_index = std::uint32_t;
inline constexpr domain_index outside_topology = std::numeric_limits<domain_index>::max();  // no domain

class cluster_topology {
 public:
  cluster_topology() = default;

  // A topology of `nodes` unassigned nodes over `levels` (outermost first, base block
  // last; none: no topology at all). Level names must be distinct and not empty.
  [[nodiscard]] static expected<cluster_topology> make(std::vector<std::string> levels, std::size_t nodes) {
    if (levels.size() > max_levels) return make_error(error_code::invalid_argument, "levels", "at most " + std::to_string(max_levels) + " levels");
    for (std::size_t i = 0; i < levels.size(); ++i) {
      if (levels[i].empty()) return make_error(error_code::invalid_argument, "levels", "a level name is empty");
      for (std::size_t j = 0; j < i; ++j)
        if (levels[j] == levels[i]) return make_error(error_code::duplicate, "levels", "level \"" + levels[i] + "\" appears twice");
    }
    cluster_topology t;
    t.levels_.resize(levels.size());
    for (std::size_t i = 0; i < levels.size(); ++i) t.levels_[i].name = std::move(levels[i]);
    t.domain_of_.assign(nodes * levels.size(), outside_topology);
    t.nodes_ = nodes;
    return t;
  }

  [[nodiscard]] std::size_t level_count() const noexcept { return levels_.size(); }
  [[nodiscard]] std::string_view level_name(level_index l) const noexcept { return levels_[l].name; }
  [[nodiscard]] std::optional<level_index> find_level(std::string_view name) const noexcept {
    for (std::size_t l = 0; l < levels_.size(); ++l)
      if (levels_[l].name == name) return static_cast<level_index>(l);
    return std::nullopt;
  }
  // The base block's level (the last); no_level when there are no levels.
  [[nodiscard]] level_index block_level() const noexcept { return levels_.empty() ? no_level : static_cast<level_index>(levels_.size() - 1); }

  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_; }
  [[nodiscard]] std::size_t domain_count(level_index l) const noexcept { return levels_[l].names.size(); }
  [[nodiscard]] std::string_view domain_name(level_index l, domain_index d) const noexcept { return levels_[l].names[d]; }
  // The domain of level l-1 that domain d of level l belongs to (outside_topology for level 0).
  [[nodiscard]] domain_index parent(level_index l, domain_index d) const noexcept { return l == 0 ? outside_topology : levels_[l].parents[d]; }
  [[nodiscard]] std::optional<domain_index> find_domain(level_index l, std::string_view name) const {
    const auto it = levels_[l].index.find(name);
    if (it == levels_[l].index.end()) return std::nullopt;
    return it->second;
  }

  // Node n's domain at level l; `outside_topology` when the node is not in the topology.
  [[nodiscard]] domain_index domain_of(std::size_t n, level_index l) const noexcept {
    GPURENT_ASSERT(n < node_count() && l < levels_.size());
    return domain_of_[n * levels_.size() + l];
  }
  [[nodiscard]] bool in_topology(std::size_t n) const noexcept { return !levels_.empty() && domain_of(n, 0) != outside_topology; }
  // Node n's base block; `outside_topology` when it is not in the topology (or there are no levels).
  [[nodiscard]] domain_index block_of(std::size_t n) const noexcept { return levels_.empty() ? outside_topology : domain_of(n, block_level()); }

  // Puts node n into the domains named by `path` (one per level, outermost first). An error
  // when the path has the wrong length, a name is empty, the node is already placed, or a
  // domain would belong to two domains of the level above.
  [[nodiscard]] expected<void> assign(std::size_t n, std::span<const std::string_view> path) {
    GPURENT_ASSERT(n < node_count());
    if (path.size() != levels_.size())
      return make_error(error_code::invalid_argument, "nodes",
                        "expected " + std::to_string(levels_.size()) + " domains (one per level), got " + std::to_string(path.size()));
    if (in_topology(n)) return make_error(error_code::duplicate, "nodes", "the node is listed twice");
    domain_index up = outside_topology;
    for (std::size_t l = 0; l < levels_.size(); ++l) {
      GPURENT_TRY(d, intern(l, path[l], up));
      domain_of_[n * levels_.size() + l] = *d;
      up = *d;
    }
    return {};
  }

  friend bool operator==(const cluster_topology&, const cluster_topology&) = default;

 private:
  struct level {
    std::string name;
    std::vector<std::string> names;     // per domain
    std::vector<domain_index> parents;  // per domain: its domain of the level above
    std::map<std::string, domain_index, std::less<>> index;
    friend bool operator==(const level&, const level&) = default;
  };

  // Domain `name` of level l (new or known), which must belong to `up` of level l-1.
  [[nodiscard]] expected<domain_index> intern(std::size_t l, std::string_view name, domain_index up) {
    level& lv = levels_[l];
    if (name.empty()) return make_error(error_code::invalid_argument, "nodes", "empty domain name at level \"" + lv.name + "\"");
    if (const auto it = lv.index.find(name); it != lv.index.end()) {
      if (lv.parents[it->second] != up)
        return make_error(error_code::invalid_argument, "nodes",
                          lv.name + " \"" + std::string(name) + "\" is already in " + levels_[l - 1].name + " \"" +
                              levels_[l - 1].names[lv.parents[it->second]] + "\", not \"" + levels_[l - 1].names[up] + "\"");
      return it->second;
    }
    const auto d = static_cast<domain_index>(lv.names.size());
    lv.names.emplace_back(name);
    lv.parents.push_back(up);
    lv.index.emplace(std::string(name), d);
    return d;
  }

  std::vector<level> levels_;
  std::vector<domain_index> domain_of_;  // node-major: node * levels + level
  std::size_t nodes_ = 0;
};

}  // namespace gpurent
