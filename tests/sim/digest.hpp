// SPDX-License-Identifier: MIT
#pragma once
// The digest of a simulation: FNV-1a (64-bit) over the run's observable events, so that a
// seed replays a run exactly and a changed decision anywhere changes the digest.

#include <cstdint>
#include <string_view>

namespace gpurent::sim {

class digest {
 public:
  void add(std::uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i) {
      h_ ^= (v >> (8 * i)) & 0xffU;
      h_ *= 0x100000001b3ULL;
    }
  }
  void add(std::string_view s) noexcept {
    for (const char c : s) {
      h_ ^= static_cast<unsigned char>(c);
      h_ *= 0x100000001b3ULL;
    }
    add(s.size());
  }
  [[nodiscard]] std::uint64_t value() const noexcept { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace gpurent::sim
