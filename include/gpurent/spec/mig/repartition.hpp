// SPDX-License-Identifier: MIT
#pragma once
// MIG repartition plans: from the current layout to one that holds the wanted instances,
// destroying as few existing instances as possible (moved elsewhere, or dropped).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/spec/mig/fit.hpp>
#include <gpurent/spec/mig/layout.hpp>
#include <gpurent/spec/mig/search.hpp>
#include <gpurent/spec/mig/validity.hpp>
#include <gpurent/spec/mig_data.hpp>

namespace gpurent {

enum class mig_op_kind : std::uint8_t { destroy, create };

template <>
struct enum_names<mig_op_kind> {
  static constexpr enum_entry<mig_op_kind> entries[] = {{mig_op_kind::destroy, "destroy"}, {mig_op_kind::create, "create"}};
};

struct mig_operation {
  mig_op_kind kind = mig_op_kind::create;
  mig_instance instance{};
  friend constexpr bool operator==(const mig_operation&, const mig_operation&) = default;
};

// What happens to an existing instance that is in the way.
enum class mig_repartition_mode : std::uint8_t {
  move,  // every existing instance survives: one in the way is destroyed and re-created elsewhere
  drop,  // an instance in the way is destroyed for good
};

template <>
struct enum_names<mig_repartition_mode> {
  static constexpr enum_entry<mig_repartition_mode> entries[] = {{mig_repartition_mode::move, "move"}, {mig_repartition_mode::drop, "drop"}};
};

// A plan from the current layout to one that holds the wanted instances: all destroys (by
// start slice), then all creates (by start slice); every intermediate layout is valid.
struct mig_plan {
  mig_layout target;
  std::vector<mig_operation> operations;
  std::size_t destroyed = 0;                          // existing instances destroyed (moved or dropped)
  std::array<std::uint8_t, mig_max_slices> starts{};  // start slice of each wanted instance, in the order asked
  friend bool operator==(const mig_plan&, const mig_plan&) = default;
};

namespace detail {
// The plan from `have` to `target`, keeping the instances of `kept` (a subset of both).
[[nodiscard]] inline mig_plan mig_make_plan(const mig_layout& have, const mig_layout& kept, const mig_layout& target,
                                            std::span<const mig_profile_index> want) {
  mig_plan plan;
  plan.target = target;
  for (const mig_instance& x : have)
    if (!kept.contains(x)) plan.operations.push_back({mig_op_kind::destroy, x});
  plan.destroyed = plan.operations.size();
  std::array<bool, mig_max_slices> taken{};  // target instances already accounted for
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (kept.contains(target[i]))
      taken[i] = true;
    else
      plan.operations.push_back({mig_op_kind::create, target[i]});
  }
  // Wanted instances take the created instances of their profile, in the order asked.
  for (std::size_t w = 0; w < want.size(); ++w) {
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (taken[i] || target[i].profile != want[w]) continue;
      taken[i] = true;
      plan.starts[w] = target[i].start;
      break;
    }
  }
  return plan;
}
}  // namespace detail

namespace detail {
// move: every existing instance survives. The existing and wanted instances are placed
// together on the empty GPU by the one search, which ranks first by how many existing
// instances stay where they are.
[[nodiscard]] inline expected<mig_plan> mig_plan_move(const mig_geometry& g, const mig_layout& have, std::span<const mig_profile_index> want) {
  if (have.size() + want.size() <= mig_max_slices) {
    mig_search<true> s;
    s.g = &g;
    s.keep = &have;
    for (const mig_instance& x : have) s.items[s.n++] = x.profile;
    for (mig_profile_index w : want) s.items[s.n++] = w;
    std::array<std::uint8_t, mig_max_slices> order{};  // unused: the plan reads the target
    s.sort(order);
    // Count and media rules are checked on the whole multiset first.
    mig_usage u;
    mig_fit_result rules;
    (void)mig_count_rules(g, u, std::span<const mig_profile_index>(s.items.data(), s.n), rules);
    if (rules.fits() && u.compute <= g.compute_slices) s.run(0);
    if (s.found()) {
      mig_layout target;
      for (std::size_t i = 0; i < s.n; ++i) {
        const bool added = target.add({s.items[i], s.best[i]});
        GPURENT_ASSERT(added);
      }
      mig_layout kept;
      for (const mig_instance& x : have)
        if (target.contains(x)) (void)kept.add(x);
      return mig_make_plan(have, kept, target, want);
    }
  }
  return make_error(error_code::not_found, "want", "no layout holds the existing instances and the wanted ones together");
}

// drop: keep the largest subset of `have` next to which the wanted instances fit (mig_fit),
// then the target with the most options left.
[[nodiscard]] inline expected<mig_plan> mig_plan_drop(const mig_geometry& g, const mig_layout& have, std::span<const mig_profile_index> want) {
  const std::size_t n = have.size();
  int best_kept = -1;
  int best_options = -1;
  mig_layout best_target;
  mig_layout best_keep;
  for (unsigned subset = 0; subset < (1U << n); ++subset) {
    const int kept = std::popcount(subset);
    if (kept < best_kept) continue;
    mig_layout keep;
    for (std::size_t i = 0; i < n; ++i)
      if (((subset >> i) & 1U) != 0) (void)keep.add(have[i]);
    const mig_fit_result r = mig_fit(g, keep, want);
    if (!r.fits()) continue;
    const mig_layout target = mig_apply(keep, want, r);
    mig_slice_mask used = 0;
    for (const mig_instance& x : target) used = static_cast<mig_slice_mask>(used | g.profiles[x.profile].occupancy(x.start));
    const int options = r.options * 256 + (*g.reach)[used];
    if (kept > best_kept || (kept == best_kept && options > best_options)) {
      best_kept = kept;
      best_options = options;
      best_target = target;
      best_keep = keep;
    }
  }
  if (best_kept < 0) return make_error(error_code::not_found, "want", "the wanted instances do not fit even on an empty GPU");
  return mig_make_plan(have, best_keep, best_target, want);
}
}  // namespace detail

// Plans a repartition of `have` so the wanted instances fit, destroying as few existing
// instances as possible; ties go to the plan with fewest operations, then the target with the
// most options left, then lowest start slices. Fails with invalid_argument when `have` is
// invalid or a wanted profile is unknown, and with not_found when no layout can hold them.
[[nodiscard]] inline expected<mig_plan> mig_plan_repartition(const mig_geometry& g, const mig_layout& have, std::span<const mig_profile_index> want,
                                                             mig_repartition_mode mode = mig_repartition_mode::move) {
  if (auto ok = mig_check(g, have); !ok) return unexpected<error>(ok.error().in_field("have"));
  for (mig_profile_index w : want)
    if (w >= g.profiles.size()) return make_error(error_code::unknown_name, "want", "no profile #" + std::to_string(w));
  return mode == mig_repartition_mode::move ? detail::mig_plan_move(g, have, want) : detail::mig_plan_drop(g, have, want);
}

}  // namespace gpurent
