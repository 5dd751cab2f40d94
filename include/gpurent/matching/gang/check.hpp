// SPDX-License-Identifier: MIT
#pragma once
// An independent check of placed gangs against the rules of docs/formats/fleet.md, sharing no code with the
// placer: it rebuilds every node's use from the placements alone and counts the members
// placed against a rule (`fleet pack` prints the count as `violations`, which must be 0).
//
// Rules: a member takes exactly its request (num_gpu distinct GPUs of the node, gpu_milli
// each, its CPU and memory), of an allowed model; no node's CPU or memory and no GPU's 1000
// milli is exceeded; no GPU is shared by two tenants unless all its users asked for no
// isolation, no node by two when one asked for node isolation, no network segment (node_spec::
// segment) by two when one asked for network isolation; nothing on a down or drained node
// (conditions as they were when the gangs were placed); a gang has all its members or none;
// at most per_node of a gang on one node; a gang with a topology rule only on nodes in the
// topology; `required`: one domain of that level; `segment`: each group of s members in one
// base block; `exclusive`: no other gang's member in a base block the gang uses; a member
// under network isolation in its network segment (the one it names, if any), and all of a
// gang's such members in one.
//
// The rules fall in two kinds (gang_rules): a gang's *own* read only its own placements
// (each member's node and request, all or nothing, per_node, required, segments); the
// *shared* ones read what else is placed on the same node (capacity, tenancy), network
// segment (tenancy) or base block (exclusive). check_gang_flags applies either kind and says
// which member broke one, so a caller can check the shared rules one place at a time
// (fleet/run/check.hpp).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

struct gang_check_result {
  std::size_t violations = 0;         // members placed against at least one rule
  std::vector<std::string> messages;  // the first few, "gang 3 member 2: ..."
  static constexpr std::size_t max_messages = 20;
};

// Which rules a check applies (see the header comment).
enum class gang_rules : std::uint8_t { own = 1, shared = 2, all = 3 };

// A member placed against a rule, and the first rule it broke.
struct gang_check_note {
  std::size_t gang = 0;
  std::size_t member = 0;
  std::string why;
};

// Which members broke a rule: flagged[j][m] for gang j's member m; notes for the first
// gang_check_result::max_messages of them.
struct gang_check_flags {
  std::vector<std::vector<bool>> flagged;
  std::vector<gang_check_note> notes;
};

namespace detail {

class gang_checker {
 public:
  gang_checker(const inventory& inv, const cluster_topology& t, std::span<const gang_request> gangs, std::span<const std::vector<placement>> placed)
      : inv_(inv), t_(t), gangs_(gangs), placed_(placed) {
    for (std::size_t j = 0; j < placed.size(); ++j) out_.flagged.emplace_back(placed[j].size(), false);
  }

  [[nodiscard]] gang_check_flags run(gang_rules rules) {
    const bool own = (static_cast<unsigned>(rules) & static_cast<unsigned>(gang_rules::own)) != 0;
    const bool shared = (static_cast<unsigned>(rules) & static_cast<unsigned>(gang_rules::shared)) != 0;
    for (std::size_t j = 0; own && j < gangs_.size(); ++j) check_members(j);
    if (shared) check_capacity();
    for (std::size_t j = 0; own && j < gangs_.size(); ++j) check_gang_rules(j);
    if (shared) check_exclusive();
    return std::move(out_);
  }

 private:
  void flag(std::size_t j, std::size_t m, const std::string& why) {
    if (!out_.flagged[j][m] && out_.notes.size() < gang_check_result::max_messages) out_.notes.push_back({j, m, why});
    out_.flagged[j][m] = true;
  }
  void flag_all(std::size_t j, const std::string& why) {
    for (std::size_t m = 0; m < placed_[j].size(); ++m) flag(j, m, why);
  }

