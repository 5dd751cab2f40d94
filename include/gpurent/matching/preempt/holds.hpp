// SPDX-License-Identifier: MIT
#pragma once
// The holds of a preemption's notice window (preempt/preemptor.hpp): what the stopped
// victims still hold while they run out their notice. Their resources beyond the
// preemptor's until the notice ends (one placement per node and tenant), their tenancy
// (isolation) and their exclusive blocks until each stops. expire() gives held room back at
// its instant, and says which room and which block nodes are free again. Nothing allocates
// once grown.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include <gpurent/core/fleet_time.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/preempt/domains.hpp>

namespace gpurent {

// A victim the caller stopped: its members, the instant it stops running (its notice end
// or its completion), and whether it holds its blocks exclusively.
struct stopped_victim {
  gang_id job = no_gang;
  std::span<const placement> members;
  fleet_time stops;
  bool exclusive = false;
};

template <Placer Pl>
class victim_holds {
 public:
  victim_holds(Pl& placer, candidate_domains<Pl>& domains) : pl_(&placer), domains_(&domains) {}

  // What the stopped victims still hold at `now`: beyond the preemptor's `placed`, their
  // resources until `until` (the notice's end); their tenancy and exclusive blocks until
  // each stops.
  void hold_for(fleet_time now, fleet_time until, std::span<const placement> placed, std::span<const stopped_victim> victims) {
    hold_leftovers(now, until, placed, victims);
    for (const stopped_victim& v : victims) {
      if (v.stops <= now) continue;
      for (const placement& p : v.members) {
        placement h;
        h.node = p.node;
        h.tenant = p.tenant;
        h.isolation = p.isolation;
        hold_room(h, v.stops);
      }
    }
    for (const stopped_victim& v : victims)
      if (v.stops > now && v.exclusive) hold_blocks(v, v.stops);
  }

  // A preemptor's room, when it leaves before it starts (a node of it went down during the
  // notice): held until `until` (its start), since victims may still run there until then.
  // The blocks it held go back to the exclusive victims still in their notice there
  // (hold_blocks left a block the preemptor held to it, and its release freed the block).
  void hold_placed(std::span<const placement> placed, fleet_time until) {
    for (const placement& p : placed) hold_room(p, until);
    for (const block_hold& b : blocks_)
      if (b.active) pl_->hold_blocks(b.job, std::span<const placement>(block_members_.data() + b.first, b.count));
  }

  // Gives back every hold that ends at or before t: freed_room(h) for held room,
  // freed_node(n) for each node of a block that is open again.
  template <class FreedRoom, class FreedNode>
  void expire(fleet_time t, FreedRoom&& freed_room, FreedNode&& freed_node) {
    while (!ends_.empty() && ends_.top().time <= t) {
      const hold_end e = ends_.top();
      ends_.pop();
      if (!e.blocks) {
        pl_->unhold(room_[e.index]);
        freed_room(room_[e.index]);
        continue;
      }
      block_hold& b = blocks_[e.index];
      b.active = false;
      const std::span<const placement> members(block_members_.data() + b.first, b.count);
      pl_->unhold_blocks(b.job, members);
      domains_->block_nodes(members, freed_node);
    }
  }

  // The earliest instant a hold ends (never_ends: none).
  static constexpr fleet_time never_ends = fleet_time::max();
  [[nodiscard]] fleet_time next_expiry() const noexcept { return ends_.empty() ? never_ends : ends_.top().time; }

 private:
  struct hold_end {
    fleet_time time;
    std::uint64_t seq;  // holds ending together end in the order they were taken
    std::uint32_t index;
    bool blocks;
    friend bool operator>(const hold_end& a, const hold_end& b) noexcept { return a.time != b.time ? a.time > b.time : a.seq > b.seq; }
  };
  struct block_hold {
    gang_id job;
    std::uint32_t first, count;
    bool active;  // until it expires
  };
  struct held_room {
    milli_cpu cpu{0};
    mebibytes memory{0};
    std::array<std::int32_t, max_gpus_per_node> milli{};
    std::array<tenant_id, max_gpus_per_node> tenant{};  // per GPU: the victims' tenant
    std::uint16_t closed = 0;                           // bit g: a victim on GPU g asked for isolation
    std::uint16_t victims = 0;                          // bit g: a victim ran on GPU g
  };

  void hold_room(const placement& h, fleet_time until) {
    pl_->hold(h);
    room_.push_back(h);
    ends_.push(hold_end{until, seq_++, static_cast<std::uint32_t>(room_.size() - 1), false});
  }

  void hold_blocks(const stopped_victim& v, fleet_time until) {
    pl_->hold_blocks(v.job, v.members);
    blocks_.push_back(block_hold{v.job, static_cast<std::uint32_t>(block_members_.size()), static_cast<std::uint32_t>(v.members.size()), true});
    block_members_.insert(block_members_.end(), v.members.begin(), v.members.end());
    ends_.push(hold_end{until, seq_++, static_cast<std::uint32_t>(blocks_.size() - 1), true});
  }

