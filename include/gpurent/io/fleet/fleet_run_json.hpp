// SPDX-License-Identifier: MIT
#pragma once
// `fleet run` results as the tool prints them (docs/formats/fleet.md): the run's JSON object
// and table, the --placements, --timeline, --jobs-out and --preemptions CSVs, and the
// progress line. A library user who
// runs a fleet (fleet/run/run.hpp) gets the same text from the same result.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/fleet/fleet.hpp>  // run.hpp alone misses the observers pack.hpp brings in
#include <gpurent/io/text/csv.hpp>
#include <gpurent/io/text/json_number.hpp>
#include <gpurent/matching/preempt/victims.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent::io {

// What a run report says beside the result and its metrics: how the run was asked for.
struct run_report {
  std::string policy, victims;
  std::optional<std::int64_t> compress;   // --pods: arrivals compressed K-fold
  std::size_t never_scheduled = 0;        // trace pods the trace itself never scheduled
  bool node_events = false;               // failures are reported only with node events
  std::optional<std::size_t> violations;  // with the placement check
  double elapsed_s = 0;
};

[[nodiscard]] inline nlohmann::ordered_json class_json(const class_metrics& c, bool spot) {
  using ojson = nlohmann::ordered_json;
  ojson o;
  o["arrived"] = c.arrived;
  o["completed"] = c.completed;
  o["never_started"] = c.never_started;
  o["delay_s"] = ojson{{"mean", rounded(c.delay.mean)}, {"p50", c.delay.p50.count()}, {"p95", c.delay.p95.count()}, {"p99", c.delay.p99.count()}};
  if (spot) {
    o["evictions"] = c.evictions;
    o["lost_gpu_s"] = rounded(c.lost_gpu_s);
  }
  return o;
}

// Each job that never started (or could not start again): its name, class and why it could
// never fit.
[[nodiscard]] inline nlohmann::ordered_json never_started_json(std::span<const fleet_job> jobs, std::span<const run_never_started> list) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const run_never_started& n : list)
    out.push_back({{"job", jobs[n.job].name}, {"class", jobs[n.job].preemptible ? "spot" : "hp"}, {"why", n.why}});
  return out;
}

[[nodiscard]] inline nlohmann::ordered_json run_json(const run_report& a, std::span<const fleet_job> jobs, const run_result& r,
                                                     const run_metrics& m) {
  using ojson = nlohmann::ordered_json;
  ojson o;
  o["policy"] = a.policy;
  o["victims"] = a.victims;
  o["compress"] = a.compress ? ojson(*a.compress) : ojson(nullptr);
  o["gpus_total"] = m.gpus_total;
  o["offered_load_pct"] = rounded(m.offered_load_pct);
  o["allocation_pct"] = rounded(m.allocation_pct);
  o["classes"] = ojson{{"hp", class_json(m.hp, false)}, {"spot", class_json(m.spot, true)}};
  o["never_scheduled"] = a.never_scheduled;
  o["never_started_jobs"] = never_started_json(jobs, r.never_started);
  if (a.node_events) o["unfinished_jobs"] = never_started_json(jobs, r.unfinished);
  o["jobs"] = jobs.size();
  o["preemptions"] = r.preemptions;
  if (a.node_events) o["failures"] = r.failures;
  if (a.violations) o["violations"] = *a.violations;
  o["gpu_s"] = rounded(m.gpu_s);
  o["end_s"] = r.end_time.count();
  o["elapsed_s"] = rounded(a.elapsed_s, 10000.0);
  return o;
}

[[nodiscard]] inline std::string run_table(const run_report& a, const run_result& r, const run_metrics& m) {
  std::string s = fmt::format("policy {}  victims {}  GPUs {}  offered load {:.1f}%  allocation {:.1f}%\n", a.policy, a.victims, m.gpus_total,
                              m.offered_load_pct, m.allocation_pct);
  s += fmt::format("{:<5} {:>8} {:>10} {:>14} {:>10} {:>8} {:>8} {:>8} {:>10} {:>14}\n", "class", "arrived", "completed", "never_started",
                   "delay_mean", "p50", "p95", "p99", "evictions", "lost_gpu_h");
  for (const auto& [name, c] : {std::pair{"hp", &m.hp}, std::pair{"spot", &m.spot}})
    s += fmt::format("{:<5} {:>8} {:>10} {:>14} {:>10.1f} {:>8} {:>8} {:>8} {:>10} {:>14.1f}\n", name, c->arrived, c->completed, c->never_started,
                     c->delay.mean, c->delay.p50.count(), c->delay.p95.count(), c->delay.p99.count(), c->evictions, c->lost_gpu_s / 3600.0);
  s += fmt::format("preemptions {}  GPU-hours {:.1f}  ends at {} s  elapsed {:.3f} s\n", r.preemptions, m.gpu_s / 3600.0, r.end_time.count(),
                   a.elapsed_s);
  if (a.violations) s += fmt::format("violations {}\n", *a.violations);
  return s;
}

// One row per member per run segment, in start order (ties: decision order).
[[nodiscard]] inline std::string run_placements_csv(const fleet_cluster& c, std::span<const fleet_job> jobs, const run_result& r) {
  std::vector<std::uint32_t> order(r.segments.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return r.segments[x].start < r.segments[y].start; });
  std::string out = "job,run,member,node,gpus,start,end,end_reason\n";
  for (const std::uint32_t i : order) {
    const run_segment& s = r.segments[i];
    const char* reason = s.failed ? "failed" : s.preempted ? "preempted" : "done";
    for (std::uint32_t m = 0; m < s.count; ++m) {
      const placement& p = r.members[s.first + m];
      csv_row(out, {jobs[s.job].name, std::to_string(s.run), std::to_string(m), c.inv.spec(p.node).name, gpu_list_text(p),
                    std::to_string(s.start.count()), std::to_string(s.end.count()), reason});
    }
  }
  return out;
}

