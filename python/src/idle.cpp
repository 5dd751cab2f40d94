// SPDX-License-Identifier: MIT
// gpurent.idle: `gpurent idle` as the library call the tool makes (io/monitor/idle_run.hpp),
// its report written by the tool's writers; and the samples it was made of, read by the
// library's metrics readers, as NumPy arrays (one per column, no Python object per sample)
// for the heat map of gpurent.report.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <gpurent/io/monitor/idle_run.hpp>

#include "bind.hpp"
#include "errors.hpp"

namespace nb = nanobind;

namespace gpurent::py {
namespace {

// Every sample of every GPU as columns: the GPU (its place in `gpus`, in name order), the
// instant (UNIX seconds) and the value (percent; a ratio field's times 100).
struct sample_columns {
  std::vector<std::string> gpus;
  std::vector<std::int32_t> gpu;
  std::vector<std::int64_t> t;
  std::vector<double> value;

  explicit sample_columns(const std::vector<io::gpu_utilization>& by_gpu) {
    for (const io::gpu_utilization& g : by_gpu) {
      const auto index = static_cast<std::int32_t>(gpus.size());
      gpus.push_back(g.gpu);
      for (const utilization_sample& s : g.samples) {
        gpu.push_back(index);
        t.push_back(s.at.time_since_epoch().count());
        value.push_back(static_cast<double>(s.busy.count()) / 1000.0);
      }
    }
  }
};

// A column handed to NumPy: the array owns the vector it views.
template <class T>
nb::ndarray<nb::numpy, const T, nb::ndim<1>> column(std::vector<T>& v) {
  auto* owned = new std::vector<T>(std::move(v));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, const T, nb::ndim<1>>(owned->data(), {owned->size()}, owner);
}

nb::dict columns_of(sample_columns c) {
  nb::dict out;
  out["gpus"] = c.gpus;
  out["gpu"] = column(c.gpu);
  out["t"] = column(c.t);
  out["value"] = column(c.value);
  return out;
}

// The value of r, or its error raised as the Python call names it: the argument `metric`,
// where the library's readers name the tool's option --metric.
template <class T>
T python_named(expected<T>&& r) {
  if (r) return std::move(*r);
  error e = std::move(r.error());
  if (e.field == "--metric") e.field = "metric";
  for (auto at = e.message.find("--metric"); at != std::string::npos; at = e.message.find("--metric", at))
    e.message.replace(at, 8, "the metric argument");
  throw library_error(std::move(e));
}

// A finished analysis: the report and the samples it was made of.
struct py_idle {
  io::idle_report report;
  std::optional<sample_columns> samples;
};

std::unique_ptr<py_idle> idle(const std::vector<std::string>& metrics, const std::string& metric, const idle_rules& rules,
                              const std::optional<io::idle_billing_inputs>& billing) {
  auto out = std::make_unique<py_idle>();
  nb::gil_scoped_release unlocked;
  auto gpus = python_named(io::read_utilization_files(metrics, metric));
  out->samples.emplace(gpus);
  out->report = python_named(io::build_idle_report(std::move(gpus), metric, rules, billing));
  return out;
}

}  // namespace

void bind_idle(nb::module_& m) {
  nb::class_<py_idle>(m, "IdleReport", "An idle analysis: the library's report, written by the tool's writers")
      .def(
          "to_json", [](const py_idle& r) { return value_or_throw(io::write_idle_json(r.report)); }, "The bytes of `gpurent idle --format json`.")
      .def(
          "to_csv", [](const py_idle& r) { return io::write_idle_csv(r.report); }, "The bytes of `gpurent idle --format csv`.")
      .def(
          "to_table", [](const py_idle& r) { return io::write_idle_table(r.report); }, "The bytes of `gpurent idle --format table`.")
      .def_prop_ro(
          "warnings", [](const py_idle& r) { return r.report.warnings; }, "What the analysis assumed or let pass.")
      .def(
          "samples", [](py_idle& r) { return columns_of(std::exchange(r.samples, std::nullopt).value()); },
          "The samples as columns (gpus, gpu, t, value); handed over once.");
  m.def(
      "idle",
      [](const std::vector<std::string>& metrics, const std::string& metric, const std::string& threshold, const std::string& min_idle,
         const std::string& max_gap, std::optional<std::string> usage, std::optional<std::string> tariff, std::optional<std::string> period,
         bool allow_unmatched) {
        std::optional<io::idle_billing_inputs> billing;
        if (usage && tariff && period) billing = io::idle_billing_inputs{*usage, *tariff, *period, allow_unmatched, "allow_unmatched=True"};
        return idle(metrics, metric, value_or_throw(io::parse_idle_rules(threshold, min_idle, max_gap)), billing);
      },
      nb::arg("metrics"), nb::arg("metric"), nb::arg("threshold"), nb::arg("min_idle"), nb::arg("max_gap"), nb::arg("usage").none(),
      nb::arg("tariff").none(), nb::arg("period").none(), nb::arg("allow_unmatched"),
      "`gpurent idle` on utilization files; billed when usage, tariff and period are all given.");
  m.def(
      "read_utilization",
      [](const std::vector<std::string>& paths, const std::string& metric) {
        std::vector<io::gpu_utilization> gpus;
        {
          nb::gil_scoped_release unlocked;
          gpus = python_named(io::read_utilization_files(paths, metric));
        }
        return columns_of(sample_columns(gpus));
      },
      nb::arg("paths"), nb::arg("metric"), "The samples of `metric` in utilization files, as columns (gpus, gpu, t, value).");
}

}  // namespace gpurent::py
