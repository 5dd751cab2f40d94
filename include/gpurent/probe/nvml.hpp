// SPDX-License-Identifier: MIT
#pragma once
// NVML, loaded at run time: dlopen("libnvidia-ml.so.1"), no NVML headers and no link-time
// dependency. Reads each GPU's name, PCI address and id, memory, MIG mode, the existing GPU
// instances with their placements, and NVLink state; and its live state (gpu_telemetry):
// UUID, utilization, memory used, power, temperature, ECC counts, retired pages, remapped
// rows, and each MIG device. A missing library, a missing required symbol or an NVML error is
// an `expected` error with the reason. The live-state functions are optional: one this NVML
// lacks, or that the GPU does not support, makes that reading "not available", nothing more.
//
// One header per concept under probe/nvml/: the C ABI repeated from nvml.h (abi.hpp), loading
// the library and its functions (loader.hpp), calling them (calls.hpp), the live state
// (live_state.hpp) and nvml_library itself (library.hpp).

#include <gpurent/probe/nvml/abi.hpp>
#include <gpurent/probe/nvml/calls.hpp>
#include <gpurent/probe/nvml/library.hpp>
#include <gpurent/probe/nvml/live_state.hpp>
#include <gpurent/probe/nvml/loader.hpp>
