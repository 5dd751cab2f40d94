// SPDX-License-Identifier: MIT
#pragma once
// Numbers as the result writers print them: a measured float rounded to a stated place (a
// report's figures, never money), and a milli-GPU amount whole when it is.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpurent::io {

// x rounded to 1/scale (1000: three places), half away from zero.
[[nodiscard]] inline double rounded(double x, double scale = 1000.0) { return std::round(x * scale) / scale; }

// A GPU amount in milli-GPU as a JSON number: whole when it is, else to three places.
[[nodiscard]] inline nlohmann::ordered_json gpus_json(std::int64_t milli) {
  if (milli % 1000 == 0) return milli / 1000;
  return rounded(static_cast<double>(milli) / 1000.0);
}

// Milli-units as a decimal with three places ("12.345").
[[nodiscard]] inline std::string milli_text(std::int64_t m) {
  return fmt::format("{}{}.{:03}", m < 0 ? "-" : "", std::abs(m) / 1000, std::abs(m) % 1000);
}

}  // namespace gpurent::io
