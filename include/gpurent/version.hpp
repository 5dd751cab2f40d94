// SPDX-License-Identifier: MIT
#pragma once
// The library's version, as `gpurent --version` prints it. CMake's project() version is the
// same: configuring fails when the two disagree (CMakeLists.txt), so they cannot drift apart.

#include <string_view>

#define GPURENT_VERSION_MAJOR 0
#define GPURENT_VERSION_MINOR 1
#define GPURENT_VERSION_PATCH 0

namespace gpurent {
inline constexpr std::string_view version = "0.1.0";
}  // namespace gpurent
