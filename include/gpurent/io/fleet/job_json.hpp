// SPDX-License-Identifier: MIT
#pragma once
// One job as a JSON object (the C API's matcher requests, docs/c.md): its members are the
// jobs file's columns (io/fleet/jobs_csv.hpp), each a string, an integer or true/false, read
// by that file's rules (read_fleet_job); `name` and `num_gpu` are required, `workers` is 1
// when not given, a member that is no column is an error.
//
//   {"name": "train-1", "num_gpu": 4, "gpu_spec": "H100-SXM5-80GB", "priority": 10}
//
// Every error names the member and the line of `source` it is on.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include <gpurent/core/error.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/text/json_locate.hpp>
#include <gpurent/io/text/json_object.hpp>
#include <gpurent/io/text/json_parse.hpp>

namespace gpurent::io {

namespace detail {
// A member's value as the text a jobs file would hold in its column (empty: not given).
[[nodiscard]] inline expected<void> job_json_field(json_object& o, std::string_view key, std::string& out) {
  const json* v = o.find(key);
  if (v == nullptr) return {};
  if (v->is_string()) {
    out = v->get<std::string>();
    // "\u0000" reads, but no C string could name the job again (gpurent_matcher_release).
    if (out.find('\0') != std::string::npos) return o.fail(key, "a NUL character (\\u0000) in a string");
  } else if (v->is_number_integer()) {
    out = v->dump();
  } else if (v->is_boolean()) {
    out = v->get<bool>() ? "true" : "false";
  } else {
    return o.fail(key, std::string("expected a string, an integer, true or false, got ") + v->type_name());
  }
  return {};
}

// The columns' texts of the object, `workers` 1 unless given.
[[nodiscard]] inline expected<std::array<std::string, job_columns.size()>> job_json_texts(const json& doc) {
  json_object o(doc, "");
  GPURENT_TRY(o.check());
  std::array<std::string, job_columns.size()> texts;
  for (std::size_t i = 0; i < job_columns.size(); ++i) GPURENT_TRY(job_json_field(o, job_columns[i], texts[i]));
  GPURENT_TRY(o.finish());  // a misspelt member first: it is often the missing one
  for (const std::string_view key : {"name", "num_gpu"})
    if (!o.has(key)) return o.fail(key, "missing required field");
  if (texts[job_workers].empty()) texts[job_workers] = "1";
  return texts;
}
}  // namespace detail

// One job from JSON text against cluster c (tenant names become ids in `tenants`); `source`
// names the text in errors.
[[nodiscard]] inline expected<fleet_job> parse_job_json(std::string_view text, std::string_view source, const fleet_cluster& c,
                                                        job_tenants& tenants) {
  GPURENT_TRY(doc, parse_json_text(text, source));
  auto texts = detail::job_json_texts(*doc);
  if (!texts) return unexpected(json_located(texts.error(), text, source));
  std::array<std::string_view, job_columns.size()> fields;
  for (std::size_t i = 0; i < fields.size(); ++i) fields[i] = (*texts)[i];
  auto j = read_fleet_job(fields, c, tenants);
  if (!j) return unexpected(json_located(j.error(), text, source));
  return j;
}

}  // namespace gpurent::io
