// SPDX-License-Identifier: MIT
#pragma once
// The GPU names of public offer catalogs (dstack's gpuhunt, SkyPilot's vms.csv) mapped onto
// the built-in catalog (spec/catalog.hpp), or left alone with the reason (docs/offers-import.md).
//
// Catalogs name a GPU by its family ("H100", "A100", "A100-80GB") and its memory; the catalog's
// models also differ by form factor (SXM or PCIe), which the catalogs do not state. The form is
// read from the instance name only where the name says it: "sxm" or "hbm3" (only the SXM H100
// has HBM3 among the H100s without "nvl"), "pcie", "nvl", or an instance family whose provider
// publishes it as an HGX (SXM) board (AWS p4d/p5, GCP a2/a3, Azure ND96, OCI BM.GPU4/A100/H100/H200).
// A name the table below does not place on exactly one model is never guessed: the offer keeps
// the catalog's name as an opaque model and the import reports it. A form the instance name does
// not state rules no model out, so an H100 with no memory on such an instance could be any of
// the three H100s, and is not mapped.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/spec/catalog.hpp>

namespace gpurent::io {

// The form factor an instance name states, if it states one.
enum class gpu_form : std::uint8_t { unstated, sxm, pcie, nvl };

namespace detail::gpu_import {

// ASCII lower case, for searching names.
[[nodiscard]] inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ::gpurent::detail::ascii_lower(c);
  return out;
}

// A family name compared without case or separators ('-', '_', ' ').
[[nodiscard]] inline std::string family_key(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!::gpurent::detail::is_name_separator(c)) out += static_cast<char>(::gpurent::detail::ascii_lower(c));
  return out;
}

// Instance families built on HGX (SXM) boards, as their providers describe them.
inline constexpr std::array<std::string_view, 13> sxm_families{
    "p4d.",          "p4de.",       "p5.",         "p5e.",        "p5en.",       // AWS P4d, P5
    "a2-",           "a3-",                                                      // GCP A2, A3
    "standard_nd96",                                                             // Azure ND A100 v4, ND H100 v5
    "bm.gpu4.",      "bm.gpu.a100", "bm.gpu.h100", "bm.gpu.h200", "bm.gpu.b200"  // OCI bare metal
};

// What a rule asks of the stated form.
enum class form_need : std::uint8_t { any, sxm, pcie, nvl, sxm_or_unstated };

struct gpu_rule {
  std::string_view family;  // as family_key writes it
  form_need need;
  std::int64_t gib;  // the model's memory per GPU
  std::string_view model;
};

inline constexpr std::array<gpu_rule, 34> rules{{
    {"h100", form_need::sxm, 80, "H100-SXM5-80GB"},
    {"h100", form_need::pcie, 80, "H100-PCIE-80GB"},
    {"h100", form_need::any, 94, "H100-NVL-94GB"},
    {"h100sxm", form_need::any, 80, "H100-SXM5-80GB"},
    {"h100sxm5", form_need::any, 80, "H100-SXM5-80GB"},
    {"h100pcie", form_need::any, 80, "H100-PCIE-80GB"},
    {"h100nvl", form_need::any, 94, "H100-NVL-94GB"},
    {"h100mega", form_need::sxm, 80, "H100-SXM5-80GB"},
    {"h200", form_need::sxm, 141, "H200-SXM-141GB"},
    {"h200", form_need::nvl, 141, "H200-NVL-141GB"},
    {"h200", form_need::pcie, 141, "H200-NVL-141GB"},  // the one PCIe H200
    {"h200sxm", form_need::any, 141, "H200-SXM-141GB"},
    {"h200nvl", form_need::any, 141, "H200-NVL-141GB"},
    {"a100", form_need::sxm, 40, "A100-SXM4-40GB"},
    {"a100", form_need::sxm, 80, "A100-SXM4-80GB"},
    {"a100", form_need::pcie, 40, "A100-PCIE-40GB"},
    {"a100", form_need::pcie, 80, "A100-PCIE-80GB"},
    {"a10080gb", form_need::sxm, 80, "A100-SXM4-80GB"},
    {"a10080gb", form_need::pcie, 80, "A100-PCIE-80GB"},
    {"v100", form_need::sxm, 16, "V100-SXM2-16GB"},
    {"v100", form_need::sxm, 32, "V100-SXM2-32GB"},
    {"v10032gb", form_need::sxm, 32, "V100-SXM2-32GB"},
    {"b200", form_need::sxm_or_unstated, 180, "B200-180GB"},
    {"gb200", form_need::any, 186, "GB200-186GB"},
    {"gh200", form_need::any, 96, "GH200"},
    {"gh200", form_need::any, 144, "GH200-144GB"},
    {"l40s", form_need::any, 48, "L40S"},
    {"l4", form_need::any, 24, "L4"},
    {"t4", form_need::any, 16, "T4"},
    {"a10", form_need::any, 24, "A10"},
    {"a30", form_need::any, 24, "A30"},
    {"p100", form_need::pcie, 16, "P100"},
    {"rtx4090", form_need::any, 24, "RTX-4090"},
    {"mi300x", form_need::any, 192, "MI300X"},
}};

