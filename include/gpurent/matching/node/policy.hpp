// SPDX-License-Identifier: MIT
#pragma once
// Placement policies: how the matcher ranks the feasible nodes for a request and which
// GPUs of the winner it takes. A policy is a stateless type modelling `PlacementPolicy`:
//
//   name                              the name the tool selects it by
//   state                             per-run scratch (caches, a PRNG), built from
//                                     (const inventory&, const policy_context&)
//   prepare(state&, inv, r)           once per request, before the node scan
//   score(state&, inv, n, r) noexcept higher wins; ties go to the earlier node in the
//                                     matcher's node order
//   choose_gpus(state&, inv, n, r, pick) noexcept   once, for the winning node
//   node_symmetric (optional)         true when score and choose_gpus depend on the node
//                                     only through its spec (the name aside) and state;
//                                     the matcher then scores one of identical untouched
//                                     nodes (all built-in policies but random)
//   needs_workload (optional)         true when the state plans for the workload's frequent
//                                     shapes (policy_context::shapes; fgd, gpurent): a
//                                     matcher of it must be given a context (WorkloadAware)
//
// Scores are int64 so that the paper's integer 0..100 scores (and their ties) are exact.
// The hot path (score) allocates nothing and dispatches nothing virtually.
//
// Extension point: a type modelling `PlacementPolicy`; one without per-run state derives
// from `stateless_policy` and writes only name, score and choose_gpus.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include <gpurent/core/enum.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/node/fragmentation.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// What policies may know besides the inventory: the workload's frequent shapes (FGD) and
// a seed (random).
struct policy_context {
  const shape_distribution* shapes = nullptr;
  std::uint64_t seed = 0;
};

template <class P>
concept PlacementPolicy = requires {
  { P::name } -> std::convertible_to<std::string_view>;
  typename P::state;
}
&&std::constructible_from<typename P::state, const inventory&, const policy_context&>&& requires(typename P::state& s, const inventory& inv,
                                                                                                 node_index n, const placement_request& r,
                                                                                                 gpu_pick& pick) {
  { P::prepare(s, inv, r) } -> std::same_as<void>;
  { P::score(s, inv, n, r) }
  noexcept->std::same_as<std::int64_t>;
  { P::choose_gpus(s, inv, n, r, pick) }
  noexcept->std::same_as<void>;
};

// A policy whose state plans for the workload (policy_context::shapes): without one every
// node would score alike and the policy would be first fit in disguise, so a matcher of it
// is constructed only with a context (node/matcher.hpp).
template <class P>
concept WorkloadAware = PlacementPolicy<P> && requires {
  requires P::needs_workload;
};

// A policy that can bound from above what any request scores on a node, from the node's
// state alone: score(s, inv, n, r) <= score_bound(s, inv, n) for every request r, read in
// the same state. The matcher's index then skips nodes that cannot beat the best so far
// (node/candidate_index.hpp); the choice is unchanged. Scores above INT32_MAX - 1 are not
// bounded (return candidate_index's unbounded_score).
template <class P>
concept ScoreBounded = PlacementPolicy<P> && requires(typename P::state& s, const inventory& inv, node_index n) {
  { P::score_bound(s, inv, n) } -> std::same_as<std::int32_t>;
};

namespace detail {
struct no_state {
  no_state(const inventory&, const policy_context&) noexcept {}
};
}  // namespace detail

// A base for a policy without per-run state: no state, nothing to prepare, and an answer
// that depends on a node only through its spec and state (NodeSymmetric). The policy adds
// its name, score and choose_gpus.
struct stateless_policy {
  static constexpr bool node_symmetric = true;
  using state = detail::no_state;
  static void prepare(state&, const inventory&, const placement_request&) noexcept {}
};

namespace detail {

// For a share: the eligible GPU with the least idle milli (first on ties); whole GPUs and
// CPU-only tasks take the first eligible GPUs by index.
inline void choose_tightest(const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
  if (!r.is_share()) {
    (void)pick_first_gpus(inv, n, r, pick);
    return;
  }
  pick.clear();
  const node_state& s = inv.state(n);
  std::size_t best = max_gpus_per_node;
  for (std::size_t g = 0; g < inv.spec(n).gpu_count; ++g) {
    if (gpu_eligible(s, g, r) && (best == max_gpus_per_node || s.idle[g] < s.idle[best])) best = g;
  }
  if (best != max_gpus_per_node) pick.push(best);
}

// The paper's weighted leftover after placement: 0.5 x CPU_left / 128 cores +
// 0.5 x GPU_left / 8 GPUs.
[[nodiscard]] inline double leftover_after(const inventory& inv, node_index n, const placement_request& r) noexcept {
  const node_hot& s = inv.hot(n);
  const double cpu_left = static_cast<double>((s.cpu_free - r.cpu_milli).count());
  const double gpu_left = static_cast<double>(s.idle_total - r.gpu_request_milli());
  return 0.5 * cpu_left / 128000.0 + 0.5 * gpu_left / 8000.0;
}

// int(100 * x), truncating toward zero as the simulator's int conversion does.
[[nodiscard]] inline std::int64_t score100(double x) noexcept { return static_cast<std::int64_t>(100.0 * x); }

// Uniform integer in [0, n) from a 64-bit engine by rejection (no modulo bias; the same on
// every standard library, unlike std::uniform_int_distribution).
[[nodiscard]] inline std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) noexcept {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
  std::uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % n;
}
}  // namespace detail

