// SPDX-License-Identifier: MIT
#pragma once
// The built-in GPU catalog (constexpr data, a source for every number) and `catalog`, the
// run-time value type that holds either the built-in models or models loaded from a file
// (io/catalog_json.hpp). Both are spans of the same `gpu_model`.
//
// Conventions of the data (also in docs/spec.md):
// - Dense figures only. Where a datasheet prints only the sparsity figure ("*with
//   sparsity"), the value is that figure halved, and the model's notes say so.
// - "N GB" of GPU memory is read as N GiB (HBM/GDDR capacities are binary); the memory a
//   driver reports is a little less.
// - A number with no published source is left empty, never estimated.

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/spec/gpu.hpp>

namespace gpurent {

// A document numbers come from. `id` is what `sourced<T>::source` holds.
struct source_document {
  std::string_view id;
  std::string_view title;
  std::string_view url;
  friend constexpr bool operator==(const source_document&, const source_document&) = default;
};

namespace detail::builtin {

// Source ids.
inline constexpr std::string_view a100_ds = "nvidia-a100-datasheet";
inline constexpr std::string_view a100_wp = "nvidia-a100-whitepaper";
inline constexpr std::string_view h100_ds = "nvidia-h100-datasheet";
inline constexpr std::string_view h100_wp = "nvidia-h100-whitepaper";
inline constexpr std::string_view h200_ds = "nvidia-h200-datasheet";
inline constexpr std::string_view gh200_ds = "nvidia-gh200-datasheet";
inline constexpr std::string_view dgx_b200_ds = "nvidia-dgx-b200-datasheet";
inline constexpr std::string_view hgx_ds = "nvidia-hgx-platform-specs";
inline constexpr std::string_view l40s_ds = "nvidia-l40s-datasheet";
inline constexpr std::string_view l4_ds = "nvidia-l4-datasheet";
inline constexpr std::string_view ada_wp = "nvidia-ada-whitepaper";
inline constexpr std::string_view t4_ds = "nvidia-t4-datasheet";
inline constexpr std::string_view turing_wp = "nvidia-turing-whitepaper";
inline constexpr std::string_view v100_ds = "nvidia-v100-datasheet";
inline constexpr std::string_view volta_wp = "nvidia-volta-whitepaper";
inline constexpr std::string_view p100_ds = "nvidia-p100-datasheet";
inline constexpr std::string_view pascal_wp = "nvidia-pascal-whitepaper";
inline constexpr std::string_view a10_ds = "nvidia-a10-datasheet";
inline constexpr std::string_view a30_ds = "nvidia-a30-datasheet";
inline constexpr std::string_view mi300x_ds = "amd-mi300x-datasheet";
inline constexpr std::string_view pci_ids = "pci-ids";
inline constexpr std::string_view cuda_cc = "nvidia-cuda-gpus";
inline constexpr std::string_view mig_lgip = "mig-lgip-captures";

inline constexpr std::array sources{
    source_document{a100_ds, "NVIDIA A100 Tensor Core GPU datasheet (2021)", "https://www.nvidia.com/en-us/data-center/a100/"},
    source_document{a100_wp, "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)",
                    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/nvidia-ampere-architecture-whitepaper.pdf"},
    source_document{h100_ds, "NVIDIA H100 Tensor Core GPU datasheet (2023)", "https://www.nvidia.com/en-us/data-center/h100/"},
    source_document{h100_wp, "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022)", "https://resources.nvidia.com/en-us-tensor-core"},
    source_document{h200_ds, "NVIDIA H200 Tensor Core GPU datasheet (2024)", "https://www.nvidia.com/en-us/data-center/h200/"},
    source_document{gh200_ds, "NVIDIA GH200 Grace Hopper Superchip datasheet (2023)",
                    "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/"},
    source_document{dgx_b200_ds, "NVIDIA DGX B200 datasheet (2024): 8 GPUs, 1440 GB HBM3e, 64 TB/s, 14.4 TB/s NVLink",
                    "https://www.nvidia.com/en-us/data-center/dgx-b200/"},
    source_document{hgx_ds, "NVIDIA HGX platform specifications, HGX B200 8-GPU column (2024)", "https://www.nvidia.com/en-us/data-center/hgx/"},
    source_document{l40s_ds, "NVIDIA L40S GPU datasheet (2023)", "https://www.nvidia.com/en-us/data-center/l40s/"},
    source_document{l4_ds, "NVIDIA L4 Tensor Core GPU datasheet (2023)", "https://www.nvidia.com/en-us/data-center/l4/"},
    source_document{ada_wp, "NVIDIA Ada GPU Architecture whitepaper v2.1 (2023)",
                    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"},
    source_document{t4_ds, "NVIDIA T4 Tensor Core GPU datasheet (2019)", "https://www.nvidia.com/en-us/data-center/tesla-t4/"},
    source_document{turing_wp, "NVIDIA Turing GPU Architecture whitepaper (2018)",
                    "https://images.nvidia.com/aem-dam/en-zz/Solutions/design-visualization/technologies/turing-architecture/"
                    "NVIDIA-Turing-Architecture-Whitepaper.pdf"},
    source_document{v100_ds, "NVIDIA Tesla V100 GPU datasheet (2020)", "https://www.nvidia.com/en-us/data-center/v100/"},
    source_document{volta_wp, "NVIDIA Tesla V100 GPU Architecture whitepaper (2017)",
                    "https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf"},
    source_document{p100_ds, "NVIDIA Tesla P100 datasheet (2016)", "https://www.nvidia.com/en-us/data-center/tesla-p100/"},
    source_document{pascal_wp, "NVIDIA Tesla P100 (Pascal GP100) whitepaper (2016)",
                    "https://images.nvidia.com/content/pdf/tesla/whitepaper/pascal-architecture-whitepaper.pdf"},
    source_document{a10_ds, "NVIDIA A10 Tensor Core GPU datasheet (2021)", "https://www.nvidia.com/en-us/data-center/products/a10-gpu/"},
    source_document{a30_ds, "NVIDIA A30 Tensor Core GPU datasheet (2021)", "https://www.nvidia.com/en-us/data-center/products/a30-gpu/"},
    source_document{mi300x_ds, "AMD Instinct MI300X accelerator data sheet (2023)",
                    "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"},
    source_document{pci_ids,
                    "The PCI ID Repository, pci.ids (Debian pci.ids 2023.04.10 for parts before 2023; later entries as pci-ids.ucw.cz lists them)",
                    "https://pci-ids.ucw.cz/read/PC/10de"},
    source_document{cuda_cc, "NVIDIA CUDA GPUs: compute capability table", "https://developer.nvidia.com/cuda-gpus"},
    source_document{mig_lgip, "nvidia-smi mig -lgip captures collected in shared/data/mig/mig-profiles.csv (the 7g profile spans every SM on Hopper)",
                    "../shared/data/mig/README.md"},
};

// Helpers that keep the table below readable.
constexpr std::optional<sourced<gflops>> gf(std::int64_t gflops_value, std::string_view src) { return sourced<gflops>{gflops(gflops_value), src}; }
constexpr std::optional<sourced<bytes>> mem_gib(std::int64_t n, std::string_view src) { return sourced<bytes>{gib(n), src}; }
constexpr std::optional<sourced<std::int32_t>> num(std::int32_t n, std::string_view src) { return sourced<std::int32_t>{n, src}; }
constexpr std::optional<sourced<mb_per_s>> gbs(std::int64_t gb_per_second, std::string_view src) {
  return sourced<mb_per_s>{gb_per_s(gb_per_second), src};
}
constexpr std::optional<sourced<compute_capability>> cc(std::int32_t major, std::int32_t minor) {
  return sourced<compute_capability>{compute_capability{major, minor}, cuda_cc};
}
constexpr std::optional<sourced<pci_identity>> nv_pci(std::uint16_t device) {
  return sourced<pci_identity>{pci_identity{pci_vendor_nvidia, {device}}, pci_ids};
}
constexpr std::optional<sourced<nvlink_spec>> nvlink(std::int32_t generation, std::int64_t gb_per_second, std::string_view src) {
  return sourced<nvlink_spec>{nvlink_spec{generation, gb_per_s(gb_per_second)}, src};
}

// A100 SXM4/PCIe share the GA100 compute figures (A100 datasheet; 108 SMs per the
// whitepaper). No FP8 on Ampere.
inline constexpr dense_throughput a100_throughput{gf(9'700, a100_ds),   gf(19'500, a100_ds),  gf(19'500, a100_ds),
                                                  gf(156'000, a100_ds), gf(312'000, a100_ds), std::nullopt};

inline constexpr std::array models{
    gpu_model{.name = "A100-SXM4-40GB",
              .aliases = {"A100", "A100-40GB", "A100-SXM4", "NVIDIA A100-SXM4-40GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Ampere",
              .form = form_factor::sxm,
              .capability = cc(8, 0),
              .pci = nv_pci(0x20b0),
              .vram = mem_gib(40, a100_ds),
              .sm_count = num(108, a100_wp),
              .throughput = a100_throughput,
              .memory_bandwidth = gbs(1'555, a100_ds),
              .tdp_watts = num(400, a100_ds),
              .pcie_generation = num(4, a100_ds),
              .nvlink = nvlink(3, 600, a100_ds),
              .mig_capable = true,
              .notes = "A100 40GB SXM; TF32/FP16 are the datasheet's dense figures"},
    gpu_model{.name = "A100-SXM4-80GB",
              .aliases = {"A100-80GB", "NVIDIA A100-SXM4-80GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Ampere",
              .form = form_factor::sxm,
              .capability = cc(8, 0),
              .pci = nv_pci(0x20b2),
              .vram = mem_gib(80, a100_ds),
              .sm_count = num(108, a100_wp),
              .throughput = a100_throughput,
              .memory_bandwidth = gbs(2'039, a100_ds),
              .tdp_watts = num(400, a100_ds),
              .pcie_generation = num(4, a100_ds),
              .nvlink = nvlink(3, 600, a100_ds),
              .mig_capable = true,
              .notes = "A100 80GB SXM (HBM2e)"},
    gpu_model{.name = "A100-PCIE-40GB",
              .aliases = {"A100-PCIe", "NVIDIA A100-PCIE-40GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Ampere",
              .form = form_factor::pcie,
              .capability = cc(8, 0),
              .pci = nv_pci(0x20f1),
              .vram = mem_gib(40, a100_ds),
              .sm_count = num(108, a100_wp),
              .throughput = a100_throughput,
              .memory_bandwidth = gbs(1'555, a100_ds),
              .tdp_watts = num(250, a100_ds),
              .pcie_generation = num(4, a100_ds),
              .nvlink = nvlink(3, 600, a100_ds),
              .mig_capable = true,
              .notes = "A100 40GB PCIe; NVLink through a bridge joining two cards"},
    gpu_model{.name = "H100-SXM5-80GB",
              .aliases = {"H100", "h100-80gb", "H100-SXM", "H100-SXM5", "NVIDIA H100 80GB HBM3"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Hopper",
              .form = form_factor::sxm,
              .capability = cc(9, 0),
              .pci = nv_pci(0x2330),
              .vram = mem_gib(80, h100_ds),
              .sm_count = num(132, h100_wp),
              .throughput = {gf(34'000, h100_ds), gf(67'000, h100_ds), gf(67'000, h100_ds), gf(494'700, h100_wp), gf(989'400, h100_wp),
                             gf(1'978'900, h100_wp)},
              .memory_bandwidth = gbs(3'350, h100_ds),
              .tdp_watts = num(700, h100_ds),
              .pcie_generation = num(5, h100_ds),
              .nvlink = nvlink(4, 900, h100_ds),
              .mig_capable = true,
              .notes = "tensor figures: the whitepaper's dense H100 SXM5 column"},
    gpu_model{.name = "H100-PCIE-80GB",
              .aliases = {"H100-PCIe", "NVIDIA H100 PCIe"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Hopper",
              .form = form_factor::pcie,
              .capability = cc(9, 0),
              .pci = nv_pci(0x2331),
              .vram = mem_gib(80, h100_ds),
              .sm_count = num(114, h100_wp),
              .throughput = {gf(26'000, h100_ds), gf(51'000, h100_ds), gf(51'000, h100_ds), gf(378'000, h100_ds), gf(756'500, h100_ds),
                             gf(1'513'000, h100_ds)},
              .memory_bandwidth = gbs(2'000, h100_ds),
              .tdp_watts = num(350, h100_ds),
              .pcie_generation = num(5, h100_ds),
              .nvlink = nvlink(4, 600, h100_ds),
              .mig_capable = true,
              .notes = "TF32/FP16/FP8: the datasheet's sparsity figures halved; TDP 300-350 W configurable; NVLink via bridge"},
    gpu_model{.name = "H100-NVL-94GB",
              .aliases = {"H100-NVL", "H100L-94GB", "NVIDIA H100 NVL"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Hopper",
              .form = form_factor::pcie,
              .capability = cc(9, 0),
              .pci = nv_pci(0x2321),
              .vram = mem_gib(94, h100_ds),
              .sm_count = num(132, mig_lgip),
              .throughput = {gf(30'000, h100_ds), gf(60'000, h100_ds), gf(60'000, h100_ds), gf(417'500, h100_ds), gf(835'500, h100_ds),
                             gf(1'670'500, h100_ds)},
              .memory_bandwidth = gbs(3'900, h100_ds),
              .tdp_watts = num(400, h100_ds),
              .pcie_generation = num(5, h100_ds),
              .nvlink = nvlink(4, 600, h100_ds),
              .mig_capable = true,
              .notes = "per GPU; TF32/FP16/FP8: the datasheet's sparsity figures halved; TDP 350-400 W; SMs from 7g.94gb -lgip capture"},
    gpu_model{.name = "H200-SXM-141GB",
              .aliases = {"H200", "H200-141GB", "H200-SXM", "NVIDIA H200"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Hopper",
              .form = form_factor::sxm,
              .capability = cc(9, 0),
              .pci = nv_pci(0x2335),
              .vram = mem_gib(141, h200_ds),
              .sm_count = num(132, mig_lgip),
              .throughput = {gf(34'000, h200_ds), gf(67'000, h200_ds), gf(67'000, h200_ds), gf(494'500, h200_ds), gf(989'500, h200_ds),
                             gf(1'979'000, h200_ds)},
              .memory_bandwidth = gbs(4'800, h200_ds),
              .tdp_watts = num(700, h200_ds),
              .pcie_generation = num(5, h200_ds),
              .nvlink = nvlink(4, 900, h200_ds),
              .mig_capable = true,
              .notes = "TF32/FP16/FP8: the datasheet's sparsity figures halved; SMs from the 7g.141gb -lgip capture"},
    gpu_model{.name = "GH200",
              .aliases = {"GH200-96GB", "GH200 480GB", "Grace-Hopper", "GH200-Grace-Hopper"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Hopper",
              .form = form_factor::superchip,
              .capability = cc(9, 0),
              .pci = nv_pci(0x2342),
              .vram = mem_gib(96, gh200_ds),
              .sm_count = std::nullopt,
              .throughput = {gf(34'000, gh200_ds), gf(67'000, gh200_ds), gf(67'000, gh200_ds), gf(494'500, gh200_ds), gf(989'500, gh200_ds),
                             gf(1'979'000, gh200_ds)},
              .memory_bandwidth = gbs(4'000, gh200_ds),
              .tdp_watts = num(1'000, gh200_ds),
              .pcie_generation = std::nullopt,
              .nvlink = nvlink(4, 900, gh200_ds),
              .mig_capable = true,
              .notes = "the 96GB HBM3 superchip; TDP is the whole module (450-1000 W, CPU and memory included); NVLink is the "
                       "900 GB/s NVLink-C2C figure; TF32/FP16/FP8 sparsity figures halved; PCI id 2342 is pci.ids \"GH100 [GH200 480GB]\"; SM count "
                       "not sourced"},
    gpu_model{.name = "B200-180GB",
              .aliases = {"B200", "NVIDIA B200", "B200-SXM"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Blackwell",
              .form = form_factor::sxm,
              .capability = cc(10, 0),
              .pci = nv_pci(0x2901),
              .vram = mem_gib(180, dgx_b200_ds),
              .sm_count = std::nullopt,
              .throughput = {std::nullopt, std::nullopt, std::nullopt, std::nullopt, gf(2'250'000, hgx_ds), gf(4'500'000, hgx_ds)},
              .memory_bandwidth = gbs(8'000, dgx_b200_ds),
              .tdp_watts = std::nullopt,
              .pcie_generation = std::nullopt,
              .nvlink = nvlink(5, 1'800, dgx_b200_ds),
              .mig_capable = true,
              .notes = "per GPU = DGX/HGX B200 8-GPU figure / 8; FP16/FP8 sparsity figures halved; FP64, TF32, SMs, TDP not "
                       "sourced (published figures disagree or are per system)"},
    gpu_model{.name = "L40S",
              .aliases = {"NVIDIA L40S", "L40S-48GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Ada Lovelace",
              .form = form_factor::pcie,
              .capability = cc(8, 9),
              .pci = nv_pci(0x26b9),
              .vram = mem_gib(48, l40s_ds),
              .sm_count = num(142, l40s_ds),
              .throughput = {std::nullopt, std::nullopt, gf(91'600, l40s_ds), gf(183'000, l40s_ds), gf(362'050, l40s_ds), gf(733'000, l40s_ds)},
              .memory_bandwidth = gbs(864, l40s_ds),
              .tdp_watts = num(350, l40s_ds),
              .pcie_generation = num(4, l40s_ds),
              .nvlink = std::nullopt,
              .mig_capable = false,
              .notes = "SMs = 18,176 CUDA cores / 128 per Ada SM; FP64 not published"},
    gpu_model{.name = "L4",
              .aliases = {"NVIDIA L4", "L4-24GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Ada Lovelace",
              .form = form_factor::pcie,
              .capability = cc(8, 9),
              .pci = nv_pci(0x27b8),
              .vram = mem_gib(24, l4_ds),
              .sm_count = num(58, l4_ds),
              .throughput = {std::nullopt, std::nullopt, gf(30'300, l4_ds), gf(60'000, l4_ds), gf(121'000, l4_ds), gf(242'500, l4_ds)},
              .memory_bandwidth = gbs(300, l4_ds),
              .tdp_watts = num(72, l4_ds),
              .pcie_generation = num(4, l4_ds),
              .nvlink = std::nullopt,
              .mig_capable = false,
              .notes = "SMs = 7,424 CUDA cores / 128 per Ada SM; TF32/FP16/FP8 sparsity figures halved"},
    gpu_model{.name = "T4",
              .aliases = {"Tesla T4", "NVIDIA T4", "T4-16GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Turing",
              .form = form_factor::pcie,
              .capability = cc(7, 5),
              .pci = nv_pci(0x1eb8),
              .vram = mem_gib(16, t4_ds),
              .sm_count = num(40, turing_wp),
              .throughput = {std::nullopt, std::nullopt, gf(8'100, t4_ds), std::nullopt, gf(65'000, t4_ds), std::nullopt},
              .memory_bandwidth = gbs(320, t4_ds),
              .tdp_watts = num(70, t4_ds),
              .pcie_generation = num(3, t4_ds),
              .nvlink = std::nullopt,
              .mig_capable = false,
              .notes = "FP16 is the datasheet's mixed-precision (FP16/FP32) tensor figure; in the Alibaba trace"},
    gpu_model{.name = "V100-SXM2-16GB",
              .aliases = {"V100M16", "V100", "V100-16GB", "Tesla V100-SXM2-16GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Volta",
              .form = form_factor::sxm,
              .capability = cc(7, 0),
              .pci = nv_pci(0x1db1),
              .vram = mem_gib(16, v100_ds),
              .sm_count = num(80, volta_wp),
              .throughput = {gf(7'800, v100_ds), std::nullopt, gf(15'700, v100_ds), std::nullopt, gf(125'000, v100_ds), std::nullopt},
              .memory_bandwidth = gbs(900, v100_ds),
              .tdp_watts = num(300, v100_ds),
              .pcie_generation = num(3, v100_ds),
              .nvlink = nvlink(2, 300, v100_ds),
              .mig_capable = false,
              .notes = "the Alibaba trace's V100M16 (a 16GB V100; SXM2 assumed); FP16 is the datasheet's tensor figure"},
    gpu_model{.name = "V100-SXM2-32GB",
              .aliases = {"V100M32", "V100-32GB", "Tesla V100-SXM2-32GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Volta",
              .form = form_factor::sxm,
              .capability = cc(7, 0),
              .pci = nv_pci(0x1db5),
              .vram = mem_gib(32, v100_ds),
              .sm_count = num(80, volta_wp),
              .throughput = {gf(7'800, v100_ds), std::nullopt, gf(15'700, v100_ds), std::nullopt, gf(125'000, v100_ds), std::nullopt},
              .memory_bandwidth = gbs(900, v100_ds),
              .tdp_watts = num(300, v100_ds),
              .pcie_generation = num(3, v100_ds),
              .nvlink = nvlink(2, 300, v100_ds),
              .mig_capable = false,
              .notes = "the Alibaba trace's V100M32 (a 32GB V100; SXM2 assumed)"},
    gpu_model{.name = "P100",
              .aliases = {"P100-PCIE-16GB", "Tesla P100-PCIE-16GB", "Tesla P100"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Pascal",
              .form = form_factor::pcie,
              .capability = cc(6, 0),
              .pci = nv_pci(0x15f8),
              .vram = mem_gib(16, p100_ds),
              .sm_count = num(56, pascal_wp),
              .throughput = {gf(4'700, p100_ds), std::nullopt, gf(9'300, p100_ds), std::nullopt, gf(18'700, p100_ds), std::nullopt},
              .memory_bandwidth = gbs(732, p100_ds),
              .tdp_watts = num(250, p100_ds),
              .pcie_generation = num(3, p100_ds),
              .nvlink = std::nullopt,
              .mig_capable = false,
              .notes = "the PCIe 16GB card (as in the Alibaba trace; PCIe assumed); no tensor cores, FP16 is the vector rate"},
    gpu_model{.name = "A10",
              .aliases = {"NVIDIA A10", "A10-24GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Ampere",
              .form = form_factor::pcie,
              .capability = cc(8, 6),
              .pci = nv_pci(0x2236),
              .vram = mem_gib(24, a10_ds),
              .sm_count = num(72, a10_ds),
              .throughput = {std::nullopt, std::nullopt, gf(31'200, a10_ds), gf(62'500, a10_ds), gf(125'000, a10_ds), std::nullopt},
              .memory_bandwidth = gbs(600, a10_ds),
              .tdp_watts = num(150, a10_ds),
              .pcie_generation = num(4, a10_ds),
              .nvlink = std::nullopt,
              .mig_capable = false,
              .notes = "SMs = 9,216 CUDA cores / 128 per GA10x SM; in the Alibaba trace"},
    gpu_model{.name = "A30",
              .aliases = {"NVIDIA A30", "A30-24GB"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Ampere",
              .form = form_factor::pcie,
              .capability = cc(8, 0),
              .pci = nv_pci(0x20b7),
              .vram = mem_gib(24, a30_ds),
              .sm_count = num(56, a30_ds),
              .throughput = {gf(5'200, a30_ds), gf(10'300, a30_ds), gf(10'300, a30_ds), gf(82'000, a30_ds), gf(165'000, a30_ds), std::nullopt},
              .memory_bandwidth = gbs(933, a30_ds),
              .tdp_watts = num(165, a30_ds),
              .pcie_generation = num(4, a30_ds),
              .nvlink = nvlink(3, 200, a30_ds),
              .mig_capable = true,
              .notes = "SMs = 3,584 CUDA cores / 64 per GA100 SM; MIG up to 4 instances (4-slice geometry)"},
    gpu_model{.name = "RTX-4090",
              .aliases = {"GeForce RTX 4090", "NVIDIA GeForce RTX 4090"},
              .vendor = gpu_vendor::nvidia,
              .architecture = "Ada Lovelace",
              .form = form_factor::pcie,
              .capability = cc(8, 9),
              .pci = nv_pci(0x2684),
              .vram = mem_gib(24, ada_wp),
              .sm_count = num(128, ada_wp),
              .throughput = {std::nullopt, std::nullopt, gf(82'600, ada_wp), gf(82'600, ada_wp), gf(165'200, ada_wp), gf(330'300, ada_wp)},
              .memory_bandwidth = gbs(1'008, ada_wp),
              .tdp_watts = num(450, ada_wp),
              .pcie_generation = num(4, ada_wp),
              .nvlink = std::nullopt,
              .mig_capable = false,
              .notes = "FP16 and FP8 with FP32 accumulate (GeForce rate; FP16 accumulate is twice that)"},
    gpu_model{.name = "MI300X",
              .aliases = {"Instinct MI300X", "AMD Instinct MI300X"},
              .vendor = gpu_vendor::amd,
              .architecture = "CDNA 3",
              .form = form_factor::oam,
              .capability = std::nullopt,
              .pci = sourced<pci_identity>{pci_identity{pci_vendor_amd, {0x74a1}}, pci_ids},
              .vram = mem_gib(192, mi300x_ds),
              .sm_count = num(304, mi300x_ds),
              .throughput = {gf(81'700, mi300x_ds), gf(163'400, mi300x_ds), gf(163'400, mi300x_ds), gf(653'700, mi300x_ds), gf(1'307'400, mi300x_ds),
                             gf(2'614'900, mi300x_ds)},
              .memory_bandwidth = gbs(5'300, mi300x_ds),
              .tdp_watts = num(750, mi300x_ds),
              .pcie_generation = num(5, mi300x_ds),
              .nvlink = std::nullopt,
              .mig_capable = false,
              .notes = "sm_count is 304 compute units; GPU-to-GPU is AMD Infinity Fabric (not NVLink); no CUDA capability"},
    gpu_model{.name = "G2",
              .aliases = {},
              .vendor = gpu_vendor::unknown,
              .architecture = {},
              .form = form_factor::unknown,
              .notes = "undisclosed GPU type of the Alibaba GPU trace v2023 (549 nodes x 8 GPUs); no specs published"},
    gpu_model{.name = "G3",
              .aliases = {},
              .vendor = gpu_vendor::unknown,
              .architecture = {},
              .form = form_factor::unknown,
              .notes = "undisclosed GPU type of the Alibaba GPU trace v2023 (39 nodes x 8 GPUs); no specs published"},
};

}  // namespace detail::builtin

// The built-in models and the documents their numbers come from (constexpr data).
[[nodiscard]] constexpr std::span<const gpu_model> builtin_catalog() noexcept { return detail::builtin::models; }
[[nodiscard]] constexpr std::span<const source_document> builtin_sources() noexcept { return detail::builtin::sources; }

// The built-in model a name or alias names (case and '-', '_', ' ' ignored), or null.
[[nodiscard]] constexpr const gpu_model* find_model(std::string_view name_or_alias) noexcept {
  for (const gpu_model& m : detail::builtin::models)
    if (m.named(name_or_alias)) return &m;
  return nullptr;
}

// The built-in model that ships under a PCI vendor/device id, or null.
[[nodiscard]] constexpr const gpu_model* find_model_by_pci(std::uint16_t vendor_id, std::uint16_t device_id) noexcept {
  for (const gpu_model& m : detail::builtin::models)
    if (m.has_pci_device(vendor_id, device_id)) return &m;
  return nullptr;
}

// Owns the text a loaded catalog's string_views point into. Interned strings never move
// (std::deque keeps its elements in place as it grows).
class string_store {
 public:
  std::string_view intern(std::string_view s) { return strings_.emplace_back(s); }

 private:
  std::deque<std::string> strings_;
};

// A catalog value: the built-in one, or one loaded from a file (same gpu_model type). A
// loaded catalog shares ownership of its string storage, so copies stay valid.
class catalog {
 public:
  catalog() = default;
  // Models whose strings live in `storage` (or in static data when storage is null). Use
  // `make` to also validate.
  catalog(std::vector<gpu_model> models, std::vector<source_document> sources, std::shared_ptr<const string_store> storage = nullptr)
      : models_(std::move(models)), sources_(std::move(sources)), storage_(std::move(storage)) {}

  [[nodiscard]] static catalog builtin() {
    return catalog({builtin_catalog().begin(), builtin_catalog().end()}, {builtin_sources().begin(), builtin_sources().end()});
  }

  // A validated catalog: every name non-empty and unique (aliases included), every source
  // id known, every number positive. Errors name the field as "models[i].field".
  [[nodiscard]] static expected<catalog> make(std::vector<gpu_model> models, std::vector<source_document> sources,
                                              std::shared_ptr<const string_store> storage = nullptr) {
    catalog c(std::move(models), std::move(sources), std::move(storage));
    if (auto ok = c.validate(); !ok) return unexpected<error>(std::move(ok.error()));
    return c;
  }

  [[nodiscard]] std::span<const gpu_model> models() const noexcept { return models_; }
  [[nodiscard]] std::span<const source_document> sources() const noexcept { return sources_; }
  [[nodiscard]] std::size_t size() const noexcept { return models_.size(); }

  [[nodiscard]] const gpu_model* find(std::string_view name_or_alias) const noexcept {
    for (const gpu_model& m : models_)
      if (m.named(name_or_alias)) return &m;
    return nullptr;
  }
  [[nodiscard]] const gpu_model* find_by_pci(std::uint16_t vendor_id, std::uint16_t device_id) const noexcept {
    for (const gpu_model& m : models_)
      if (m.has_pci_device(vendor_id, device_id)) return &m;
    return nullptr;
  }
  [[nodiscard]] const source_document* find_source(std::string_view id) const noexcept {
    for (const source_document& s : sources_)
      if (s.id == id) return &s;
    return nullptr;
  }

  [[nodiscard]] expected<void> validate() const;

  // Equal when they hold equal models and sources, wherever their strings live.
  friend bool operator==(const catalog& a, const catalog& b) { return a.models_ == b.models_ && a.sources_ == b.sources_; }

 private:
  std::vector<gpu_model> models_;
  std::vector<source_document> sources_;
  std::shared_ptr<const string_store> storage_;
};

namespace detail {
inline std::string model_field(std::size_t i, std::string_view field) {
  std::string s = "models[" + std::to_string(i) + "]";
  if (!field.empty()) {
    s += '.';
    s += field;
  }
  return s;
}

inline unexpected<error> model_error(std::size_t i, std::string_view field, std::string message, error_code code = error_code::invalid_argument) {
  return make_error(code, model_field(i, field), std::move(message));
}

// Every source id non-empty and unique.
[[nodiscard]] inline expected<void> validate_sources(std::span<const source_document> sources) {
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const std::string field = "sources[" + std::to_string(k) + "].id";
    if (sources[k].id.empty()) return make_error(error_code::invalid_argument, field, "must not be empty");
    for (std::size_t l = 0; l < k; ++l)
      if (sources[l].id == sources[k].id)
        return make_error(error_code::duplicate, field, "source id '" + std::string(sources[k].id) + "' repeats sources[" + std::to_string(l) + "]");
  }
  return {};
}

// Model i's name and aliases name no model before it.
[[nodiscard]] inline expected<void> validate_names(std::span<const gpu_model> models, std::size_t i) {
  const gpu_model& m = models[i];
  if (m.name.empty()) return model_error(i, "name", "must not be empty");
  for (std::size_t j = 0; j < i; ++j) {
    const std::string other = "' already names models[" + std::to_string(j) + "]";
    if (models[j].named(m.name)) return model_error(i, "name", "'" + std::string(m.name) + other, error_code::duplicate);
    for (std::size_t a = 0; a < m.aliases.size(); ++a)
      if (models[j].named(m.aliases[a]))
        return model_error(i, "aliases[" + std::to_string(a) + "]", "'" + std::string(m.aliases[a]) + other, error_code::duplicate);
  }
  return {};
}

// Model i's numbers: each positive and from a listed source.
class number_check {
 public:
  number_check(const catalog& c, std::size_t i) : c_(c), i_(i) {}

  [[nodiscard]] expected<void> source(std::string_view field, std::string_view src) const {
    if (src.empty()) return model_error(i_, std::string(field) + ".source", "every number needs a source");
    if (c_.find_source(src) == nullptr)
      return model_error(i_, std::string(field) + ".source", "unknown source id '" + std::string(src) + "'", error_code::unknown_name);
    return {};
  }
  // v: an optional sourced number whose value is `value`.
  template <class V>
  [[nodiscard]] expected<void> positive(std::string_view field, const V& v, std::int64_t value) const {
    if (!v) return {};
    if (value <= 0) return model_error(i_, std::string(field) + ".value", "must be positive, got " + std::to_string(value));
    return source(field, v->source);
  }
  template <class T>
  [[nodiscard]] expected<void> quantity(std::string_view field, const std::optional<sourced<T>>& v) const {
    if constexpr (std::is_integral_v<T>)
      return positive(field, v, v ? v->value : 0);
    else
      return positive(field, v, v ? v->value.count() : 0);
  }

 private:
  const catalog& c_;
  std::size_t i_;
};

[[nodiscard]] inline expected<void> validate_numbers(const catalog& c, std::size_t i) {
  const gpu_model& m = c.models()[i];
  const number_check check(c, i);
  GPURENT_TRY(check.quantity("vram_bytes", m.vram));
  GPURENT_TRY(check.quantity("sm_count", m.sm_count));
  GPURENT_TRY(check.quantity("memory_bandwidth_mb_per_s", m.memory_bandwidth));
  GPURENT_TRY(check.quantity("tdp_watts", m.tdp_watts));
  GPURENT_TRY(check.quantity("pcie_generation", m.pcie_generation));
  const std::pair<std::string_view, const std::optional<sourced<gflops>>*> flops[] = {
      {"throughput_gflops.fp64", &m.throughput.fp64}, {"throughput_gflops.fp64_tensor", &m.throughput.fp64_tensor},
      {"throughput_gflops.fp32", &m.throughput.fp32}, {"throughput_gflops.tf32", &m.throughput.tf32},
      {"throughput_gflops.fp16", &m.throughput.fp16}, {"throughput_gflops.fp8", &m.throughput.fp8}};
  for (const auto& [field, f] : flops) GPURENT_TRY(check.quantity(field, *f));
  if (m.nvlink) {
    GPURENT_TRY(check.positive("nvlink.generation", m.nvlink, m.nvlink->value.generation));
    GPURENT_TRY(check.positive("nvlink.bandwidth_mb_per_s", m.nvlink, m.nvlink->value.bandwidth.count()));
  }
  if (m.capability) {
    if (m.capability->value.major <= 0) return model_error(i, "compute_capability.value", "major version must be positive");
    GPURENT_TRY(check.source("compute_capability", m.capability->source));
  }
  if (m.pci) {
    if (m.pci->value.vendor_id == 0) return model_error(i, "pci.value.vendor_id", "must not be 0");
    if (m.pci->value.device_ids.empty()) return model_error(i, "pci.value.device_ids", "must list at least one device id");
    GPURENT_TRY(check.source("pci", m.pci->source));
  }
  return {};
}
}  // namespace detail

inline expected<void> catalog::validate() const {
  GPURENT_TRY(detail::validate_sources(sources_));
  for (std::size_t i = 0; i < models_.size(); ++i) {
    GPURENT_TRY(detail::validate_names(models_, i));
    GPURENT_TRY(detail::validate_numbers(*this, i));
  }
  return {};
}

}  // namespace gpurent
