// SPDX-License-Identifier: MIT
#pragma once
// Exact search for a gang whose members differ (a homogeneous gang is decided by counting,
// gang/placer.hpp). Depth first over the members, largest first, each tried on the candidate nodes
// in their order, on scratch copies of the nodes it touched (the inventory is not changed),
// with the gang's rules: per-node cap, tenancy (a member that asks for node isolation keeps
// other tenants' members off its node, and the other way round; network isolation the same
// in the node's network segment), and segments (members in order in groups of s, each
// group inside one base block). It backtracks, so a 2 + 4 gang on nodes of 4 and 2 GPUs is
// found in either order. Pruning, none of which loses a placement:
//   - identical members in a row take nodes in non-decreasing candidate order (any placement
//     can be reordered so);
//   - of the nodes this search has not touched, one is tried per shape (spec but the name,
//     with the inventory's untouched state) and base block: the others answer the same;
//   - a member no candidate admits at all, or GPU, CPU or memory sums that do not fit, end
//     the search before it starts.
// Bin packing is NP-hard, so the search has a step budget; `exhausted()` says when it ran
// out (then the answer is "not found", not "cannot fit").

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/matching/tenancy.hpp>
#include <gpurent/spec/cluster_topology.hpp>

namespace gpurent {

// Two nodes of the same shape: equal specs but the name.
[[nodiscard]] inline bool same_node_shape(const node_spec& a, const node_spec& b) noexcept {
  return a.cpu_milli == b.cpu_milli && a.memory_mib == b.memory_mib && a.gpu_count == b.gpu_count && a.model == b.model &&
         a.nvlink_domain == b.nvlink_domain && a.pcie_switch == b.pcie_switch && a.labels == b.labels && a.reserved_for == b.reserved_for &&
         a.spot == b.spot && a.mig_gpus == b.mig_gpus && a.segment == b.segment;
}

class gang_search {
 public:
  static constexpr std::size_t default_budget = 2'000'000;

  // The gang's rules and candidates. admits(n, r): r may go to node n at all (the static
  // constraints, on the inventory as it is); block_of(n): n's base block (`outside_topology`: none).
  struct input {
    std::span<const placement_request> members;
    std::int32_t per_node = 0;
    std::int32_t segment = 0;
    std::span<const node_index> nodes;
    bool symmetric = true;  // admits answers by a node's spec and state alone (NodeSymmetric)
  };

  // One placement per member (member order) into out; false when there is none (or the
  // budget ran out: exhausted()).
  template <class Admits, class BlockOf>
  [[nodiscard]] bool run(const inventory& inv, const input& in, Admits&& admits, BlockOf&& block_of, std::vector<placement>& out,
                         std::size_t budget = default_budget) {
    inv_ = &inv;
    in_ = in;
    steps_left_ = budget;
    exhausted_ = false;
    prepare();
    if (!possible(admits)) return false;
    if (!dfs(0, admits, block_of)) return false;
    out.assign(result_.begin(), result_.end());
    return true;
  }
  [[nodiscard]] bool exhausted() const noexcept { return exhausted_; }

 private:
  // A node as this search has filled it: its state and its tenants (so that node isolation
  // holds between members of different tenants, as inventory::place would keep it).
  struct scratch {
    node_index node;
    node_state state;
    node_tenancy tenancy;
    std::int32_t members = 0;
  };
  // A network segment as this search has filled it: its tenants (network isolation between
  // members of different tenants, as inventory::place would keep it).
  struct segment_scratch {
    segment_id segment;
    segment_tenancy tenancy;
  };

