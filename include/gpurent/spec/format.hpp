// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the spec types (GPU models, their parts, server shapes). Each reuses
// fmt's string formatter, so width, fill and alignment work: fmt::format("{:<16}", model).

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <gpurent/core/format.hpp>
#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/gpu.hpp>
#include <gpurent/spec/topology.hpp>
#if __has_include(<gpurent/spec/mig_format.hpp>)
#include <gpurent/spec/mig_format.hpp>  // the MIG types' formatters, so this is the layer's one format header
#endif

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

}  // namespace gpurent

template <>
struct fmt::formatter<gpurent::gpu_vendor> : gpurent::detail::string_view_formatter {
  auto format(gpurent::gpu_vendor v, format_context& ctx) const { return put(std::string(gpurent::to_string(v)), ctx); }
};

template <>
struct fmt::formatter<gpurent::form_factor> : gpurent::detail::string_view_formatter {
  auto format(gpurent::form_factor f, format_context& ctx) const { return put(std::string(gpurent::to_string(f)), ctx); }
};

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
  auto format(const gpurent::nvlink_spec& n, format_context& ctx) const {
    return put(fmt::format("NVLink {}, {}", n.generation, n.bandwidth), ctx);
  }
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

template <>
struct fmt::formatter<gpurent::gpu_link> : gpurent::detail::string_view_formatter {
  auto format(gpurent::gpu_link l, format_context& ctx) const { return put(std::string(gpurent::to_string(l)), ctx); }
};

template <>
struct fmt::formatter<gpurent::nvlink_fabric> : gpurent::detail::string_view_formatter {
  auto format(gpurent::nvlink_fabric f, format_context& ctx) const { return put(std::string(gpurent::to_string(f)), ctx); }
};

// "HGX-H100-8GPU: 8x H100-SXM5-80GB, PCIe Gen5, nvswitch, 2 NUMA nodes"
template <>
struct fmt::formatter<gpurent::server_shape> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::server_shape& s, format_context& ctx) const {
    return put(fmt::format("{}: {}x {}, PCIe Gen{}, {}, {} NUMA nodes", s.name, s.gpu_count(), s.gpu_model,
                           s.pcie_generation, s.fabric, gpurent::numa_node_count(s)),
               ctx);
  }
};
