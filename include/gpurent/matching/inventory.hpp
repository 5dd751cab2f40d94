// SPDX-License-Identifier: MIT
#pragma once
// The cluster as the matcher sees it: nodes with their GPUs (model, NVLink domain, PCIe
// switch), CPU, memory, labels and reservations, and the live state of each (free CPU and
// memory, idle milli-GPU and owning tenant per GPU, whether it is up). Place, release and
// set_condition keep the per-node summaries (idle total, fully idle count, largest idle
// share) up to date, so feasibility checks are O(1) and policies can cache per node by
// `version`, and note each changed node in a short journal that incremental indexes (the
// matcher's) follow.

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
#include <gpurent/matching/node_types.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/matching/tenancy.hpp>
#include <gpurent/spec/mig.hpp>

namespace gpurent {

class inventory : public gpu_vocabulary {
 public:
  static constexpr std::size_t journal_capacity = detail::change_journal::capacity;

  // Network segments (partition keys, VLANs) by name: interned once, ids from 1.
  segment_id segment(std::string_view name) {
    for (std::size_t i = 0; i < segments_.size(); ++i) {
      if (segments_[i] == name) return static_cast<segment_id>(i + 1);
    }
    segments_.emplace_back(name);
    segment_tenants_.emplace_back();
    return static_cast<segment_id>(segments_.size());
  }
  [[nodiscard]] std::string_view segment_name(segment_id id) const noexcept { return id == no_segment ? std::string_view{} : segments_[id - 1]; }
  // Who holds work in network segment id (network isolation: a segment in use by a network
  // placement is its tenant's until the last one leaves); empty for no_segment.
  [[nodiscard]] const segment_tenancy& segment_tenants(segment_id id) const noexcept {
    static constexpr segment_tenancy none{};
    return id == no_segment ? none : segment_tenants_[id - 1];
  }
  // Segments held in network isolation now: none, and no node needs a look.
  [[nodiscard]] std::size_t held_segments() const noexcept { return held_segments_; }
  // Bumped whenever a segment's tenants change so that a segment constraint may answer r
  // differently on some node without that node changing: for a request under network
  // isolation any change of a segment's tenants, for others a hold that starts or ends (or a
  // change of tenants while held). What caches of the constraints' answers key on (gang
  // capacity counts), beside the node versions.
  [[nodiscard]] std::uint64_t segment_changes(const placement_request& r) const noexcept {
    return r.isolation == isolation_level::network ? segment_tenant_changes_ : segment_hold_changes_;
  }
  // Live placements that asked for a node to themselves: none, and no node needs a look.
  [[nodiscard]] std::size_t isolating_placements() const noexcept { return isolating_; }

  // Whether node s can join this inventory, else an error naming the node: at most
  // max_gpus_per_node GPUs, of a model added before, MIG mode only on GPUs it has of a model
  // with MIG geometry, a network segment interned before (segment()).
  [[nodiscard]] expected<void> check_node(const node_spec& s) const {
    const auto bad = [&s](std::string field, const std::string& why) {
      return make_error(error_code::invalid_argument, std::move(field), "node \"" + s.name + "\": " + why);
    };
    if (s.gpu_count > max_gpus_per_node)
      return bad("gpu_count", "at most " + std::to_string(max_gpus_per_node) + " GPUs, got " + std::to_string(s.gpu_count));
    if (s.gpu_count > 0 && s.model >= model_count()) return bad("model", "no GPU model " + std::to_string(s.model) + " in the inventory");
    if ((s.mig_gpus >> s.gpu_count) != 0) return bad("mig_gpus", "MIG mode on a GPU the node does not have");
    if (s.mig_gpus != 0 && model(s.model).mig == nullptr)
      return bad("mig_gpus", "MIG mode on GPU model \"" + model(s.model).name + "\", which has no MIG geometry (find_mig_geometry)");
    if (s.segment > segments_.size()) return bad("segment", "no network segment " + std::to_string(s.segment) + " in the inventory");
    return {};
  }

