// SPDX-License-Identifier: MIT
// Tariffs, metering and invoices: the library calls `gpurent meter` makes (tools/cmd_meter.cpp)
// and the C API's gpurent_meter_json: io::load_tariff_json, meter::for_month,
// io::meter_usage_files, meter::finish_shards, and the invoice writers of io/billing/.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <gpurent/io/billing/invoice_csv.hpp>
#include <gpurent/io/billing/invoice_focus.hpp>
#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/meter.hpp>

#include "bind.hpp"
#include "errors.hpp"
#include "usage_table.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

// An invoice with the tariff it was made under (the FOCUS and CSV writers read its prices).
struct py_invoice {
  invoice inv;
  std::shared_ptr<tariff> t;
};

meter month_meter(const tariff& t, const std::string& period) {
  auto m = meter::for_month(t, period);
  if (!m) throw library_error(m.error().in_field("period"));
  return std::move(*m);
}

py_invoice meter_files(const std::shared_ptr<tariff>& t, const std::string& period, const std::vector<std::string>& paths, unsigned jobs) {
  if (paths.empty()) throw library_error(error{error_code::invalid_argument, "usage", "no usage file", {}});
  nb::gil_scoped_release unlocked;
  const meter blank = month_meter(*t, period);
  const io::meter_run_options run{.shard = {}, .jobs = jobs, .block_bytes = io::default_block_bytes};
  auto shards = value_or_throw(io::meter_usage_files(blank, paths, run));
  return py_invoice{value_or_throw(meter::finish_shards(shards)), t};
}

py_invoice meter_columns(const std::shared_ptr<tariff>& t, const std::string& period, const nb::list& names, const nb::list& columns,
                         const std::string& source, unsigned jobs) {
  usage_table table = table_of(names, columns, source);
  nb::gil_scoped_release unlocked;
  if (jobs <= 1) {
    meter m = month_meter(*t, period);
    value_or_throw(meter_table(m, table));
    return py_invoice{value_or_throw(m.finish()), t};
  }
  std::vector<meter> shards(jobs, month_meter(*t, period));
  value_or_throw(meter_table_on_threads(shards, table));
  return py_invoice{value_or_throw(meter::finish_shards(shards)), t};
}

void bind_tariff(nb::module_& m) {
  nb::class_<tariff>(m, "Tariff", "A tariff (docs/formats/billing.md), read by the library's tariff reader")
      .def_static(
          "load",
          [](const std::string& path) {
            if (path.find('\0') != std::string::npos) throw nb::value_error("embedded null byte");  // as open() says
            return std::make_shared<tariff>(value_or_throw(io::load_tariff_json(path)));
          },
          nb::arg("path"), "The tariff of a JSON file.")
      .def_static(
          "parse",
          [](const std::string& text, const std::string& name) {
            return std::make_shared<tariff>(value_or_throw(io::parse_tariff_json(text, name)));
          },
          nb::arg("text"), nb::arg("name") = "tariff.json", "The tariff of a JSON text; `name` names it in errors.");
}

void bind_invoice(nb::module_& m) {
  nb::class_<py_invoice>(m, "Invoice", "An invoice: the library's, written by its writers")
      .def(
          "to_json", [](const py_invoice& i, bool detail) { return io::write_invoice_json(i.inv, io::invoice_format_options{detail}); },
          nb::arg("detail") = false, "The bytes of `gpurent meter --format json` (with --detail when asked).")
      .def(
          "to_csv", [](const py_invoice& i, bool detail) { return io::write_invoice_csv(i.inv, io::invoice_format_options{detail}, i.t.get()); },
          nb::arg("detail") = false, "The bytes of `gpurent meter --format csv`.")
      .def(
          "to_focus", [](const py_invoice& i) { return io::write_invoice_focus(i.inv, i.t.get()); },
          "The bytes of `gpurent meter --format focus` (FOCUS 1.0 CSV).");
}

}  // namespace

void bind_meter(nb::module_& m) {
  bind_tariff(m);
  bind_invoice(m);
  m.def("meter_files", &meter_files, nb::arg("tariff"), nb::arg("period"), nb::arg("paths"), nb::arg("jobs"),
        "Usage CSV files metered for one month on `jobs` threads (the same invoice for any number).");
  m.def("meter_columns", &meter_columns, nb::arg("tariff"), nb::arg("period"), nb::arg("names"), nb::arg("columns"), nb::arg("source"),
        nb::arg("jobs"), "Usage records given as columns metered for one month (usage_table.hpp).");
  m.def("machine_cores", &io::machine_cores, "The threads this machine runs at once.");
}

}  // namespace gpurent::py
