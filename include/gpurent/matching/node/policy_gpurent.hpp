// SPDX-License-Identifier: MIT
#pragma once
// gpurent's own placement policy: FGD's integer score and tie rules, with one more term in
// the node's fragmentation: the idle GPU milli its free CPU cannot feed.
//
// Why: on the Alibaba trace FGD strands GPUs on nodes whose CPU ran out (about 75 GPUs of
// the 290 idle at 100% arrival on `default` sit on nodes with under 2 free cores). FGD's F
// asks only whether *one* instance of each frequent shape still gets its CPU; it does not
// see that 20 free cores cannot feed 8 idle GPUs. gpurent adds
//     lambda x max(0, idle_milli - cpu_free / rho_model)
// to F, where rho_model is the mean CPU per GPU milli of the frequent GPU shapes that can
// run on the node's model. Measured (docs/matching.md): default 4.21% unallocated at 100%
// arrival against FGD's 4.77%.
//
// When many tasks are pinned to GPU models (gpu_spec), protecting the scarce models matters
// more than CPU balance, and the term pushes CPU-heavy generic tasks onto the CPU-rich but
// contended models (T4 in gpuspec33). So lambda fades with the pinned share p of the
// frequent shapes' GPU demand: lambda = clamp(1 - p / 0.2, 0, 1); at p >= 20% the policy
// is FGD.

#include <algorithm>
#include <cstdint>
#include <string_view>

#include <gpurent/matching/node/policy.hpp>

namespace gpurent {

namespace detail {
// FGD's engine with the CPU-stranding term, faded by the pinned share of the workload.
struct gpurent_engine : fgd_engine<fgd_gpu_choice::integer_score> {
  static constexpr double pinned_fade = 0.2;
  gpurent_engine(const inventory& inv, const policy_context& c) : fgd_engine(inv, c) {
    set_cpu_stranding(std::clamp(1.0 - pinned_fraction() / pinned_fade, 0.0, 1.0));
  }
};
}  // namespace detail

struct policy_gpurent : detail::fgd_policy<detail::gpurent_engine> {
  static constexpr std::string_view name = "gpurent";
};

}  // namespace gpurent
