// SPDX-License-Identifier: MIT
#pragma once
// MIG geometry as data: per GPU model, its GPU-instance profiles and the memory-slice start
// slots where NVIDIA places them. Every row carries its source: the NVIDIA MIG user guide,
// NVIDIA/mig-parted's configurations and public `nvidia-smi mig -lgip` captures. The rows of
// the six models with captures were collected in a data set of them, which
// tests/spec/mig_data.test.cpp compares field by field when it is at hand (GPURENT_DATA_DIR).

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

namespace gpurent {

// Index of a profile within its geometry's profile table.
using mig_profile_index = std::uint8_t;

// The most memory slices of any MIG GPU (and so the most instances on one GPU).
inline constexpr int mig_max_slices = 8;

// A bit set of memory slices: bit s set = slice s.
using mig_slice_mask = std::uint8_t;

// One MIG GPU-instance profile of one GPU model.
struct mig_profile {
  std::string_view name;  // NVIDIA name, "3g.40gb"
  std::uint16_t id = 0;   // NVML GPU-instance profile id (nvidia-smi mig -lgip "ID")
  std::uint8_t compute_slices = 0;
  std::uint8_t memory_slices = 0;  // an instance occupies [start, start + memory_slices)
  std::uint8_t max_instances = 0;
  std::int32_t memory_centigib = 0;  // GiB x 100 as nvidia-smi prints it; 0 = no capture found
  std::int32_t sms = 0;              // SM count; 0 = no capture found
  bool media_extensions = false;     // a "+me" profile (at most one +me instance per GPU)
  mig_slice_mask start_slots = 0;    // bit s set: an instance may start at memory slice s
  std::string_view source;

  [[nodiscard]] constexpr bool can_start_at(int s) const noexcept { return s >= 0 && s < mig_max_slices && ((start_slots >> s) & 1U) != 0; }
  // The memory slices an instance started at `s` occupies.
  [[nodiscard]] constexpr mig_slice_mask occupancy(int s) const noexcept {
    return static_cast<mig_slice_mask>(((1U << memory_slices) - 1U) << static_cast<unsigned>(s));
  }
  // Memory in MiB, rounded to the nearest MiB from the GiB figure nvidia-smi prints (which is
  // itself rounded to 1/100 GiB); empty where no capture was found.
  [[nodiscard]] constexpr std::optional<std::int64_t> memory_mib() const noexcept {
    if (memory_centigib == 0) return std::nullopt;
    return (std::int64_t{memory_centigib} * 1024 + 50) / 100;
  }
  [[nodiscard]] constexpr std::optional<std::int32_t> sm_count() const noexcept {
    if (sms == 0) return std::nullopt;
    return sms;
  }
  friend constexpr bool operator==(const mig_profile&, const mig_profile&) = default;
};

// For each occupancy mask: how many distinct placed layouts the free slices still admit
// (the empty completion included, "+me" profiles counted as their plain twin). fit ranks
// candidate placements by this number: more completions = more future options open.
using mig_option_table = std::array<std::uint16_t, 1U << mig_max_slices>;

// For each occupancy mask: the memory slices of every profile that still has a free start
// slot, summed ("+me" folded). fit breaks ties in options with it, so among equally flexible
// placements it keeps the larger profiles placeable.
using mig_reach_table = std::array<std::uint8_t, 1U << mig_max_slices>;

// The MIG geometry of one GPU model.
struct mig_geometry {
  std::string_view model;  // canonical catalog name, "H100-SXM5-80GB"
  std::uint8_t compute_slices = 0;
  std::uint8_t memory_slices = 0;
  std::span<const mig_profile> profiles;
  const mig_option_table* options = nullptr;
  const mig_reach_table* reach = nullptr;
  std::string_view note;  // what is assumed rather than captured

  [[nodiscard]] constexpr mig_slice_mask all_slices() const noexcept { return static_cast<mig_slice_mask>((1U << memory_slices) - 1U); }
  [[nodiscard]] constexpr std::optional<mig_profile_index> find_profile(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < profiles.size(); ++i)
      if (profiles[i].name == name) return static_cast<mig_profile_index>(i);
    return std::nullopt;
  }
  [[nodiscard]] constexpr const mig_profile& operator[](mig_profile_index i) const noexcept { return profiles[i]; }
};

