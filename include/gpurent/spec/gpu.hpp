// SPDX-License-Identifier: MIT
#pragma once
// What a GPU model is: identity (vendor, names, PCI ids), memory, compute, power and
// interconnect. Every number is a `sourced<T>`: the value and the id of the document it
// comes from (an entry of the catalog's sources table). A number nobody published is an
// empty optional, never a guess.
//
// The type views its strings (std::string_view), so the built-in catalog is constexpr data;
// a catalog loaded from a file keeps its strings alive itself (see spec/catalog.hpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/core/quantity.hpp>

namespace gpurent {

// A short list with a fixed capacity, constexpr and regular (== compares the elements in
// use). Used for aliases and PCI device ids, so a model needs no heap.
template <class T, std::size_t N>
class fixed_list {
 public:
  using value_type = T;
  constexpr fixed_list() = default;
  constexpr fixed_list(std::initializer_list<T> xs) {
    GPURENT_ASSERT(xs.size() <= N);
    for (const T& x : xs) items_[size_++] = x;
  }
  // Appends; false when full.
  constexpr bool push_back(const T& x) {
    if (size_ == N) return false;
    items_[size_++] = x;
    return true;
  }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] static constexpr std::size_t capacity() noexcept { return N; }
  [[nodiscard]] constexpr const T* begin() const noexcept { return items_; }
  [[nodiscard]] constexpr const T* end() const noexcept { return items_ + size_; }
  [[nodiscard]] constexpr const T& operator[](std::size_t i) const {
    GPURENT_ASSERT(i < size_);
    return items_[i];
  }
  [[nodiscard]] constexpr bool contains(const T& x) const { return std::find(begin(), end(), x) != end(); }
  friend constexpr bool operator==(const fixed_list& a, const fixed_list& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  T items_[N]{};
  std::size_t size_ = 0;
};

// A number and where it comes from: `source` is the id of a document in the catalog's
// sources table ("nvidia-h100-datasheet"), which gives its title and address.
template <class T>
struct sourced {
  T value{};
  std::string_view source;
  friend constexpr bool operator==(const sourced&, const sourced&) = default;
};

enum class gpu_vendor : std::uint8_t { unknown, nvidia, amd };
enum class form_factor : std::uint8_t { unknown, sxm, pcie, oam, superchip };

template <>
struct enum_names<gpu_vendor> {
  static constexpr enum_entry<gpu_vendor> entries[] = {{gpu_vendor::unknown, "unknown"}, {gpu_vendor::nvidia, "nvidia"}, {gpu_vendor::amd, "amd"}};
};
template <>
struct enum_names<form_factor> {
  static constexpr enum_entry<form_factor> entries[] = {{form_factor::unknown, "unknown"},
                                                        {form_factor::sxm, "sxm"},
                                                        {form_factor::pcie, "pcie"},
                                                        {form_factor::oam, "oam"},
                                                        {form_factor::superchip, "superchip"}};
};

// CUDA compute capability, e.g. 9.0 for Hopper. NVIDIA only.
struct compute_capability {
  std::int32_t major = 0;
  std::int32_t minor = 0;
  friend constexpr auto operator<=>(const compute_capability&, const compute_capability&) = default;
  friend constexpr bool operator==(const compute_capability&, const compute_capability&) = default;
};

// PCI vendor id (0x10de NVIDIA, 0x1002 AMD) and the device ids one model ships under.
// A probe maps a device to the catalog with these.
inline constexpr std::uint16_t pci_vendor_nvidia = 0x10de;
inline constexpr std::uint16_t pci_vendor_amd = 0x1002;
struct pci_identity {
  std::uint16_t vendor_id = 0;
  fixed_list<std::uint16_t, 4> device_ids;
  friend constexpr bool operator==(const pci_identity&, const pci_identity&) = default;
};

// The GPU-to-GPU NVLink of one GPU: generation and total per-GPU bandwidth as NVIDIA
// states it (bidirectional, all links together).
struct nvlink_spec {
  std::int32_t generation = 0;
  mb_per_s bandwidth{};
  friend constexpr bool operator==(const nvlink_spec&, const nvlink_spec&) = default;
};

// Dense (no sparsity) peak throughput per precision. `fp64`/`fp32` are the vector (CUDA
// core) rates, the others tensor-core (matrix) rates; `fp16` is FP16/BF16 with FP32
// accumulate where the vendor distinguishes. Empty where the part has no such unit or no
// figure was published.
struct dense_throughput {
  std::optional<sourced<gflops>> fp64{};
  std::optional<sourced<gflops>> fp64_tensor{};
  std::optional<sourced<gflops>> fp32{};
  std::optional<sourced<gflops>> tf32{};
  std::optional<sourced<gflops>> fp16{};
  std::optional<sourced<gflops>> fp8{};
  friend constexpr bool operator==(const dense_throughput&, const dense_throughput&) = default;
};

struct gpu_model {
  std::string_view name;                    // canonical: "H100-SXM5-80GB"
  fixed_list<std::string_view, 6> aliases;  // "H100", "h100-80gb", NVML names
  gpu_vendor vendor = gpu_vendor::unknown;
  std::string_view architecture;  // "Hopper", "CDNA 3"; empty when unknown
  form_factor form = form_factor::unknown;
  std::optional<sourced<compute_capability>> capability{};
  std::optional<sourced<pci_identity>> pci{};
  std::optional<sourced<bytes>> vram{};             // the datasheet's "N GB", read as N GiB
  std::optional<sourced<std::int32_t>> sm_count{};  // SMs (NVIDIA) or compute units (AMD)
  dense_throughput throughput{};
  std::optional<sourced<mb_per_s>> memory_bandwidth{};
  std::optional<sourced<std::int32_t>> tdp_watts{};  // the maximum where a range is stated
  std::optional<sourced<std::int32_t>> pcie_generation{};
  std::optional<sourced<nvlink_spec>> nvlink{};  // empty: no NVLink
  bool mig_capable = false;                      // NVIDIA MIG user guide, supported GPUs
  std::string_view notes;                        // which variant, what is derived and how

