// SPDX-License-Identifier: MIT
#pragma once
// MIG layouts: a placed GPU instance (a profile at a start slice) and a set of them, in
// canonical order, with their names ("3g.40gb@4"). Which layouts are valid: mig/validity.hpp.

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <gpurent/core/assert.hpp>
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

}  // namespace gpurent