// First fit: the first feasible node in the matcher's order.
struct policy_first_fit : stateless_policy {
  static constexpr std::string_view name = "first-fit";
  [[nodiscard]] static std::int64_t score(state&, const inventory&, node_index, const placement_request&) noexcept { return 0; }
  static void choose_gpus(state&, const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
    (void)pick_first_gpus(inv, n, r, pick);
  }
};

// Best fit, as the FGD paper's simulator scores it: least weighted leftover, integer score.
struct policy_best_fit : stateless_policy {
  static constexpr std::string_view name = "best-fit";
  [[nodiscard]] static std::int64_t score(state&, const inventory& inv, node_index n, const placement_request& r) noexcept {
    return detail::score100(1.0 - detail::leftover_after(inv, n, r));
  }
  static void choose_gpus(state&, const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
    detail::choose_tightest(inv, n, r, pick);
  }
};

// Worst fit (spread): most weighted leftover.
struct policy_worst_fit : stateless_policy {
  static constexpr std::string_view name = "worst-fit";
  [[nodiscard]] static std::int64_t score(state&, const inventory& inv, node_index n, const placement_request& r) noexcept {
    return detail::score100(detail::leftover_after(inv, n, r));
  }
  static void choose_gpus(state&, const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
    (void)pick_first_gpus(inv, n, r, pick);
  }
};

// Dot product: the node whose free (CPU, GPU) vector, normalised by its capacity, has the
// smallest dot product with the demand normalised the same way.
struct policy_dot_product : stateless_policy {
  static constexpr std::string_view name = "dot-product";
  [[nodiscard]] static std::int64_t score(state&, const inventory& inv, node_index n, const placement_request& r) noexcept {
    const node_spec& sp = inv.spec(n);
    const node_state& s = inv.state(n);
    const double cpu_cap = static_cast<double>(std::max<std::int64_t>(sp.cpu_milli.count(), 1));
    const double gpu_cap = std::max(1000.0 * sp.gpu_count, 1.0);
    const double dot = (static_cast<double>(r.cpu_milli.count()) / cpu_cap) * (static_cast<double>(s.cpu_free.count()) / cpu_cap) +
                       (static_cast<double>(r.gpu_request_milli()) / gpu_cap) * (static_cast<double>(s.idle_total) / gpu_cap);
    return detail::score100(1.0 - dot / 2.0);
  }
  static void choose_gpus(state&, const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
    detail::choose_tightest(inv, n, r, pick);
  }
};

// Random: a uniformly random feasible node (a fresh draw per node and request).
struct policy_random {
  static constexpr std::string_view name = "random";
  struct state {
    std::mt19937_64 rng;
    state(const inventory&, const policy_context& c) : rng(c.seed ^ 0xbb67ae8584caa73bULL) {}
  };
  static void prepare(state&, const inventory&, const placement_request&) noexcept {}
  [[nodiscard]] static std::int64_t score(state& s, const inventory&, node_index, const placement_request&) noexcept {
    return static_cast<std::int64_t>(s.rng() >> 1);
  }
  static void choose_gpus(state&, const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
    (void)pick_first_gpus(inv, n, r, pick);
  }
};

namespace detail {

// FGD's evaluation of one (node, request) pair, cached per node version and request
// shape: a request shape repeats thousands of times while only the node that received the
// last placement changed, so almost every evaluation is a lookup.
struct fgd_eval {
  std::uint32_t version = 0;  // node version this entry is valid for (0: never)
  std::int32_t score = 0;     // int(100 * sigmoid(dF / 1000))
  double delta = 0;           // F_before - F_after, exact
  std::int8_t gpu = -1;       // a share's GPU
};

struct fgd_key {
  task_shape shape;
  tenant_id tenant = no_tenant;
  gpu_locality locality = gpu_locality::same_node;
  friend constexpr bool operator==(const fgd_key&, const fgd_key&) = default;
};

// How a share's GPU is chosen inside the node: by the integer score (the paper; first GPU
// on ties) or by the exact fragmentation change.
enum class fgd_gpu_choice : std::uint8_t { integer_score, exact };
}  // namespace detail