namespace detail {

[[nodiscard]] constexpr mig_slice_mask mig_slots(std::initializer_list<int> starts) noexcept {
  unsigned m = 0;
  for (int s : starts) m |= 1U << static_cast<unsigned>(s);
  return static_cast<mig_slice_mask>(m);
}

// Completions of every occupancy mask, by dynamic programming over masks: the lowest free
// slice s of `free` is either left empty or is the start of one placement; every placement
// that covers s starts at s, since the slices below s are already decided. `free` only
// shrinks, so masks are filled in increasing order of their free set.
template <std::size_t N>
[[nodiscard]] constexpr mig_option_table mig_make_options(const std::array<mig_profile, N>& ps, int slices) noexcept {
  mig_option_table by_free{};  // indexed by the free mask
  const unsigned all = (1U << static_cast<unsigned>(slices)) - 1U;
  by_free[0] = 1;
  for (unsigned free = 1; free <= all; ++free) {
    unsigned s = 0;
    while (((free >> s) & 1U) == 0) ++s;
    unsigned n = by_free[free & ~(1U << s)];
    for (const mig_profile& p : ps) {
      if (p.media_extensions || !p.can_start_at(static_cast<int>(s))) continue;
      const unsigned m = p.occupancy(static_cast<int>(s));
      if ((m & ~free) == 0) n += by_free[free & ~m];
    }
    by_free[free] = static_cast<std::uint16_t>(n);
  }
  mig_option_table by_used{};
  for (unsigned used = 0; used <= all; ++used) by_used[used] = by_free[all & ~used];
  return by_used;
}

template <std::size_t N>
[[nodiscard]] constexpr mig_reach_table mig_make_reach(const std::array<mig_profile, N>& ps, int slices) noexcept {
  mig_reach_table t{};
  const unsigned all = (1U << static_cast<unsigned>(slices)) - 1U;
  for (unsigned used = 0; used <= all; ++used) {
    unsigned sum = 0;
    for (const mig_profile& p : ps) {
      if (p.media_extensions) continue;
      for (int s = 0; s < slices; ++s) {
        const unsigned m = p.occupancy(s);
        if (p.can_start_at(s) && (m & ~all) == 0 && (m & used) == 0) {
          sum += p.memory_slices;
          break;
        }
      }
    }
    t[used] = static_cast<std::uint8_t>(sum);
  }
  return t;
}

// ---- sources ---------------------------------------------------------------------------
inline constexpr std::string_view mig_src_a100_40 =
    "NVIDIA MIG user guide, supported-mig-profiles; nvidia-smi mig -lgip capture in NVIDIA developer forum thread 170488";
inline constexpr std::string_view mig_src_a100_80 = "NVIDIA MIG user guide, supported-mig-profiles";
inline constexpr std::string_view mig_src_h100 =
    "NVIDIA MIG user guide, supported-mig-profiles; public nvidia-smi mig -lgip capture on H100 80GB HBM3";
inline constexpr std::string_view mig_src_h100_nvl =
    "NVIDIA MIG user guide, supported-mig-profiles; nvidia-smi mig -lgip capture on Azure NC40ads_H100_v5 (repo AlizeeChen11/mig-and-mps)";
inline constexpr std::string_view mig_src_h200 = "NVIDIA MIG user guide, supported-mig-profiles; nvidia-smi mig -lgip in NVIDIA/mig-parted issue 120";
inline constexpr std::string_view mig_src_b200 = "NVIDIA MIG user guide, supported-mig-profiles; NVIDIA/mig-parted PR 166 and PR 187";
inline constexpr std::string_view mig_src_h100_pcie =
    "NVIDIA MIG user guide, supported-mig-profiles (H100 80GB profiles); placements as H100-SXM5-80GB; "
    "GiB and SMs not captured (the PCIe card has 114 SMs, not 132)";
inline constexpr std::string_view mig_src_gh200 =
    "NVIDIA MIG user guide, supported-mig-profiles (GH200 96GB profile names and instance counts); placements and SMs "
    "as H100-SXM5-80GB (same GH100 die, 132 SMs; 3g.48gb = 60 SMs in public captures), unverified; GiB not captured";
inline constexpr std::string_view mig_src_h200_nvl =
    "NVIDIA MIG user guide, supported GPUs (H200 NVL, 7 instances); profile names and counts as H200 SXM (NVIDIA/mig-parted PR 146 "
    "configures both alike); placements as H200, unverified; GiB and SMs not captured";
inline constexpr std::string_view mig_src_gb200 =
    "NVIDIA MIG user guide, supported GPUs (GB200, 186GB, 7 instances); names and counts from NVIDIA/mig-parted PR 228 (production "
    "boards); GiB and SMs of 1g and 2g from the nvidia-smi mig -lgip capture in NVIDIA/mig-parted issue 227; 3g, 4g, 7g not captured";
inline constexpr std::string_view mig_src_gh200_144 =
    "nvidia-smi mig -lgip capture in NVIDIA/mig-parted PR 139 (GH200 144G HBM3e: 1g and 2g rows) and the counts it configures "
    "(3g.72gb x2, 4g.72gb, 7g.144gb); 3g, 4g, 7g GiB and SMs not captured";
inline constexpr std::string_view mig_src_a30 =
    "NVIDIA MIG user guide, supported-mig-profiles (A30-24GB); nvidia-smi mig -lgip/-lgipp captures (A30, driver >= R525) "
    "in public GitHub notes";

// The 8-slice placement table: 1g at 0..6, double-memory 1g at 0,2,4,6, 2g at 0,2,4, 3g at
// 0,4, 4g and 7g at 0 (nvidia-smi mig -lgipp on A100-40GB, H100 80GB, H100 NVL).
inline constexpr mig_slice_mask mig_s1 = mig_slots({0, 1, 2, 3, 4, 5, 6});
inline constexpr mig_slice_mask mig_s1d = mig_slots({0, 2, 4, 6});
inline constexpr mig_slice_mask mig_s2 = mig_slots({0, 2, 4});
inline constexpr mig_slice_mask mig_s3 = mig_slots({0, 4});
inline constexpr mig_slice_mask mig_s0 = mig_slots({0});

// name, id, compute, memory slices, max, GiB x 100, SMs, +me, starts, source
inline constexpr std::array<mig_profile, 7> mig_a100_sxm4_40gb{{
    {"1g.5gb", 19, 1, 1, 7, 475, 14, false, mig_s1, mig_src_a100_40},
    {"1g.5gb+me", 20, 1, 1, 1, 475, 14, true, mig_s1, mig_src_a100_40},
    {"1g.10gb", 15, 1, 2, 4, 0, 14, false, mig_s1d, mig_src_a100_40},
    {"2g.10gb", 14, 2, 2, 3, 975, 28, false, mig_s2, mig_src_a100_40},
    {"3g.20gb", 9, 3, 4, 2, 1962, 42, false, mig_s3, mig_src_a100_40},
    {"4g.20gb", 5, 4, 4, 1, 1962, 56, false, mig_s0, mig_src_a100_40},
    {"7g.40gb", 0, 7, 8, 1, 3950, 98, false, mig_s0, mig_src_a100_40},
}};

inline constexpr std::array<mig_profile, 7> mig_a100_sxm4_80gb{{
    {"1g.10gb", 19, 1, 1, 7, 0, 14, false, mig_s1, mig_src_a100_80},
    {"1g.10gb+me", 20, 1, 1, 1, 0, 14, true, mig_s1, mig_src_a100_80},
    {"1g.20gb", 15, 1, 2, 4, 0, 14, false, mig_s1d, mig_src_a100_80},
    {"2g.20gb", 14, 2, 2, 3, 0, 28, false, mig_s2, mig_src_a100_80},
    {"3g.40gb", 9, 3, 4, 2, 0, 42, false, mig_s3, mig_src_a100_80},
    {"4g.40gb", 5, 4, 4, 1, 0, 56, false, mig_s0, mig_src_a100_80},
    {"7g.80gb", 0, 7, 8, 1, 0, 98, false, mig_s0, mig_src_a100_80},
}};

inline constexpr std::array<mig_profile, 7> mig_h100_sxm5_80gb{{
    {"1g.10gb", 19, 1, 1, 7, 975, 16, false, mig_s1, mig_src_h100},
    {"1g.10gb+me", 20, 1, 1, 1, 975, 16, true, mig_s1, mig_src_h100},
    {"1g.20gb", 15, 1, 2, 4, 1962, 26, false, mig_s1d, mig_src_h100},
    {"2g.20gb", 14, 2, 2, 3, 1962, 32, false, mig_s2, mig_src_h100},
    {"3g.40gb", 9, 3, 4, 2, 3950, 60, false, mig_s3, mig_src_h100},
    {"4g.40gb", 5, 4, 4, 1, 3950, 64, false, mig_s0, mig_src_h100},
    {"7g.80gb", 0, 7, 8, 1, 7925, 132, false, mig_s0, mig_src_h100},
}};

inline constexpr std::array<mig_profile, 7> mig_h100_pcie_80gb{{
    {"1g.10gb", 19, 1, 1, 7, 0, 0, false, mig_s1, mig_src_h100_pcie},
    {"1g.10gb+me", 20, 1, 1, 1, 0, 0, true, mig_s1, mig_src_h100_pcie},
    {"1g.20gb", 15, 1, 2, 4, 0, 0, false, mig_s1d, mig_src_h100_pcie},
    {"2g.20gb", 14, 2, 2, 3, 0, 0, false, mig_s2, mig_src_h100_pcie},
    {"3g.40gb", 9, 3, 4, 2, 0, 0, false, mig_s3, mig_src_h100_pcie},
    {"4g.40gb", 5, 4, 4, 1, 0, 0, false, mig_s0, mig_src_h100_pcie},
    {"7g.80gb", 0, 7, 8, 1, 0, 0, false, mig_s0, mig_src_h100_pcie},
}};

inline constexpr std::array<mig_profile, 7> mig_h100_nvl_94gb{{
    {"1g.12gb", 19, 1, 1, 7, 1075, 16, false, mig_s1, mig_src_h100_nvl},
    {"1g.12gb+me", 20, 1, 1, 1, 1075, 16, true, mig_s1, mig_src_h100_nvl},
    {"1g.24gb", 15, 1, 2, 4, 2162, 26, false, mig_s1d, mig_src_h100_nvl},
    {"2g.24gb", 14, 2, 2, 3, 2162, 32, false, mig_s2, mig_src_h100_nvl},
    {"3g.47gb", 9, 3, 4, 2, 4638, 60, false, mig_s3, mig_src_h100_nvl},
    {"4g.47gb", 5, 4, 4, 1, 4638, 64, false, mig_s0, mig_src_h100_nvl},
    {"7g.94gb", 0, 7, 8, 1, 9312, 132, false, mig_s0, mig_src_h100_nvl},
}};

inline constexpr std::array<mig_profile, 7> mig_gh200_96gb{{
    {"1g.12gb", 19, 1, 1, 7, 0, 16, false, mig_s1, mig_src_gh200},
    {"1g.12gb+me", 20, 1, 1, 1, 0, 16, true, mig_s1, mig_src_gh200},
    {"1g.24gb", 15, 1, 2, 4, 0, 26, false, mig_s1d, mig_src_gh200},
    {"2g.24gb", 14, 2, 2, 3, 0, 32, false, mig_s2, mig_src_gh200},
    {"3g.48gb", 9, 3, 4, 2, 0, 60, false, mig_s3, mig_src_gh200},
    {"4g.48gb", 5, 4, 4, 1, 0, 64, false, mig_s0, mig_src_gh200},
    {"7g.96gb", 0, 7, 8, 1, 0, 132, false, mig_s0, mig_src_gh200},
}};

inline constexpr std::array<mig_profile, 7> mig_h200_sxm_141gb{{
    {"1g.18gb", 19, 1, 1, 7, 1600, 16, false, mig_s1, mig_src_h200},
    {"1g.18gb+me", 20, 1, 1, 1, 1600, 16, true, mig_s1, mig_src_h200},
    {"1g.35gb", 15, 1, 2, 4, 3225, 26, false, mig_s1d, mig_src_h200},
    {"2g.35gb", 14, 2, 2, 3, 3225, 32, false, mig_s2, mig_src_h200},
    {"3g.71gb", 9, 3, 4, 2, 6950, 60, false, mig_s3, mig_src_h200},
    {"4g.71gb", 5, 4, 4, 1, 6950, 64, false, mig_s0, mig_src_h200},
    {"7g.141gb", 0, 7, 8, 1, 13975, 132, false, mig_s0, mig_src_h200},
}};

inline constexpr std::array<mig_profile, 7> mig_h200_nvl_141gb{{
    {"1g.18gb", 19, 1, 1, 7, 0, 0, false, mig_s1, mig_src_h200_nvl},
    {"1g.18gb+me", 20, 1, 1, 1, 0, 0, true, mig_s1, mig_src_h200_nvl},
    {"1g.35gb", 15, 1, 2, 4, 0, 0, false, mig_s1d, mig_src_h200_nvl},
    {"2g.35gb", 14, 2, 2, 3, 0, 0, false, mig_s2, mig_src_h200_nvl},
    {"3g.71gb", 9, 3, 4, 2, 0, 0, false, mig_s3, mig_src_h200_nvl},
    {"4g.71gb", 5, 4, 4, 1, 0, 0, false, mig_s0, mig_src_h200_nvl},
    {"7g.141gb", 0, 7, 8, 1, 0, 0, false, mig_s0, mig_src_h200_nvl},
}};

inline constexpr std::array<mig_profile, 7> mig_gh200_144gb{{
    {"1g.18gb", 19, 1, 1, 7, 1750, 16, false, mig_s1, mig_src_gh200_144},
    {"1g.18gb+me", 20, 1, 1, 1, 1750, 16, true, mig_s1, mig_src_gh200_144},
    {"1g.36gb", 15, 1, 2, 4, 3525, 26, false, mig_s1d, mig_src_gh200_144},
    {"2g.36gb", 14, 2, 2, 3, 3525, 32, false, mig_s2, mig_src_gh200_144},
    {"3g.72gb", 9, 3, 4, 2, 0, 0, false, mig_s3, mig_src_gh200_144},
    {"4g.72gb", 5, 4, 4, 1, 0, 0, false, mig_s0, mig_src_gh200_144},
    {"7g.144gb", 0, 7, 8, 1, 0, 0, false, mig_s0, mig_src_gh200_144},
}};

inline constexpr std::array<mig_profile, 7> mig_b200_180gb{{
    {"1g.23gb", 19, 1, 1, 7, 2200, 18, false, mig_s1, mig_src_b200},
    {"1g.23gb+me", 20, 1, 1, 1, 2200, 18, true, mig_s1, mig_src_b200},
    {"1g.45gb", 15, 1, 2, 4, 4425, 30, false, mig_s1d, mig_src_b200},
    {"2g.45gb", 14, 2, 2, 3, 4425, 36, false, mig_s2, mig_src_b200},
    {"3g.90gb", 9, 3, 4, 2, 0, 0, false, mig_s3, mig_src_b200},
    {"4g.90gb", 5, 4, 4, 1, 0, 0, false, mig_s0, mig_src_b200},
    {"7g.180gb", 0, 7, 8, 1, 0, 0, false, mig_s0, mig_src_b200},
}};

inline constexpr std::array<mig_profile, 7> mig_gb200_186gb{{
    {"1g.23gb", 19, 1, 1, 7, 2200, 18, false, mig_s1, mig_src_gb200},
    {"1g.23gb+me", 20, 1, 1, 1, 2200, 18, true, mig_s1, mig_src_gb200},
    {"1g.47gb", 15, 1, 2, 4, 4550, 32, false, mig_s1d, mig_src_gb200},
    {"2g.47gb", 14, 2, 2, 3, 4550, 38, false, mig_s2, mig_src_gb200},
    {"3g.93gb", 9, 3, 4, 2, 0, 0, false, mig_s3, mig_src_gb200},
    {"4g.93gb", 5, 4, 4, 1, 0, 0, false, mig_s0, mig_src_gb200},
    {"7g.186gb", 0, 7, 8, 1, 0, 0, false, mig_s0, mig_src_gb200},
}};

// A30: 4 compute and 4 memory slices. -lgipp: 1g at {0,1,2,3}, 2g at {0,2}, 4g at {0}.
inline constexpr std::array<mig_profile, 5> mig_a30_24gb{{
    {"1g.6gb", 14, 1, 1, 4, 581, 14, false, mig_slots({0, 1, 2, 3}), mig_src_a30},
    {"1g.6gb+me", 21, 1, 1, 1, 581, 14, true, mig_slots({0, 1, 2, 3}), mig_src_a30},
    {"2g.12gb", 5, 2, 2, 2, 1169, 28, false, mig_slots({0, 2}), mig_src_a30},
    {"2g.12gb+me", 6, 2, 2, 1, 1169, 28, true, mig_slots({0, 2}), mig_src_a30},
    {"4g.24gb", 0, 4, 4, 1, 2344, 56, false, mig_slots({0}), mig_src_a30},
}};

// Every 8-slice table above has the same placements, so one option table serves them all;
// tests check that it equals the one computed from each table.
inline constexpr mig_option_table mig_options_8 = mig_make_options(mig_h100_sxm5_80gb, 8);
inline constexpr mig_option_table mig_options_a30 = mig_make_options(mig_a30_24gb, 4);
inline constexpr mig_reach_table mig_reach_8 = mig_make_reach(mig_h100_sxm5_80gb, 8);
inline constexpr mig_reach_table mig_reach_a30 = mig_make_reach(mig_a30_24gb, 4);

inline constexpr std::string_view mig_note_measured = "";
inline constexpr std::string_view mig_note_assumed = "placement table assumed from identical profile ids and fractions; unverified on hardware";

}  // namespace detail

