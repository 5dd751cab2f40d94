// SPDX-License-Identifier: MIT
#pragma once
// The fleet layer: a cluster (inventory, topology, node conditions), its jobs (gangs), and
// what happens to them: `pack` (arrival-only packing, fleet pack) and a generated fleet
// and job mix (fleet generate). Readers and writers of the files: io/fleet_csv.hpp and
// io/topology_json.hpp. Contract: ../shared/protocols/fleet.md.
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/generate.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/pack.hpp>