  // Adds node s, or says why it cannot (check_node): a bad configuration is an error for the
  // caller, never a stopped program.
  [[nodiscard]] expected<node_index> try_add_node(node_spec s) {
    GPURENT_TRY(check_node(s));
    return add_checked(std::move(s));
  }
  // try_add_node for a node the caller knows is valid: a bad one throws gpurent::exception
  // with check_node's error (as money's operator+ throws what plus returns).
  node_index add_node(node_spec s) {
    if (auto ok = check_node(s); !ok) throw exception(std::move(ok.error()));
    return add_checked(std::move(s));
  }

  [[nodiscard]] std::size_t size() const noexcept { return specs_.size(); }
  [[nodiscard]] const node_spec& spec(node_index n) const noexcept { return specs_[n]; }
  [[nodiscard]] const node_state& state(node_index n) const noexcept { return states_[n]; }
  [[nodiscard]] const node_hot& hot(node_index n) const noexcept { return hot_[n]; }
  // Which tenants hold work on node n (node and network isolation).
  [[nodiscard]] const node_tenancy& tenancy(node_index n) const noexcept { return tenancy_[n]; }
  // The MIG instances on GPU g of node n (empty unless the GPU is in MIG mode).
  [[nodiscard]] const mig_layout& mig(node_index n, std::size_t g) const noexcept { return mig_[n][g]; }
  // Bumped whenever capacity can grow (release, undrain, a new node): a request that found
  // no node stays unplaceable until then.
  [[nodiscard]] std::uint64_t release_epoch() const noexcept { return release_epoch_; }
  // Nothing placed and up: the state add_node gave the node, so two untouched
  // nodes with equal specs (the name aside) are in equal states.
  [[nodiscard]] bool untouched(node_index n) const noexcept { return states_[n].placements == 0 && states_[n].condition == node_condition::up; }
  // The change journal: place, release, set_condition and add_node each count one change of one
  // node; changed_node(i) is the node of change i (0-based) while i >= change_count() -
  // journal_capacity.
  [[nodiscard]] std::uint64_t change_count() const noexcept { return journal_.count; }
  [[nodiscard]] node_index changed_node(std::uint64_t i) const noexcept {
    GPURENT_ASSERT(i < journal_.count && journal_.count - i <= journal_capacity);
    return journal_.nodes[i % journal_capacity];
  }
  // Bumped when the inventory is assigned over: node versions and the release epoch may
  // then repeat values they had before, so caches keyed on them must start over.
  [[nodiscard]] std::uint64_t generation() const noexcept { return journal_.generation; }
  [[nodiscard]] std::int64_t gpu_capacity_milli() const noexcept { return gpu_capacity_milli_; }
  [[nodiscard]] std::int64_t gpu_allocated_milli() const noexcept { return gpu_allocated_milli_; }
  [[nodiscard]] std::size_t gpu_count() const noexcept { return gpu_count_; }
  [[nodiscard]] std::optional<node_index> find_node(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      if (specs_[i].name == name) return static_cast<node_index>(i);
    }
    return std::nullopt;
  }

  // What a placement of `r` on node n holds besides its GPUs: the one place that says which
  // of the request's fields a placement keeps (to be released with it).
  [[nodiscard]] static placement placement_base(node_index n, const placement_request& r) noexcept {
    placement p;
    p.node = n;
    p.cpu_milli = r.cpu_milli;
    p.memory_mib = r.memory_mib;
    p.tenant = r.tenant;
    p.isolation = r.isolation;
    return p;
  }

  // A placement of `r` on node n taking the picked GPUs. Does not change the inventory.
  [[nodiscard]] static placement make_placement(node_index n, const placement_request& r, const gpu_pick& pick) noexcept {
    placement p = placement_base(n, r);
    p.count = pick.count;
    for (std::size_t i = 0; i < pick.count; ++i) p.gpus[i] = gpu_take{pick.gpu[i], static_cast<std::int16_t>(r.gpu_milli.count()), -1, 0};
    return p;
  }

  // A placement of MIG request `r` on node n in the slot best_mig_slot found (slot.gpu >= 0).
  [[nodiscard]] static placement make_mig_placement(node_index n, const placement_request& r, const mig_slot& slot) noexcept {
    GPURENT_ASSERT(slot.gpu >= 0);
    placement p = placement_base(n, r);
    p.count = 1;
    p.gpus[0] = gpu_take{static_cast<std::uint8_t>(slot.gpu), 0, static_cast<std::int8_t>(slot.start), slot.profile};
    return p;
  }

