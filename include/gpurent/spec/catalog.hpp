// SPDX-License-Identifier: MIT
#pragma once
// The built-in GPU catalog (constexpr data, a source for every number) and `catalog`, the
// run-time value type that holds either the built-in models or models loaded from a file
// (io/spec/catalog_json.hpp). Both are spans of the same `gpu_model`.
//
// One header per concept under spec/catalog/: the source documents and the conventions of
// the data (sources.hpp), the data by vendor (nvidia.hpp, amd.hpp, undisclosed.hpp), the
// built-in catalog (builtin.hpp) and the `catalog` value (value.hpp).

#include <gpurent/spec/catalog/amd.hpp>
#include <gpurent/spec/catalog/builtin.hpp>
#include <gpurent/spec/catalog/nvidia.hpp>
#include <gpurent/spec/catalog/sources.hpp>
#include <gpurent/spec/catalog/undisclosed.hpp>
#include <gpurent/spec/catalog/value.hpp>
