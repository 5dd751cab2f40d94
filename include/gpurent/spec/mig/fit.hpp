// SPDX-License-Identifier: MIT
#pragma once
// MIG fit: where to add instances to a GPU so that the most future options stay open, the
// layout with them added, and a sentence for why they do not fit.

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/spec/mig/layout.hpp>
#include <gpurent/spec/mig/search.hpp>
#include <gpurent/spec/mig/validity.hpp>
#include <gpurent/spec/mig_data.hpp>

namespace gpurent {

enum class mig_fit_status : std::uint8_t {
  fits,
  invalid_layout,       // the existing layout breaks a rule (see mig_validate)
  unknown_profile,      // a wanted profile index outside the geometry
  too_many_of_profile,  // existing + wanted exceed a profile's max_instances
  too_many_media,       // more than one +me in total
  not_enough_compute,   // existing + wanted exceed the compute slices
  not_enough_memory,    // wanted memory slices exceed the free ones
  no_arrangement,       // enough free slices, but no start slots make them fit
};

template <>
struct enum_names<mig_fit_status> {
  static constexpr enum_entry<mig_fit_status> entries[] = {{mig_fit_status::fits, "fits"},
                                                           {mig_fit_status::invalid_layout, "invalid_layout"},
                                                           {mig_fit_status::unknown_profile, "unknown_profile"},
                                                           {mig_fit_status::too_many_of_profile, "too_many_of_profile"},
                                                           {mig_fit_status::too_many_media, "too_many_media"},
                                                           {mig_fit_status::not_enough_compute, "not_enough_compute"},
                                                           {mig_fit_status::not_enough_memory, "not_enough_memory"},
                                                           {mig_fit_status::no_arrangement, "no_arrangement"}};
};

// The answer of mig_fit: for each wanted instance (in the order asked) its start slice, and
// how many layouts the GPU still admits afterwards (its "options", the ranking score).
struct mig_fit_result {
  mig_fit_status status = mig_fit_status::no_arrangement;
  std::uint8_t count = 0;  // how many instances were wanted
  std::array<std::uint8_t, mig_max_slices> starts{};
  mig_profile_index culprit = 0;  // the profile a too_many_* / unknown_profile status concerns
  std::uint16_t options = 0;
  [[nodiscard]] constexpr bool fits() const noexcept { return status == mig_fit_status::fits; }
};

namespace detail {
// What `have` uses; false when it is not a valid layout.
[[nodiscard]] constexpr bool mig_usage_of(const mig_geometry& g, const mig_layout& have, mig_usage& u) noexcept {
  if (!mig_validate(g, have).ok()) return false;
  for (const mig_instance& x : have) {
    const mig_profile& p = g.profiles[x.profile];
    u.slices = static_cast<mig_slice_mask>(u.slices | p.occupancy(x.start));
    ++u.count[x.profile];
    u.media = static_cast<std::uint8_t>(u.media + (p.media_extensions ? 1 : 0));
    u.compute = static_cast<std::uint8_t>(u.compute + p.compute_slices);
  }
  return true;
}

// Adds `more` (known profiles) to the usage u, stopping at the first instance that breaks a
// rule independent of where instances go: more than one +me, more than a profile's
// max_instances. Fills status (fits when none is broken) and culprit; returns the memory
// slices the instances added need.
constexpr unsigned mig_count_rules(const mig_geometry& g, mig_usage& u, std::span<const mig_profile_index> more, mig_fit_result& r) noexcept {
  unsigned memory = 0;
  for (mig_profile_index w : more) {
    const mig_profile& p = g.profiles[w];
    if (p.media_extensions && ++u.media > 1)
      r.status = mig_fit_status::too_many_media;
    else if (++u.count[w] > p.max_instances)
      r.status = mig_fit_status::too_many_of_profile;
    else {
      u.compute = static_cast<std::uint8_t>(u.compute + p.compute_slices);
      memory += p.memory_slices;
      continue;
    }
    r.culprit = w;
    return memory;
  }
  r.status = mig_fit_status::fits;
  return memory;
}

// The rules of mig_fit that do not need the search: a valid layout, known profiles, counts,
// memory, compute. Leaves u as `have` plus `want` when they pass (status fits).
constexpr void mig_fit_rules(const mig_geometry& g, const mig_layout& have, std::span<const mig_profile_index> want, mig_usage& u,
                             mig_fit_result& r) noexcept {
  if (!mig_usage_of(g, have, u)) {
    r.status = mig_fit_status::invalid_layout;
    return;
  }
  // Every wanted profile must exist before any rule about them is judged: the reasons
  // below (and mig_explain) read the profiles of all wanted instances.
  for (mig_profile_index w : want) {
    if (w >= g.profiles.size()) {
      r.status = mig_fit_status::unknown_profile;
      r.culprit = w;
      return;
    }
  }
  const unsigned memory = mig_count_rules(g, u, want, r);
  if (!r.fits()) return;
  const auto free_slices = static_cast<unsigned>(std::popcount(static_cast<unsigned>(g.all_slices() & ~u.slices)));
  if (memory > free_slices || want.size() > mig_max_slices)
    r.status = mig_fit_status::not_enough_memory;
  else if (u.compute > g.compute_slices)
    r.status = mig_fit_status::not_enough_compute;
}
}  // namespace detail

// Can the wanted instances be added to `have`, and at which start slices? Among all ways to
// place them, fit picks the one after which the GPU admits the most layouts (the most future
// options: g.options[occupied slices]); then the one that keeps the larger profiles placeable
// (g.reach[occupied slices]); then the first in search order (largest profiles first, lowest
// start slices). No allocation; constexpr.
[[nodiscard]] constexpr mig_fit_result mig_fit(const mig_geometry& g, const mig_layout& have, std::span<const mig_profile_index> want) noexcept {
  mig_fit_result r;
  r.count = static_cast<std::uint8_t>(std::min<std::size_t>(want.size(), mig_max_slices));
  detail::mig_usage u;
  detail::mig_fit_rules(g, have, want, u, r);
  if (!r.fits()) return r;
  detail::mig_search<false> s;
  s.g = &g;
  s.n = r.count;                                     // == want.size(), at most mig_max_slices
  std::array<std::uint8_t, mig_max_slices> order{};  // search position -> position asked
  for (std::size_t i = 0; i < s.n; ++i) {
    s.items[i] = want[i];
    order[i] = static_cast<std::uint8_t>(i);
  }
  s.sort(order);
  s.run(u.slices);
  if (!s.found()) {
    r.status = mig_fit_status::no_arrangement;
    return r;
  }
  r.options = static_cast<std::uint16_t>(s.best_score / 256);
  for (std::size_t i = 0; i < s.n; ++i) r.starts[order[i]] = s.best[i];
  return r;
}

[[nodiscard]] constexpr mig_fit_result mig_fit(const mig_geometry& g, const mig_layout& have,
                                               std::initializer_list<mig_profile_index> want) noexcept {
  return mig_fit(g, have, std::span<const mig_profile_index>(want.begin(), want.size()));
}

// `have` with the fitted instances added (r must be a fit of `want`).
[[nodiscard]] constexpr mig_layout mig_apply(const mig_layout& have, std::span<const mig_profile_index> want, const mig_fit_result& r) noexcept {
  GPURENT_ASSERT(r.fits() && r.count == want.size());
  mig_layout l = have;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const bool added = l.add({want[i], r.starts[i]});
    GPURENT_ASSERT(added);
  }
  return l;
}

