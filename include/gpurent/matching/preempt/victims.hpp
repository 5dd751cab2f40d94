// SPDX-License-Identifier: MIT
#pragma once
// Preemption as a matcher operation (docs/fleet.md, "Victims"): for a
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
//  - victim_policy_gpurent: the fewest lost GPU-seconds plus restart cost (victim::cost),
//    then the fewest victims, by an exact depth-first branch and bound over the subsets
//    (detail::cheapest_victims), once one test shows that removing them all is enough. On
//    a tie in both, the set that leaves out the more costly candidate at the first
//    difference, candidates taken from the most costly down (equal costs: the later one
//    first). Its first complete set is kube's removal and re-admission with the most costly
//    re-admitted first. After test_budget fit tests it settles for the best set found, made
//    minimal: in the 18 contended Alibaba runs of docs/fleet.md 4 of about 1.0 million
//    domain searches reach it (gpushare100, placement best-fit), on the NVL72 fleets none.
//    Domains compare by cost, then victims, then first.
// Minimality of the re-admission pass: fitting is monotone in what is removed (gang/placer.hpp's
// counts are exact; one node's resources only grow when a job leaves), so a candidate that
// could not be re-admitted onto a state cannot be re-admitted onto the larger final one.
// The cheapest subset is minimal since each cost is >= 0 and ties go to fewer victims.
// No allocation per decision once the scratch space has grown.

#include <algorithm>
#include <array>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <gpurent/core/fleet_time.hpp>

namespace gpurent {

// A running job that could be stopped, as a victim policy sees it.
struct victim {
  std::uint32_t job = 0;        // the caller's job id
  std::int32_t priority = 0;    // the job's priority
  fleet_time start;             // start of its current run
  std::int64_t gpu_milli = 0;   // GPUs all its members hold, milli-GPU
  seconds lost{0};              // work it would lose if stopped now
  seconds restart{0};           // work a restart adds (0 for a job that finishes within the notice)
  seconds since_checkpoint{0};  // work since its last checkpoint (for the explanation)

  // Lost GPU-seconds plus restart cost, in milli-GPU-seconds.
  [[nodiscard]] constexpr std::int64_t cost() const noexcept { return gpu_milli * (lost + restart).count(); }
};

// The guards: only a preemptible job of lower priority than the preemptor's, running for at
// least min_runtime, may be a victim.
[[nodiscard]] constexpr bool eligible_victim(bool preemptible, std::int32_t priority, fleet_time start, std::int32_t preemptor_priority,
                                             fleet_time now, seconds min_runtime = seconds{0}) noexcept {
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
    // A total order (ties: candidate order), so std::sort, which unlike std::stable_sort
    // takes no buffer from the heap: this runs for every candidate node of every attempt.
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return c[a].priority != c[b].priority ? c[a].priority > c[b].priority : c[a].start != c[b].start ? c[a].start < c[b].start : a < b;
    });
    return detail::remove_and_readmit(order, fits, mask);
  }

  [[nodiscard]] static victim_rank rank(std::span<const victim> c, victim_mask mask) noexcept {
    std::int64_t top = std::numeric_limits<std::int64_t>::min(), sum = 0, count = 0;
    fleet_time top_start = fleet_time::max();
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
    return {top, sum, count, -top_start.count()};  // the latest start wins: negated
  }
};

namespace detail {
// The exact search of victim_policy_gpurent over one domain: a depth-first branch and bound.
// Candidates are decided from the most costly down (then from the last), each left out
// before it is taken in: the first complete set is kube's removal and re-admission with the
// most costly re-admitted first, and later sets of the same cost and count come after it in
// that order (the tie rule keeps the first). `mask` holds the decided candidates' choice and
// 1 for every undecided one: it always fits (fitting is monotone), so leaving one out costs
// one test and taking one in none. A branch whose cost and count so far do not beat the best
// ends there.
template <class Fits>
class cheapest_victims {
 public:
  cheapest_victims(std::span<const victim> c, Fits& fits, std::vector<std::uint8_t>& mask, std::vector<std::uint32_t>& order, std::size_t budget)
      : c_(c), fits_(fits), mask_(mask), order_(order), budget_(budget) {}