  friend constexpr bool operator==(const gpu_model&, const gpu_model&) = default;

  // Whether `s` names this model: its name or an alias, ignoring case and the separators
  // '-', '_', ' ' ("h100 sxm5 80gb" names H100-SXM5-80GB).
  [[nodiscard]] constexpr bool named(std::string_view s) const;
  [[nodiscard]] constexpr bool has_pci_device(std::uint16_t vendor_id, std::uint16_t device_id) const {
    return pci && pci->value.vendor_id == vendor_id && pci->value.device_ids.contains(device_id);
  }
};

namespace detail {
[[nodiscard]] constexpr bool is_name_separator(char c) noexcept { return c == '-' || c == '_' || c == ' '; }
[[nodiscard]] constexpr char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace detail

// Model names compare equal ignoring ASCII case and the separators '-', '_', ' '.
[[nodiscard]] constexpr bool same_model_name(std::string_view a, std::string_view b) noexcept {
  std::size_t i = 0;
  std::size_t j = 0;
  for (;;) {
    while (i < a.size() && detail::is_name_separator(a[i])) ++i;
    while (j < b.size() && detail::is_name_separator(b[j])) ++j;
    if (i == a.size() || j == b.size()) return i == a.size() && j == b.size();
    if (detail::ascii_lower(a[i]) != detail::ascii_lower(b[j])) return false;
    ++i;
    ++j;
  }
}

constexpr bool gpu_model::named(std::string_view s) const {
  if (same_model_name(name, s)) return true;
  for (std::string_view a : aliases)
    if (same_model_name(a, s)) return true;
  return false;
}

}  // namespace gpurent
