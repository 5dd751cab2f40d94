// SPDX-License-Identifier: MIT
#pragma once
// A reference protocol, not part of the matcher: the FGD paper's trace replay
// (docs/matching.md). A seeded arrival sequence inflated to `tune` x
// cluster GPU capacity, a seeded fixed node order for ties, every task tried once, and the
// allocation curve read at 90..130% arrival. It drives any matcher with the matcher's
// interface (`ReplayMatcher`): `replay<P>` runs the matcher, `replay_with<M>` another one,
// such as the full-scan reference (reference/full_scan.hpp) the benchmarks compare with.
//
// Randomness, all from std::mt19937_64 (its output is fixed by the standard) and our own
// Fisher-Yates and rejection sampling (std::shuffle and the distributions are not):
//   arrivals:   mt19937_64(seed): shuffle, then inflation draws (or deflation removals)
//   node order: mt19937_64(seed ^ 0x6a09e667f3bcc909): a shuffle of the node indices
//   random policy: mt19937_64(seed ^ 0xbb67ae8584caa73b)

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/node/fragmentation.hpp>
#include <gpurent/matching/node/matcher.hpp>
#include <gpurent/matching/node/policy.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// A cluster (empty) and a task list, as read from a trace.
struct replay_workload {
  inventory cluster;
  std::vector<placement_request> tasks;
  std::vector<std::string> task_names;
  shape_distribution shapes;  // FGD's M, from the un-inflated task list
};

inline constexpr std::array<int, 7> replay_points{90, 95, 100, 105, 110, 120, 130};

struct replay_options {
  std::uint64_t seed = 42;
  double tune = 1.3;
  bool keep_placements = false;
  std::function<void(std::size_t done, std::size_t total)> progress;  // every 1024 tasks
  decision_observer observer;                                         // every placement decision (matchers with set_observer)
};

struct replay_result {
  std::string_view policy;
  std::uint64_t seed = 0;
  double tune = 0;
  std::size_t nodes = 0;
  std::size_t gpus_total = 0;
  std::size_t arrived = 0;
  std::size_t placed = 0;
  std::size_t failed = 0;
  std::array<double, replay_points.size()> alloc_pct{};  // allocation % at each replay point
  std::vector<std::uint32_t> arrivals;                   // task index per arrival (keep_placements)
  std::vector<placement> placements;                     // node == no_node: failed (keep_placements)

  [[nodiscard]] double unallocated_pct_at(int point) const noexcept {
    for (std::size_t i = 0; i < replay_points.size(); ++i) {
      if (replay_points[i] == point) return 100.0 - alloc_pct[i];
    }
    return 0.0;
  }
};

namespace detail {
inline void fisher_yates(std::vector<std::uint32_t>& v, std::mt19937_64& rng) noexcept {
  for (std::size_t i = v.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(uniform_below(rng, i));
    std::swap(v[i - 1], v[j]);
  }
}
}  // namespace detail

