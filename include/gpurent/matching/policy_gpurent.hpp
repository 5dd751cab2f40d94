// SPDX-License-Identifier: MIT
#pragma once
// gpurent's own placement policy. See docs/matching.md for the measurements behind it.

#include <cstdint>
#include <string_view>

#include <gpurent/matching/policy.hpp>

namespace gpurent {

template <int Variant>
struct policy_gpurent_t {
  static constexpr std::string_view name = "gpurent";
  using state = detail::fgd_engine<Variant == 3 || Variant == 4 ? detail::fgd_gpu_choice::exact : detail::fgd_gpu_choice::integer_score>;
  static void prepare(state& s, const inventory& inv, const placement_request& r) { s.prepare(inv, r); }
  [[nodiscard]] static std::int64_t score(state& s, const inventory& inv, node_index n, const placement_request& r) noexcept {
    const detail::fgd_eval& e = s.eval(inv, n, r);
    const std::int64_t primary = std::int64_t{e.score} << 32;
    if constexpr (Variant == 1 || Variant == 4) {
      const double left = detail::leftover_after(inv, n, r);
      return primary + static_cast<std::int64_t>(1.0e6 * (2.0 - left));
    } else if constexpr (Variant == 2) {
      return primary + static_cast<std::int64_t>(1.0e3 * e.delta) ;
    } else {
      return primary;
    }
  }
  static void choose_gpus(state& s, const inventory& inv, node_index n, const placement_request& r, gpu_pick& pick) noexcept {
    s.choose(inv, n, r, pick);
  }
};
using policy_gpurent = policy_gpurent_t<1>;

}  // namespace gpurent
