// SPDX-License-Identifier: MIT
#pragma once
// The fleet layer: a cluster (inventory, topology, node conditions), its jobs (gangs), and
// what happens to them: `pack` (arrival-only packing, fleet pack), a generated fleet
// and job mix (fleet generate), and `run_fleet` (a cluster over time with departures,
// queueing and preemption, fleet run: run*.hpp). Readers and writers of the files: io/fleet_csv.hpp and
// io/topology_json.hpp. Contract: ../shared/protocols/fleet.md.
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/generate.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/pack.hpp>
#include <gpurent/fleet/run.hpp>
#include <gpurent/fleet/run_check.hpp>
#include <gpurent/fleet/run_checkpoint.hpp>
#include <gpurent/fleet/run_metrics.hpp>
#include <gpurent/fleet/run_pods.hpp>
#include <gpurent/fleet/run_timeline.hpp>
#include <gpurent/fleet/run_usage.hpp>
#include <gpurent/matching/gang.hpp>  // the Placers a run takes
#include <gpurent/matching/matcher.hpp>
