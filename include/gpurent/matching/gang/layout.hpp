// SPDX-License-Identifier: MIT
#pragma once
// The gang placer's map of the cluster: the nodes sorted by their place in the topology, so
// that every domain of every level is a contiguous run of base blocks and every base block a
// contiguous run of nodes. The placer's unit of bookkeeping is a *group*: a base block, or
// (after all blocks) a run of up to `outside_group` nodes that are in no domain. Per group it
// keeps a version (bumped whenever one of its nodes changes), the nodes with something
// placed, and the gang that holds it exclusively; it follows the inventory through its
// change journal, as the matcher's candidate index does (O(1) per changed node). It logs the
// groups that changed (and those the placer touches: a block held or let go), so that a
// reader keeping a sum over the groups updates it by the changes since it last read
// (changed_since), not by reading every group.
//
// Domains are renumbered here in that sorted order: domain d of level l covers groups
// [first_group(l, d), end_group(l, d)) and the domains [child_begin(l, d), child_end(l, d))
// of level l + 1; topology_domain(l, d) gives the topology's own number back.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

using group_index = std::uint32_t;

class gang_layout {
 public:
  static constexpr std::size_t outside_group = 16;  // nodes per group outside the topology

  void build(const inventory& inv, const cluster_topology& t) {
    GPURENT_ASSERT(t.node_count() == inv.size());
    levels_ = t.level_count();
    sort_nodes(inv, t);
    number_domains(t);
    group_of_.assign(inv.size(), 0);
    for (group_index g = 0; g < group_count(); ++g)
      for (const node_index n : nodes_of(g)) group_of_[n] = g;
    version_.assign(group_count(), 1);
    busy_.assign(group_count(), 0);
    owner_.assign(group_count(), no_gang);
    node_busy_.assign(inv.size(), 0);
    refill(inv);
    generation_ = inv.generation();
    forget_changes();
    log_.reserve(log_limit());
  }

  // Catches up with the inventory's changes; false when it changed size or was assigned
  // over (the caller builds again).
  [[nodiscard]] bool sync(const inventory& inv) noexcept {
    if (inv.size() != group_of_.size() || inv.generation() != generation_) return false;
    const std::uint64_t now = inv.change_count();
    if (now < seen_ || now - seen_ > inventory::journal_capacity) {
      refill(inv);
      for (std::uint32_t& v : version_) ++v;
      forget_changes();
      return true;
    }
    for (; seen_ < now; ++seen_) note(inv, inv.changed_node(seen_));
    return true;
  }

  [[nodiscard]] std::size_t level_count() const noexcept { return levels_; }
  [[nodiscard]] std::size_t block_count() const noexcept { return blocks_; }
  [[nodiscard]] std::size_t group_count() const noexcept { return group_begin_.size() - 1; }
  [[nodiscard]] bool outside(group_index g) const noexcept { return g >= blocks_; }
  [[nodiscard]] std::span<const node_index> nodes_of(group_index g) const noexcept {
    return std::span<const node_index>(order_).subspan(group_begin_[g], group_begin_[g + 1] - group_begin_[g]);
  }
  [[nodiscard]] group_index group_of(node_index n) const noexcept { return group_of_[n]; }
  [[nodiscard]] std::size_t max_group_size() const noexcept { return max_group_; }

  [[nodiscard]] std::size_t domain_count(std::size_t l) const noexcept { return domains_[l].topo.size(); }
  [[nodiscard]] domain_index topology_domain(std::size_t l, std::size_t d) const noexcept { return domains_[l].topo[d]; }
  [[nodiscard]] group_index first_group(std::size_t l, std::size_t d) const noexcept { return domains_[l].groups[d]; }
  [[nodiscard]] group_index end_group(std::size_t l, std::size_t d) const noexcept { return domains_[l].groups[d + 1]; }
  [[nodiscard]] std::uint32_t child_begin(std::size_t l, std::size_t d) const noexcept { return domains_[l].children[d]; }
  [[nodiscard]] std::uint32_t child_end(std::size_t l, std::size_t d) const noexcept { return domains_[l].children[d + 1]; }
  // The domain of level l that group g (a block) belongs to.
  [[nodiscard]] std::uint32_t domain_of_group(std::size_t l, group_index g) const noexcept { return domains_[l].of_group[g]; }

  [[nodiscard]] std::uint32_t version(group_index g) const noexcept { return version_[g]; }

  // The change log: its position now, and the groups logged since position `from` (a group
  // may repeat); nullopt when the log no longer reaches back there (it was cut, or every group
  // changed at once): the reader reads every group again.
  [[nodiscard]] std::uint64_t changes() const noexcept { return log_base_ + log_.size(); }
  [[nodiscard]] std::optional<std::span<const group_index>> changed_since(std::uint64_t from) const noexcept {
    if (from < log_base_ || from > changes()) return std::nullopt;
    return std::span<const group_index>(log_).subspan(static_cast<std::size_t>(from - log_base_));
  }
  // Group g changed in a way only its reader knows (the placer: a block held or let go).
  void touch(group_index g) noexcept { log(g); }
  [[nodiscard]] std::int32_t busy_nodes(group_index g) const noexcept { return busy_[g]; }
  [[nodiscard]] gang_id owner(group_index g) const noexcept { return owner_[g]; }
  void set_owner(group_index g, gang_id id) noexcept { owner_[g] = id; }

