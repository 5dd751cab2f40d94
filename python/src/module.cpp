// SPDX-License-Identifier: MIT
// gpurent._core: the nanobind module the package python/gpurent/ wraps. Each bind_* lives
// in the file of its part of the library; errors become gpurent.Error (errors.hpp).
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <gpurent/version.hpp>

#include "bind.hpp"
#include "errors.hpp"

namespace nb = nanobind;

namespace gpurent::py {

void register_errors() {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const library_error& e) {
      const error& err = e.err();
      nb::object cls = nb::module_::import_("gpurent._errors").attr("Error");
      nb::object value = cls(e.text(), nb::arg("where") = err.where, nb::arg("field") = err.field, nb::arg("message") = err.message,
                             nb::arg("code") = std::string(to_string(err.code)));
      PyErr_SetObject(cls.ptr(), value.ptr());
    }
  });
}

}  // namespace gpurent::py

NB_MODULE(_core, m) {
  m.doc() = "gpurent's library bound with nanobind; use the package gpurent, which wraps it";
  m.attr("version") = std::string(gpurent::version);
  gpurent::py::register_errors();
  gpurent::py::bind_meter(m);
  gpurent::py::bind_fleet(m);
  gpurent::py::bind_placer(m);
  gpurent::py::bind_spec(m);
  gpurent::py::bind_plan(m);
  gpurent::py::bind_idle(m);
}
