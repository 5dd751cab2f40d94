// SPDX-License-Identifier: MIT
#pragma once
// Shared by the libFuzzer targets: a check that turns a broken property into a crash
// libFuzzer records (with the input saved), and a small reader of fuzz bytes for targets
// that build structured operations rather than parse text.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

// A property the target asserts: on failure, say which and where, then abort so the input
// is saved as a crash.
#define FUZZ_CHECK(cond, ...)                                                              \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s at %s:%d\n", #cond, __FILE__, __LINE__); \
      ::gpurent_fuzz::note(__VA_ARGS__);                                                   \
      std::abort();                                                                        \
    }                                                                                      \
  } while (false)

namespace gpurent_fuzz {

inline void note() {}
inline void note(std::string_view what) { std::fprintf(stderr, "  %.*s\n", static_cast<int>(what.size()), what.data()); }

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) noexcept { return {reinterpret_cast<const char*>(data), size}; }

// Consumes fuzz bytes as small integers; yields zeros once the input is used up, so every
// input is a valid (if short) program.
class bytes_reader {
 public:
  bytes_reader(const std::uint8_t* data, std::size_t size) noexcept : p_(data), n_(size) {}
  [[nodiscard]] bool empty() const noexcept { return n_ == 0; }
  [[nodiscard]] std::uint8_t byte() noexcept {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  // A value in [0, bound) for bound >= 1.
  [[nodiscard]] std::uint32_t below(std::uint32_t bound) noexcept {
    std::uint32_t v = byte();
    if (bound > 256) v = v << 8 | byte();
    return v % bound;
  }
  // The rest of the input as text.
  [[nodiscard]] std::string_view rest() noexcept {
    std::string_view s(reinterpret_cast<const char*>(p_), n_);
    p_ += n_;
    n_ = 0;
    return s;
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
};

}  // namespace gpurent_fuzz
