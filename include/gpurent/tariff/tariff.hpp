// SPDX-License-Identifier: MIT
#pragma once
// The tariff layer: what a unit of use costs.
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/billing_time.hpp>
#include <gpurent/tariff/commitment.hpp>
#include <gpurent/tariff/price_matrix.hpp>
#include <gpurent/tariff/rate.hpp>
#include <gpurent/tariff/schedule.hpp>
#include <gpurent/tariff/tiers.hpp>
