// SPDX-License-Identifier: MIT
#pragma once
// The matching layer: requests, inventory, constraints, policies, the matcher, and gangs on
// the network topology (gang.hpp). Reference implementations are not part of it and are
// included on their own: the full-scan matcher (<gpurent/matching/reference/full_scan.hpp>),
// the full-scan gang placer (<gpurent/matching/reference/full_scan_gang.hpp>) and the FGD
// replay protocol (<gpurent/matching/reference/replay.hpp>).

#include <gpurent/matching/candidate_index.hpp>
#include <gpurent/matching/choice.hpp>
#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/failure_memo.hpp>
#include <gpurent/matching/fragmentation.hpp>
#include <gpurent/matching/gang.hpp>
#include <gpurent/matching/gang_capacity.hpp>
#include <gpurent/matching/gang_check.hpp>
#include <gpurent/matching/gang_layout.hpp>
#include <gpurent/matching/gang_policy.hpp>
#include <gpurent/matching/gang_request.hpp>
#include <gpurent/matching/gang_search.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/matcher.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/policy.hpp>
#include <gpurent/matching/policy_gpurent.hpp>
#include <gpurent/matching/registry.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/matching/why_not.hpp>
