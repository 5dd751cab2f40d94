// SPDX-License-Identifier: MIT
#pragma once
// Choosing a compile-time policy by name at run time (the tool's --policy): one switch
// over a type list, so each policy's scoring loop is still compiled without indirection.

#include <array>
#include <string_view>
#include <utility>

#include <gpurent/matching/node/policy.hpp>
#include <gpurent/matching/node/policy_gpurent.hpp>

namespace gpurent {

template <PlacementPolicy... Ps>
struct policy_list {
  static constexpr std::array<std::string_view, sizeof...(Ps)> names{Ps::name...};
  // Calls f.template operator()<P>() for the policy named `name`; false when none is.
  template <class F>
  static bool visit(std::string_view name, F&& f) {
    return ((Ps::name == name ? (std::forward<F>(f).template operator()<Ps>(), true) : false) || ...);
  }
};

using builtin_policies =
    policy_list<policy_gpurent, policy_fgd, policy_best_fit, policy_dot_product, policy_random, policy_first_fit, policy_worst_fit>;

}  // namespace gpurent
