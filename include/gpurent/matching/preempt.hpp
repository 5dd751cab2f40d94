// SPDX-License-Identifier: MIT
#pragma once
// Preemption as a matcher operation (../shared/protocols/fleet.md, "Victim policies"): for a
// request or gang that does not fit, the set of running jobs whose removal makes it fit.
// Whole jobs only (a gang's members leave together), all or nothing (no set: nothing is
// preempted), minimal (no victim whose removal is not needed).
//
// The caller offers candidate *domains* one at a time (kube-scheduler: one node per
// candidate; a gang: the whole cluster), each with its eligible victims (eligible_victim:
// preemptible, lower priority, past the minimum runtime) and a fit test over a removal mask.
// A VictimPolicy picks the set inside a domain and ranks the domains:
//  - victim_policy_kube: kube-scheduler's order. Remove every candidate; if the job then
//    fits, re-admit the candidates from the most important down (priority descending, earlier
//    start first) whenever the job still fits; the rest are the victims. Domains compare
//    lexicographically: lowest highest-victim priority, smallest priority sum, fewest
//    victims, latest start of the highest-priority victims (their earliest start), first.
//  - victim_policy_gpurent: the fewest lost GPU-seconds plus restart cost (victim::cost).
//    Up to exact_limit candidates, every subset is tried (cheapest first by cost, then by
//    count), once one test shows that removing them all is enough; beyond it, kube's
//    removal and re-admission with the most costly re-admitted first. Domains compare by
//    cost, then victims, then first.
// Minimality of the re-admission pass: fitting is monotone in what is removed (gang.hpp's
// counts are exact; one node's resources only grow when a job leaves), so a candidate that
// could not be re-admitted onto a state cannot be re-admitted onto the larger final one.
// The cheapest subset is minimal since each cost is >= 0 and ties go to fewer victims.
// No allocation per decision once the scratch space has grown.

#include <algorithm>
#include <array>
#include <bit>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace gpurent {

// A running job that could be stopped, as a victim policy sees it.
struct victim {
  std::uint32_t job = 0;                // the caller's job id
  std::int32_t priority = 0;            // the job's priority
  std::int64_t start = 0;               // start of its current run (seconds)
  std::int64_t gpu_milli = 0;           // GPUs all its members hold, milli-GPU
  std::int64_t lost_s = 0;              // work it would lose if stopped now (seconds)
  std::int64_t restart_s = 0;           // work a restart adds (0 for a job that finishes within the notice)
  std::int64_t since_checkpoint_s = 0;  // work since its last checkpoint (for the explanation)

  // Lost GPU-seconds plus restart cost, in milli-GPU-seconds.
  [[nodiscard]] constexpr std::int64_t cost() const noexcept { return gpu_milli * (lost_s + restart_s); }
};

// The guards: only a preemptible job of lower priority than the preemptor's, running for at
// least min_runtime seconds, may be a victim.
[[nodiscard]] constexpr bool eligible_victim(bool preemptible, std::int32_t priority, std::int64_t start, std::int32_t preemptor_priority,
                                             std::int64_t now, std::int64_t min_runtime = 0) noexcept {
  return preemptible && priority < preemptor_priority && now - start >= min_runtime;
}

// How a domain's chosen set ranks: smaller is better.
using victim_rank = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;

// The fit test a domain offers: does the job fit with the candidates flagged 1 removed?
using victim_mask = std::span<const std::uint8_t>;

template <class V>
concept VictimPolicy = requires(std::span<const victim> c, std::vector<std::uint8_t>& mask, std::vector<std::uint32_t>& scratch,
                                bool (*fits)(victim_mask)) {
  { V::name } -> std::convertible_to<std::string_view>;
  { V::select(c, fits, mask, scratch) } -> std::same_as<bool>;
  { V::rank(c, victim_mask{}) } -> std::same_as<victim_rank>;
};

namespace detail {
// Flags every candidate, and if the job then fits, re-admits them in `order` while it
// still fits. False when even removing all of them is not enough.
template <class Fits>
[[nodiscard]] bool remove_and_readmit(std::span<const std::uint32_t> order, Fits&& fits, std::vector<std::uint8_t>& mask) {
  mask.assign(order.size(), 1);
  if (!fits(victim_mask(mask))) return false;
  for (const std::uint32_t i : order) {
    mask[i] = 0;
    if (!fits(victim_mask(mask))) mask[i] = 1;
  }
  return true;
}

inline void iota_order(std::size_t n, std::vector<std::uint32_t>& order) {
  order.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
}
}  // namespace detail

