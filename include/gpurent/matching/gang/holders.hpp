// SPDX-License-Identifier: MIT
#pragma once
// Which gang holds each base block exclusively (an exclusive gang's blocks, or a victim's in
// its notice window), and how many blocks each holding gang has: a gang that holds none is
// kept out of exactly the held blocks, which the room count (gang/room.hpp) relies on. Every
// change is logged in the layout, so the room count follows it. Nothing allocates once sized.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

class block_holders {
 public:
  // Room for `blocks` base blocks; the holders already set stay.
  void resize(std::size_t blocks) {
    held_.resize(blocks, no_gang);
    holds_.reserve(blocks);
  }

  // The holder of base block b (the topology's number), and of node n's block (no_gang when
  // n is in no block).
  [[nodiscard]] gang_id of_block(domain_index b) const noexcept { return held_[b]; }
  [[nodiscard]] gang_id of_node(const cluster_topology& t, node_index n) const noexcept {
    const domain_index b = t.block_of(n);
    return b == outside_topology ? no_gang : held_[b];
  }
  [[nodiscard]] std::span<const gang_id> blocks() const noexcept { return held_; }

  // Node n's base block is held by `id` now (no_gang: let go), logged in l for its group.
  void set(gang_layout& l, const cluster_topology& t, node_index n, gang_id id) noexcept {
    gang_id& h = held_[t.block_of(n)];
    if (h == id) return;
    if (h != no_gang) count(h, -1);
    if (id != no_gang) count(id, 1);
    h = id;
    l.touch(l.group_of(n));
  }

  // Whether gang id holds any block.
  [[nodiscard]] bool holds_any(gang_id id) const noexcept {
    const auto it = find(id);
    return it != holds_.end() && it->first == id;
  }

 private:
  using entry = std::pair<gang_id, std::int32_t>;  // a holding gang and its held blocks

  [[nodiscard]] std::vector<entry>::const_iterator find(gang_id id) const noexcept {
    return std::lower_bound(holds_.begin(), holds_.end(), id, [](const entry& e, gang_id x) { return e.first < x; });
  }
  void count(gang_id id, std::int32_t d) noexcept {
    const auto it = holds_.begin() + (find(id) - holds_.cbegin());
    if (it != holds_.end() && it->first == id) {
      it->second += d;
      if (it->second == 0) holds_.erase(it);
    } else {
      holds_.insert(it, {id, d});  // within the capacity reserved by resize
    }
  }

  std::vector<gang_id> held_;  // per base block (the topology's number): the exclusive holder
  std::vector<entry> holds_;   // per holding gang, ascending
};

}  // namespace gpurent
