// SPDX-License-Identifier: MIT
#pragma once
// A Prometheus HTTP API range-query answer (GET /api/v1/query_range), read and written.
// The format (https://prometheus.io/docs/prometheus/latest/querying/api/#range-queries,
// "Range vectors are returned as result type matrix"):
//
//   { "status": "success",
//     "data": { "resultType": "matrix",
//               "result": [ { "metric": { "__name__": "DCGM_FI_DEV_GPU_UTIL", "UUID": "GPU-...", ... },
//                             "values": [ [ 1762128000, "87" ], [ 1762128060, "3" ], ... ] } ] } }
//
// Each series of the metric asked for (or without a __name__: an expression's answer) is one
// GPU (gpu_series_name); each value is in the metric's unit (utilization_unit), a DCGM blank
// no sample. Errors name the file, the line and the JSON path ("data.result[2].values[17][1]").
// Members Prometheus may add (warnings, infos, stats) are ignored: the format is Prometheus',
// not ours. `gpurent probe --watch` writes this format.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/monitor/gpu_metrics.hpp>
#include <gpurent/io/text/json_reader.hpp>

namespace gpurent::io {

namespace detail {

// A series' "metric" object as labels, every value a string.
[[nodiscard]] inline expected<metric_labels> read_metric_labels(const json& m, const std::string& path) {
  if (!m.is_object()) return json_fail(path, std::string("expected an object, got ") + m.type_name());
  metric_labels out;
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it.value().is_string()) return json_fail(path + "." + it.key(), std::string("expected a string, got ") + it.value().type_name());
    out.emplace_back(it.key(), it.value().get<std::string>());
  }
  return out;
}

// One [ time, "value" ] pair of a series of `metric`, read in `unit`; nothing for a DCGM blank.
[[nodiscard]] inline expected<std::optional<utilization_sample>> read_matrix_value(const json& v, const std::string& path, std::string_view metric,
                                                                                   const metric_unit& unit) {
  if (!v.is_array() || v.size() != 2) return json_fail(path, "expected [ time, \"value\" ], got " + v.dump());
  if (!v[0].is_number()) return json_fail(json_item(path, 0), std::string("expected a number of seconds, got ") + v[0].type_name());
  if (!v[1].is_string()) return json_fail(json_item(path, 1), std::string("expected a string such as \"87\", got ") + v[1].type_name());
  auto at = parse_epoch(v[0].dump());
  if (!at) return unexpected<error>(at.error().in_field(json_item(path, 0)));
  auto busy = read_utilization_value(v[1].get<std::string>(), metric, unit);
  if (!busy) return unexpected<error>(busy.error().in_field(json_item(path, 1)));
  if (!*busy) return std::nullopt;
  return utilization_sample{*at, **busy};
}

// The samples of one series (the object at `path`) to `out`; whether it was one of `metric`.
[[nodiscard]] inline expected<bool> read_matrix_series(const json& j, const std::string& path, std::string_view metric, const metric_unit& unit,
                                                       gpu_utilization_set& out) {
  json_object series(j, path);
  GPURENT_TRY(series.check());
  const json* m = series.find("metric");
  if (m == nullptr) return series.fail("metric", "missing required field");
  GPURENT_TRY(labels, read_metric_labels(*m, series.field("metric")));
  if (!is_metric(*labels, metric)) return false;
  const std::string gpu = gpu_series_name(*labels);
  if (gpu.empty()) return series.fail("metric", "names no GPU (needs a UUID label, or Hostname and gpu)");
  GPURENT_TRY(values, series.array("values", true));
  for (std::size_t k = 0; k < (*values)->size(); ++k) {
    GPURENT_TRY(s, read_matrix_value((**values)[k], json_item(series.field("values"), k), metric, unit));
    if (*s) out.add(gpu, **s);
  }
  return true;
}

// The envelope: status success, resultType matrix; the result array.
[[nodiscard]] inline expected<const json*> matrix_result(const json& doc) {
  json_object top(doc, "");
  GPURENT_TRY(top.check());
  std::string status;
  GPURENT_TRY(top.string("status", status, true));
  if (status != "success") {
    std::string type, why;
    (void)top.string("errorType", type);
    (void)top.string("error", why);
    return top.fail("status", "the query failed (" + status + (type.empty() ? "" : ", " + type) + (why.empty() ? "" : ": " + why) + ")");
  }
  const json* data = top.find("data");
  if (data == nullptr) return top.fail("data", "missing required field");
  json_object d(*data, "data");
  GPURENT_TRY(d.check());
  std::string type;
  GPURENT_TRY(d.string("resultType", type, true));
  if (type != "matrix") return d.fail("resultType", "expected \"matrix\" (the answer of /api/v1/query_range), got \"" + type + "\"");
  GPURENT_TRY(result, d.array("result", true));
  return *result;
}

}  // namespace detail

// Adds the samples of every series of `metric` in a query_range answer to `out`; returns how
// many series it took. `file` names the text in errors, which carry the line of the value
// their JSON path names (json_located).
[[nodiscard]] inline expected<std::size_t> read_query_range_json(std::string_view text, std::string_view file, std::string_view metric,
                                                                 gpu_utilization_set& out) {
  GPURENT_TRY(unit, utilization_unit(metric));
  GPURENT_TRY(doc, parse_json_text(text, file));
  const auto located = [&](error e) { return unexpected<error>(json_located(std::move(e), text, file)); };
  auto result = detail::matrix_result(*doc);
  if (!result) return located(std::move(result.error()));
  std::size_t taken = 0;
  for (std::size_t i = 0; i < (*result)->size(); ++i) {
    auto took = detail::read_matrix_series((**result)[i], json_item("data.result", i), metric, *unit, out);
    if (!took) return located(std::move(took.error()));
    if (*took) ++taken;
  }
  return taken;
}

// One series to write: its labels (__name__ first, by convention) and its values as text.
struct metric_series {
  metric_labels labels;
  std::vector<std::pair<instant, std::string>> values;
};

// A query_range answer holding `series`, compact as Prometheus answers; times as whole
// seconds. Reads back with read_query_range_json.
[[nodiscard]] inline std::string write_query_range_json(const std::vector<metric_series>& series) {
  nlohmann::ordered_json result = nlohmann::ordered_json::array();
  for (const metric_series& s : series) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [k, v] : s.labels) m[k] = v;
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (const auto& [at, v] : s.values) values.push_back({at.time_since_epoch().count(), v});
    result.push_back({{"metric", std::move(m)}, {"values", std::move(values)}});
  }
  nlohmann::ordered_json doc;
  doc["status"] = "success";
  doc["data"] = {{"resultType", "matrix"}, {"result", std::move(result)}};
  return doc.dump() + "\n";
}

}  // namespace gpurent::io
