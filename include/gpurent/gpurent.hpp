// SPDX-License-Identifier: MIT
#pragma once
// Every non-optional layer of gpurent. The optional ones (io, probe) are included on their own.
#include <gpurent/core/core.hpp>
#include <gpurent/core/format.hpp>
