// SPDX-License-Identifier: MIT
#pragma once
// Reads a workload document (docs/planning.md):
//   {"period": "2026-11", "timezone": "UTC", "account": "acme", "budget": "25000.00", "jobs": [{...}, ...]}
// then validates it (planning/workload.hpp). Errors name the JSON path ("jobs[2].gpu_share")
// and the file.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/io/text/json_reader.hpp>
#include <gpurent/planning/workload.hpp>

namespace gpurent {

namespace detail::workload_json {
using io::json;
using io::json_object;

// "model": what a training job moves (planning/throughput.hpp).
[[nodiscard]] inline expected<void> read_model(json_object& r, job& x) {
  const json* m = r.find("model");
  if (m == nullptr) return {};
  json_object mr(*m, r.field("model"));
  GPURENT_TRY(mr.check());
  decimal<3> billions{};
  decimal<6> read{}, step{}, overlap{};
  GPURENT_TRY(mr.dec("parameters_b", billions, true));
  GPURENT_TRY(mr.integer("state_bytes_per_parameter", x.model.state_bytes_per_parameter, 1, 64));
  GPURENT_TRY(mr.integer("gradient_bytes_per_parameter", x.model.gradient_bytes_per_parameter, 1, 16));
  GPURENT_TRY(mr.integer("dataset_gib", x.model.dataset_gib, 0, std::int64_t{1} << 40));
  GPURENT_TRY(mr.dec("read_mb_per_s_per_gpu", read));
  GPURENT_TRY(mr.dec("step_seconds", step));
  GPURENT_TRY(mr.dec("overlap", overlap));
  GPURENT_TRY(mr.finish());
  if (billions.sign() <= 0 || billions > decimal<3>(1'000'000)) return mr.fail("parameters_b", "must be in (0, 1000000] billions");
  x.model.parameters = billions.raw().convert_to<std::int64_t>() * 1'000'000;
  const auto real = [](const decimal<6>& d) { return static_cast<double>(d.raw().convert_to<std::int64_t>()) / 1e6; };
  x.model.read_mb_per_s_per_gpu = real(read);
  x.model.step_seconds = real(step);
  x.model.overlap = real(overlap);
  return {};
}

// The fields of one kind of job.
[[nodiscard]] inline expected<void> read_kind_fields(json_object& r, job& x) {
  switch (x.kind) {
    case job_kind::training: {
      GPURENT_TRY(r.dec("gpu_hours", x.gpu_hours, true));
      GPURENT_TRY(r.integer("max_gpus", x.max_gpus, 1, 1 << 20));
      seconds ck{0};
      if (r.has("checkpoint")) {
        GPURENT_TRY(r.duration("checkpoint", ck));
        x.checkpoint = ck;
      }
      GPURENT_TRY(r.duration("restart", x.restart));
      return read_model(r, x);
    }
    case job_kind::service:
      GPURENT_TRY(r.duration("duration", x.duration, true));
      GPURENT_TRY(r.integer("replicas", x.replicas, 1, 1 << 20));
      GPURENT_TRY(r.dec("gpu_share", x.gpu_share, true));
      return r.boolean("latency_sensitive", x.latency_sensitive);
    case job_kind::experiments:
      GPURENT_TRY(r.integer("runs", x.runs, 1, 1 << 20, true));
      GPURENT_TRY(r.duration("run_duration", x.run_duration, true));
      GPURENT_TRY(r.duration("restart", x.restart));  // on spot: what an interrupted run costs besides the run
      return r.integer("gpus_per_run", x.gpus_per_run, 1, 1024);
  }
  return {};
}

// "constraints": {"gpus": [...], "regions": [...], "zones": [...], "jurisdictions": [...],
//                 "providers": [...], "spot": bool, "reserved": bool}
[[nodiscard]] inline expected<void> read_constraints(json_object& r, job& x) {
  const json* c = r.find("constraints");
  if (c == nullptr) return {};
  json_object cr(*c, r.field("constraints"));
  GPURENT_TRY(cr.check());
  GPURENT_TRY(cr.strings("gpus", x.constraints.gpus));
  GPURENT_TRY(cr.strings("regions", x.constraints.regions));
  GPURENT_TRY(cr.strings("zones", x.constraints.zones));
  GPURENT_TRY(cr.strings("jurisdictions", x.constraints.jurisdictions));
  GPURENT_TRY(cr.strings("providers", x.constraints.providers));
  if (cr.has("spot")) {
    bool spot = false;
    GPURENT_TRY(cr.boolean("spot", spot));
    x.constraints.spot = spot;
  }
  GPURENT_TRY(cr.boolean("reserved", x.constraints.reserved));
  return cr.finish();
}

// "max_hourly_cost": {"on_demand": decimal, "spot": decimal}: the most the job's whole
// allocation may cost per hour, by mode (planning/caps.hpp).
[[nodiscard]] inline expected<void> read_caps(json_object& r, job& x) {
  const json* c = r.find("max_hourly_cost");
  if (c == nullptr) return {};
  json_object cr(*c, r.field("max_hourly_cost"));
  GPURENT_TRY(cr.check());
  for (const auto& [key, out] : {std::pair{"on_demand", &x.max_hourly_cost.on_demand}, {"spot", &x.max_hourly_cost.spot}}) {
    if (!cr.has(key)) continue;
    decimal<9> cap{};
    GPURENT_TRY(cr.dec(key, cap));
    *out = cap;
  }
  GPURENT_TRY(cr.finish());
  if (!x.max_hourly_cost.any()) return r.fail("max_hourly_cost", "give \"on_demand\", \"spot\" or both");
  return {};
}

[[nodiscard]] inline expected<job> read_job(const json& j, const std::string& path) {
  json_object r(j, path);
  GPURENT_TRY(r.check());
  job x;
  GPURENT_TRY(r.string("name", x.name, true));
  GPURENT_TRY(r.enumeration("kind", x.kind, true));
  GPURENT_TRY(r.string("account", x.account));
  GPURENT_TRY(r.duration("start", x.start));
  GPURENT_TRY(r.string("reference_gpu", x.reference_gpu));
  GPURENT_TRY(r.integer("memory_gib", x.memory_gib, 0, std::int64_t{1} << 30));
  if (r.has("deadline")) {
    seconds deadline{0};
    GPURENT_TRY(r.duration("deadline", deadline));
    x.deadline = deadline;
  }
  GPURENT_TRY(r.duration("start_slack", x.start_slack));
  GPURENT_TRY(r.enumeration("isolation", x.isolation));
  if (r.has("max_spot_price")) {
    decimal<9> max{};
    GPURENT_TRY(r.dec("max_spot_price", max));
    x.max_spot_price = max;
  }
  GPURENT_TRY(read_caps(r, x));
  GPURENT_TRY(read_kind_fields(r, x));
  GPURENT_TRY(read_constraints(r, x));
  GPURENT_TRY(r.finish());
  return x;
}

// The document's workload, validated.
[[nodiscard]] inline expected<workload> read_workload(const json& j) {
  json_object r(j, "");
  GPURENT_TRY(r.check());
  workload w;
  GPURENT_TRY(r.string("period", w.period));
  GPURENT_TRY(r.string("timezone", w.timezone));
  GPURENT_TRY(r.string("account", w.account));
  if (r.has("budget")) {
    decimal<9> budget{};
    GPURENT_TRY(r.dec("budget", budget));
    w.budget = budget;
  }
  GPURENT_TRY(list, r.array("jobs", true));
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    GPURENT_TRY(x, read_job((**list)[i], io::json_item("jobs", i)));
    w.jobs.push_back(std::move(*x));
  }
  GPURENT_TRY(r.finish());
  GPURENT_TRY(validate(w));
  return w;
}

}  // namespace detail::workload_json

// A workload from JSON text, validated; `file` names it in errors ("file:line", the line of
// the field an error names).
[[nodiscard]] inline expected<workload> read_workload_json(std::string_view text, std::string_view file = {}) {
  GPURENT_TRY(j, io::parse_json_text(text, file));
  auto w = detail::workload_json::read_workload(*j);
  if (!w && !file.empty()) return unexpected(io::json_located(std::move(w.error()), text, file));
  return w;
}

// The same from a file; errors carry the file name in `where`.
[[nodiscard]] inline expected<workload> read_workload_file(const std::string& path) {
  GPURENT_TRY(text, io::read_file(path));
  auto w = read_workload_json(*text, path);
  if (!w && w.error().where.empty()) return unexpected<error>(error{w.error().code, w.error().field, w.error().message, path});
  return w;
}

}  // namespace gpurent
