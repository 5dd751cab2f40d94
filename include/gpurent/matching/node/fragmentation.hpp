// SPDX-License-Identifier: MIT
#pragma once
// The FGD paper's fragmentation measure (Weng et al., USENIX ATC 2023): a node's expected
// fragmentation F_n(M) against the workload's frequent task shapes M.
//
// M: the most frequent shapes (cpu_milli, gpu_milli, num_gpu, allowed models), taken in
// decreasing frequency until they cover `coverage` of the tasks, weights renormalised.
// F_n(m): all idle milli of n if m is CPU-only, n's model is not allowed, n lacks m's CPU,
// or n lacks m.num_gpu GPUs with m.gpu_milli idle; otherwise the idle milli of the GPUs
// whose idle share is below m.gpu_milli. Memory plays no part.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/matching/request.hpp>

namespace gpurent {

struct task_shape {
  milli_cpu cpu_milli{0};
  std::int32_t num_gpu = 0;
  std::int32_t gpu_milli = 0;
  model_mask allowed = any_model;
  friend constexpr bool operator==(const task_shape&, const task_shape&) = default;
};

[[nodiscard]] constexpr task_shape shape_of(const placement_request& r) noexcept {
  return task_shape{r.cpu_milli, r.num_gpu, r.gpu_milli.count(), r.allowed_models};
}

struct weighted_shape {
  task_shape shape;
  double weight = 0;  // p_m, renormalised over M
};

// The frequent-shape distribution M of a task list.
struct shape_distribution {
  std::vector<weighted_shape> shapes;

  [[nodiscard]] static shape_distribution of(std::span<const placement_request> tasks, double coverage = 0.95) {
    struct counted {
      task_shape s;
      std::size_t n;
      std::size_t first;
    };
    std::vector<counted> c;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const task_shape s = shape_of(tasks[i]);
      auto it = std::find_if(c.begin(), c.end(), [&](const counted& x) { return x.s == s; });
      if (it == c.end()) {
        c.push_back({s, 1, i});
      } else {
        ++it->n;
      }
    }
    // Decreasing frequency; first appearance breaks ties so the cut is deterministic.
    std::sort(c.begin(), c.end(), [](const counted& a, const counted& b) { return a.n != b.n ? a.n > b.n : a.first < b.first; });
    shape_distribution d;
    std::size_t covered = 0;
    const double need = coverage * static_cast<double>(tasks.size());
    for (const counted& x : c) {
      if (static_cast<double>(covered) >= need) break;
      d.shapes.push_back({x.s, static_cast<double>(x.n)});
      covered += x.n;
    }
    for (auto& w : d.shapes) w.weight /= static_cast<double>(covered);
    return d;
  }
};

// F_n(M) for a node whose GPUs have `idle` milli idle (count GPUs), `cpu_free` CPU, model
// bit `model_bit`. Plain loops over at most 16 GPUs per shape; no allocation.
[[nodiscard]] inline double node_fragmentation(std::span<const weighted_shape> m, const std::int32_t* idle, std::size_t count, milli_cpu cpu_free,
                                               model_mask model_bit) noexcept {
  std::int32_t total = 0;
  for (std::size_t g = 0; g < count; ++g) total += idle[g];
  if (total == 0) return 0.0;
  double f = 0.0;
  for (const weighted_shape& w : m) {
    const task_shape& s = w.shape;
    std::int32_t frag = total;
    if (s.num_gpu > 0 && (s.allowed & model_bit) != 0 && cpu_free >= s.cpu_milli) {
      std::int32_t fits = 0;
      std::int32_t below = 0;
      for (std::size_t g = 0; g < count; ++g) {
        if (idle[g] >= s.gpu_milli) {
          ++fits;
        } else {
          below += idle[g];
        }
      }
      if (fits >= s.num_gpu) frag = below;
    }
    f += w.weight * static_cast<double>(frag);
  }
  return f;
}

}  // namespace gpurent