  // Each member on its own: the node, its condition and model, exactly its request.
  void check_members(std::size_t j) {
    const gang_request& g = gangs_[j];
    for (std::size_t m = 0; m < placed_[j].size(); ++m) {
      const placement& p = placed_[j][m];
      if (p.node >= inv_.size()) {
        flag(j, m, "no such node");
        continue;
      }
      const placement_request& r = g.at(g.homogeneous() ? 0 : m);
      const node_spec& s = inv_.spec(p.node);
      if (inv_.condition(p.node) != node_condition::up) flag(j, m, "on a node that is " + std::string(to_string(inv_.condition(p.node))));
      if (g.topology_bound() && !t_.in_topology(p.node)) flag(j, m, "a gang with topology rules on a node outside the topology");
      if (p.cpu_milli != r.cpu_milli || p.memory_mib != r.memory_mib || p.tenant != r.tenant || p.isolation != r.isolation)
        flag(j, m, "CPU, memory, tenant or isolation differ from the request");
      if (p.count != r.num_gpu) flag(j, m, "takes " + std::to_string(p.count) + " GPUs, asked for " + std::to_string(r.num_gpu));
      if (p.count > 0 && (r.allowed_models >> s.model & 1U) == 0) flag(j, m, "a GPU model the request does not allow");
      if (r.isolation == isolation_level::network && (s.segment == no_segment || (r.segment != no_segment && s.segment != r.segment)))
        flag(j, m, "network isolation on node " + s.name + ", outside its network segment");
      std::uint32_t seen = 0;
      for (std::size_t i = 0; i < p.count; ++i) {
        const gpu_take t = p.gpus[i];
        if (t.gpu >= s.gpu_count || (seen >> t.gpu & 1U) != 0 || t.milli != r.gpu_milli.count() || t.mig_start >= 0)
          flag(j, m, "GPU " + std::to_string(t.gpu) + " is not a distinct GPU of the node taken at the requested share");
        if (t.gpu < 32) seen |= 1U << t.gpu;
      }
    }
  }

  // Who uses a GPU or a node: the first tenant seen, whether another tenant came too, and
  // whether a user asked to keep strangers out (`closed`).
  struct tenants_seen {
    tenant_id first{};
    bool used = false, mixed = false, closed = false;
    void add(tenant_id t, bool closes) noexcept {
      mixed = mixed || (used && t != first);
      if (!used) first = t;
      used = true;
      closed = closed || closes;
    }
    [[nodiscard]] bool broken() const noexcept { return mixed && closed; }
  };

  // Every node's and GPU's use, summed over all members; tenancy: two tenants on a GPU only
  // when all its users asked for no isolation, on a node only when none asked for node (or
  // network) isolation, in a network segment only when none asked for network isolation.
  void check_capacity() {
    struct use {
      milli_cpu cpu{0};
      mebibytes memory{0};
      std::array<std::int32_t, max_gpus_per_node> milli{};
      std::array<tenants_seen, max_gpus_per_node> gpu{};
      tenants_seen node;
    };
    std::map<node_index, use> nodes;
    std::map<segment_id, tenants_seen> segments;
    for (std::size_t j = 0; j < placed_.size(); ++j)
      for (const placement& p : placed_[j]) {
        if (p.node >= inv_.size()) continue;
        if (const segment_id sg = inv_.spec(p.node).segment; sg != no_segment) segments[sg].add(p.tenant, p.isolation == isolation_level::network);
        use& u = nodes[p.node];
        u.cpu += p.cpu_milli;
        u.memory += p.memory_mib;
        u.node.add(p.tenant, p.isolation >= isolation_level::node);
        for (std::size_t i = 0; i < p.count && p.gpus[i].gpu < max_gpus_per_node; ++i) {
          u.milli[p.gpus[i].gpu] += p.gpus[i].milli;
          u.gpu[p.gpus[i].gpu].add(p.tenant, p.isolation != isolation_level::none);
        }
      }
    for (std::size_t j = 0; j < placed_.size(); ++j)
      for (std::size_t m = 0; m < placed_[j].size(); ++m) {
        const auto it = nodes.find(placed_[j][m].node);
        if (it == nodes.end()) continue;
        const use& u = it->second;
        const node_spec& s = inv_.spec(it->first);
        const bool over =
            u.cpu > s.cpu_milli || u.memory > s.memory_mib || std::any_of(u.milli.begin(), u.milli.end(), [](std::int32_t x) { return x > 1000; });
        if (over) flag(j, m, "node " + s.name + " is over its capacity");
        if (std::any_of(u.gpu.begin(), u.gpu.end(), [](const tenants_seen& g) { return g.broken(); }))
          flag(j, m, "node " + s.name + " has a GPU shared by two tenants, one of them isolated");
        if (u.node.broken()) flag(j, m, "node " + s.name + " holds two tenants, one of them in node isolation");
        if (s.segment != no_segment && segments[s.segment].broken())
          flag(j, m, "network segment " + std::string(inv_.segment_name(s.segment)) + " holds two tenants, one of them in network isolation");
      }
  }

