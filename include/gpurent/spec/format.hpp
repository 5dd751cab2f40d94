// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the spec types (GPU models, their parts, server shapes, MIG profiles,
// geometries, instances, layouts and operations). Each reuses fmt's string formatter, so
// width, fill and alignment work: fmt::format("{:<16}", model). The spec enums print their
// names through core/format.hpp. MIG instances and layouts hold profile indices, so they
// print through a view that knows their geometry: fmt::format("{}", mig_show(g, layout))
// gives "4g.40gb@0 3g.40gb@4".

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <gpurent/core/format.hpp>
#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/gpu.hpp>
#include <gpurent/spec/mig.hpp>
#include <gpurent/spec/topology.hpp>

namespace gpurent {

// "989.4" for 989400 GFLOPS: TFLOPS with the fewest decimals that are exact.
[[nodiscard]] inline std::string tflops_string(gflops g) {
  const std::int64_t v = g.count();
  std::string s = std::to_string(v / 1000);
  std::int64_t frac = v % 1000;
  if (frac < 0) frac = -frac;
  if (frac != 0) {
    std::string f = std::to_string(frac);
    f.insert(0, 3 - f.size(), '0');
    while (f.back() == '0') f.pop_back();
    s += '.';
    s += f;
  }
  return s;
}

// "80 GiB", or "79.5 GiB" to one decimal when not whole.
[[nodiscard]] inline std::string gib_string(bytes b) {
  const std::int64_t mib_count = to_mib(b);
  if (mib_count % 1024 == 0) return std::to_string(mib_count / 1024) + " GiB";
  return fmt::format("{:.1f} GiB", static_cast<double>(mib_count) / 1024.0);
}

[[nodiscard]] inline std::string to_string(const pci_identity& p) {
  std::string s = fmt::format("{:04x}:", p.vendor_id);
  for (std::size_t i = 0; i < p.device_ids.size(); ++i) s += fmt::format("{}{:04x}", i == 0 ? "" : ",", p.device_ids[i]);
  return s;
}

// A layout, instance or operation seen through its geometry, for printing.
template <class T>
struct mig_view {
  const mig_geometry* geometry;
  T value;
};
template <class T>
[[nodiscard]] constexpr mig_view<T> mig_show(const mig_geometry& g, const T& value) noexcept {
  return {&g, value};
}

}  // namespace gpurent

// "9.0"
template <>
struct fmt::formatter<gpurent::compute_capability> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::compute_capability& c, format_context& ctx) const {
    return put(std::to_string(c.major) + "." + std::to_string(c.minor), ctx);
  }
};

// "10de:2330"
template <>
struct fmt::formatter<gpurent::pci_identity> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::pci_identity& p, format_context& ctx) const { return put(gpurent::to_string(p), ctx); }
};

// "NVLink 4, 900000 MB/s"
template <>
struct fmt::formatter<gpurent::nvlink_spec> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::nvlink_spec& n, format_context& ctx) const { return put(fmt::format("NVLink {}, {}", n.generation, n.bandwidth), ctx); }
};

// "NVIDIA H100 Tensor Core GPU datasheet (2023) <https://...>"
template <>
struct fmt::formatter<gpurent::source_document> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::source_document& s, format_context& ctx) const {
    return put(s.url.empty() ? std::string(s.title) : fmt::format("{} <{}>", s.title, s.url), ctx);
  }
};

// "H100-SXM5-80GB (nvidia Hopper sxm, 80 GiB, 132 SMs)"; unknowns are left out.
template <>
struct fmt::formatter<gpurent::gpu_model> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::gpu_model& m, format_context& ctx) const {
    std::string s(m.name);
    s += " (";
    s += gpurent::to_string(m.vendor);
    if (!m.architecture.empty()) {
      s += ' ';
      s += m.architecture;
    }
    if (m.form != gpurent::form_factor::unknown) {
      s += ' ';
      s += gpurent::to_string(m.form);
    }
    if (m.vram) s += ", " + gpurent::gib_string(m.vram->value);
    if (m.sm_count) s += ", " + std::to_string(m.sm_count->value) + (m.vendor == gpurent::gpu_vendor::amd ? " CUs" : " SMs");
    s += ')';
    return put(s, ctx);
  }
};

// "HGX-H100-8GPU: 8x H100-SXM5-80GB, PCIe Gen5, nvswitch, 2 NUMA nodes"
template <>
struct fmt::formatter<gpurent::server_shape> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::server_shape& s, format_context& ctx) const {
    return put(fmt::format("{}: {}x {}, PCIe Gen{}, {}, {} NUMA nodes", s.name, s.gpu_count(), s.gpu_model, s.pcie_generation, s.fabric,
                           gpurent::numa_node_count(s)),
               ctx);
  }
};

template <>
struct fmt::formatter<gpurent::mig_profile> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_profile& p, format_context& ctx) const { return fmt::formatter<std::string_view>::format(p.name, ctx); }
};

template <>
struct fmt::formatter<gpurent::mig_geometry> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_geometry& g, format_context& ctx) const { return fmt::formatter<std::string_view>::format(g.model, ctx); }
};

// "3g.40gb@4"
template <>
struct fmt::formatter<gpurent::mig_view<gpurent::mig_instance>> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_view<gpurent::mig_instance>& v, format_context& ctx) const {
    const std::string s = gpurent::mig_name(*v.geometry, v.value);
    return fmt::formatter<std::string_view>::format(s, ctx);
  }
};

// "4g.40gb@0 3g.40gb@4"; "empty" for no instances
template <>
struct fmt::formatter<gpurent::mig_view<gpurent::mig_layout>> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_view<gpurent::mig_layout>& v, format_context& ctx) const {
    const std::string s = gpurent::mig_names(*v.geometry, v.value, " ");
    return fmt::formatter<std::string_view>::format(s.empty() ? "empty" : s, ctx);
  }
};

// "destroy 3g.40gb@0"
template <>
struct fmt::formatter<gpurent::mig_view<gpurent::mig_operation>> : fmt::formatter<std::string_view> {
  auto format(const gpurent::mig_view<gpurent::mig_operation>& v, format_context& ctx) const {
    const std::string s = std::string(gpurent::to_string(v.value.kind)) + " " + gpurent::mig_name(*v.geometry, v.value.instance);
    return fmt::formatter<std::string_view>::format(s, ctx);
  }
};
