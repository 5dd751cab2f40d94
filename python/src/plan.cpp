// SPDX-License-Identifier: MIT
// A plan: the library calls of `gpurent plan` (tools/cmd_plan.cpp): the workload and offers
// readers, plan(), the budget check, and the plan's JSON, usage and tariff writers.
#include <memory>
#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/plan_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/io/text/json_locate.hpp>
#include <gpurent/planning/budget.hpp>
#include <gpurent/planning/planner.hpp>

#include "bind.hpp"
#include "errors.hpp"
#include "inputs.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

// A plan that fits its budget (or has none); over budget, the budget report instead.
struct py_plan {
  std::optional<plan_result> result;
  std::string over_budget;  // the budget report's JSON when the cheapest plan is over budget
  std::string message;      // and its text
};

std::unique_ptr<py_plan> make_plan(const std::optional<std::string>& workload_text, const std::string& workload_name,
                                   const std::optional<std::string>& offers_text, const std::string& offers_name) {
  const std::string wt = input_text(workload_text, workload_name), ot = input_text(offers_text, offers_name);
  nb::gil_scoped_release unlocked;
  const offer_catalog cat = value_or_throw(read_offers_json(ot, offers_name));
  const workload w = value_or_throw(read_workload_json(wt, workload_name));
  auto p = plan(w, cat);
  if (!p) {
    error e = p.error();
    if (e.where.empty()) e = io::json_located(std::move(e), wt, workload_name);  // at the line of the job it names
    throw library_error(std::move(e));
  }
  auto out = std::make_unique<py_plan>();
  if (const auto over = value_or_throw(check_budget(w, cat, *p))) {
    out->over_budget = budget_to_json(*over).dump(2) + "\n";
    out->message = budget_text(*over);
    return out;
  }
  out->result = std::move(*p);
  return out;
}

const plan_result& result_of(const py_plan& p) {
  if (!p.result) throw nb::value_error("the plan is over its budget: see over_budget_json()");
  return *p.result;
}

}  // namespace

void bind_plan(nb::module_& m) {
  nb::class_<py_plan>(m, "Plan", "A plan of `gpurent plan`, or the budget report when the cheapest plan is over budget")
      .def(
          "to_json", [](const py_plan& p) { return plan_to_json(result_of(p)).dump(2) + "\n"; }, "The bytes of `gpurent plan --format json`.")
      .def(
          "usage_csv", [](const py_plan& p) { return io::write_usage_csv(result_of(p).usage); }, "The plan's usage: --emit-usage.")
      .def(
          "tariff_json", [](const py_plan& p) { return value_or_throw(io::tariff_to_json(*result_of(p).prices)).dump(2) + "\n"; },
          "The plan's tariff: --emit-tariff.")
      .def_ro("over_budget_json", &py_plan::over_budget, "The budget report's JSON (empty when within budget).")
      .def_ro("over_budget_text", &py_plan::message, "The budget report's message (empty when within budget).");
  m.def("plan", &make_plan, nb::arg("workload_text").none(), nb::arg("workload"), nb::arg("offers_text").none(), nb::arg("offers"),
        "`gpurent plan` on a workload and offers (each a file, its text None, or a text named in errors).");
}

}  // namespace gpurent::py
