// SPDX-License-Identifier: MIT
// The GPU catalog and MIG geometry: the library calls of `gpurent catalog` and `gpurent mig`
// (tools/cmd_catalog.cpp, tools/cmd_mig.cpp), answered as the JSON those commands print.
#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <gpurent/io/spec/catalog_table.hpp>
#include <gpurent/io/spec/mig_json.hpp>
#include <gpurent/spec/mig.hpp>
#include <gpurent/spec/mig_text.hpp>
#include <gpurent/spec/spec.hpp>

#include "bind.hpp"
#include "errors.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

const mig_geometry& geometry_of(const std::string& gpu) { return *value_or_throw(resolve_mig_geometry(gpu, "gpu")); }

// `gpurent mig fit --format json`: where `want` fits beside `have`, and, when it does not
// and `repartition` (or `drop`) is asked, a plan that moves (or destroys) instances.
std::string fit_json(const std::string& gpu, const std::string& want_text, const std::string& have_text, bool repartition, bool drop) {
  const mig_geometry& geo = geometry_of(gpu);
  const auto want = value_or_throw(parse_mig_profiles(geo, want_text, "want"));
  const auto have = value_or_throw(parse_mig_layout(geo, have_text, "have"));
  const mig_fit_result r = mig_fit(geo, have, want);
  io::mig_fit_report f{geo, want, r, {}, drop ? mig_repartition_mode::drop : mig_repartition_mode::move, nullptr};
  std::optional<expected<mig_plan>> plan;
  if (!r.fits()) {
    f.reason = mig_explain(geo, have, want, r);
    if (repartition || drop) f.plan = &plan.emplace(mig_plan_repartition(geo, have, want, f.mode));
  }
  return io::mig_fit_json(f).dump();
}

}  // namespace

void bind_spec(nb::module_& m) {
  m.def(
      "catalog_json", [] { return io::catalog_listing_json(builtin_catalog(), builtin_sources()).dump(2); },
      "The built-in GPU models and their sources: `gpurent catalog --format json`.");
  m.def(
      "mig_profiles_json", [](const std::string& gpu) { return io::mig_profiles_json(geometry_of(gpu)).dump(); }, nb::arg("gpu"),
      "A model's MIG profiles: `gpurent mig profiles --format json`.");
  m.def("mig_fit_json", &fit_json, nb::arg("gpu"), nb::arg("want"), nb::arg("have"), nb::arg("repartition"), nb::arg("drop"),
        "Where MIG instances fit: `gpurent mig fit --format json`.");
}

}  // namespace gpurent::py
