// SPDX-License-Identifier: MIT
// gpurent_fleet_run_json: a fleet run on a nodes file, a topology and a jobs file, the JSON
// `gpurent fleet run --jobs ... --format json` prints (the same library calls: reading,
// fleet/run/named.hpp's run of the named policies, io/fleet/fleet_run_json.hpp's report).
#include <chrono>
#include <optional>
#include <string>

#include <gpurent/fleet/run/metrics.hpp>
#include <gpurent/fleet/run/named.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/fleet_run_json.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/fleet/topology_json.hpp>
#include <gpurent/io/text/json_locate.hpp>
#include <gpurent/io/text/json_object.hpp>
#include <gpurent/io/text/json_parse.hpp>

#include "api.hpp"

namespace {
using namespace gpurent;

// The options of a run: the tool's option of each name, its default when not given.
struct fleet_options {
  std::string policy = "gpurent";
  std::string victims = "gpurent";
  run_options run;
};

expected<void> read_options_object(const io::json& doc, fleet_options& f) {
  io::json_object o(doc, "");
  GPURENT_TRY(o.check());
  GPURENT_TRY(o.name("policy", f.policy));
  GPURENT_TRY(o.name("victims", f.victims));
  GPURENT_TRY(o.duration("notice", f.run.checkpoints.notice));
  GPURENT_TRY(o.duration("checkpoint_write", f.run.checkpoints.checkpoint_write));
  GPURENT_TRY(o.duration("restart", f.run.checkpoints.restart));
  GPURENT_TRY(o.duration("min_runtime", f.run.min_runtime));
  return o.finish();
}

expected<fleet_options> read_options(const char* text) {
  fleet_options f;
  if (text == nullptr) return f;
  GPURENT_TRY(doc, io::parse_json_text(text, "options_json"));
  if (auto r = read_options_object(*doc, f); !r) return unexpected(io::json_located(r.error(), text, "options_json"));
  return f;
}

expected<std::string> run_json(const char* nodes, const char* topology, const char* jobs_path, const char* options) {
  GPURENT_TRY(f, read_options(options));
  GPURENT_TRY(cluster, io::read_fleet_cluster_file(nodes));
  if (topology != nullptr) GPURENT_TRY(io::read_topology_file(topology, *cluster));
  GPURENT_TRY(jobs, io::read_fleet_jobs_file(jobs_path, *cluster, io::job_durations::required));
  const std::int64_t gpus = cluster->gpus_up();
  const auto t0 = std::chrono::steady_clock::now();
  GPURENT_TRY(r, run_fleet_gangs(*cluster, *jobs, f->policy, f->victims, f->run));
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const run_metrics m = metrics_of(*jobs, *r, gpus);
  const io::run_report rep{f->policy, f->victims, std::nullopt, 0, false, std::nullopt, elapsed};
  return io::run_json(rep, *jobs, *r, m).dump(2) + "\n";
}
}  // namespace

extern "C" GPURENT_C_API int gpurent_fleet_run_json(const char* nodes_path, const char* topology_path, const char* jobs_path,
                                                    const char* options_json, char** out_json, char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (out_json == nullptr) return missing("out_json", out_error);
    *out_json = nullptr;
    if (nodes_path == nullptr) return missing("nodes_path", out_error);
    if (jobs_path == nullptr) return missing("jobs_path", out_error);
    auto text = run_json(nodes_path, topology_path, jobs_path, options_json);
    return text ? give(*text, out_json, out_error) : fail(text.error(), out_error);
  });
}