// The arrival sequence for one seed: indices into `tasks`, clones repeating an index.
[[nodiscard]] inline std::vector<std::uint32_t> arrival_sequence(std::span<const placement_request> tasks, std::int64_t capacity_milli, double tune,
                                                                 std::uint64_t seed) {
  std::vector<std::uint32_t> seq(tasks.size());
  std::iota(seq.begin(), seq.end(), std::uint32_t{0});
  std::mt19937_64 rng(seed);
  detail::fisher_yates(seq, rng);
  if (tasks.empty()) return seq;
  const auto target = static_cast<std::int64_t>(std::floor(tune * static_cast<double>(capacity_milli)));
  std::int64_t total = 0;
  for (const auto& t : tasks) total += t.gpu_request_milli();
  if (total < target) {
    if (total == 0) return seq;  // CPU-only list: cloning would never reach the target
    for (;;) {
      const auto j = static_cast<std::uint32_t>(detail::uniform_below(rng, tasks.size()));
      const std::int64_t req = tasks[j].gpu_request_milli();
      if (total + req > target) break;
      seq.push_back(j);
      total += req;
    }
  } else {
    while (total > target) {
      const auto k = static_cast<std::size_t>(detail::uniform_below(rng, seq.size()));
      total -= tasks[seq[k]].gpu_request_milli();
      seq.erase(seq.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  return seq;
}

// The fixed per-seed node order that breaks ties.
[[nodiscard]] inline std::vector<node_index> replay_node_order(std::size_t nodes, std::uint64_t seed) {
  std::vector<std::uint32_t> v(nodes);
  std::iota(v.begin(), v.end(), std::uint32_t{0});
  std::mt19937_64 rng(seed ^ 0x6a09e667f3bcc909ULL);
  detail::fisher_yates(v, rng);
  return v;
}

// What the replay drives: a matcher over an inventory, built from the inventory and the
// policy context, with a settable node order (matcher<P, Cs>, full_scan_matcher<P, Cs>).
template <class M>
concept ReplayMatcher = PlacementPolicy<typename M::policy_type> && std::constructible_from<M, inventory&, const policy_context&> &&
    requires(M& m, std::vector<node_index> order, const placement_request& r) {
  m.set_node_order(std::move(order));
  { m.place(r) } -> std::same_as<std::optional<placement>>;
};

namespace detail {
// The replay's counters, and its allocation curve: alloc_pct[i] is read when the arrived
// GPU demand first reaches replay_points[i] % of the capacity.
class replay_recorder {
 public:
  replay_recorder(const inventory& inv, replay_result& res) noexcept : inv_(inv), res_(res), cap_(static_cast<double>(inv.gpu_capacity_milli())) {}

  void record(const placement_request& r, bool placed) noexcept {
    arrived_milli_ += r.gpu_request_milli();
    ++(placed ? res_.placed : res_.failed);
    const double arrived_pct = 100.0 * static_cast<double>(arrived_milli_) / cap_;
    while (point_ < replay_points.size() && arrived_pct >= replay_points[point_]) res_.alloc_pct[point_++] = allocated_pct();
  }
  // Points not reached (inflation stops just short of the target) read the final state.
  void finish() noexcept {
    while (point_ < replay_points.size()) res_.alloc_pct[point_++] = allocated_pct();
  }

 private:
  [[nodiscard]] double allocated_pct() const noexcept { return 100.0 * static_cast<double>(inv_.gpu_allocated_milli()) / cap_; }

  const inventory& inv_;
  replay_result& res_;
  double cap_;
  std::int64_t arrived_milli_ = 0;
  std::size_t point_ = 0;
};
}  // namespace detail

// One replay of `w` with matcher M (its policy names the result).
template <ReplayMatcher M>
[[nodiscard]] replay_result replay_with(const replay_workload& w, const replay_options& o) {
  using P = typename M::policy_type;
  inventory inv = w.cluster;
  M m(inv, policy_context{&w.shapes, o.seed});
  m.set_node_order(replay_node_order(inv.size(), o.seed));
  if constexpr (requires { m.set_observer(o.observer); }) m.set_observer(o.observer);
  const std::vector<std::uint32_t> seq = arrival_sequence(w.tasks, inv.gpu_capacity_milli(), o.tune, o.seed);

  replay_result res;
  res.policy = P::name;
  res.seed = o.seed;
  res.tune = o.tune;
  res.nodes = inv.size();
  res.gpus_total = inv.gpu_count();
  res.arrived = seq.size();
  if (o.keep_placements) {
    res.arrivals = seq;
    res.placements.reserve(seq.size());
  }
  detail::replay_recorder rec(inv, res);
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const placement_request& r = w.tasks[seq[i]];
    const auto p = m.place(r);
    rec.record(r, p.has_value());
    if (o.keep_placements) res.placements.push_back(p ? *p : placement{});
    if (o.progress && (i & 1023U) == 0) o.progress(i, seq.size());
  }
  rec.finish();
  return res;
}

// One replay of `w` with the matcher and policy P.
template <PlacementPolicy P, ConstraintSet Cs = default_constraints>
[[nodiscard]] replay_result replay(const replay_workload& w, const replay_options& o) {
  return replay_with<matcher<P, Cs>>(w, o);
}

// Mean and sample standard deviation over seeds.
struct replay_stat {
  double mean = 0;
  double sd = 0;
};
[[nodiscard]] inline replay_stat replay_stat_of(std::span<const double> xs) noexcept {
  replay_stat s;
  if (xs.empty()) return s;
  for (double x : xs) s.mean += x;
  s.mean /= static_cast<double>(xs.size());
  if (xs.size() > 1) {
    double v = 0;
    for (double x : xs) v += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(v / static_cast<double>(xs.size() - 1));
  }
  return s;
}

}  // namespace gpurent