// The allocation time series, one row every `step`, against the GPUs up; `time` is the
// instant (RFC 3339, UTC) epoch + t_s. An error instead of a wrong file: in the field
// "timeline_step" when the run needs more than timeline_row_limit rows (it names the step to
// take), in "epoch" when a row's time would pass the year 9999.
[[nodiscard]] inline expected<std::string> run_timeline_csv(const fleet_cluster& c, std::span<const fleet_job> jobs, const run_result& r,
                                                            seconds step, instant epoch) {
  if (const std::int64_t rows = timeline_rows(r.end_time, step); rows > timeline_row_limit)
    return make_error(error_code::invalid_argument, "timeline_step",
                      fmt::format("the run ends at {} s: {} s steps give {} rows, over the limit of {}; take a step of at least {} s",
                                  r.end_time.count(), step.count(), rows, timeline_row_limit, timeline_min_step(r.end_time).count()));
  if (epoch + r.end_time.since_zero() > latest_instant)
    return make_error(error_code::invalid_argument, "epoch",
                      fmt::format("the run ends {} s after {}, past the year 9999 that the timeline's RFC 3339 times can write", r.end_time.count(),
                                  format_instant(epoch)));
  const std::int64_t capacity = c.gpus_up() * 1000;
  std::string out = "time,t_s,gpus_allocated,allocation_pct,running_hp,running_spot,waiting_hp,waiting_spot\n";
  for (const timeline_sample& s : timeline_of(jobs, r, step)) {
    const double pct = capacity > 0 ? 100.0 * static_cast<double>(s.gpu_milli) / static_cast<double>(capacity) : 0.0;
    out += fmt::format("{},{},{},{:.3f},{},{},{},{}\n", format_instant(epoch + s.time.since_zero()), s.time.count(), milli_text(s.gpu_milli), pct,
                       s.running_hp, s.running_spot, s.waiting_hp, s.waiting_spot);
  }
  return out;
}

// One row per job, in input order (docs/formats/fleet.md, "Per-job results"): arrival,
// first start, delay, the end of its last run, its runs, evictions, lost GPU-seconds, the
// outcome and, for a job that never started, why (explain_never_started's text).
[[nodiscard]] inline std::string run_jobs_csv(std::span<const fleet_job> jobs, const run_result& r) {
  std::vector<fleet_time> end(jobs.size(), not_started);
  std::vector<std::uint32_t> runs(jobs.size(), 0);
  for (const run_segment& s : r.segments) {
    end[s.job] = std::max(end[s.job], s.end);
    runs[s.job] = std::max(runs[s.job], s.run + 1);
  }
  std::vector<const std::string*> why(jobs.size(), nullptr);
  for (const run_never_started& n : r.never_started) why[n.job] = &n.why;
  std::string out = "job,class,arrival,first_start,delay_s,end,runs,evictions,lost_gpu_s,outcome,reason\n";
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const bool started = r.first_start[j] != not_started;
    const char* outcome = r.completed[j] != 0 ? "completed" : started ? "unfinished" : "never_started";
    const auto time_or_empty = [&](fleet_time t) { return started ? std::to_string(t.count()) : std::string(); };
    csv_row(out,
            {jobs[j].name, jobs[j].preemptible ? "spot" : "hp", std::to_string(jobs[j].arrival.count()), time_or_empty(r.first_start[j]),
             started ? std::to_string((r.first_start[j] - jobs[j].arrival).count()) : std::string(), time_or_empty(end[j]), std::to_string(runs[j]),
             std::to_string(r.evictions[j]), milli_text(r.lost_milli_s[j]), outcome, why[j] != nullptr ? *why[j] : std::string()});
  }
  return out;
}

// The progress line of a run `elapsed_s` seconds in: the simulated time, the jobs arrived,
// completed and queued, and the time left, estimated from the share of arrivals and
// completions done (each job arrives once and completes once).
[[nodiscard]] inline std::string run_progress_text(const run_progress& p, double elapsed_s) {
  const double total = static_cast<double>(std::max<std::size_t>(1, p.total));
  const double done = static_cast<double>(p.arrived + p.completed) / (2.0 * total);
  std::string left = "time left unknown";
  if (done > 0) left = fmt::format("about {} left", format_duration(seconds(std::llround(elapsed_s * (1.0 - done) / done))));
  return fmt::format("fleet run: t = {} ({} s), arrived {}/{} ({:.1f}%), completed {} ({:.1f}%), queued {}, {}", format_duration(p.now.since_zero()),
                     p.now.count(), p.arrived, p.total, 100.0 * static_cast<double>(p.arrived) / total, p.completed,
                     100.0 * static_cast<double>(p.completed) / total, p.queued, left);
}

// One row per preemption decision: who preempted whom, and why those victims.
[[nodiscard]] inline std::string run_preemptions_csv(std::span<const fleet_job> jobs, const run_result& r) {
  const auto name = [&](std::uint32_t j) -> const std::string& { return jobs[j].name; };
  std::string out = "time,job,victims,explanation\n";
  for (const run_preemption& p : r.preemption_log) {
    const std::span<const victim> chosen(r.victims.data() + p.first, p.count), other(r.victims.data() + p.other_first, p.other_count);
    std::string names;
    for (const victim& v : chosen) names += (names.empty() ? "" : ";") + name(v.job);
    csv_row(out, {std::to_string(p.time.count()), name(p.job), names, explain_victims(chosen, other, name)});
  }
  return out;
}

}  // namespace gpurent::io
