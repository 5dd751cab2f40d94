// SPDX-License-Identifier: MIT
#pragma once
// The parts of gpurent._core, one function each, called by the module's init (module.cpp).
#include <nanobind/nanobind.h>

namespace gpurent::py {
void bind_meter(nanobind::module_& m);   // meter.cpp: tariffs, metering, invoices
void bind_fleet(nanobind::module_& m);   // fleet.cpp: a fleet run and its tables
void bind_placer(nanobind::module_& m);  // placer.cpp: the gang placer (place, release, explain)
void bind_spec(nanobind::module_& m);    // spec.cpp: the GPU catalog, MIG profiles and fit
void bind_plan(nanobind::module_& m);    // plan.cpp: a plan for a workload on offers
void bind_idle(nanobind::module_& m);    // idle.cpp: idle GPUs from utilization metrics, and their samples
}  // namespace gpurent::py
