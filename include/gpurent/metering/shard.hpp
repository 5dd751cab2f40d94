// SPDX-License-Identifier: MIT
#pragma once
// Which shard a usage record belongs to. The hash is FNV-1a 64 of the id's bytes, a fixed
// function of the bytes alone (not std::hash, which differs between standard libraries), so
// N processes on N machines built by different compilers split the same records the same
// way: record `id` is in shard fnv1a64(id) mod N. All records with one id meet in one shard,
// so duplicates and conflicts are found there as in one run.

#include <charconv>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <gpurent/core/error.hpp>

namespace gpurent {

inline constexpr std::uint64_t fnv1a64_offset = 14695981039346656037ULL;
inline constexpr std::uint64_t fnv1a64_prime = 1099511628211ULL;

// FNV-1a 64 of bytes, continuing from `h` (start: fnv1a64_offset).
[[nodiscard]] constexpr std::uint64_t fnv1a64(std::string_view data, std::uint64_t h = fnv1a64_offset) noexcept {
  for (const char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= fnv1a64_prime;
  }
  return h;
}

// Shard K of N (0 <= K < N).
struct shard_spec {
  std::uint32_t index = 0;
  std::uint32_t count = 1;
  [[nodiscard]] constexpr bool whole() const noexcept { return count == 1; }
  [[nodiscard]] constexpr bool holds(std::string_view id) const noexcept { return count == 1 || fnv1a64(id) % count == index; }
  friend constexpr bool operator==(shard_spec, shard_spec) noexcept = default;
};

// The shard of an id among `n`.
[[nodiscard]] constexpr std::uint32_t shard_of(std::string_view id, std::uint32_t n) noexcept { return static_cast<std::uint32_t>(fnv1a64(id) % n); }

// "K/N" with 0 <= K < N.
[[nodiscard]] inline expected<shard_spec> parse_shard(std::string_view s) {
  const auto bad = [&](const std::string& why) {
    return make_error(error_code::invalid_argument, "--shard", "expected K/N with 0 <= K < N, got \"" + std::string(s) + "\" (" + why + ")");
  };
  const std::size_t slash = s.find('/');
  if (slash == std::string_view::npos) return bad("no '/'");
  std::uint32_t k = 0, n = 0;
  const auto num = [](std::string_view part, std::uint32_t& out) {
    const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return !part.empty() && ec == std::errc{} && p == part.data() + part.size();
  };
  if (!num(s.substr(0, slash), k) || !num(s.substr(slash + 1), n)) return bad("not two whole numbers");
  if (n == 0 || k >= n) return bad("K must be below N");
  return shard_spec{k, n};
}

}  // namespace gpurent