struct victim_policy_kube {
  static constexpr std::string_view name = "kube";

  template <class Fits>
  [[nodiscard]] static bool select(std::span<const victim> c, Fits&& fits, std::vector<std::uint8_t>& mask, std::vector<std::uint32_t>& order) {
    detail::iota_order(c.size(), order);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return c[a].priority != c[b].priority ? c[a].priority > c[b].priority : c[a].start < c[b].start;
    });
    return detail::remove_and_readmit(order, fits, mask);
  }

  [[nodiscard]] static victim_rank rank(std::span<const victim> c, victim_mask mask) noexcept {
    std::int64_t top = std::numeric_limits<std::int64_t>::min(), sum = 0, count = 0;
    std::int64_t top_start = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (mask[i] == 0) continue;
      sum += c[i].priority;
      ++count;
      if (c[i].priority > top) {
        top = c[i].priority;
        top_start = c[i].start;
      } else if (c[i].priority == top) {
        top_start = std::min(top_start, c[i].start);
      }
    }
    return {top, sum, count, -top_start};  // the latest start wins: negated
  }
};

struct victim_policy_gpurent {
  static constexpr std::string_view name = "gpurent";
  static constexpr std::size_t exact_limit = 10;  // 2^10 subsets at most per domain

  template <class Fits>
  [[nodiscard]] static bool select(std::span<const victim> c, Fits&& fits, std::vector<std::uint8_t>& mask, std::vector<std::uint32_t>& order) {
    if (c.size() <= exact_limit) return cheapest_subset(c, fits, mask);
    detail::iota_order(c.size(), order);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return c[a].cost() > c[b].cost(); });
    return detail::remove_and_readmit(order, fits, mask);
  }

  [[nodiscard]] static victim_rank rank(std::span<const victim> c, victim_mask mask) noexcept {
    std::int64_t cost = 0, count = 0;
    for (std::size_t i = 0; i < c.size(); ++i)
      if (mask[i] != 0) {
        cost += c[i].cost();
        ++count;
      }
    return {cost, count, 0, 0};
  }

 private:
  // Every subset, tested only when it would beat the best so far (cost, then count; the
  // lower bit pattern on a tie, so the answer does not depend on the scan). The full set is
  // tested first (fitting is monotone: if it does not fit, no subset does) and is the first
  // best; each subset's cost is its predecessor's without the lowest member plus that one.
  template <class Fits>
  [[nodiscard]] static bool cheapest_subset(std::span<const victim> c, Fits&& fits, std::vector<std::uint8_t>& mask) {
    const std::uint32_t subsets = std::uint32_t{1} << c.size();
    mask.assign(c.size(), 1);
    if (!fits(victim_mask(mask))) return false;
    std::array<std::int64_t, std::size_t{1} << exact_limit> cost{};
    for (std::uint32_t s = 1; s < subsets; ++s) cost[s] = cost[s & (s - 1)] + c[static_cast<std::size_t>(std::countr_zero(s))].cost();
    std::uint32_t best = subsets - 1;
    std::pair<std::int64_t, int> best_key{cost[best], static_cast<int>(c.size())};
    for (std::uint32_t s = 0; s + 1 < subsets; ++s) {
      if (cost[s] > best_key.first) continue;
      const std::pair<std::int64_t, int> key{cost[s], std::popcount(s)};
      if (!(key < best_key)) continue;
      for (std::size_t i = 0; i < c.size(); ++i) mask[i] = static_cast<std::uint8_t>(s >> i & 1U);
      if (!fits(victim_mask(mask))) continue;
      best = s;
      best_key = key;
    }
    for (std::size_t i = 0; i < c.size(); ++i) mask[i] = static_cast<std::uint8_t>(best >> i & 1U);
    return true;
  }
};

static_assert(VictimPolicy<victim_policy_kube>);
static_assert(VictimPolicy<victim_policy_gpurent>);

