// SPDX-License-Identifier: MIT
#pragma once
// The fleet's jobs file (docs/formats/fleet.md): `name`, `workers` and `num_gpu`
// required, every other column optional with its default (gpu_milli 1000, cpu_milli and
// memory_mib 0, gpu_spec any, per_node 0, required/preferred none, segment 0, exclusive
// none, priority 0, preemptible false, arrival 0, duration none, checkpoint_every 1800).
// Isolation and residency (docs/isolation.md), optional too: `isolation` (none, gpu, node or
// network; default gpu), `tenant` (a name; jobs without one are one anonymous tenant),
// `network_segment` (a segment of the nodes file; only with isolation network, which without
// it lets the placer choose one segment for the whole gang) and `residency` ('|'-separated
// node labels, one of which each node must carry), copied into every member's request.
// Read against the cluster (model names, level names, segments and labels must exist), every
// error at file:line naming the field; written back (fleet generate) column for column.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/trace_csv.hpp>
#include <gpurent/io/text/csv.hpp>
#include <gpurent/io/text/csv_split.hpp>
#include <gpurent/io/text/file.hpp>

namespace gpurent::io {

namespace detail {
// The columns, in the order read_fleet_jobs_csv lists them.
inline constexpr std::size_t job_name = 0, job_workers = 1, job_num_gpu = 2, job_gpu_milli = 3, job_cpu = 4, job_memory = 5, job_gpu_spec = 6,
                             job_per_node = 7, job_required = 8, job_preferred = 9, job_segment = 10, job_exclusive = 11, job_priority = 12,
                             job_preemptible = 13, job_arrival = 14, job_duration = 15, job_checkpoint = 16, job_isolation = 17, job_tenant = 18,
                             job_network_segment = 19, job_residency = 20;
inline constexpr std::int64_t max_job_seconds = std::int64_t{1} << 40;

// A required integer column: an empty field is a missing value.
template <class Int>
[[nodiscard]] expected<Int> job_required_int(std::string_view text, std::string_view field, Int lo, Int hi) {
  if (text.empty()) return make_error(error_code::invalid_argument, std::string(field), "missing value (the column is required)");
  return ::gpurent::detail::parse_trace_int<Int>(text, field, lo, hi);
}

// An optional integer column: its default when the field is empty.
template <class Int>
[[nodiscard]] expected<Int> job_int(std::string_view text, std::string_view field, Int lo, Int hi, Int fallback) {
  if (text.empty()) return fallback;
  return ::gpurent::detail::parse_trace_int<Int>(text, field, lo, hi);
}

// A level name of the cluster's topology, or none when the field is empty.
[[nodiscard]] inline expected<level_index> job_level(std::string_view text, std::string_view field, const cluster_topology& t) {
  if (text.empty()) return no_level;
  if (auto l = t.find_level(text)) return *l;
  std::string levels;
  for (level_index l = 0; l < t.level_count(); ++l) levels += (l == 0 ? "" : ", ") + std::string(t.level_name(l));
  return make_error(
      error_code::unknown_name, std::string(field),
      "the topology has no level \"" + std::string(text) + "\"" + (levels.empty() ? " (no topology given)" : " (levels: " + levels + ")"));
}

// The member's request: GPUs, share, CPU, memory, allowed models.
[[nodiscard]] inline expected<void> read_job_member(std::span<const std::string_view> f, const fleet_cluster& c, placement_request& r) {
  GPURENT_TRY(num, job_required_int<std::int32_t>(f[job_num_gpu], "num_gpu", 0, trace_max_gpus_per_node));
  GPURENT_TRY(milli, job_int<std::int32_t>(f[job_gpu_milli], "gpu_milli", 1, 1000, 1000));
  GPURENT_TRY(cpu, job_int<std::int64_t>(f[job_cpu], "cpu_milli", 0, ::gpurent::detail::trace_max_amount, 0));
  GPURENT_TRY(mem, job_int<std::int64_t>(f[job_memory], "memory_mib", 0, ::gpurent::detail::trace_max_amount, 0));
  if (*num > 1 && *milli != 1000) return make_error(error_code::invalid_argument, "gpu_milli", "a member of several GPUs takes whole GPUs (1000)");
  if (*num == 0 && *milli != 1000)
    return make_error(error_code::invalid_argument, "gpu_milli", "a member without GPUs (num_gpu 0) takes no GPU share");
  r.num_gpu = *num;
  r.gpu_milli = milli_gpu(*num == 0 ? 0 : *milli);
  r.cpu_milli = milli_cpu(*cpu);
  r.memory_mib = mebibytes(*mem);
  GPURENT_TRY(mask, c.inv.models_mask(f[job_gpu_spec]));
  r.allowed_models = *mask;
  return {};
}

// The gang's size and topology rules.
[[nodiscard]] inline expected<void> read_job_rules(std::span<const std::string_view> f, const fleet_cluster& c, gang_request& g) {
  GPURENT_TRY(workers, job_required_int<std::int32_t>(f[job_workers], "workers", 1, 1 << 20));
  GPURENT_TRY(per_node, job_int<std::int32_t>(f[job_per_node], "per_node", 0, 1 << 20, 0));
  GPURENT_TRY(required, job_level(f[job_required], "required", c.topology));
  GPURENT_TRY(preferred, job_level(f[job_preferred], "preferred", c.topology));
  GPURENT_TRY(segment, job_int<std::int32_t>(f[job_segment], "segment", 0, 1 << 20, 0));
  g.workers = *workers;
  g.per_node = *per_node;
  g.required = *required;
  g.preferred = *preferred;
  g.segment = *segment;
  if (g.segment > 0 && g.workers % g.segment != 0)
    return make_error(error_code::invalid_argument, "segment",
                      std::to_string(g.segment) + " does not divide workers (" + std::to_string(g.workers) + ")");
  if (f[job_exclusive] != "" && f[job_exclusive] != "topo")
    return make_error(error_code::invalid_argument, "exclusive", "expected topo or nothing, got \"" + std::string(f[job_exclusive]) + "\"");
  g.exclusive = f[job_exclusive] == "topo";
  return {};
}

// What fleet run schedules by: priority, preemptible, arrival, work, checkpoints.
[[nodiscard]] inline expected<void> read_job_schedule(std::span<const std::string_view> f, fleet_job& j, bool need_duration) {
  GPURENT_TRY(priority, job_int<std::int32_t>(f[job_priority], "priority", -(1 << 30), 1 << 30, 0));
  GPURENT_TRY(arrival, job_int<std::int64_t>(f[job_arrival], "arrival", 0, max_job_seconds, 0));
  GPURENT_TRY(duration, need_duration ? job_required_int<std::int64_t>(f[job_duration], "duration", 0, max_job_seconds)
                                      : job_int<std::int64_t>(f[job_duration], "duration", 0, max_job_seconds, -1));
  GPURENT_TRY(every, job_int<std::int64_t>(f[job_checkpoint], "checkpoint_every", 1, max_job_seconds, 1800));
  const std::string_view p = f[job_preemptible];
  if (p != "" && p != "true" && p != "false")
    return make_error(error_code::invalid_argument, "preemptible", "expected true or false, got \"" + std::string(p) + "\"");
  j.priority = *priority;
  j.preemptible = p == "true";
  j.arrival = fleet_time::at_second(*arrival);
  j.duration = seconds(*duration);
  j.checkpoint_every = seconds(*every);
  return {};
}
// Tenant names as ids, from 1 in order of first appearance (no_tenant: none given).
struct job_tenants {
  std::map<std::string, tenant_id, std::less<>> ids;
  [[nodiscard]] tenant_id of(std::string_view name) {
    if (name.empty()) return no_tenant;
    return ids.try_emplace(std::string(name), static_cast<tenant_id>(ids.size() + 1)).first->second;
  }
};

// The segment of the nodes file named `name`.
[[nodiscard]] inline expected<segment_id> find_network_segment(std::string_view name, const inventory& inv) {
  for (node_index n = 0; n < inv.size(); ++n)
    if (inv.spec(n).segment != no_segment && inv.segment_name(inv.spec(n).segment) == name) return inv.spec(n).segment;
  return make_error(error_code::unknown_name, "network_segment", "no node is in network segment \"" + std::string(name) + "\"");
}

// Isolation, tenant, network segment and residency into the member's request.
[[nodiscard]] inline expected<void> read_job_isolation(std::span<const std::string_view> f, const fleet_cluster& c, job_tenants& tenants,
                                                       fleet_job& j) {
  placement_request& r = j.gang.member;
  if (!f[job_isolation].empty()) {
    GPURENT_TRY(level, parse_enum_field<isolation_level>(f[job_isolation], "isolation"));
    r.isolation = *level;
  }
  j.tenant = std::string(f[job_tenant]);
  r.tenant = tenants.of(j.tenant);
  if (!f[job_network_segment].empty()) {
    if (r.isolation != isolation_level::network)
      return make_error(error_code::invalid_argument, "network_segment", "only with isolation network (the segment is what it keeps to)");
    GPURENT_TRY(segment, find_network_segment(f[job_network_segment], c.inv));
    r.segment = *segment;
  }
  GPURENT_TRY(labels, bar_list(f[job_residency], "residency"));
  for (const std::string_view l : *labels) {
    const auto at = c.labels.find(l);
    if (at == c.labels.end()) return make_error(error_code::unknown_name, "residency", "no node carries the label \"" + std::string(l) + "\"");
    r.residency |= at->second;
  }
  return {};
}
}  // namespace detail

// The columns' names, in the order of the fields read_fleet_job takes (name, workers and
// num_gpu are required; the jobs file may list the columns in any order).
inline constexpr std::array<std::string_view, 21> job_columns{
    "name",     "workers",  "num_gpu",          "gpu_milli", "cpu_milli", "memory_mib",      "gpu_spec",
    "per_node", "required", "preferred",        "segment",   "exclusive", "priority",        "preemptible",
    "arrival",  "duration", "checkpoint_every", "isolation", "tenant",    "network_segment", "residency"};

// Tenant names as ids (read_fleet_job): one set per jobs file, or per C API matcher.
using job_tenants = detail::job_tenants;

// One job from its fields as text, in job_columns' order (an empty field: the column's
// default), against cluster c; tenant names become ids in `tenants`. The jobs file's rows
// and JSON jobs (io/fleet/job_json.hpp) are read here.
[[nodiscard]] inline expected<fleet_job> read_fleet_job(std::span<const std::string_view> fields, const fleet_cluster& c, job_tenants& tenants,
                                                        bool need_duration = false) {
  GPURENT_ASSERT(fields.size() == job_columns.size());
  fleet_job j;
  j.name = std::string(fields[detail::job_name]);
  if (j.name.empty()) return make_error(error_code::invalid_argument, "name", "empty job name");
  GPURENT_TRY(detail::read_job_member(fields, c, j.gang.member));
  GPURENT_TRY(detail::read_job_rules(fields, c, j.gang));
  GPURENT_TRY(detail::read_job_schedule(fields, j, need_duration));
  GPURENT_TRY(detail::read_job_isolation(fields, c, tenants, j));
  return j;
}

// Whether every job must have a duration (fleet run: the column in the header, a value in
// every row), or may have none (fleet pack).
enum class job_durations : std::uint8_t { optional, required };

// The jobs from CSV text, against cluster c; `file` names it in errors.
[[nodiscard]] inline expected<std::vector<fleet_job>> read_fleet_jobs_csv(std::string_view text, std::string_view file, const fleet_cluster& c,
                                                                          job_durations durations = job_durations::optional) {
  const bool need_duration = durations == job_durations::required;
  std::vector<csv_column> columns;
  for (std::size_t i = 0; i < job_columns.size(); ++i) columns.push_back({{job_columns[i]}, i > detail::job_num_gpu});
  columns[detail::job_duration].optional = !need_duration;
  std::vector<fleet_job> out;
  std::set<std::string, std::less<>> names;
  detail::job_tenants tenants;
  auto read = read_csv_table(text, file, columns, "name,workers,num_gpu[,...]",
                             [&](std::span<const std::string_view> v, std::span<const std::string_view>) -> expected<void> {
                               const std::string_view name = v[detail::job_name];
                               if (!name.empty() && names.contains(name))
                                 return make_error(error_code::duplicate, "name", "job \"" + std::string(name) + "\" appears twice");
                               GPURENT_TRY(j, read_fleet_job(v, c, tenants, need_duration));
                               names.insert(j->name);
                               out.push_back(std::move(*j));
                               return {};
                             });
  if (!read) return unexpected(read.error());
  return out;
}

[[nodiscard]] inline expected<std::vector<fleet_job>> read_fleet_jobs_file(const std::string& path, const fleet_cluster& c,
                                                                           job_durations durations = job_durations::optional) {
  GPURENT_TRY(text, read_file(path));
  return read_fleet_jobs_csv(*text, path, c, durations);
}

namespace detail {
// The '|'-separated names of the models in m; empty for any model.
[[nodiscard]] inline std::string job_models_text(model_mask m, const inventory& inv) {
  std::string out;
  for (model_index i = 0; m != any_model && i < inv.model_count(); ++i)
    if ((m >> i & 1U) != 0) out += (out.empty() ? "" : "|") + inv.model(i).name;
  return out;
}

// The '|'-separated names of the node labels in m.
[[nodiscard]] inline std::string job_labels_text(label_mask m, const fleet_cluster& c) {
  std::string out;
  for (const auto& [name, bit] : c.labels)
    if ((m & bit) != 0) out += (out.empty() ? "" : "|") + name;
  return out;
}

// Whether a job has a column of the group off its default (write_fleet_jobs_csv's groups).
[[nodiscard]] inline bool job_timed(const fleet_job& j) {
  return j.arrival != fleet_time{} || j.priority != 0 || j.preemptible || j.checkpoint_every != fleet_job{}.checkpoint_every;
}
[[nodiscard]] inline bool job_isolated(const fleet_job& j) {
  const placement_request& r = j.gang.member;
  return r.isolation != placement_request{}.isolation || !j.tenant.empty() || r.segment != no_segment || r.residency != 0;
}
}  // namespace detail

// The jobs file of a job list: every column the reader reads, in groups. The columns fleet
// generate fills come always; priority, preemptible, arrival and checkpoint_every when some
// job has one off its default (jobs over time); isolation, tenant, network_segment and
// residency when some job has one (docs/isolation.md). Read back, the same jobs.
[[nodiscard]] inline std::string write_fleet_jobs_csv(std::span<const fleet_job> jobs, const fleet_cluster& c) {
  const bool timed = std::any_of(jobs.begin(), jobs.end(), detail::job_timed);
  const bool isolated = std::any_of(jobs.begin(), jobs.end(), detail::job_isolated);
  std::string out = "name,workers,num_gpu,gpu_milli,cpu_milli,memory_mib,gpu_spec,per_node,required,preferred,segment,exclusive,duration";
  out += timed ? ",priority,preemptible,arrival,checkpoint_every" : "";
  out += isolated ? ",isolation,tenant,network_segment,residency\n" : "\n";
  const auto level = [&](level_index l) { return l == no_level ? std::string() : std::string(c.topology.level_name(l)); };
  for (const fleet_job& j : jobs) {
    const placement_request& r = j.gang.member;
    csv_row(out, {j.name, std::to_string(j.gang.workers), std::to_string(r.num_gpu), std::to_string(r.num_gpu == 0 ? 1000 : r.gpu_milli.count()),
                  std::to_string(r.cpu_milli.count()), std::to_string(r.memory_mib.count()), detail::job_models_text(r.allowed_models, c.inv),
                  std::to_string(j.gang.per_node), level(j.gang.required), level(j.gang.preferred), std::to_string(j.gang.segment),
                  j.gang.exclusive ? "topo" : "", j.duration < seconds{0} ? std::string() : std::to_string(j.duration.count())});
    if (timed) {
      out.back() = ',';  // the row goes on
      csv_row(out, {std::to_string(j.priority), j.preemptible ? "true" : "false", std::to_string(j.arrival.count()),
                    std::to_string(j.checkpoint_every.count())});
    }
    if (isolated) {
      out.back() = ',';
      csv_row(out, {to_string(r.isolation), j.tenant, c.inv.segment_name(r.segment), detail::job_labels_text(r.residency, c)});
    }
  }
  return out;
}

}  // namespace gpurent::io
