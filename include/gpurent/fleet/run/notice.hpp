// SPDX-License-Identifier: MIT
#pragma once
// The victims still running out their notice window (fleet/run/run.hpp): stopped by a
// preemption, they run until the notice ends (or they complete within it). A node that goes
// down in the meantime stops them at once, as every job on it (docs/fleet.md, "Node
// events"): then the preemption's outcome (saved work, completion) no longer holds and the
// loop books a failure instead, from what is kept here. Kept only in runs with node events;
// the entries whose notice is over are dropped at each node going down.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/core/fleet_time.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// A victim in its notice window.
struct stopping_victim {
  std::uint32_t job = 0;
  std::uint32_t segment = 0;      // its stopping segment
  fleet_time stop;                // when it stops: the notice's end, or its completion
  seconds work_left{0};           // its work left before the preemption
  std::int64_t lost_milli_s = 0;  // what the preemption booked as lost
  bool completes = false;         // it completes within the notice
};

class notice_window {
 public:
  void add(const stopping_victim& v) { list_.push_back(v); }

  // The victims still stopping after t with a member on node n: taken out, f(v) for each.
  // members(v) are v's placements.
  template <class Members, class F>
  void on_down(node_index n, fleet_time t, Members&& members, F&& f) {
    std::erase_if(list_, [&](const stopping_victim& v) { return v.stop <= t; });
    hit_.clear();
    std::erase_if(list_, [&](const stopping_victim& v) {
      const std::span<const placement> ps = members(v);
      if (std::none_of(ps.begin(), ps.end(), [&](const placement& p) { return p.node == n; })) return false;
      hit_.push_back(v);
      return true;
    });
    for (const stopping_victim& v : hit_) f(v);
  }

 private:
  std::vector<stopping_victim> list_;
  std::vector<stopping_victim> hit_;
};

}  // namespace gpurent