template <>
struct enum_names<detail::fgd_gpu_choice> {
  static constexpr enum_entry<detail::fgd_gpu_choice> entries[] = {{detail::fgd_gpu_choice::integer_score, "integer_score"},
                                                                   {detail::fgd_gpu_choice::exact, "exact"}};
};

namespace detail {

template <fgd_gpu_choice Choice>
class fgd_engine {
 public:
  fgd_engine(const inventory& inv, const policy_context& c) {
    if (c.shapes != nullptr) m_ = c.shapes->shapes;
    // Mean CPU per GPU milli of the GPU shapes each model can host (for the stranding term).
    for (std::size_t k = 0; k < max_models; ++k) {
      double cpu = 0;
      double gpu = 0;
      for (const weighted_shape& w : m_) {
        if (w.shape.num_gpu == 0 || (w.shape.allowed >> k & 1U) == 0) continue;
        cpu += w.weight * static_cast<double>(w.shape.cpu_milli.count());
        gpu += w.weight * static_cast<double>(w.shape.num_gpu * w.shape.gpu_milli);
      }
      cpu_per_gpu_milli_[k] = gpu > 0 ? cpu / gpu : 0.0;
    }
    resize(inv);
  }

  // Adds weight x (the node's idle milli that its free CPU cannot feed at the workload's
  // mean CPU per GPU) to F. 0 (the default) is the paper's F.
  void set_cpu_stranding(double weight) noexcept { stranding_ = weight; }

