// SPDX-License-Identifier: MIT
#pragma once
// Which sharing modes a placement request accepts, as a small set of flags: the request
// side of the sharing vocabulary (matching/request.hpp holds one). A request that accepts
// `spot` may be placed on preemptible capacity; without it a spot node is not a candidate.
// `fractional` and `mig` say the request may be served by a time-sliced share or a MIG
// slice; the request's own shape (a share of one GPU, a MIG profile) says which it asks for.
//
// A set test is one AND on a byte: the matcher checks it per candidate node.

#include <cstdint>
#include <optional>
#include <string>

#include <gpurent/core/enum.hpp>
#include <gpurent/sharing/modes.hpp>

namespace gpurent {

enum class accept_mode : std::uint8_t { exclusive = 1, fractional = 2, mig = 4, spot = 8 };

template <>
struct enum_names<accept_mode> {
  static constexpr enum_entry<accept_mode> entries[] = {
      {accept_mode::exclusive, "exclusive"}, {accept_mode::fractional, "fractional"}, {accept_mode::mig, "mig"}, {accept_mode::spot, "spot"}};
};

// A set of accepted modes. A single mode converts to the set holding it, so
// `accept_mode::exclusive | accept_mode::spot` is a set.
class accept_set {
 public:
  constexpr accept_set() noexcept = default;
  constexpr accept_set(accept_mode m) noexcept : bits_(static_cast<std::uint8_t>(m)) {}  // NOLINT: a mode is a one-mode set

  [[nodiscard]] constexpr bool contains(accept_mode m) const noexcept { return (bits_ & static_cast<std::uint8_t>(m)) != 0; }
  [[nodiscard]] constexpr bool empty() const noexcept { return bits_ == 0; }
  [[nodiscard]] constexpr std::uint8_t bits() const noexcept { return bits_; }

  constexpr accept_set& operator|=(accept_set o) noexcept {
    bits_ = static_cast<std::uint8_t>(bits_ | o.bits_);
    return *this;
  }
  [[nodiscard]] friend constexpr accept_set operator|(accept_set a, accept_set b) noexcept { return a |= b; }
  friend constexpr bool operator==(accept_set, accept_set) = default;

 private:
  std::uint8_t bits_ = 0;
};

[[nodiscard]] constexpr accept_set operator|(accept_mode a, accept_mode b) noexcept { return accept_set(a) | b; }

// "exclusive|spot": the modes in the table's order; "none" for the empty set.
[[nodiscard]] inline std::string to_string(accept_set s) {
  std::string out;
  for (const auto& e : enum_names<accept_mode>::entries) {
    if (!s.contains(e.value)) continue;
    if (!out.empty()) out += '|';
    out += e.name;
  }
  return out.empty() ? "none" : out;
}

// What a request must accept to be served in a mode: exclusive, fractional (a time-sliced
// share), mig, spot (preemptible capacity). Nothing for MPS: the matcher places no MPS
// clients.
[[nodiscard]] constexpr std::optional<accept_mode> accept_mode_of(sharing_kind k) noexcept {
  switch (k) {
    case sharing_kind::exclusive: return accept_mode::exclusive;
    case sharing_kind::share: return accept_mode::fractional;
    case sharing_kind::mig: return accept_mode::mig;
    case sharing_kind::preemptible: return accept_mode::spot;
    case sharing_kind::mps: break;
  }
  return std::nullopt;
}

}  // namespace gpurent
