// SPDX-License-Identifier: MIT
#pragma once
// The metering layer: usage records, rating, the meter (dedup, clipping, merge), invoices,
// waste reports. The meter's runners on threads and ranks (scale/) are included on their own.
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/metering/shard.hpp>
#include <gpurent/metering/usage.hpp>
#include <gpurent/metering/waste.hpp>
