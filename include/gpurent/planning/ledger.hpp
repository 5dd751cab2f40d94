// SPDX-License-Identifier: MIT
#pragma once
// Finite supply over time: how many units of each resource are in use at every instant, so
// that no plan rents more than there is. A resource is an offer (capacity: its max_units)
// or a quota over several offers (capacity in milli-GPUs: a provider's or a region's limit).
// Each resource's use is a step function, kept as sorted breakpoints; reserving adds an
// amount over an interval, and a reservation fits when, over its whole interval, use plus
// the amount stays within the capacity of every resource it touches.

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/time.hpp>

namespace gpurent {

// One resource's use over time: from breakpoint i's instant until the next, `level` units.
class usage_profile {
 public:
  // The most in use at any instant of [from, to).
  [[nodiscard]] std::int64_t peak(instant from, instant to) const {
    std::int64_t m = level_at(from);
    for (auto it = after(from); it != steps_.end() && it->first < to; ++it) m = std::max(m, it->second);
    return m;
  }
  void add(instant from, instant to, std::int64_t amount) {
    GPURENT_ASSERT(from < to);
    split(to);
    split(from);
    for (auto it = find(from); it != steps_.end() && it->first < to; ++it) it->second += amount;
    merge();
  }
  // The instants after `t` at which the use changes, in order (where a wait may end).
  template <class F>
  void for_each_change_after(instant t, F&& f) const {
    for (auto it = after(t); it != steps_.end(); ++it) f(it->first);
  }
  [[nodiscard]] bool empty() const noexcept { return steps_.empty(); }

 private:
  using step = std::pair<instant, std::int64_t>;
  [[nodiscard]] std::vector<step>::const_iterator after(instant t) const { return std::ranges::upper_bound(steps_, t, {}, &step::first); }
  [[nodiscard]] std::vector<step>::iterator find(instant t) { return std::ranges::lower_bound(steps_, t, {}, &step::first); }
  [[nodiscard]] std::int64_t level_at(instant t) const {
    auto it = after(t);
    return it == steps_.begin() ? 0 : std::prev(it)->second;
  }
  void split(instant t) {
    auto it = find(t);
    if (it != steps_.end() && it->first == t) return;
    const std::int64_t before = it == steps_.begin() ? 0 : std::prev(it)->second;
    steps_.insert(it, {t, before});
  }
  // Drops breakpoints that change nothing, so the profile stays as short as its shape.
  void merge() {
    std::vector<step> out;
    out.reserve(steps_.size());
    for (const step& s : steps_)
      if ((out.empty() && s.second != 0) || (!out.empty() && out.back().second != s.second)) out.push_back(s);
    steps_ = std::move(out);
  }
  std::vector<step> steps_;
};

// Resources with capacities, and reservations against them.
class capacity_ledger {
 public:
  // A resource of `capacity` units; returns its index.
  std::size_t add_resource(std::int64_t capacity) {
    capacity_.push_back(capacity);
    use_.emplace_back();
    return capacity_.size() - 1;
  }
  // A claim of `amount` units on one resource.
  struct claim {
    std::size_t resource = 0;
    std::int64_t amount = 0;
  };
  [[nodiscard]] bool fits(std::span<const claim> claims, instant from, instant to) const {
    return std::ranges::all_of(claims, [&](const claim& c) { return use_[c.resource].peak(from, to) + c.amount <= capacity_[c.resource]; });
  }
  void reserve(std::span<const claim> claims, instant from, instant to) {
    for (const claim& c : claims) use_[c.resource].add(from, to, c.amount);
  }
  // The earliest start in [earliest, latest] at which `length` fits, trying `earliest` and
  // every instant the claimed resources' use changes; nothing when none does.
  [[nodiscard]] std::optional<instant> earliest_fit(std::span<const claim> claims, instant earliest, instant latest, seconds length) const {
    if (latest < earliest) return std::nullopt;
    if (fits(claims, earliest, earliest + length)) return earliest;  // the common case, without collecting every change
    std::vector<instant> tries{earliest};
    for (const claim& c : claims) use_[c.resource].for_each_change_after(earliest, [&](instant t) { tries.push_back(t); });
    std::ranges::sort(tries);
    for (instant t : tries) {
      if (t > latest) break;
      if (fits(claims, t, t + length)) return t;
    }
    return std::nullopt;
  }
  [[nodiscard]] std::int64_t capacity(std::size_t r) const { return capacity_[r]; }
  [[nodiscard]] const usage_profile& use(std::size_t r) const { return use_[r]; }

 private:
  std::vector<std::int64_t> capacity_;
  std::vector<usage_profile> use_;
};

}  // namespace gpurent
