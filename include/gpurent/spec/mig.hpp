// SPDX-License-Identifier: MIT
#pragma once
// MIG, exact to the memory slot: placed instances (layouts) and their validity, every valid
// layout of a geometry, fit (where to add instances so the most future options stay open),
// and repartition plans (fewest instances destroyed). See docs/spec-mig.md.
//
// Placement model (NVML nvmlGpuInstancePlacement_t): an instance of profile p started at
// slice s occupies memory slices [s, s + p.memory_slices); instances never overlap; s must
// be one of p's start slots; at most p.max_instances of p and at most one "+me" instance per
// GPU; the compute slices of all instances add up to at most the geometry's.

#include <algorithm>
#include <array>
#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/spec/mig_data.hpp>

namespace gpurent {

// One placed GPU instance: a profile (index into its geometry) at a start slice.
struct mig_instance {
  mig_profile_index profile = 0;
  std::uint8_t start = 0;
  friend constexpr bool operator==(const mig_instance&, const mig_instance&) = default;
  friend constexpr auto operator<=>(const mig_instance&, const mig_instance&) = default;
};

// A set of placed instances, kept in canonical order (by start, then profile), so equal sets
// compare equal. Fixed capacity (a GPU has at most 8 memory slices, so at most 8 instances);
// no allocation. It says nothing about validity: see mig_validate.
class mig_layout {
 public:
  static constexpr std::size_t capacity = mig_max_slices;

  constexpr mig_layout() = default;
  constexpr mig_layout(std::initializer_list<mig_instance> xs) {
    for (const mig_instance& x : xs) {
      const bool added = add(x);
      GPURENT_ASSERT(added);
    }
  }

  // Adds an instance; false (and unchanged) when the layout already holds `capacity`.
  [[nodiscard]] constexpr bool add(mig_instance x) noexcept {
    if (size_ == capacity) return false;
    std::size_t i = size_;
    while (i > 0 && before(x, items_[i - 1])) {
      items_[i] = items_[i - 1];
      --i;
    }
    items_[i] = x;
    ++size_;
    return true;
  }
  // Removes one instance equal to x; false when there is none.
  constexpr bool remove(mig_instance x) noexcept {
    for (std::size_t i = 0; i < size_; ++i) {
      if (items_[i] != x) continue;
      for (std::size_t j = i + 1; j < size_; ++j) items_[j - 1] = items_[j];
      items_[--size_] = mig_instance{};  // keep unused slots zero, so == compares sets
      return true;
    }
    return false;
  }
  [[nodiscard]] constexpr bool contains(mig_instance x) const noexcept { return std::find(begin(), end(), x) != end(); }

  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] constexpr const mig_instance* begin() const noexcept { return items_.data(); }
  [[nodiscard]] constexpr const mig_instance* end() const noexcept { return items_.data() + size_; }
  [[nodiscard]] constexpr const mig_instance& operator[](std::size_t i) const noexcept { return items_[i]; }

  friend constexpr bool operator==(const mig_layout&, const mig_layout&) = default;
  friend constexpr auto operator<=>(const mig_layout&, const mig_layout&) = default;

 private:
  static constexpr bool before(mig_instance a, mig_instance b) noexcept { return a.start != b.start ? a.start < b.start : a.profile < b.profile; }
  std::array<mig_instance, capacity> items_{};
  std::uint8_t size_ = 0;
};

// ---- validity ----------------------------------------------------------------------------

enum class mig_violation_kind : std::uint8_t {
  none,
  unknown_profile,      // a profile index outside the geometry's table
  bad_start,            // a start slot the profile does not allow
  overlap,              // two instances share a memory slice
  too_many_of_profile,  // more than max_instances of one profile
  too_many_media,       // more than one +me instance
  too_many_compute,     // more compute slices than the GPU has
};

template <>
struct enum_names<mig_violation_kind> {
  static constexpr enum_entry<mig_violation_kind> entries[] = {{mig_violation_kind::none, "none"},
                                                               {mig_violation_kind::unknown_profile, "unknown_profile"},
                                                               {mig_violation_kind::bad_start, "bad_start"},
                                                               {mig_violation_kind::overlap, "overlap"},
                                                               {mig_violation_kind::too_many_of_profile, "too_many_of_profile"},
                                                               {mig_violation_kind::too_many_media, "too_many_media"},
                                                               {mig_violation_kind::too_many_compute, "too_many_compute"}};
};