  // Per node, max(0, victims' - preemptor's) of each GPU, CPU and memory, held until
  // `until` (one placement per tenant the GPUs answer to, hold_of), so that nothing else
  // lands on a victim still running; all that is idle on a victim's GPU that answers to a
  // stranger (stranger()).
  void hold_leftovers(fleet_time now, fleet_time until, std::span<const placement> placed, std::span<const stopped_victim> victims) {
    if (until <= now) return;
    leftover_.clear();
    for (const stopped_victim& v : victims)
      for (const placement& p : v.members) take_back(p, 1);
    for (const placement& p : placed) take_back(p, -1);
    for (const auto& [n, acc] : leftover_) {
      holds_.clear();
      for (std::size_t g = 0; g < max_gpus_per_node; ++g) {
        if ((acc.victims >> g & 1U) == 0) continue;
        const bool strange = stranger(n, g, acc);
        const std::int32_t milli = strange ? pl_->inv().state(n).idle[g] : acc.milli[g];
        if (milli <= 0) continue;
        placement& h = hold_of(n, g, acc, strange);
        h.gpus[h.count++] = gpu_take{static_cast<std::uint8_t>(g), static_cast<std::int16_t>(milli), -1, 0};
      }
      if (acc.cpu > milli_cpu{0} || acc.memory > mebibytes{0}) {
        if (holds_.empty()) holds_.push_back(placement_on(n, no_tenant, isolation_level::gpu));
        holds_.front().cpu_milli = std::max(milli_cpu{0}, acc.cpu);
        holds_.front().memory_mib = std::max(mebibytes{0}, acc.memory);
      }
      for (const placement& h : holds_) hold_room(h, until);
    }
  }

  // Whether GPU g of node n answers to another tenant than its victims' now (the
  // preemptor's, or work that shared the GPU with them at none). The inventory keeps one
  // owner per GPU, so it cannot say that the victims still run there: the hold then takes
  // all that is idle on the GPU, and nothing joins it before the notice ends.
  [[nodiscard]] bool stranger(node_index n, std::size_t g, const held_room& acc) const noexcept {
    const node_state& s = pl_->inv().state(n);
    return s.users[g] != 0 && s.owner[g] != acc.tenant[g];
  }

  // The hold that takes GPU g of node n stands in for its victims: their tenant, at GPU
  // isolation when one of them asked for it (so no stranger joins the GPU while they still
  // run), else at none. On a stranger's GPU it joins the owner at none (it takes what is
  // idle there). One hold per (tenant, level) on a node.
  placement& hold_of(node_index n, std::size_t g, const held_room& acc, bool stranger) {
    const node_state& s = pl_->inv().state(n);
    const tenant_id t = stranger ? s.owner[g] : acc.tenant[g];
    const isolation_level level = (acc.closed >> g & 1U) != 0 && !stranger ? isolation_level::gpu : isolation_level::none;
    auto it = std::find_if(holds_.begin(), holds_.end(), [&](const placement& h) { return h.tenant == t && h.isolation == level; });
    if (it != holds_.end()) return *it;
    holds_.push_back(placement_on(n, t, level));
    return holds_.back();
  }

  [[nodiscard]] static placement placement_on(node_index n, tenant_id t, isolation_level level) noexcept {
    placement h;
    h.node = n;
    h.tenant = t;
    h.isolation = level;
    return h;
  }

  // Adds (sign 1) or subtracts (-1) p into its node's leftover.
  void take_back(const placement& p, int sign) {
    auto it = std::find_if(leftover_.begin(), leftover_.end(), [&](const auto& x) { return x.first == p.node; });
    if (it == leftover_.end()) {
      if (sign < 0) return;  // the preemptor on a node no victim held
      leftover_.emplace_back(p.node, held_room{});
      it = leftover_.end() - 1;
    }
    it->second.cpu += sign * p.cpu_milli;
    it->second.memory += sign * p.memory_mib;
    for (std::size_t i = 0; i < p.count; ++i) {
      const std::size_t g = p.gpus[i].gpu;
      held_room& r = it->second;
      if (sign > 0) note_victim(r, g, p);
      r.milli[g] += sign * p.gpus[i].milli;
    }
  }

  // A victim's member on GPU g: its tenant, and whether it closed the GPU to strangers.
  static void note_victim(held_room& r, std::size_t g, const placement& p) noexcept {
    const auto bit = static_cast<std::uint16_t>(1U << g);
    if ((r.victims & bit) == 0) r.tenant[g] = p.tenant;
    r.victims = static_cast<std::uint16_t>(r.victims | bit);
    if (p.isolation != isolation_level::none) r.closed = static_cast<std::uint16_t>(r.closed | bit);
  }

  Pl* pl_;
  candidate_domains<Pl>* domains_;
  std::vector<std::pair<node_index, held_room>> leftover_;
  std::vector<placement> holds_;  // one node's leftover holds (hold_leftovers)
  std::vector<placement> room_;
  std::vector<block_hold> blocks_;
  std::vector<placement> block_members_;
  std::priority_queue<hold_end, std::vector<hold_end>, std::greater<>> ends_;
  std::uint64_t seq_ = 0;
};

}  // namespace gpurent