  // Applies a placement the matcher chose (it checked feasibility; this asserts it).
  void place(const placement& p) noexcept {
    node_state& s = states_[p.node];
    GPURENT_ASSERT(s.cpu_free >= p.cpu_milli && s.memory_free >= p.memory_mib);
    for (std::size_t i = 0; i < p.count; ++i) {
      const gpu_take t = p.gpus[i];
      GPURENT_ASSERT(t.gpu < specs_[p.node].gpu_count && s.idle[t.gpu] >= t.milli);
      GPURENT_ASSERT(s.users[t.gpu] == 0 || s.owner[t.gpu] == p.tenant || p.isolation == isolation_level::none);
      if (t.mig_start >= 0) {
        GPURENT_ASSERT((s.mig_gpus >> t.gpu & 1U) != 0);
        const bool added = mig_[p.node][t.gpu].add(mig_instance{t.mig_profile, static_cast<std::uint8_t>(t.mig_start)});
        GPURENT_ASSERT(added && mig_valid(*model(specs_[p.node].model).mig, mig_[p.node][t.gpu]));
      }
      gpu_allocated_milli_ += t.milli;
    }
    take(s, p);
    tenancy_[p.node].add(p);
    if (const segment_id sg = specs_[p.node].segment; sg != no_segment) note_segment(sg, segment_tenants_[sg - 1].add(p));
    isolating_ += p.isolation >= isolation_level::node ? 1U : 0U;
    refresh(p.node);
    journal_.note(p.node);
  }

  // What a placement takes from a node's live state (CPU, memory, idle milli, owner and
  // users per GPU, the placement count), without the summaries: the one rule for it, which
  // place() and a gang search's scratch copy of a node (gang/search.hpp) both apply.
  static void take(node_state& s, const placement& p) noexcept {
    s.cpu_free -= p.cpu_milli;
    s.memory_free -= p.memory_mib;
    for (std::size_t i = 0; i < p.count; ++i) {
      const gpu_take t = p.gpus[i];
      s.idle[t.gpu] -= t.milli;
      s.owner[t.gpu] = p.tenant;
      s.open_gpus = open_after_join(s.open_gpus, t.gpu, s.users[t.gpu], p.isolation);
      ++s.users[t.gpu];
    }
    ++s.placements;
  }

  // Gives back what a placement held (online use: jobs leave).
  void release(const placement& p) noexcept {
    node_state& s = states_[p.node];
    s.cpu_free += p.cpu_milli;
    s.memory_free += p.memory_mib;
    GPURENT_ASSERT(s.cpu_free <= specs_[p.node].cpu_milli && s.memory_free <= specs_[p.node].memory_mib);
    for (std::size_t i = 0; i < p.count; ++i) {
      const gpu_take t = p.gpus[i];
      GPURENT_ASSERT(s.users[t.gpu] > 0 && s.idle[t.gpu] + t.milli <= 1000);
      if (t.mig_start >= 0) {
        const bool removed = mig_[p.node][t.gpu].remove(mig_instance{t.mig_profile, static_cast<std::uint8_t>(t.mig_start)});
        GPURENT_ASSERT(removed);
      }
      s.idle[t.gpu] += t.milli;
      if (--s.users[t.gpu] == 0) {
        s.owner[t.gpu] = no_tenant;
        s.open_gpus = static_cast<std::uint16_t>(s.open_gpus & ~(1U << t.gpu));
      }
      gpu_allocated_milli_ -= t.milli;
    }
    GPURENT_ASSERT(s.placements > 0);
    --s.placements;
    tenancy_[p.node].remove(p);
    if (const segment_id sg = specs_[p.node].segment; sg != no_segment) note_segment(sg, segment_tenants_[sg - 1].remove(p));
    isolating_ -= p.isolation >= isolation_level::node ? 1U : 0U;
    ++release_epoch_;
    refresh(p.node);
    journal_.note(p.node);
  }

