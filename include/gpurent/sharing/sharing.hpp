// SPDX-License-Identifier: MIT
#pragma once
// The sharing layer: how a GPU is handed out (exclusive, fractional share, MIG slice, MPS,
// preemptible/spot). Formatters are in sharing/format.hpp.
#include <gpurent/sharing/modes.hpp>
#include <gpurent/sharing/rental.hpp>
