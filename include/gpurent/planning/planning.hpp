// SPDX-License-Identifier: MIT
#pragma once
// The planning layer: offers, the advisors (billing granularity, spot with checkpoints,
// commitment sizing, build versus rent, scaling and idle detection), the planner and the
// budget check.

#include <gpurent/planning/budget.hpp>
#include <gpurent/planning/build_vs_rent.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/caps.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/commitment.hpp>
#include <gpurent/planning/failures.hpp>
#include <gpurent/planning/granularity.hpp>
#include <gpurent/planning/naive.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/planning/packing.hpp>
#include <gpurent/planning/plan_result.hpp>
#include <gpurent/planning/planner.hpp>
#include <gpurent/planning/pricing.hpp>
#include <gpurent/planning/provenance.hpp>
#include <gpurent/planning/rationale.hpp>
#include <gpurent/planning/reasons.hpp>
#include <gpurent/planning/scaling.hpp>
#include <gpurent/planning/workload.hpp>
