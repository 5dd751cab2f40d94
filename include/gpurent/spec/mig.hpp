// SPDX-License-Identifier: MIT
#pragma once
// MIG, exact to the memory slot: placed instances (layouts) and their validity, every valid
// layout of a geometry, fit (where to add instances so the most future options stay open),
// and repartition plans (fewest instances destroyed). See docs/spec-mig.md. One header per
// concept, under spec/mig/; the geometry itself, as data, is spec/mig_data.hpp.

#include <gpurent/spec/mig/enumerate.hpp>
#include <gpurent/spec/mig/fit.hpp>
#include <gpurent/spec/mig/layout.hpp>
#include <gpurent/spec/mig/repartition.hpp>
#include <gpurent/spec/mig/search.hpp>
#include <gpurent/spec/mig/validity.hpp>
#include <gpurent/spec/mig_data.hpp>
