// SPDX-License-Identifier: MIT
// The built-in GPU catalog: its numbers (checked at compile time), alias and PCI lookup,
// validation, copies and formatters. Its JSON is tests/io/catalog_json.test.cpp's, `gpurent
// catalog` tests/tool/catalog.test.cpp's.
#include <array>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <gpurent/io/spec/catalog_json.hpp>
#include <gpurent/spec/format.hpp>
#include <gpurent/spec/spec.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_spec_catalog {

namespace {
using namespace gpurent;
using namespace gpurent::literals;

// Reference figures: NVIDIA H100 datasheet (2023) and H100 architecture whitepaper (2022).
constexpr const gpu_model& h100 = *find_model("H100-SXM5-80GB");
constexpr const gpu_model& mi300x = *find_model("MI300X");
constexpr const gpu_model& g2 = *find_model("G2");
static_assert(h100.sm_count->value == 132);
static_assert(h100.vram->value == 80_GiB);
static_assert(h100.memory_bandwidth->value == mb_per_s(3'350'000));
static_assert(h100.throughput.fp64->value == 34_TFLOPS);
static_assert(h100.throughput.fp64_tensor->value == 67_TFLOPS);
static_assert(h100.throughput.fp32->value == 67_TFLOPS);
static_assert(h100.throughput.tf32->value == gflops(494'700));
static_assert(h100.throughput.fp16->value == gflops(989'400));
static_assert(h100.throughput.fp8->value == gflops(1'978'900));
static_assert(h100.tdp_watts->value == 700);
static_assert(h100.nvlink->value == nvlink_spec{4, gb_per_s(900)});
static_assert(h100.capability->value == compute_capability{9, 0});
static_assert(h100.pci->value.vendor_id == 0x10de && h100.pci->value.device_ids.contains(0x2330));
static_assert(h100.mig_capable);

// A probe maps a real H200 by PCI id: 10de:2335 -> H200-SXM-141GB with 132 SMs.
static_assert(find_model_by_pci(0x10de, 0x2335) != nullptr);
static_assert(find_model_by_pci(0x10de, 0x2335)->name == "H200-SXM-141GB");
static_assert(find_model_by_pci(0x10de, 0x2335)->sm_count->value == 132);
static_assert(find_model("H200")->vram->value == 141_GiB);
static_assert(find_model("H200")->memory_bandwidth->value == gb_per_s(4'800));
static_assert(find_model_by_pci(0x1002, 0x74a1)->name == "MI300X");
static_assert(find_model_by_pci(0x10de, 0x2342)->name == "GH200");
static_assert(find_model_by_pci(0x10de, 0xffff) == nullptr);

// Aliases, case and separators.
static_assert(find_model("H100") == &h100);
static_assert(find_model("h100-80gb") == &h100);
static_assert(find_model("h100 sxm5 80gb") == &h100);
static_assert(find_model("NVIDIA H100 80GB HBM3") == &h100);
static_assert(find_model("NVIDIA GH200 480GB")->name == "GH200");  // the name NVML gives it
static_assert(find_model("V100M16")->name == "V100-SXM2-16GB");
static_assert(find_model("v100m32")->name == "V100-SXM2-32GB");
static_assert(find_model("a100")->name == "A100-SXM4-40GB");
static_assert(find_model("Tesla T4")->name == "T4");
static_assert(find_model("H10") == nullptr);
static_assert(find_model("") == nullptr);
static_assert(same_model_name("A100-PCIE-40GB", "a100_pcie 40gb"));
static_assert(!same_model_name("A100", "A1000"));

// Other spot checks against their datasheets.
static_assert(find_model("A100-SXM4-80GB")->memory_bandwidth->value == gb_per_s(2'039));
static_assert(find_model("A100-PCIE-40GB")->tdp_watts->value == 250);
static_assert(find_model("L40S")->throughput.fp32->value == gflops(91'600));
static_assert(!find_model("L40S")->nvlink && !find_model("L40S")->mig_capable);
static_assert(find_model("MI300X")->sm_count->value == 304);
static_assert(find_model("MI300X")->vendor == gpu_vendor::amd && !find_model("MI300X")->capability);
static_assert(!find_model("A100")->throughput.fp8);  // no FP8 on Ampere

// The GB200 of an NVL72 rack, the H200 NVL card, the A100 80GB PCIe card and the 144 GB GH200:
// by PCI id and by the names NVML gives them.
static_assert(find_model_by_pci(0x10de, 0x2941)->name == "GB200-186GB");
static_assert(find_model("NVIDIA GB200")->name == "GB200-186GB");
static_assert(find_model("GB200")->vram->value == 186_GiB);
static_assert(find_model("GB200")->throughput.fp8->value == gflops(5'000'000));  // 10 PFLOPS with sparsity, halved
static_assert(find_model("GB200")->nvlink->value == nvlink_spec{5, gb_per_s(1'800)});
static_assert(find_model_by_pci(0x10de, 0x233b)->name == "H200-NVL-141GB");
static_assert(find_model("NVIDIA H200 NVL")->tdp_watts->value == 600);
static_assert(!find_model("H200-NVL")->sm_count);             // no capture of the card found: left empty
static_assert(find_model("H200")->name == "H200-SXM-141GB");  // the bare name stays the SXM part
static_assert(find_model_by_pci(0x10de, 0x20b5)->name == "A100-PCIE-80GB");
static_assert(find_model("NVIDIA A100 80GB PCIe")->memory_bandwidth->value == gb_per_s(1'935));
static_assert(find_model_by_pci(0x10de, 0x2348)->name == "GH200-144GB");
static_assert(find_model("NVIDIA GH200 144G HBM3e")->vram->value == 144_GiB);
static_assert(!find_model("GH200-144GB")->memory_bandwidth && !find_model("GH200-144GB")->throughput.fp16);

// The undisclosed Alibaba types are opaque: a name, no numbers.
static_assert(find_model("G2") != nullptr && !find_model("G2")->vram && !find_model("G2")->sm_count);
static_assert(find_model("G3") != nullptr && find_model("G3")->vendor == gpu_vendor::unknown);

constexpr std::array<std::string_view, 27> required_names{"A100-SXM4-40GB",
                                                          "A100-SXM4-80GB",
                                                          "A100-PCIE-40GB",
                                                          "A100-PCIE-80GB",
                                                          "H100-SXM5-80GB",
                                                          "H100-PCIE-80GB",
                                                          "H100-NVL-94GB",
                                                          "H200-SXM-141GB",
                                                          "H200-NVL-141GB",
                                                          "GH200",
                                                          "GH200-144GB",
                                                          "B200-180GB",
                                                          "GB200-186GB",
                                                          "L40S",
                                                          "L4",
                                                          "T4",
                                                          "V100-SXM2-16GB",
                                                          "V100-SXM2-32GB",
                                                          "P100",
                                                          "A10",
                                                          "A30",
                                                          "RTX-4090",
                                                          "MI300X",
                                                          "V100M16",
                                                          "V100M32",
                                                          "G2",
                                                          "G3"};

// Every number of a model, with the name of its field.
template <class F>
void for_each_source(const gpu_model& m, F&& f) {
  auto one = [&](std::string_view field, const auto& v) {
    if (v) f(field, std::string_view(v->source));
  };
  one("capability", m.capability);
  one("pci", m.pci);
  one("vram", m.vram);
  one("sm_count", m.sm_count);
  one("fp64", m.throughput.fp64);
  one("fp64_tensor", m.throughput.fp64_tensor);
  one("fp32", m.throughput.fp32);
  one("tf32", m.throughput.tf32);
  one("fp16", m.throughput.fp16);
  one("fp8", m.throughput.fp8);
  one("memory_bandwidth", m.memory_bandwidth);
  one("tdp_watts", m.tdp_watts);
  one("pcie_generation", m.pcie_generation);
  one("nvlink", m.nvlink);
}

std::string builtin_json_text() { return catalog_to_json(catalog::builtin()).dump(); }

}  // namespace

TEST_CASE("catalog: every required model resolves, canonical names as the issue writes them") {
  for (std::string_view n : required_names) {
    CAPTURE(n);
    const gpu_model* m = find_model(n);
    REQUIRE(m != nullptr);
    if (n != "V100M16" && n != "V100M32") CHECK(m->name == n);
  }
}

TEST_CASE("catalog: the built-in catalog validates; every number names a known source document") {
  const catalog c = catalog::builtin();
  REQUIRE(c.validate());
  CHECK(c.size() == builtin_catalog().size());
  for (const gpu_model& m : c.models()) {
    for_each_source(m, [&](std::string_view field, std::string_view src) {
      CAPTURE(m.name);
      CAPTURE(field);
      REQUIRE(c.find_source(src) != nullptr);
      CHECK(!c.find_source(src)->title.empty());
    });
  }
  for (const source_document& s : c.sources()) CHECK(!s.url.empty());
}

TEST_CASE("catalog: names and aliases are unique across models") {
  std::set<std::string> seen;
  auto key = [](std::string_view s) {
    std::string k;
    for (char ch : s)
      if (ch != '-' && ch != '_' && ch != ' ') k += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    return k;
  };
  for (const gpu_model& m : builtin_catalog()) {
    std::set<std::string> own{key(m.name)};
    for (std::string_view a : m.aliases) own.insert(key(a));
    for (const std::string& k : own) {
      CAPTURE(k);
      CHECK(seen.insert(k).second);
    }
  }
}

TEST_CASE("catalog: mig_capable agrees with the MIG tables") {
  for (const gpu_model& m : builtin_catalog()) {
    CAPTURE(m.name);
    if (find_mig_geometry(m.name) != nullptr) CHECK(m.mig_capable);
  }
  CHECK(find_mig_geometry(h100.name) != nullptr);
}

TEST_CASE("catalog: a copied catalog stays valid after the original is gone") {
  auto loaded = parse_catalog_json(builtin_json_text());
  REQUIRE(loaded);
  catalog copy;
  {
    catalog original = *loaded;
    copy = original;
  }
  loaded = catalog{};
  REQUIRE(copy.find("h100") != nullptr);
  CHECK(copy.find("h100")->name == "H100-SXM5-80GB");
  CHECK(copy == catalog::builtin());
}

TEST_CASE("catalog: formatters") {
  CHECK(fmt::format("{}", h100) == "H100-SXM5-80GB (nvidia Hopper sxm, 80 GiB, 132 SMs)");
  CHECK(fmt::format("{}", mi300x) == "MI300X (amd CDNA 3 oam, 192 GiB, 304 CUs)");
  CHECK(fmt::format("{}", g2) == "G2 (unknown)");
  CHECK(fmt::format("{}", h100.pci->value) == "10de:2330");
  CHECK(fmt::format("{}", h100.capability->value) == "9.0");
  CHECK(fmt::format("{:>5}", compute_capability{8, 0}) == "  8.0");
  CHECK(tflops_string(gflops(989'400)) == "989.4");
  CHECK(tflops_string(gflops(362'050)) == "362.05");
  CHECK(tflops_string(gflops(67'000)) == "67");
  CHECK(gib_string(gib(141)) == "141 GiB");
}

}  // namespace test_spec_catalog