// "evicts spot-17 (4 GPUs, 3 min since checkpoint) instead of spot-9 (4 GPUs, 28 min since
// checkpoint)": the chosen victims and the set turned down (empty: none); name(job) names a job.
template <class Name>
[[nodiscard]] std::string explain_victims(std::span<const victim> chosen, std::span<const victim> other, Name&& name) {
  const auto list = [&](std::span<const victim> vs) {
    std::string s;
    for (std::size_t i = 0; i < vs.size(); ++i) {
      const victim& v = vs[i];
      const std::int64_t g = v.gpu_milli / 1000, m = v.gpu_milli % 1000;
      s += (i == 0 ? "" : ", ") + std::string(name(v.job)) + " (" + std::to_string(g) + (m != 0 ? "." + std::to_string(1000 + m).substr(1) : "") +
           " GPUs, " + std::to_string(v.since_checkpoint_s / 60) + " min since checkpoint)";
    }
    return s;
  };
  std::string s = "evicts " + list(chosen);
  if (!other.empty()) s += " instead of " + list(other);
  return s;
}

// Chooses, over the domains offered one by one, the victims a VictimPolicy prefers; keeps
// the runner-up domain's set for the explanation.
template <VictimPolicy VP>
class victim_selector {
 public:
  using policy_type = VP;

  // Starts a new decision.
  void reset() noexcept {
    found_ = runner_up_ = false;
    chosen_.clear();
    other_.clear();
  }

  // Domain `domain` with its eligible candidates; fits(mask) tests the job with the flagged
  // candidates removed (the inventory as before on return). Candidates are copied when chosen.
  template <class Fits>
  void consider(std::uint32_t domain, std::span<const victim> candidates, Fits&& fits) {
    if (candidates.empty()) return;
    if (!VP::select(candidates, fits, mask_, order_)) return;
    const victim_rank r = VP::rank(candidates, victim_mask(mask_));
    if (found_ && !(r < rank_)) {
      keep_runner_up(r, candidates);
      return;
    }
    if (found_) {
      other_.swap(chosen_);
      other_rank_ = rank_;
      runner_up_ = true;
    }
    found_ = true;
    rank_ = r;
    domain_ = domain;
    take(candidates, chosen_);
  }

  [[nodiscard]] bool found() const noexcept { return found_; }
  [[nodiscard]] std::uint32_t domain() const noexcept { return domain_; }
  [[nodiscard]] std::span<const victim> victims() const noexcept { return chosen_; }
  [[nodiscard]] std::span<const victim> runner_up() const noexcept { return other_; }

  // "evicts spot-17 (4 GPUs, 3 min since checkpoint) instead of spot-9 (4 GPUs, 28 min)";
  // name(job) names a job.
  template <class Name>
  [[nodiscard]] std::string explain(Name&& name) const {
    if (!found_) return "no set of victims makes it fit";
    return explain_victims(chosen_, runner_up_ ? std::span<const victim>(other_) : std::span<const victim>{}, name);
  }

 private:
  void take(std::span<const victim> c, std::vector<victim>& out) const {
    out.clear();
    for (std::size_t i = 0; i < c.size(); ++i)
      if (mask_[i] != 0) out.push_back(c[i]);
  }
  void keep_runner_up(const victim_rank& r, std::span<const victim> c) {
    if (runner_up_ && !(r < other_rank_)) return;
    runner_up_ = true;
    other_rank_ = r;
    take(c, other_);
  }
  bool found_ = false;
  bool runner_up_ = false;
  std::uint32_t domain_ = 0;
  victim_rank rank_{};
  victim_rank other_rank_{};
  std::vector<victim> chosen_;
  std::vector<victim> other_;
  std::vector<std::uint8_t> mask_;
  std::vector<std::uint32_t> order_;
};

// Calls f.template operator()<V>() for the victim policy named `name`; false when none is.
template <VictimPolicy... Vs>
struct victim_policy_list {
  static constexpr std::array<std::string_view, sizeof...(Vs)> names{Vs::name...};
  template <class F>
  static bool visit(std::string_view name, F&& f) {
    return ((Vs::name == name ? (std::forward<F>(f).template operator()<Vs>(), true) : false) || ...);
  }
};
using builtin_victim_policies = victim_policy_list<victim_policy_kube, victim_policy_gpurent>;

}  // namespace gpurent
