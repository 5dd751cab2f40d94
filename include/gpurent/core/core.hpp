// SPDX-License-Identifier: MIT
#pragma once
// The core layer: exact decimals and money, currencies, rounding, time and calendars,
// quantities, errors.
#include <gpurent/core/assert.hpp>
#include <gpurent/core/bytes.hpp>
#include <gpurent/core/calendar.hpp>
#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/fleet_time.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/core/rounding.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/core/wide.hpp>