// A sentence for a person: why the wanted instances do not fit (or where they go).
[[nodiscard]] inline std::string mig_explain(const mig_geometry& g, const mig_layout& have, std::span<const mig_profile_index> want,
                                             const mig_fit_result& r) {
  const auto pname = [&](mig_profile_index i) { return std::string(g.profiles[i].name); };
  detail::mig_usage u;
  const bool valid = detail::mig_usage_of(g, have, u);
  const auto count_want = [&](mig_profile_index p) { return std::count(want.begin(), want.end(), p); };
  switch (r.status) {
    case mig_fit_status::fits: {
      std::string s = "fits:";
      for (std::size_t i = 0; i < want.size(); ++i) s += " " + mig_name(g, {want[i], r.starts[i]});
      return s;
    }
    case mig_fit_status::invalid_layout: return "the existing layout is invalid: " + mig_describe(g, mig_validate(g, have));
    case mig_fit_status::unknown_profile: return "profile #" + std::to_string(r.culprit) + " does not exist on " + std::string(g.model);
    case mig_fit_status::too_many_of_profile:
      return "at most " + std::to_string(g.profiles[r.culprit].max_instances) + " x " + pname(r.culprit) + " per GPU; " +
             std::to_string(valid ? u.count[r.culprit] : 0) + " present, " + std::to_string(count_want(r.culprit)) + " wanted";
    case mig_fit_status::too_many_media: {
      std::size_t wanted = 0;
      for (mig_profile_index w : want) wanted += g.profiles[w].media_extensions ? 1U : 0U;
      return "at most one +me instance per GPU; " + std::to_string(u.media) + " present, " + std::to_string(wanted) + " wanted";
    }
    case mig_fit_status::not_enough_compute: {
      unsigned need = 0;
      for (mig_profile_index w : want) need += g.profiles[w].compute_slices;
      return "needs " + std::to_string(need) + " compute slices, " + std::to_string(g.compute_slices - u.compute) + " of " +
             std::to_string(g.compute_slices) + " free";
    }
    case mig_fit_status::not_enough_memory:
    case mig_fit_status::no_arrangement: {
      unsigned need = 0;
      for (mig_profile_index w : want) need += g.profiles[w].memory_slices;
      const auto free_mask = static_cast<mig_slice_mask>(g.all_slices() & ~u.slices);
      const std::string free_text = std::to_string(std::popcount(static_cast<unsigned>(free_mask))) + " of " + std::to_string(g.memory_slices) +
                                    " memory slices free (" + detail::mig_slot_list(free_mask) + ")";
      if (r.status == mig_fit_status::not_enough_memory) return "needs " + std::to_string(need) + " memory slices; " + free_text;
      if (want.size() == 1) {
        // Name what blocks each start slot the profile may use.
        const mig_profile& p = g.profiles[want[0]];
        std::string s = pname(want[0]) + " can start only at memory slice(s) " + detail::mig_slot_list(p.start_slots) + "; ";
        bool first = true;
        for (int st = 0; st < g.memory_slices; ++st) {
          if (!p.can_start_at(st)) continue;
          std::string by;
          for (const mig_instance& x : have)
            if ((g.profiles[x.profile].occupancy(x.start) & p.occupancy(st)) != 0) by += (by.empty() ? "" : ", ") + mig_name(g, x);
          if (by.empty()) by = "the end of memory";
          s += (first ? "" : "; ") + std::to_string(st) + " is blocked by " + by;
          first = false;
        }
        return s;
      }
      std::string s = "no arrangement of";
      for (std::size_t i = 0; i < want.size(); ++i) s += (i == 0 ? " " : " + ") + pname(want[i]);
      return s + " fits the " + free_text;
    }
  }
  return "does not fit";
}

}  // namespace gpurent
