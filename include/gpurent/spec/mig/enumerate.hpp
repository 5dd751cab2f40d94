// SPDX-License-Identifier: MIT
#pragma once
// Every valid MIG layout of a geometry, each exactly once, without allocation; how +me
// profiles count (folded into their plain twins, as the published counts do, or distinct).

#include <cstddef>
#include <cstdint>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/spec/mig/layout.hpp>
#include <gpurent/spec/mig/validity.hpp>
#include <gpurent/spec/mig_data.hpp>

namespace gpurent {

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

}  // namespace gpurent