  void prepare() {
    const std::size_t k = in_.members.size();
    order_.resize(k);
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    const auto size = [&](std::size_t i) {
      const placement_request& r = in_.members[i];
      return std::tuple(r.gpu_request_milli(), r.num_gpu, r.cpu_milli, r.memory_mib);
    };
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return size(a) > size(b); });
    pos_.assign(k, 0);
    result_.assign(k, placement{});
    touched_.clear();
    segments_.clear();
    const std::size_t groups = in_.segment > 0 ? k / static_cast<std::size_t>(in_.segment) : 0;
    pin_.assign(groups, outside_topology);
    tried_.clear();
  }

  // Necessary conditions: every member admitted somewhere, and the sums fit the candidates.
  template <class Admits>
  [[nodiscard]] bool possible(Admits& admits) const {
    std::int64_t gpu = 0, gpu_free = 0;
    milli_cpu cpu{0}, cpu_free{0};
    mebibytes mem{0}, mem_free{0};
    for (const placement_request& r : in_.members) {
      gpu += r.gpu_request_milli();
      cpu += r.cpu_milli;
      mem += r.memory_mib;
      if (std::none_of(in_.nodes.begin(), in_.nodes.end(), [&](node_index n) { return admits(n, r); })) return false;
    }
    for (const node_index n : in_.nodes) {
      gpu_free += inv_->hot(n).idle_total;
      cpu_free += inv_->hot(n).cpu_free;
      mem_free += inv_->hot(n).memory_free;
    }
    return gpu <= gpu_free && cpu <= cpu_free && mem <= mem_free;
  }

  [[nodiscard]] scratch* find_touched(node_index n) noexcept {
    for (scratch& s : touched_)
      if (s.node == n) return &s;
    return nullptr;
  }

  // The tenants of node n's segment as this search has filled it (null: no segment).
  [[nodiscard]] segment_tenancy* segment_of(node_index n) {
    const segment_id sg = inv_->spec(n).segment;
    if (sg == no_segment) return nullptr;
    for (segment_scratch& s : segments_)
      if (s.segment == sg) return &s.tenancy;
    return &segments_.emplace_back(segment_scratch{sg, inv_->segment_tenants(sg)}).tenancy;
  }

  // Whether an untouched node of n's shape (and block) was already tried at this depth.
  template <class BlockOf>
  [[nodiscard]] bool twin_tried(std::size_t mark, node_index n, BlockOf& block_of) const {
    for (std::size_t i = mark; i < tried_.size(); ++i) {
      const node_index t = tried_[i];
      if (same_node_shape(inv_->spec(t), inv_->spec(n)) && (in_.segment == 0 || block_of(t) == block_of(n))) return true;
    }
    return false;
  }

  template <class Admits, class BlockOf>
  [[nodiscard]] bool dfs(std::size_t i, Admits& admits, BlockOf& block_of) {
    if (i == order_.size()) return true;
    const std::size_t m = order_[i];
    const placement_request& r = in_.members[m];
    const std::size_t seg = in_.segment > 0 ? m / static_cast<std::size_t>(in_.segment) : 0;
    const bool repeat =
        i > 0 && in_.members[order_[i - 1]] == r && (in_.segment == 0 || order_[i - 1] / static_cast<std::size_t>(in_.segment) == seg);
    const std::size_t mark = tried_.size();
    bool found = false;
    for (std::size_t p = repeat ? pos_[i - 1] : 0; p < in_.nodes.size() && !found; ++p) {
      if (steps_left_ == 0) {
        exhausted_ = true;
        break;
      }
      --steps_left_;
      found = try_node(i, m, seg, p, mark, admits, block_of);
    }
    tried_.resize(mark);
    return found;
  }

  // Member m (the i-th tried) on candidate p: place it on the scratch copy, go deeper, undo.
  // `mark`: where this depth's tried untouched nodes start in tried_.
  template <class Admits, class BlockOf>
  [[nodiscard]] bool try_node(std::size_t i, std::size_t m, std::size_t seg, std::size_t p, std::size_t mark, Admits& admits, BlockOf& block_of) {
    const node_index n = in_.nodes[p];
    const placement_request& r = in_.members[m];
    const domain_index b = in_.segment > 0 ? block_of(n) : outside_topology;
    if (in_.segment > 0 && (b == outside_topology || (pin_[seg] != outside_topology && pin_[seg] != b))) return false;
    scratch* s = find_touched(n);
    if (s == nullptr && in_.symmetric && inv_->untouched(n) && twin_tried(mark, n, block_of)) return false;
    if (!admits(n, r) || (s != nullptr && !s->tenancy.admits(r.tenant, r.isolation))) return false;
    if (const segment_tenancy* t = segment_of(n); t != nullptr && !t->admits(r.tenant, r.isolation)) return false;
    const node_state& state = s != nullptr ? s->state : inv_->state(n);
    if (in_.per_node > 0 && s != nullptr && s->members >= in_.per_node) return false;
    gpu_pick pick;
    if (state.cpu_free < r.cpu_milli || state.memory_free < r.memory_mib || !pick_first_gpus(inv_->spec(n), state, r, pick)) return false;
    if (s == nullptr && inv_->untouched(n)) tried_.push_back(n);
    return descend(i, m, seg, p, b, pick, admits, block_of);
  }

  template <class Admits, class BlockOf>
  [[nodiscard]] bool descend(std::size_t i, std::size_t m, std::size_t seg, std::size_t p, domain_index b, const gpu_pick& pick, Admits& admits,
                             BlockOf& block_of) {
    const node_index n = in_.nodes[p];
    const placement_request& r = in_.members[m];
    if (find_touched(n) == nullptr) touched_.push_back(scratch{n, inv_->state(n), inv_->tenancy(n), 0});
    scratch& s = *find_touched(n);
    const scratch saved = s;
    segment_tenancy* t = segment_of(n);  // looked up again below: deeper steps may add segments
    const bool in_segment = t != nullptr;
    const segment_tenancy saved_segment = in_segment ? *t : segment_tenancy{};
    result_[m] = inventory::make_placement(n, r, pick);
    inventory::take(s.state, result_[m]);
    s.tenancy.add(result_[m]);
    if (in_segment) t->add(result_[m]);
    ++s.members;
    const bool pins = in_.segment > 0 && pin_[seg] == outside_topology;
    if (pins) pin_[seg] = b;
    pos_[i] = p;
    if (dfs(i + 1, admits, block_of)) return true;
    if (pins) pin_[seg] = outside_topology;
    *find_touched(n) = saved;
    if (in_segment) *segment_of(n) = saved_segment;
    return false;
  }

  const inventory* inv_ = nullptr;
  input in_;
  std::vector<std::size_t> order_;
  std::vector<std::size_t> pos_;
  std::vector<placement> result_;
  std::vector<scratch> touched_;
  std::vector<segment_scratch> segments_;
  std::vector<domain_index> pin_;
  std::vector<node_index> tried_;
  std::size_t steps_left_ = 0;
  bool exhausted_ = false;
};