  void prepare(const inventory& inv, const placement_request& r) {
    follow(inv);
    const fgd_key k{shape_of(r), r.tenant, r.locality};
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] == k) {
        cur_ = cache_[i].data();
        return;
      }
    }
    keys_.push_back(k);
    cache_.emplace_back(inv.size());
    cur_ = cache_.back().data();
  }

  [[nodiscard]] const fgd_eval& eval(const inventory& inv, node_index n, const placement_request& r) noexcept {
    fgd_eval& e = cur_[n];
    if (e.version != inv.hot(n).version) compute(inv, n, r, e);
    return e;
  }

  // No request scores more on node n than this: the score's delta is F now minus F after,
  // and F after is >= 0 (a sum of weighted idle milli and stranding terms), while the
  // integer sigmoid only grows with the delta.
  // (The matcher's index asks before prepare: so this follows the inventory too.)
  [[nodiscard]] std::int32_t score_bound(const inventory& inv, node_index n) {
    follow(inv);
    return sigmoid_score(fragmentation(inv, n));
  }

  [[nodiscard]] double fragmentation(const inventory& inv, node_index n) noexcept {
    const node_state& s = inv.state(n);
    if (f_version_[n] != s.version) {
      const node_spec& sp = inv.spec(n);
      f_value_[n] = frag(s.idle.data(), sp.gpu_count, s.cpu_free, model_mask{1} << sp.model);
      f_version_[n] = s.version;
    }
    return f_value_[n];
  }

  void choose(const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
    if (!r.is_share()) {
      (void)pick_first_gpus(inv, n, r, pick);
      return;
    }
    const fgd_eval& e = eval(inv, n, r);
    pick.clear();
    if (e.gpu >= 0) pick.push(static_cast<std::size_t>(e.gpu));
  }

  [[nodiscard]] std::span<const weighted_shape> shapes() const noexcept { return m_; }

  // The share of M's GPU demand (weight x milli) that is pinned to a model list.
  [[nodiscard]] double pinned_fraction() const noexcept {
    double pinned = 0;
    double all = 0;
    for (const weighted_shape& w : m_) {
      const double d = w.weight * static_cast<double>(w.shape.num_gpu * w.shape.gpu_milli);
      all += d;
      if (w.shape.allowed != any_model) pinned += d;
    }
    return all > 0 ? pinned / all : 0.0;
  }

 private:
  [[nodiscard]] double frag(const std::int32_t* idle, std::size_t count, milli_cpu cpu_free, model_mask bit) const noexcept {
    double f = node_fragmentation(m_, idle, count, cpu_free, bit);
    const double rho = cpu_per_gpu_milli_[static_cast<std::size_t>(std::countr_zero(bit))];
    if (stranding_ > 0 && rho > 0) {
      std::int32_t total = 0;
      for (std::size_t g = 0; g < count; ++g) total += idle[g];
      const double fed = static_cast<double>(cpu_free.count()) / rho;
      if (static_cast<double>(total) > fed) f += stranding_ * (static_cast<double>(total) - fed);
    }
    return f;
  }

  static std::int32_t sigmoid_score(double delta) noexcept { return static_cast<std::int32_t>(100.0 / (1.0 + std::exp(-delta / 1000.0))); }

  void compute(const inventory& inv, node_index n, const placement_request& r, fgd_eval& e) noexcept {
    const node_spec& sp = inv.spec(n);
    const node_state& s = inv.state(n);
    const double before = fragmentation(inv, n);
    const model_mask bit = model_mask{1} << sp.model;
    const milli_cpu cpu_after = s.cpu_free - r.cpu_milli;
    std::array<std::int32_t, max_gpus_per_node> a = s.idle;
    e.version = s.version;
    e.gpu = -1;
    if (r.is_share()) {
      const std::int32_t need = r.gpu_milli.count();
      std::array<std::int32_t, max_gpus_per_node> seen{};
      std::size_t nseen = 0;
      bool any = false;
      for (std::size_t g = 0; g < sp.gpu_count; ++g) {
        if (!gpu_eligible(s, g, r)) continue;
        // Equal idle (and eligible) GPUs give equal results; the first one already won ties.
        if (std::find(seen.begin(), seen.begin() + static_cast<std::ptrdiff_t>(nseen), s.idle[g]) !=
            seen.begin() + static_cast<std::ptrdiff_t>(nseen))
          continue;
        seen[nseen++] = s.idle[g];
        a[g] -= need;
        const double delta = before - frag(a.data(), sp.gpu_count, cpu_after, bit);
        a[g] += need;
        const std::int32_t sc = sigmoid_score(delta);
        const bool better = !any || (Choice == fgd_gpu_choice::integer_score ? sc > e.score : delta > e.delta);
        if (better) {
          any = true;
          e.score = sc;
          e.delta = delta;
          e.gpu = static_cast<std::int8_t>(g);
        }
      }
      return;
    }
    if (r.num_gpu > 0) {
      gpu_pick p;
      (void)pick_first_gpus(inv, n, r, p);
      for (std::size_t i = 0; i < p.count; ++i) a[p.gpu[i]] -= r.gpu_milli.count();
    }
    e.delta = before - frag(a.data(), sp.gpu_count, cpu_after, bit);
    e.score = sigmoid_score(e.delta);
  }

  // The caches keyed on node versions follow the inventory: grown with it, and started over
  // when it was assigned over (versions may repeat).
  void follow(const inventory& inv) {
    resize(inv);
    if (generation_ != inv.generation()) {
      generation_ = inv.generation();
      std::fill(f_version_.begin(), f_version_.end(), 0U);
      for (auto& c : cache_) std::fill(c.begin(), c.end(), fgd_eval{});
    }
  }

  void resize(const inventory& inv) {
    if (f_version_.size() == inv.size()) return;
    f_version_.resize(inv.size(), 0);
    f_value_.resize(inv.size(), 0.0);
    for (auto& c : cache_) c.resize(inv.size());
    cur_ = nullptr;
  }

  std::vector<weighted_shape> m_;
  std::vector<std::uint32_t> f_version_;
  std::vector<double> f_value_;
  std::vector<fgd_key> keys_;
  std::vector<std::vector<fgd_eval>> cache_;
  fgd_eval* cur_ = nullptr;
  std::array<double, max_models> cpu_per_gpu_milli_{};
  double stranding_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace detail

namespace detail {
// A policy that an FGD engine (fgd_engine or one derived from it) scores: the engine is
// the per-run state, its cached evaluation the score, its choice the GPUs.
template <class Engine>
struct fgd_policy {
  static constexpr bool node_symmetric = true;
  static constexpr bool needs_workload = true;
  using state = Engine;
  static void prepare(state& s, const inventory& inv, const placement_request& r) { s.prepare(inv, r); }
  [[nodiscard]] static std::int64_t score(state& s, const inventory& inv, node_index n, const placement_request& r) noexcept {
    return s.eval(inv, n, r).score;
  }
  [[nodiscard]] static std::int32_t score_bound(state& s, const inventory& inv, node_index n) { return s.score_bound(inv, n); }
  static void choose_gpus(state& s, const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
    s.choose(inv, n, r, pick);
  }
};
}  // namespace detail

// Fragmentation gradient descent exactly as the paper's simulator scores it: the integer
// score int(100 * sigmoid((F_before - F_after) / 1000)); a share goes to the GPU with the
// best integer score (first on ties); whole GPUs to the first idle GPUs by index.
struct policy_fgd : detail::fgd_policy<detail::fgd_engine<detail::fgd_gpu_choice::integer_score>> {
  static constexpr std::string_view name = "fgd";
};

}  // namespace gpurent
