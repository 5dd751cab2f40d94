// SPDX-License-Identifier: MIT
#pragma once
// fmt formatters for the probe's value types, and the one-line summary of a probed GPU that
// `gpurent probe --format table` prints. Each reuses fmt's string formatter, so width, fill
// and alignment work.

#include <string>

#include <fmt/format.h>

#include <gpurent/core/format.hpp>
#include <gpurent/probe/mapping.hpp>
#include <gpurent/probe/types.hpp>
#include <gpurent/spec/format.hpp>
#include <gpurent/spec/mig.hpp>

namespace gpurent::probe {

// "0000:3b:00.0  NVIDIA H200 -> H200-SXM-141GB (pci_device_id), 140.4 GiB, 132 SMs, MIG enabled: 2g.35gb@0 ..."
[[nodiscard]] inline std::string summary(const probed_gpu& g) {
  const device_reading& r = g.reading;
  const gpu_mapping& m = g.mapping;
  std::string s = r.pci ? to_string(*r.pci) : std::string("-");
  s += "  " + r.name + " -> " + (m.model != nullptr ? std::string(m.model->name) : std::string("(not in catalog)"));
  s += fmt::format(" ({})", m.matched_by);
  s += ", " + gib_string(r.total_memory);
  if (r.sm_count) s += ", " + std::to_string(*r.sm_count) + " SMs";
  if (r.capability) s += fmt::format(", cc {}.{}", r.capability->major, r.capability->minor);
  if (r.memory_bandwidth) s += ", " + std::to_string(r.memory_bandwidth->count() / 1000) + " GB/s";
  if (r.nvlink && r.nvlink->links > 0) s += fmt::format(", NVLink {}/{} up", r.nvlink->active, r.nvlink->links);
  s += fmt::format(", MIG {}", r.mig_current);
  if (m.layout && m.geometry != nullptr) s += fmt::format(": {}", mig_show(*m.geometry, *m.layout));
  if (m.layout_error) s += " (layout: " + m.layout_error->message + ")";
  for (const std::string& n : m.notes) s += "; " + n;
  return s;
}

}  // namespace gpurent::probe

template <>
struct fmt::formatter<gpurent::probe::pci_address> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::probe::pci_address& a, format_context& ctx) const { return put(gpurent::probe::to_string(a), ctx); }
};

template <>
struct fmt::formatter<gpurent::probe::pci_ids> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::probe::pci_ids& p, format_context& ctx) const { return put(gpurent::probe::to_string(p), ctx); }
};

template <>
struct fmt::formatter<gpurent::probe::probed_gpu> : gpurent::detail::string_view_formatter {
  auto format(const gpurent::probe::probed_gpu& g, format_context& ctx) const { return put(gpurent::probe::summary(g), ctx); }
};