// Why a layout is invalid: the kind and the instance(s) it concerns (first, second).
struct mig_violation {
  mig_violation_kind kind = mig_violation_kind::none;
  mig_instance first{};
  mig_instance second{};
  [[nodiscard]] constexpr bool ok() const noexcept { return kind == mig_violation_kind::none; }
  friend constexpr bool operator==(const mig_violation&, const mig_violation&) = default;
};

namespace detail {
// What a layout uses, for the incremental checks of fit and enumeration.
struct mig_usage {
  mig_slice_mask slices = 0;
  std::uint8_t compute = 0;
  std::uint8_t media = 0;
  std::array<std::uint8_t, mig_max_slices> count{};
};
}  // namespace detail

// The first rule a layout breaks, in layout order; ok() when it is valid.
[[nodiscard]] constexpr mig_violation mig_validate(const mig_geometry& g, const mig_layout& l) noexcept {
  detail::mig_usage u;
  std::array<mig_instance, mig_max_slices> owner{};  // who holds each slice
  for (const mig_instance& x : l) {
    if (x.profile >= g.profiles.size()) return {mig_violation_kind::unknown_profile, x, {}};
    const mig_profile& p = g.profiles[x.profile];
    if (x.start >= g.memory_slices || !p.can_start_at(x.start)) return {mig_violation_kind::bad_start, x, {}};
    const mig_slice_mask m = p.occupancy(x.start);
    if ((m & u.slices) != 0) {
      const int s = std::countr_zero(static_cast<unsigned>(m & u.slices));
      return {mig_violation_kind::overlap, owner[static_cast<std::size_t>(s)], x};
    }
    for (int s = x.start; s < x.start + p.memory_slices; ++s) owner[static_cast<std::size_t>(s)] = x;
    u.slices = static_cast<mig_slice_mask>(u.slices | m);
    if (p.media_extensions && ++u.media > 1) return {mig_violation_kind::too_many_media, x, {}};
    if (++u.count[x.profile] > p.max_instances) return {mig_violation_kind::too_many_of_profile, x, {}};
    u.compute = static_cast<std::uint8_t>(u.compute + p.compute_slices);
    if (u.compute > g.compute_slices) return {mig_violation_kind::too_many_compute, x, {}};
  }
  return {};
}

[[nodiscard]] constexpr bool mig_valid(const mig_geometry& g, const mig_layout& l) noexcept { return mig_validate(g, l).ok(); }

// "3g.40gb@4"
[[nodiscard]] inline std::string mig_name(const mig_geometry& g, mig_instance x) {
  std::string s = x.profile < g.profiles.size() ? std::string(g.profiles[x.profile].name) : "profile#" + std::to_string(x.profile);
  return s + "@" + std::to_string(x.start);
}

// The instances of a layout by mig_name, in layout order, joined by `sep`; empty for none.
[[nodiscard]] inline std::string mig_names(const mig_geometry& g, const mig_layout& l, std::string_view sep) {
  std::string s;
  for (const mig_instance& x : l) {
    if (!s.empty()) s += sep;
    s += mig_name(g, x);
  }
  return s;
}

namespace detail {
[[nodiscard]] inline std::string mig_slot_list(mig_slice_mask m) {
  std::string s;
  for (int i = 0; i < mig_max_slices; ++i) {
    if (((m >> i) & 1U) == 0) continue;
    if (!s.empty()) s += ",";
    s += std::to_string(i);
  }
  return s.empty() ? "none" : s;
}
}  // namespace detail

// A sentence for a person: why the layout is invalid.
[[nodiscard]] inline std::string mig_describe(const mig_geometry& g, const mig_violation& v) {
  const auto name = [&](mig_instance x) { return mig_name(g, x); };
  switch (v.kind) {
    case mig_violation_kind::none: return "valid";
    case mig_violation_kind::unknown_profile: return name(v.first) + ": no such profile on " + std::string(g.model);
    case mig_violation_kind::bad_start:
      return name(v.first) + ": " + std::string(g.profiles[v.first.profile].name) + " can start only at memory slice(s) " +
             detail::mig_slot_list(g.profiles[v.first.profile].start_slots);
    case mig_violation_kind::overlap: {
      const mig_slice_mask both =
          static_cast<mig_slice_mask>(g.profiles[v.first.profile].occupancy(v.first.start) & g.profiles[v.second.profile].occupancy(v.second.start));
      return name(v.second) + " overlaps " + name(v.first) + " on memory slice(s) " + detail::mig_slot_list(both);
    }
    case mig_violation_kind::too_many_of_profile:
      return "more than " + std::to_string(g.profiles[v.first.profile].max_instances) + " x " + std::string(g.profiles[v.first.profile].name) +
             " on one GPU";
    case mig_violation_kind::too_many_media: return name(v.first) + ": at most one +me instance per GPU";
    case mig_violation_kind::too_many_compute: return name(v.first) + ": more than the GPU's " + std::to_string(g.compute_slices) + " compute slices";
  }
  return "invalid";
}