// Every built-in MIG geometry, by canonical model name.
inline constexpr std::array<mig_geometry, 14> mig_geometries{{
    {"A100-SXM4-40GB", 7, 8, detail::mig_a100_sxm4_40gb, &detail::mig_options_8, &detail::mig_reach_8, detail::mig_note_measured},
    {"A100-SXM4-80GB", 7, 8, detail::mig_a100_sxm4_80gb, &detail::mig_options_8, &detail::mig_reach_8, detail::mig_note_measured},
    {"A100-PCIE-40GB", 7, 8, detail::mig_a100_sxm4_40gb, &detail::mig_options_8, &detail::mig_reach_8,
     "same profiles and placements as A100-SXM4-40GB (NVIDIA MIG user guide)"},
    {"A100-PCIE-80GB", 7, 8, detail::mig_a100_sxm4_80gb, &detail::mig_options_8, &detail::mig_reach_8,
     "same profiles and placements as A100-SXM4-80GB (NVIDIA MIG user guide; NVIDIA/mig-parted configures 0x20B5 with 0x20B2)"},
    {"H100-SXM5-80GB", 7, 8, detail::mig_h100_sxm5_80gb, &detail::mig_options_8, &detail::mig_reach_8, detail::mig_note_measured},
    {"H100-PCIE-80GB", 7, 8, detail::mig_h100_pcie_80gb, &detail::mig_options_8, &detail::mig_reach_8,
     "profiles and placements as H100-SXM5-80GB; GiB and SMs not captured"},
    {"H100-NVL-94GB", 7, 8, detail::mig_h100_nvl_94gb, &detail::mig_options_8, &detail::mig_reach_8, detail::mig_note_measured},
    {"H200-SXM-141GB", 7, 8, detail::mig_h200_sxm_141gb, &detail::mig_options_8, &detail::mig_reach_8, detail::mig_note_assumed},
    {"H200-NVL-141GB", 7, 8, detail::mig_h200_nvl_141gb, &detail::mig_options_8, &detail::mig_reach_8, detail::mig_note_assumed},
    {"GH200", 7, 8, detail::mig_gh200_96gb, &detail::mig_options_8, &detail::mig_reach_8,
     "GH200 96GB; placements and SMs as H100-SXM5-80GB, unverified"},
    {"GH200-144GB", 7, 8, detail::mig_gh200_144gb, &detail::mig_options_8, &detail::mig_reach_8, detail::mig_note_assumed},
    {"B200-180GB", 7, 8, detail::mig_b200_180gb, &detail::mig_options_8, &detail::mig_reach_8, detail::mig_note_assumed},
    {"GB200-186GB", 7, 8, detail::mig_gb200_186gb, &detail::mig_options_8, &detail::mig_reach_8, detail::mig_note_assumed},
    {"A30", 4, 4, detail::mig_a30_24gb, &detail::mig_options_a30, &detail::mig_reach_a30, detail::mig_note_measured},
}};

// The MIG geometry of a model, by its canonical catalog name; nullptr when the model has no
// MIG (or is not a model gpurent knows). Resolve aliases through the catalog's find_model.
[[nodiscard]] constexpr const mig_geometry* find_mig_geometry(std::string_view canonical_model_name) noexcept {
  for (const mig_geometry& g : mig_geometries)
    if (g.model == canonical_model_name) return &g;
  return nullptr;
}

}  // namespace gpurent
