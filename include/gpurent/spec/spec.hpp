// SPDX-License-Identifier: MIT
#pragma once
// The spec layer: GPU models and the built-in catalog, server topology, MIG geometry.
#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/gpu.hpp>
#include <gpurent/spec/topology.hpp>
#if __has_include(<gpurent/spec/mig.hpp>)
#include <gpurent/spec/mig.hpp>
#include <gpurent/spec/mig_text.hpp>
#endif