// The layout, or an invalid_argument error in field "layout" saying why it is invalid.
[[nodiscard]] inline expected<void> mig_check(const mig_geometry& g, const mig_layout& l) {
  const mig_violation v = mig_validate(g, l);
  if (v.ok()) return {};
  return make_error(error_code::invalid_argument, "layout", mig_describe(g, v));
}

// ---- enumeration -------------------------------------------------------------------------

// How +me profiles count: `fold` treats a +me instance as its plain twin (the +me profiles
// are skipped, as in the published counts); `distinct` enumerates them as profiles of their own.
enum class mig_media : std::uint8_t { fold, distinct };

template <>
struct enum_names<mig_media> {
  static constexpr enum_entry<mig_media> entries[] = {{mig_media::fold, "fold"}, {mig_media::distinct, "distinct"}};
};

namespace detail {
template <class F>
constexpr void mig_enumerate(const mig_geometry& g, mig_media media, mig_usage& u, mig_layout& l, int slice, F& visit) {
  while (slice < g.memory_slices && ((u.slices >> slice) & 1U) != 0) ++slice;
  if (slice >= g.memory_slices) {
    visit(static_cast<const mig_layout&>(l));
    return;
  }
  // The lowest undecided slice stays empty, or one instance starts there.
  const mig_slice_mask saved = u.slices;
  u.slices = static_cast<mig_slice_mask>(u.slices | (1U << slice));
  mig_enumerate(g, media, u, l, slice + 1, visit);
  u.slices = saved;
  for (std::size_t i = 0; i < g.profiles.size(); ++i) {
    const mig_profile& p = g.profiles[i];
    if (p.media_extensions && (media == mig_media::fold || u.media != 0)) continue;
    if (!p.can_start_at(slice) || u.count[i] >= p.max_instances) continue;
    if (u.compute + p.compute_slices > g.compute_slices) continue;
    const mig_slice_mask m = p.occupancy(slice);
    if ((m & u.slices) != 0 || (m & ~g.all_slices()) != 0) continue;
    const mig_instance x{static_cast<mig_profile_index>(i), static_cast<std::uint8_t>(slice)};
    const bool added = l.add(x);
    GPURENT_ASSERT(added);
    u.slices = static_cast<mig_slice_mask>(u.slices | m);
    ++u.count[i];
    u.media = static_cast<std::uint8_t>(u.media + (p.media_extensions ? 1 : 0));
    u.compute = static_cast<std::uint8_t>(u.compute + p.compute_slices);
    mig_enumerate(g, media, u, l, slice + p.memory_slices, visit);
    u.compute = static_cast<std::uint8_t>(u.compute - p.compute_slices);
    u.media = static_cast<std::uint8_t>(u.media - (p.media_extensions ? 1 : 0));
    --u.count[i];
    u.slices = saved;
    l.remove(x);
  }
}
}  // namespace detail

// Calls visit(const mig_layout&) once for every valid layout of g, the empty one included,
// each exactly once. No allocation.
template <class F>
constexpr void mig_for_each_layout(const mig_geometry& g, F&& visit, mig_media media = mig_media::fold) {
  detail::mig_usage u;
  mig_layout l;
  detail::mig_enumerate(g, media, u, l, 0, visit);
}

// Every valid layout of g (the empty one first).
[[nodiscard]] inline std::vector<mig_layout> mig_enumerate_layouts(const mig_geometry& g, mig_media media = mig_media::fold) {
  std::vector<mig_layout> out;
  out.reserve(g.memory_slices == 8 ? 1024 : 64);
  mig_for_each_layout(
      g, [&](const mig_layout& l) { out.push_back(l); }, media);
  return out;
}

[[nodiscard]] constexpr std::size_t mig_count_layouts(const mig_geometry& g, mig_media media = mig_media::fold) {
  std::size_t n = 0;
  mig_for_each_layout(
      g, [&](const mig_layout&) { ++n; }, media);
  return n;
}

// ---- fit -------------------------------------------------------------------------------

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

// ---- repartition -----------------------------------------------------------------------

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
