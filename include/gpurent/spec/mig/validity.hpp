// SPDX-License-Identifier: MIT
#pragma once
// MIG layouts' validity, exact to the memory slot (NVML nvmlGpuInstancePlacement_t): an
// instance of profile p started at slice s occupies memory slices [s, s + p.memory_slices);
// instances never overlap; s must be one of p's start slots; at most p.max_instances of p and
// at most one "+me" instance per GPU; the compute slices of all instances add up to at most
// the geometry's. The first rule a layout breaks, and a sentence that says so.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/spec/mig/layout.hpp>
#include <gpurent/spec/mig_data.hpp>

namespace gpurent {

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

}  // namespace gpurent
