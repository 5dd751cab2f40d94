// SPDX-License-Identifier: MIT
#pragma once
// The sharing layer: how a GPU is handed out (exclusive, fractional share, MIG slice, MPS,
// preemptible/spot), and what each mode isolates.
// Formatters are in sharing/format.hpp.
#include <gpurent/sharing/isolation.hpp>
#include <gpurent/sharing/modes.hpp>
#include <gpurent/sharing/rental.hpp>