 private:
  // Topology nodes by their domain path (blocks, then spines, stay together), then the
  // nodes in no domain, each in node order.
  void sort_nodes(const inventory& inv, const cluster_topology& t) {
    order_.resize(inv.size());
    std::iota(order_.begin(), order_.end(), node_index{0});
    const auto less = [&](node_index a, node_index b) {
      const bool ia = t.in_topology(a), ib = t.in_topology(b);
      if (ia != ib) return ia;
      for (level_index l = 0; ia && l < levels_; ++l)
        if (t.domain_of(a, l) != t.domain_of(b, l)) return t.domain_of(a, l) < t.domain_of(b, l);
      return a < b;
    };
    std::stable_sort(order_.begin(), order_.end(), less);
    inside_ = static_cast<std::size_t>(std::count_if(order_.begin(), order_.end(), [&](node_index n) { return t.in_topology(n); }));
  }

  // Groups (blocks, then runs of outside nodes) and each level's domains in sorted order.
  void number_domains(const cluster_topology& t) {
    domains_.assign(levels_, {});
    group_begin_.clear();
    for (std::size_t i = 0; i < inside_; ++i) {
      const node_index n = order_[i];
      const node_index prev = i == 0 ? n : order_[i - 1];
      for (std::size_t l = 0; l < levels_; ++l) {
        const auto lv = static_cast<level_index>(l);
        if (i > 0 && t.domain_of(n, lv) == t.domain_of(prev, lv)) continue;
        for (std::size_t k = l; k < levels_; ++k) open_domain(t, k, n, i);
        break;
      }
    }
    blocks_ = group_begin_.size();
    for (std::size_t i = inside_; i < order_.size(); i += outside_group) group_begin_.push_back(static_cast<std::uint32_t>(i));
    group_begin_.push_back(static_cast<std::uint32_t>(order_.size()));
    max_group_ = 0;
    for (std::size_t g = 0; g + 1 < group_begin_.size(); ++g) max_group_ = std::max<std::size_t>(max_group_, group_begin_[g + 1] - group_begin_[g]);
    close_domains();
  }

  // A new domain of level k starts at node n, at `rank` in the order (at the block level:
  // a new group).
  void open_domain(const cluster_topology& t, std::size_t k, node_index n, std::size_t rank) {
    const auto next_block = static_cast<group_index>(domains_[levels_ - 1].topo.size());
    level_domains& d = domains_[k];
    d.groups.push_back(next_block);
    if (k + 1 < levels_) d.children.push_back(static_cast<std::uint32_t>(domains_[k + 1].topo.size()));
    d.topo.push_back(t.domain_of(n, static_cast<level_index>(k)));
    if (k + 1 == levels_) group_begin_.push_back(static_cast<std::uint32_t>(rank));
  }

  // End sentinels, and each block's domain at every level.
  void close_domains() {
    for (std::size_t k = 0; k < levels_; ++k) {
      level_domains& d = domains_[k];
      d.groups.push_back(static_cast<group_index>(blocks_));
      d.children.push_back(k + 1 < levels_ ? static_cast<std::uint32_t>(domains_[k + 1].topo.size()) : 0U);
      d.of_group.assign(blocks_, 0);
      for (std::size_t x = 0; x + 1 < d.groups.size(); ++x)
        for (group_index g = d.groups[x]; g < d.groups[x + 1]; ++g) d.of_group[g] = static_cast<std::uint32_t>(x);
    }
  }

  // Logs g; the log is cut when it outgrows the groups many times over (a reader that far
  // behind reads every group: no dearer than the changes).
  void log(group_index g) noexcept {
    if (log_.size() >= log_limit()) forget_changes();
    log_.push_back(g);  // within the capacity reserved by build: no allocation
  }
  [[nodiscard]] std::size_t log_limit() const noexcept { return 8 * group_count() + 4096; }
  // Every reader reads every group again: the log restarts past every position handed out.
  void forget_changes() noexcept {
    log_base_ += log_.size() + 1;
    log_.clear();
  }

  void note(const inventory& inv, node_index n) noexcept {
    const group_index g = group_of_[n];
    log(g);
    ++version_[g];
    const std::uint8_t b = inv.state(n).placements > 0 ? 1 : 0;
    busy_[g] += static_cast<std::int32_t>(b) - static_cast<std::int32_t>(node_busy_[n]);
    node_busy_[n] = b;
  }

  void refill(const inventory& inv) noexcept {
    std::fill(busy_.begin(), busy_.end(), 0);
    for (node_index n = 0; n < inv.size(); ++n) {
      node_busy_[n] = inv.state(n).placements > 0 ? 1 : 0;
      busy_[group_of_[n]] += node_busy_[n];
    }
    seen_ = inv.change_count();
  }

  struct level_domains {
    std::vector<domain_index> topo;       // per domain: the topology's number
    std::vector<group_index> groups;      // per domain: first group; then the end
    std::vector<std::uint32_t> children;  // per domain: first child domain; then the end
    std::vector<std::uint32_t> of_group;  // per block: its domain at this level
  };

  std::size_t levels_ = 0;
  std::size_t inside_ = 0;
  std::size_t blocks_ = 0;
  std::size_t max_group_ = 0;
  std::vector<node_index> order_;
  std::vector<std::uint32_t> group_begin_;  // per group: first rank; then the end
  std::vector<group_index> group_of_;
  std::vector<level_domains> domains_;
  std::vector<std::uint32_t> version_;
  std::vector<std::int32_t> busy_;
  std::vector<gang_id> owner_;
  std::vector<std::uint8_t> node_busy_;
  std::uint64_t seen_ = 0;
  std::uint64_t generation_ = 0;
  std::vector<group_index> log_;  // groups changed, from position log_base_ on
  std::uint64_t log_base_ = 0;
};

}  // namespace gpurent
