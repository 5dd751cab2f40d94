// SPDX-License-Identifier: MIT
#pragma once
// The documents the built-in catalog's numbers come from (`source_document`; a number's
// `sourced<T>::source` holds a document's id), and the helpers the vendor tables
// (spec/catalog/<vendor>.hpp) are written with.
//
// Conventions of the data (also in docs/spec.md):
// - Dense figures only. Where a datasheet prints only the sparsity figure ("*with
//   sparsity"), the value is that figure halved, and the model's notes say so.
// - "N GB" of GPU memory is read as N GiB (HBM/GDDR capacities are binary); the memory a
//   driver reports is a little less.
// - A number with no published source is left empty, never estimated.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

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
inline constexpr std::string_view blackwell_ds = "nvidia-blackwell-datasheet";
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
inline constexpr std::string_view mig_lgip_h100_nvl = "lgip-capture-h100-nvl";
inline constexpr std::string_view mig_lgip_h200 = "lgip-capture-h200";

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
    source_document{blackwell_ds, "NVIDIA Blackwell datasheet (2025), individual GPU specifications: the GB200 NVL72 (per GPU) column",
                    "https://resources.nvidia.com/en-us-blackwell-architecture"},
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
    source_document{mig_lgip_h100_nvl,
                    "nvidia-smi mig -lgip on an H100 NVL (Azure NC40ads_H100_v5), GitHub AlizeeChen11/mig-and-mps: 7g.94gb spans 132 SMs",
                    "https://github.com/AlizeeChen11/mig-and-mps"},
    source_document{mig_lgip_h200, "nvidia-smi mig -lgip on an H200 in NVIDIA/mig-parted issue 120: 7g.141gb spans 132 SMs",
                    "https://github.com/NVIDIA/mig-parted/issues/120"},
};

// Helpers that keep the vendor tables readable.
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

}  // namespace detail::builtin

}  // namespace gpurent
