// SPDX-License-Identifier: MIT
#pragma once
// A utilization metrics file in either format operators have (a Prometheus query_range answer,
// JSON; or DCGM exporter text exposition), told apart by its first character, and every GPU
// in it analysed under idle_rules (metering/waste.hpp). What `gpurent idle --metrics` reads.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/io/monitor/dcgm_text.hpp>
#include <gpurent/io/monitor/gpu_metrics.hpp>
#include <gpurent/io/monitor/prometheus_json.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/metering/waste.hpp>

namespace gpurent::io {

// Adds the samples of `metric` in `text` (JSON when its first non-blank character is '{',
// exposition text otherwise; a UTF-8 byte-order mark before it is skipped, as every reader
// does) to `out`. A file without one sample of the metric is an error: it is the wrong file or
// the wrong --metric, never "nothing was idle".
[[nodiscard]] inline expected<void> read_utilization_text(std::string_view text, std::string_view file, std::string_view metric,
                                                          gpu_utilization_set& out) {
  text = without_bom(text);  // on line 1: no line number moves
  const auto first = text.find_first_not_of(" \t\r\n");
  const bool is_json = first != std::string_view::npos && text[first] == '{';
  gpu_utilization_set mine;
  GPURENT_TRY(taken, is_json ? read_query_range_json(text, file, metric, mine) : read_exposition_text(text, file, metric, mine));
  if (*taken == 0 || mine.empty()) {
    return unexpected(error{error_code::invalid_argument, "--metric",
                            "no " + std::string(metric) + " samples in this " + (is_json ? "query_range answer" : "exposition text") +
                                " (another metric's file? choose the series with --metric)",
                            std::string(file)});
  }
  for (gpu_utilization& g : mine.take())
    for (const utilization_sample& s : g.samples) out.add(g.gpu, s);
  return {};
}

[[nodiscard]] inline expected<void> read_utilization_file(const std::string& path, std::string_view metric, gpu_utilization_set& out) {
  GPURENT_TRY(text, read_file(path));
  return read_utilization_text(*text, path, metric, out);
}

// The window that holds every sample and what it can hold: from the first sample to the last
// plus max_gap. Null when there is no sample.
[[nodiscard]] inline std::optional<interval> samples_window(std::span<const gpu_utilization> gpus, seconds max_gap) {
  std::optional<instant> lo, hi;
  for (const gpu_utilization& g : gpus) {
    if (g.samples.empty()) continue;
    lo = lo ? std::min(*lo, g.samples.front().at) : g.samples.front().at;
    hi = hi ? std::max(*hi, g.samples.back().at) : g.samples.back().at;
  }
  if (!lo) return std::nullopt;
  // It ends by the last second of 9999 at the latest: an end in 10000 cannot be written (a
  // sample in that last second then holds for none).
  const seconds hold = std::min(max_gap, seconds{86'400 * 366});
  return *interval::make(*lo, *hi >= latest_instant - hold ? latest_instant : *hi + hold);
}

// Every GPU's report under `rules`, within `window` (default: samples_window).
[[nodiscard]] inline expected<gpu_reports> analyze_gpus(std::vector<gpu_utilization> gpus, const idle_rules& rules,
                                                        std::optional<interval> window = std::nullopt) {
  if (!window) window = samples_window(gpus, rules.max_gap);
  gpu_reports out;
  if (!window) return out;
  for (gpu_utilization& g : gpus) {
    auto r = analyze_utilization(std::move(g.samples), rules, *window);
    if (!r) return unexpected(r.error().in_field(g.gpu + "." + r.error().field));
    out.emplace(std::move(g.gpu), std::move(*r));
  }
  return out;
}

}  // namespace gpurent::io
