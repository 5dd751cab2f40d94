// SPDX-License-Identifier: MIT
#pragma once
// The matching layer: requests, inventory, constraints, policies, the matcher, and gangs on
// the network topology (gang/placer.hpp). Reference implementations are not part of it and are
// included on their own: the full-scan matcher (<gpurent/matching/reference/full_scan.hpp>),
// the full-scan gang placer (<gpurent/matching/reference/full_scan_gang.hpp>) and the FGD
// replay protocol (<gpurent/matching/reference/replay.hpp>).

#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/gang/capacity.hpp>
#include <gpurent/matching/gang/check.hpp>
#include <gpurent/matching/gang/layout.hpp>
#include <gpurent/matching/gang/placer.hpp>
#include <gpurent/matching/gang/policy.hpp>
#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/gang/search.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/node/candidate_index.hpp>
#include <gpurent/matching/node/choice.hpp>
#include <gpurent/matching/node/failure_memo.hpp>
#include <gpurent/matching/node/fragmentation.hpp>
#include <gpurent/matching/node/matcher.hpp>
#include <gpurent/matching/node/policy.hpp>
#include <gpurent/matching/node/policy_gpurent.hpp>
#include <gpurent/matching/node/registry.hpp>
#include <gpurent/matching/placer.hpp>
#include <gpurent/matching/request.hpp>
#include <gpurent/matching/why_not.hpp>
