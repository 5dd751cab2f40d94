// SPDX-License-Identifier: MIT
#pragma once
// The one search over MIG start slots that fit (mig/fit.hpp) and repartition
// (mig/repartition.hpp) both run.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <gpurent/spec/mig/layout.hpp>
#include <gpurent/spec/mig_data.hpp>

namespace gpurent {

namespace detail {
// The one search over start slots, for fit and for repartition: every way to place a
// multiset of profiles (`items`, largest first, equal profiles adjacent) on the slices not
// in `used`, ranked by options left (g.options[occupied] * 256 + g.reach[occupied]) and,
// with Keep (repartition), first by how many instances of `keep` stay where they are; the
// first in search order (lowest start slices) wins ties. Equal profiles take increasing
// starts only (they are interchangeable), and a branch stops when the rest cannot fit: no
// allocation, constexpr. Keep is a template parameter so that fit, which the matcher runs
// per MIG GPU, pays nothing for it.
template <bool Keep>
struct mig_search {
  const mig_geometry* g = nullptr;
  const mig_layout* keep = nullptr;  // with Keep: the instances that count when kept in place
  std::array<mig_profile_index, mig_max_slices> items{};
  std::size_t n = 0;
  std::array<std::uint8_t, mig_max_slices> cur{};
  std::array<std::uint8_t, mig_max_slices> best{};      // the best placement's starts, per item
  std::array<std::uint8_t, mig_max_slices + 1> need{};  // memory slices items [depth, n) need
  std::array<std::uint8_t, mig_max_slices> twins{};     // equal items right after item depth
  int best_kept = -1;
  int best_score = -1;

  [[nodiscard]] constexpr bool found() const noexcept { return best_score >= 0; }

  // Sorts the items into search order (most memory first: fewest ways to place; then the
  // profile index), applying the same permutation to `order` (what fit maps the starts
  // back with).
  constexpr void sort(std::array<std::uint8_t, mig_max_slices>& order) noexcept {
    const auto key = [&](std::size_t i) { return (mig_max_slices - g->profiles[items[i]].memory_slices) * 256 + items[i]; };
    for (std::size_t i = 1; i < n; ++i) {
      for (std::size_t j = i; j > 0 && key(j) < key(j - 1); --j) {
        std::swap(items[j], items[j - 1]);
        std::swap(order[j], order[j - 1]);
      }
    }
  }

  constexpr void run(mig_slice_mask used) noexcept {
    need[n] = 0;
    for (std::size_t i = n; i > 0; --i) {
      need[i - 1] = static_cast<std::uint8_t>(need[i] + g->profiles[items[i - 1]].memory_slices);
      twins[i - 1] = static_cast<std::uint8_t>(i < n && items[i] == items[i - 1] ? twins[i] + 1 : 0);
    }
    step(0, used, 0);
  }

 private:
  constexpr void finish(mig_slice_mask used, int kept) noexcept {
    const int score = (*g->options)[used] * 256 + (*g->reach)[used];
    const bool better = Keep ? kept > best_kept || (kept == best_kept && score > best_score) : score > best_score;
    if (better) {
      best_kept = kept;
      best_score = score;
      best = cur;
    }
  }

  constexpr void step(std::size_t depth, mig_slice_mask used, int kept) noexcept {
    // Prune: the rest cannot fit in what is left free.
    if (std::popcount(static_cast<unsigned>(g->all_slices() & ~used)) < need[depth]) return;
    if (depth == n) return finish(used, kept);
    const mig_profile& p = g->profiles[items[depth]];
    unsigned starts = p.start_slots;
    if (depth > 0 && items[depth - 1] == items[depth]) starts &= ~((2U << cur[depth - 1]) - 1U);
    while (starts != 0) {
      const int s = std::countr_zero(starts);
      starts &= starts - 1;
      // Its twins take later starts: stop when too few are left.
      if (std::popcount(starts) < twins[depth]) break;
      const mig_slice_mask m = p.occupancy(s);
      if ((m & used) != 0 || (m & ~g->all_slices()) != 0) continue;
      cur[depth] = static_cast<std::uint8_t>(s);
      int k = kept;
      if constexpr (Keep) k += keep->contains({items[depth], static_cast<std::uint8_t>(s)}) ? 1 : 0;
      step(depth + 1, static_cast<mig_slice_mask>(used | m), k);
    }
  }
};
}  // namespace detail

}  // namespace gpurent
