// SPDX-License-Identifier: MIT
#pragma once
// Every non-optional layer of gpurent, with their fmt formatters. The optional layers are
// included on their own: <gpurent/io/...> (JSON/CSV, needs nlohmann/json) and
// <gpurent/probe/probe.hpp> (CUDA runtime and NVML, target gpurent::probe).
#include <gpurent/core/core.hpp>
#include <gpurent/core/format.hpp>
#include <gpurent/fleet/fleet.hpp>
#include <gpurent/matching/format.hpp>
#include <gpurent/matching/matching.hpp>
#include <gpurent/metering/format.hpp>
#include <gpurent/metering/metering.hpp>
#include <gpurent/planning/format.hpp>
#include <gpurent/planning/planning.hpp>
#include <gpurent/sharing/format.hpp>
#include <gpurent/sharing/sharing.hpp>
#include <gpurent/spec/format.hpp>
#include <gpurent/spec/spec.hpp>
#include <gpurent/tariff/format.hpp>
#include <gpurent/tariff/tariff.hpp>
