// SPDX-License-Identifier: MIT
#pragma once
// Strong quantity types: bytes, milli-GPU shares, CPU milli-cores, memory in MiB, compute
// throughput, memory bandwidth.
// Each is an integer count of its smallest stated unit; they only compose where the
// dimensions make sense (bytes + bytes, scalar * bytes), never bytes + milli_gpu.

#include <compare>
#include <cstdint>

namespace gpurent {

namespace detail {
// A count of one unit. Tag makes distinct quantities distinct types.
template <class Tag, class Rep>
class quantity {
 public:
  using rep = Rep;
  constexpr quantity() = default;
  constexpr explicit quantity(Rep v) noexcept : v_(v) {}
  [[nodiscard]] constexpr Rep count() const noexcept { return v_; }

  friend constexpr quantity operator+(quantity a, quantity b) noexcept { return quantity(a.v_ + b.v_); }
  friend constexpr quantity operator-(quantity a, quantity b) noexcept { return quantity(a.v_ - b.v_); }
  friend constexpr quantity operator*(quantity a, Rep k) noexcept { return quantity(a.v_ * k); }
  friend constexpr quantity operator*(Rep k, quantity a) noexcept { return quantity(a.v_ * k); }
  constexpr quantity& operator+=(quantity b) noexcept {
    v_ += b.v_;
    return *this;
  }
  constexpr quantity& operator-=(quantity b) noexcept {
    v_ -= b.v_;
    return *this;
  }
  friend constexpr auto operator<=>(quantity, quantity) = default;
  friend constexpr bool operator==(quantity, quantity) = default;

 private:
  Rep v_{};
};
}  // namespace detail

struct bytes_tag {};
struct milli_gpu_tag {};
struct gflops_tag {};
struct mbps_tag {};
struct milli_cpu_tag {};
struct mebibytes_tag {};

// Memory sizes. Binary (KiB, MiB, GiB) and decimal (GB) units both convert exactly to bytes.
using bytes = detail::quantity<bytes_tag, std::int64_t>;
[[nodiscard]] constexpr bytes kib(std::int64_t n) noexcept { return bytes(n * 1024); }
[[nodiscard]] constexpr bytes mib(std::int64_t n) noexcept { return bytes(n * 1024 * 1024); }
[[nodiscard]] constexpr bytes gib(std::int64_t n) noexcept { return bytes(n * 1024 * 1024 * 1024); }
[[nodiscard]] constexpr bytes gb(std::int64_t n) noexcept { return bytes(n * 1000 * 1000 * 1000); }
[[nodiscard]] constexpr std::int64_t to_mib(bytes b) noexcept { return b.count() / (1024 * 1024); }

// A share of one GPU: 1000 milli-GPU is a whole GPU (the Alibaba trace's and the
// Kubernetes device plugins' unit).
using milli_gpu = detail::quantity<milli_gpu_tag, std::int32_t>;
inline constexpr milli_gpu whole_gpu{1000};

// CPU in milli-cores: 1000 is one core (Kubernetes' "m", the Alibaba trace's cpu_milli).
using milli_cpu = detail::quantity<milli_cpu_tag, std::int64_t>;

// A node's or a request's memory in MiB (Kubernetes' "Mi", the trace's memory_mib): the unit
// placement counts in, exact for every input it reads. Device memory sizes are `bytes`.
using mebibytes = detail::quantity<mebibytes_tag, std::int64_t>;

// Dense compute throughput in GFLOPS (1 TFLOPS = 1000), exact for every published figure
// (0.25 TFLOPS = 250).
using gflops = detail::quantity<gflops_tag, std::int64_t>;
[[nodiscard]] constexpr gflops tflops_milli(std::int64_t milli_tflops) noexcept { return gflops(milli_tflops); }

// Bandwidth in MB/s (10^6 bytes per second); 3.35 TB/s = 3350000.
using mb_per_s = detail::quantity<mbps_tag, std::int64_t>;
[[nodiscard]] constexpr mb_per_s gb_per_s(std::int64_t n) noexcept { return mb_per_s(n * 1000); }

namespace literals {
constexpr bytes operator""_GiB(unsigned long long n) noexcept { return gib(static_cast<std::int64_t>(n)); }
constexpr bytes operator""_MiB(unsigned long long n) noexcept { return mib(static_cast<std::int64_t>(n)); }
constexpr bytes operator""_GB(unsigned long long n) noexcept { return gb(static_cast<std::int64_t>(n)); }
constexpr milli_gpu operator""_mgpu(unsigned long long n) noexcept { return milli_gpu(static_cast<std::int32_t>(n)); }
constexpr gflops operator""_GFLOPS(unsigned long long n) noexcept { return gflops(static_cast<std::int64_t>(n)); }
constexpr gflops operator""_TFLOPS(unsigned long long n) noexcept { return gflops(static_cast<std::int64_t>(n) * 1000); }
}  // namespace literals

}  // namespace gpurent
