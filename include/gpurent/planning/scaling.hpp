// SPDX-License-Identifier: MIT
#pragma once
// Scaling rules and idle detection. Scale out when the queue backlog per node or the mean
// utilization is above its threshold; scale in when utilization is below its threshold, but
// release only nodes that are idle or whose job has checkpointed since its last progress
// (so no work is lost). Idle periods from utilization samples: `idle_periods` in
// metering/waste.hpp, included here.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/waste.hpp>

namespace gpurent {

struct scaling_policy {
  std::int64_t backlog_per_node_out = 4;  // queued jobs per node above which to add nodes
  double utilization_out = 0.85;          // mean utilization above which to add a node
  double utilization_in = 0.30;           // mean utilization below which to remove nodes
  std::int32_t min_nodes = 0;
  std::int32_t max_nodes = 64;

  // Thresholds that can all be met: utilizations in [0, 1] with in below out, a positive
  // backlog, 0 <= min_nodes <= max_nodes.
  [[nodiscard]] expected<void> check() const {
    const auto bad = [](const char* field, const char* why) { return make_error(error_code::invalid_argument, field, why); };
    if (backlog_per_node_out <= 0) return bad("backlog_per_node_out", "must be positive");
    if (!(utilization_out >= 0 && utilization_out <= 1)) return bad("utilization_out", "must be in [0, 1]");
    if (!(utilization_in >= 0 && utilization_in <= 1)) return bad("utilization_in", "must be in [0, 1]");
    if (utilization_in >= utilization_out) return bad("utilization_in", "must be below the scale-out threshold");
    if (min_nodes < 0) return bad("min_nodes", "must not be negative");
    if (max_nodes < min_nodes) return bad("max_nodes", "must not be below min_nodes");
    return {};
  }
};

struct node_status {
  std::string id;
  double utilization = 0;     // 0..1 over the last window
  bool busy = false;          // a job runs on it
  instant last_checkpoint{};  // of its job
  instant last_progress{};    // last work done by its job after that checkpoint, if any
  [[nodiscard]] bool safe_to_release() const noexcept { return !busy || last_checkpoint >= last_progress; }
};

enum class scaling_action : std::uint8_t { hold, scale_out, scale_in };
template <>
struct enum_names<scaling_action> {
  static constexpr enum_entry<scaling_action> entries[] = {
      {scaling_action::hold, "hold"}, {scaling_action::scale_out, "scale_out"}, {scaling_action::scale_in, "scale_in"}};
};

struct scaling_decision {
  scaling_action action = scaling_action::hold;
  std::int32_t add = 0;              // nodes to add
  std::vector<std::string> release;  // nodes to release now (idle or checkpointed)
  std::vector<std::string> waiting;  // would be released, waiting for a checkpoint
  std::string reason;
  double mean_utilization = 0;  // of the nodes given (0 when none)
};

[[nodiscard]] inline scaling_decision decide_scaling(const scaling_policy& p, std::int64_t queued_jobs, std::span<const node_status> nodes) {
  scaling_decision d;
  const auto n = static_cast<std::int32_t>(nodes.size());
  double mean = 0;
  for (const node_status& s : nodes) mean += s.utilization;
  if (n > 0) mean /= n;
  d.mean_utilization = mean;
  if (n < p.min_nodes) {
    d.action = scaling_action::scale_out;
    d.add = p.min_nodes - n;
    d.reason = "below the minimum node count";
    return d;
  }
  const std::int64_t backlog_target = std::max<std::int64_t>(1, p.backlog_per_node_out);
  const bool backlog = queued_jobs > backlog_target * std::max(1, n), busy = n > 0 && mean > p.utilization_out;
  const std::string pressure = backlog ? "queue backlog above threshold" : "utilization above threshold";
  if (n < p.max_nodes && (backlog || busy)) {
    d.action = scaling_action::scale_out;
    // Enough nodes to bring the backlog per node under the threshold, at least one.
    const std::int64_t need = (queued_jobs + backlog_target - 1) / backlog_target;
    d.add = static_cast<std::int32_t>(std::clamp<std::int64_t>(need - n, 1, p.max_nodes - n));
    d.reason = pressure;
    return d;
  }
  if (queued_jobs == 0 && n > p.min_nodes && mean < p.utilization_in) {
    // Least utilized first; never below the minimum.
    std::vector<const node_status*> order;
    for (const node_status& s : nodes) order.push_back(&s);
    std::ranges::stable_sort(order, [](const node_status* a, const node_status* b) { return a->utilization < b->utilization; });
    std::int32_t removable = n - p.min_nodes;
    for (const node_status* s : order) {
      if (removable == 0) break;
      if (s->utilization >= p.utilization_in) continue;
      if (s->safe_to_release()) {
        d.release.push_back(s->id);
        --removable;
      } else {
        d.waiting.push_back(s->id);
      }
    }
    d.action = d.release.empty() ? scaling_action::hold : scaling_action::scale_in;
    d.reason = d.release.empty() ? "utilization low, waiting for checkpoints" : "utilization below threshold";
    return d;
  }
  d.reason = backlog || busy ? pressure + ", but at the maximum node count" : "within thresholds";
  return d;
}

}  // namespace gpurent
