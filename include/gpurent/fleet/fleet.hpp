// SPDX-License-Identifier: MIT
#pragma once
// The fleet layer: a cluster (inventory, topology, node conditions), its jobs (gangs), and
// what happens to them: `pack` (arrival-only packing, fleet pack), a generated fleet
// and job mix (fleet generate), and `run_fleet` (a cluster over time with departures,
// queueing and preemption, fleet run: run*.hpp). Readers and writers of the files: io/fleet_csv.hpp and
// io/fleet/topology_json.hpp. Contract: docs/formats/fleet.md.
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/generate.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/pack.hpp>
#include <gpurent/fleet/run/check.hpp>
#include <gpurent/fleet/run/check_conditions.hpp>
#include <gpurent/fleet/run/checkpoint.hpp>
#include <gpurent/fleet/run/metrics.hpp>
#include <gpurent/fleet/run/named.hpp>
#include <gpurent/fleet/run/pods.hpp>
#include <gpurent/fleet/run/run.hpp>
#include <gpurent/fleet/run/timeline.hpp>
#include <gpurent/fleet/run/usage.hpp>
#include <gpurent/matching/gang/placer.hpp>  // the Placers a run takes
#include <gpurent/matching/node/matcher.hpp>