  // Node n goes down, drains or comes back up. A node that is not up takes no new placements;
  // what runs there stays until released (the caller releases what a failure stopped).
  void set_condition(node_index n, node_condition c) noexcept {
    states_[n].condition = c;
    ++states_[n].version;
    sync_hot(n);
    if (c == node_condition::up) ++release_epoch_;
    journal_.note(n);
  }
  [[nodiscard]] node_condition condition(node_index n) const noexcept { return states_[n].condition; }

 private:
  // add_node once check_node passed.
  node_index add_checked(node_spec s) {
    node_state st;
    st.cpu_free = s.cpu_milli;
    st.memory_free = s.memory_mib;
    st.mig_gpus = s.mig_gpus;
    st.labels = s.labels;
    st.reserved_for = s.reserved_for;
    st.gpu_count = s.gpu_count;
    st.model = s.model;
    st.spot = s.spot;
    // A MIG-mode GPU's capacity is its slices, not milli-GPU: it shows 0 idle milli.
    for (std::size_t g = 0; g < s.gpu_count; ++g) st.idle[g] = (s.mig_gpus >> g & 1U) != 0 ? 0 : 1000;
    for (std::size_t g = 0; g < s.gpu_count; ++g) gpu_capacity_milli_ += st.idle[g];
    gpu_count_ += s.gpu_count;
    specs_.push_back(std::move(s));
    states_.push_back(st);
    mig_.emplace_back();
    hot_.emplace_back();
    tenancy_.emplace_back();
    ++release_epoch_;
    refresh(states_.size() - 1);
    journal_.note(static_cast<node_index>(states_.size() - 1));
    return static_cast<node_index>(specs_.size() - 1);
  }

  // Segment sg's tenants changed by c: the counters that caches key on follow
  // (segment_changes), and the count of held segments.
  void note_segment(segment_id sg, tenancy_change c) noexcept {
    const bool held = segment_tenants_[sg - 1].isolating();
    if (c.hold) held_segments_ = held ? held_segments_ + 1 : held_segments_ - 1;
    if (c.tenants || c.hold) ++segment_tenant_changes_;
    if (c.hold || (c.tenants && held)) ++segment_hold_changes_;
  }

  void refresh(std::size_t n) noexcept {
    node_state& s = states_[n];
    s.idle_total = 0;
    s.max_idle = 0;
    s.full_idle = 0;
    for (std::size_t g = 0; g < specs_[n].gpu_count; ++g) {
      s.idle_total += s.idle[g];
      s.max_idle = std::max(s.max_idle, s.idle[g]);
      if (s.idle[g] == 1000) ++s.full_idle;
    }
    ++s.version;
    sync_hot(n);
  }

  void sync_hot(std::size_t n) noexcept {
    const node_state& s = states_[n];
    node_hot& h = hot_[n];
    h.cpu_free = s.cpu_free;
    h.memory_free = s.memory_free;
    h.idle_total = s.idle_total;
    h.version = s.version;
    h.max_idle = static_cast<std::int16_t>(s.max_idle);
    h.full_idle = s.full_idle;
    h.gpu_count = s.gpu_count;
    h.model = s.model;
    h.drained = s.condition != node_condition::up;
    h.spot = s.spot;
    h.reserved = s.reserved_for != no_tenant;
  }

  std::vector<std::string> segments_;
  std::vector<segment_tenancy> segment_tenants_;  // per segment id - 1
  std::size_t held_segments_ = 0;
  std::uint64_t segment_tenant_changes_ = 0;
  std::uint64_t segment_hold_changes_ = 0;
  std::size_t isolating_ = 0;
  std::vector<node_spec> specs_;
  std::vector<node_state> states_;
  std::vector<node_hot> hot_;
  std::vector<node_tenancy> tenancy_;
  std::vector<std::array<mig_layout, max_gpus_per_node>> mig_;
  std::uint64_t release_epoch_ = 0;
  detail::change_journal journal_;
  std::int64_t gpu_capacity_milli_ = 0;
  std::int64_t gpu_allocated_milli_ = 0;
  std::size_t gpu_count_ = 0;
};

}  // namespace gpurent
