// SPDX-License-Identifier: MIT
#pragma once
// GPU types a data set names without saying what they are (the Alibaba GPU trace's G2 and
// G3): in the built-in catalog so that their names resolve, with no number at all.

#include <array>

#include <gpurent/spec/gpu.hpp>

namespace gpurent::detail::builtin {

inline constexpr std::array undisclosed_models{
    gpu_model{.name = "G2",
              .aliases = {},
              .vendor = gpu_vendor::unknown,
              .architecture = {},
              .form = form_factor::unknown,
              .notes = "undisclosed GPU type of the Alibaba GPU trace v2023 (549 nodes x 8 GPUs); no specs published"},
    gpu_model{.name = "G3",
              .aliases = {},
              .vendor = gpu_vendor::unknown,
              .architecture = {},
              .form = form_factor::unknown,
              .notes = "undisclosed GPU type of the Alibaba GPU trace v2023 (39 nodes x 8 GPUs); no specs published"},
};

}  // namespace gpurent::detail::builtin
