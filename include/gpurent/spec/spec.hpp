// SPDX-License-Identifier: MIT
#pragma once
// The spec layer: GPU models and the built-in catalog, server topology, the cluster's
// network topology, MIG geometry.
// Formatters are in spec/format.hpp.
#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/cluster_topology.hpp>
#include <gpurent/spec/gpu.hpp>
#include <gpurent/spec/mig.hpp>
#include <gpurent/spec/mig_data.hpp>
#include <gpurent/spec/mig_text.hpp>
#include <gpurent/spec/topology.hpp>