  // False when even removing every candidate is not enough; else the set is in `mask`.
  [[nodiscard]] bool run() {
    const std::size_t n = c_.size();
    mask_.assign(2 * n, 1);  // [0, n): the trial; [n, 2n): the best set
    tests_ = 1;
    if (!fits_(victim_mask(mask_.data(), n))) return false;
    detail::iota_order(n, order_);
    std::sort(order_.begin(), order_.end(),  // a total order: no heap buffer, unlike std::stable_sort
              [&](std::uint32_t a, std::uint32_t b) { return c_[a].cost() != c_[b].cost() ? c_[a].cost() > c_[b].cost() : a > b; });
    descend(0, 0, 0);
    std::copy(mask_.begin() + static_cast<std::ptrdiff_t>(n), mask_.end(), mask_.begin());
    mask_.resize(n);
    if (tests_ >= budget_) make_minimal();
    return true;
  }

 private:
  using key = std::pair<std::int64_t, std::int64_t>;  // cost, victims

  void descend(std::size_t decided, std::int64_t cost, std::int64_t count) {
    const key k{cost, count};
    if (found_ && !(k < best_key_)) return;
    const std::size_t n = c_.size();
    if (decided == n) {
      std::copy(mask_.begin(), mask_.begin() + static_cast<std::ptrdiff_t>(n), mask_.begin() + static_cast<std::ptrdiff_t>(n));
      best_key_ = k;
      found_ = true;
      return;
    }
    const std::uint32_t i = order_[decided];
    mask_[i] = 0;
    if (tests_ < budget_ && (++tests_, fits_(victim_mask(mask_.data(), n)))) descend(decided + 1, cost, count);
    mask_[i] = 1;
    descend(decided + 1, cost + c_[i].cost(), count + 1);
  }

  // Out of tests: the best set found may hold a victim it does not need; re-admit, most
  // costly first, every one the job fits without.
  void make_minimal() {
    for (const std::uint32_t i : order_) {
      if (mask_[i] == 0) continue;
      mask_[i] = 0;
      ++tests_;
      if (!fits_(victim_mask(mask_))) mask_[i] = 1;
    }
  }

  std::span<const victim> c_;
  Fits& fits_;
  std::vector<std::uint8_t>& mask_;
  std::vector<std::uint32_t>& order_;
  std::size_t budget_;
  std::size_t tests_ = 0;
  key best_key_{};
  bool found_ = false;
};
}  // namespace detail

struct victim_policy_gpurent {
  static constexpr std::string_view name = "gpurent";
  static constexpr bool cost_ranked = true;         // rank()'s first element is the set's cost (preempt/plan.hpp bounds it)
  static constexpr std::size_t test_budget = 4096;  // fit tests per domain

  template <class Fits>
  [[nodiscard]] static bool select(std::span<const victim> c, Fits&& fits, std::vector<std::uint8_t>& mask, std::vector<std::uint32_t>& scratch) {
    detail::cheapest_victims<std::remove_reference_t<Fits>> search(c, fits, mask, scratch, test_budget);
    return search.run();
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
           " GPUs, " + std::to_string(v.since_checkpoint.count() / 60) + " min since checkpoint)";
    }
    return s;
  };
  std::string s = "evicts " + list(chosen);
  if (!other.empty()) s += " instead of " + list(other);
  return s;
}

// Chooses, over the domains offered one by one, the victims a VictimPolicy prefers; keeps
// the runner-up domain's set for the explanation (never the chosen jobs again: a gang's
// victims can be the best set of several domains).
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
    if (found_ && !(r < rank_ || (r == rank_ && domain < domain_))) {  // equal ranks: the first domain, in whatever order they come
      if (!same_jobs(candidates, chosen_)) keep_runner_up(r, candidates);
      return;
    }
    if (found_ && !same_jobs(candidates, chosen_)) {  // the same jobs seen from another domain are no alternative
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
  [[nodiscard]] const victim_rank& rank() const noexcept { return rank_; }
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
  // Whether the candidates flagged in mask_ are exactly the jobs of `set`.
  [[nodiscard]] bool same_jobs(std::span<const victim> c, const std::vector<victim>& set) const noexcept {
    std::size_t n = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (mask_[i] == 0) continue;
      ++n;
      if (std::none_of(set.begin(), set.end(), [&](const victim& v) { return v.job == c[i].job; })) return false;
    }
    return n == set.size();
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