  // The gang's own rules: all or nothing, per node, one network segment, required level, segments.
  void check_gang_rules(std::size_t j) {
    const gang_request& g = gangs_[j];
    const auto& ps = placed_[j];
    if (ps.empty()) return;
    if (ps.size() != g.size()) flag_all(j, "placed " + std::to_string(ps.size()) + " of " + std::to_string(g.size()) + " members");
    std::map<node_index, std::int32_t> per_node;
    for (const placement& p : ps) ++per_node[p.node];
    for (std::size_t m = 0; m < ps.size(); ++m)
      if (g.per_node > 0 && per_node[ps[m].node] > g.per_node) flag(j, m, "more than " + std::to_string(g.per_node) + " members on one node");
    segment_id seg = no_segment;
    for (std::size_t m = 0; m < ps.size(); ++m) {
      if (ps[m].isolation != isolation_level::network || ps[m].node >= inv_.size()) continue;
      if (seg == no_segment) seg = inv_.spec(ps[m].node).segment;
      if (inv_.spec(ps[m].node).segment != seg) flag_all(j, "network-isolated members in two network segments");
    }
    if (g.required != no_level && g.required < t_.level_count() && !same_domain(ps, 0, ps.size(), g.required))
      flag_all(j, "not inside one " + std::string(t_.level_name(g.required)) + " domain");
    if (g.segment > 0 && t_.level_count() > 0)
      for (std::size_t b = 0; b < ps.size(); b += static_cast<std::size_t>(g.segment))
        if (!same_domain(ps, b, std::min(ps.size(), b + static_cast<std::size_t>(g.segment)), t_.block_level()))
          for (std::size_t m = b; m < std::min(ps.size(), b + static_cast<std::size_t>(g.segment)); ++m)
            flag(j, m, "a segment split across base blocks");
  }

  [[nodiscard]] bool same_domain(const std::vector<placement>& ps, std::size_t first, std::size_t end, level_index l) const {
    for (std::size_t m = first; m < end; ++m) {
      if (ps[m].node >= inv_.size() || !t_.in_topology(ps[m].node)) return false;
      if (t_.domain_of(ps[m].node, l) != t_.domain_of(ps[first].node, l)) return false;
    }
    return true;
  }

  // Base blocks an exclusive gang uses hold no other gang's member.
  void check_exclusive() {
    if (t_.level_count() == 0) return;
    std::map<domain_index, std::vector<std::size_t>> gangs_in;  // block -> gangs with members there
    for (std::size_t j = 0; j < placed_.size(); ++j)
      for (const placement& p : placed_[j]) {
        if (p.node >= inv_.size() || !t_.in_topology(p.node)) continue;
        auto& v = gangs_in[t_.block_of(p.node)];
        if (v.empty() || v.back() != j) v.push_back(j);
      }
    for (const auto& [block, js] : gangs_in) {
      if (js.size() < 2 || std::none_of(js.begin(), js.end(), [&](std::size_t j) { return gangs_[j].exclusive; })) continue;
      for (const std::size_t j : js)
        for (std::size_t m = 0; m < placed_[j].size(); ++m)
          if (placed_[j][m].node < inv_.size() && t_.in_topology(placed_[j][m].node) && t_.block_of(placed_[j][m].node) == block)
            flag(j, m, "shares base block " + std::string(t_.domain_name(t_.block_level(), block)) + " with an exclusive gang");
    }
  }

  const inventory& inv_;
  const cluster_topology& t_;
  std::span<const gang_request> gangs_;
  std::span<const std::vector<placement>> placed_;
  gang_check_flags out_;
};

}  // namespace detail

// The members of placed gangs (placed[j]: gang j's placements in member order, empty when it
// was not placed) that break one of `rules` on a cluster: inv's specs and models (not its
// live state), t's domains and conditions.
[[nodiscard]] inline gang_check_flags check_gang_flags(const inventory& inv, const cluster_topology& t, std::span<const gang_request> gangs,
                                                       std::span<const std::vector<placement>> placed, gang_rules rules) {
  GPURENT_ASSERT(gangs.size() == placed.size());
  return detail::gang_checker(inv, t, gangs, placed).run(rules);
}

// "gang 3 member 2: why".
[[nodiscard]] inline std::string gang_check_message(const gang_check_note& n) {
  return "gang " + std::to_string(n.gang) + " member " + std::to_string(n.member) + ": " + n.why;
}

// Every rule: the members placed against one, counted, and the first few named.
[[nodiscard]] inline gang_check_result check_gangs(const inventory& inv, const cluster_topology& t, std::span<const gang_request> gangs,
                                                   std::span<const std::vector<placement>> placed) {
  const gang_check_flags f = check_gang_flags(inv, t, gangs, placed, gang_rules::all);
  gang_check_result r;
  for (const auto& g : f.flagged) r.violations += static_cast<std::size_t>(std::count(g.begin(), g.end(), true));
  for (const gang_check_note& n : f.notes) r.messages.push_back(gang_check_message(n));
  return r;
}

}  // namespace gpurent