// A gang of different members placed by the exact search on the groups of `layout` that
// `usable` opens: in the preferred level's domains first, then the required level's (or the
// whole cluster). Its placements into out; nothing is placed. `nodes`: scratch.
template <ConstraintSet Cs, class Usable>
[[nodiscard]] bool search_layout(gang_search& search, const gang_layout& layout, const inventory& inv, const cluster_topology& topo,
                                 const gang_request& g, Usable&& usable, std::vector<node_index>& nodes, std::vector<placement>& out) {
  const auto try_groups = [&](group_index first, group_index end) {
    nodes.clear();
    for (group_index gi = first; gi < end; ++gi)
      if (usable(gi)) nodes.insert(nodes.end(), layout.nodes_of(gi).begin(), layout.nodes_of(gi).end());
    const gang_search::input in{g.members, g.per_node, g.segment, nodes, Cs::node_symmetric};
    const auto admits = [&inv](node_index n, const placement_request& r) { return Cs::admits(inv, n, r); };
    return search.run(
        inv, in, admits, [&topo](node_index n) { return topo.block_of(n); }, out);
  };
  const auto try_level = [&](std::size_t l) {
    for (std::uint32_t d = 0; d < layout.domain_count(l); ++d)
      if (try_groups(layout.first_group(l, d), layout.end_group(l, d))) return true;
    return false;
  };
  if (g.preferred != no_level && (g.required == no_level || g.preferred > g.required) && try_level(g.preferred)) return true;
  return g.required != no_level ? try_level(g.required) : try_groups(0, static_cast<group_index>(layout.group_count()));
}

}  // namespace gpurent
