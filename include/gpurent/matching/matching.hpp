// SPDX-License-Identifier: MIT
#pragma once
// The matching layer: requests, inventory, constraints, policies, the matcher (and its
// full-scan reference), the replay.

#include <gpurent/matching/candidate_index.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/fragmentation.hpp>
#include <gpurent/matching/full_scan.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/matcher.hpp>
#include <gpurent/matching/policy.hpp>
#include <gpurent/matching/policy_gpurent.hpp>
#include <gpurent/matching/registry.hpp>
#include <gpurent/matching/replay.hpp>
#include <gpurent/matching/request.hpp>