[[nodiscard]] constexpr bool form_fits(form_need need, gpu_form form) noexcept {
  switch (need) {
    case form_need::any: return true;
    case form_need::sxm: return form == gpu_form::sxm;
    case form_need::pcie: return form == gpu_form::pcie;
    case form_need::nvl: return form == gpu_form::nvl;
    case form_need::sxm_or_unstated: return form == gpu_form::unstated || form == gpu_form::sxm;
  }
  return false;
}

// Memory within a tenth of the model's: providers report a little less than the nominal GB
// (AWS: an L40S as 45,776 MiB of 48 GiB), never a different model's size.
[[nodiscard]] constexpr bool memory_fits(std::int64_t gib, std::optional<std::int64_t> mib) noexcept {
  if (!mib) return true;
  const std::int64_t want = gib * 1024, diff = *mib > want ? *mib - want : want - *mib;
  return diff * 10 <= want;
}

[[nodiscard]] inline std::string_view form_name(gpu_form f) {
  switch (f) {
    case gpu_form::unstated: return "unstated";
    case gpu_form::sxm: return "SXM";
    case gpu_form::pcie: return "PCIe";
    case gpu_form::nvl: return "NVL";
  }
  return "unstated";
}
}  // namespace detail::gpu_import

// The form factor the instance name states ("gpu_8x_h100_sxm5": SXM; "p5.48xlarge": SXM, an
// HGX family; "gpu_1x_a100": unstated).
[[nodiscard]] inline gpu_form instance_form(std::string_view instance) {
  using namespace detail::gpu_import;
  const std::string s = lower(instance);
  if (s.find("nvl") != std::string::npos) return gpu_form::nvl;
  if (s.find("pcie") != std::string::npos) return gpu_form::pcie;
  if (s.find("sxm") != std::string::npos || s.find("hbm3") != std::string::npos) return gpu_form::sxm;
  for (std::string_view f : sxm_families)
    if (s.starts_with(f)) return gpu_form::sxm;
  return gpu_form::unstated;
}

// A catalog's GPU on the built-in catalog: `model` is the catalog name, or empty with `why`
// saying what kept it off (no model of that name, the form not stated, the memory).
struct gpu_mapping {
  std::string model;
  std::string why;
};

namespace detail::gpu_import {

// The rules of one name that the memory and the form leave: `models` (distinct, in table
// order) fit both or wait only on a form the instance name does not state.
struct candidates {
  std::vector<std::string_view> models;
  bool named = false;      // the table has a rule of that name
  bool undecided = false;  // a model needs a form the instance name does not state
  bool form_only = false;  // a model's memory fits but a stated form rules it out
};

[[nodiscard]] inline candidates find_candidates(std::string_view name, std::optional<std::int64_t> mib, gpu_form form) {
  const std::string key = family_key(name);
  candidates c;
  for (const gpu_rule& r : rules) {
    if (r.family != key) continue;
    c.named = true;
    if (!memory_fits(r.gib, mib)) continue;
    // An unstated form rules no model out: it leaves the mapping undecided.
    const bool waits = !form_fits(r.need, form) && form == gpu_form::unstated;
    if (!form_fits(r.need, form) && !waits) {
      c.form_only = true;
      continue;
    }
    c.undecided = c.undecided || waits;
    if (std::ranges::find(c.models, r.model) == c.models.end()) c.models.push_back(r.model);
  }
  return c;
}

// "A", "A or B", "A, B or C".
[[nodiscard]] inline std::string one_of(const std::vector<std::string_view>& models) {
  std::string out;
  for (std::size_t i = 0; i < models.size(); ++i) out += (i == 0 ? "" : i + 1 == models.size() ? " or " : ", ") + std::string(models[i]);
  return out;
}
}  // namespace detail::gpu_import

// Maps `name` (the catalog's GPU name) with its memory per GPU in MiB (when stated) on an
// instance named `instance`: a model only when exactly one fits and none waits on a form the
// name does not state, and the catalog gives its memory and FP16 figure (what `plan` weighs);
// without the memory, every model of the name the form leaves counts.
[[nodiscard]] inline gpu_mapping map_gpu(std::string_view name, std::optional<std::int64_t> mib, std::string_view instance) {
  using namespace detail::gpu_import;
  const gpu_form form = instance_form(instance);
  const candidates c = find_candidates(name, mib, form);
  if (c.models.size() == 1 && !c.undecided)
    if (const gpu_model* m = find_model(c.models.front()); m != nullptr) {
      if (m->vram && m->throughput.fp16) return {std::string(m->name), {}};
      // A model whose size or speed no source gave (GH200-144GB): `plan` could not weigh it.
      return {{}, "it is " + std::string(m->name) + ", for which the catalog has no FP16 figure: give tflops"};
    }
  if (!c.named) return {{}, "no catalog model of that name"};
  if (c.models.size() > 1 && !mib) return {{}, "its memory is not stated: it could be " + one_of(c.models)};
  if (c.undecided) return {{}, "the catalog's models of that name differ by form factor (SXM, PCIe) and the instance name does not say which"};
  if (c.models.size() > 1) return {{}, "it could be " + one_of(c.models)};
  if (c.form_only) return {{}, "the catalog has no " + std::string(form_name(form)) + " model of that name"};
  return {{}, "its memory (" + std::to_string(mib.value_or(0) / 1024) + " GiB) matches no catalog model of that name"};
}

}  // namespace gpurent::io
