// SPDX-License-Identifier: MIT
#pragma once
// Waste: what increments and minimums cost the customer (billed versus used seconds per
// line), and idle time from utilization samples (a GPU billed while below X% busy for more
// than Y minutes).

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/invoice.hpp>

namespace gpurent {

struct waste_line {
  std::string account, resource, mode;
  std::int64_t billed_seconds = 0;
  std::int64_t used_seconds = 0;
  std::int64_t waste_seconds = 0;  // billed - used
  ratio<> waste_amount{};          // the exact cost of those seconds
  friend bool operator==(const waste_line&, const waste_line&) = default;
};

// One row per invoice line, in the invoice's order.
[[nodiscard]] inline std::vector<waste_line> waste_report(const invoice& inv) {
  std::vector<waste_line> out;
  for (const auto& a : inv.accounts) {
    for (const auto& l : a.lines) {
      out.push_back({a.account, l.resource, l.mode, l.billed_seconds, l.used_seconds, l.billed_seconds - l.used_seconds, l.waste});
    }
  }
  return out;
}

// Utilization in percent (0..100) from `at` until the next sample.
struct utilization_sample {
  instant at;
  int percent = 0;
};

// The stretches of `window` where utilization stays below `threshold_percent` for longer than
// `min_idle`. Samples may come in any order; before the first sample nothing is known (not
// idle); the last one holds until the window's end.
[[nodiscard]] inline expected<std::vector<interval>> idle_periods(std::vector<utilization_sample> samples, int threshold_percent, seconds min_idle,
                                                                 const interval& window) {
  if (threshold_percent < 0 || threshold_percent > 100) return make_error(error_code::invalid_argument, "threshold", "a percentage is 0..100");
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].percent < 0 || samples[i].percent > 100) {
      return make_error(error_code::invalid_argument, "samples[" + std::to_string(i) + "].percent", "a percentage is 0..100");
    }
  }
  std::ranges::stable_sort(samples, {}, &utilization_sample::at);
  std::vector<interval> out;
  bool idle = false;  // (a bool and an instant rather than an optional: GCC 12 warns falsely on the latter)
  instant idle_from = window.begin();
  auto close = [&](instant t) {
    if (!idle) return;
    const instant b = std::max(idle_from, window.begin()), e = std::min(t, window.end());
    if (b < e && e - b > min_idle) out.push_back(*interval::make(b, e));
    idle = false;
  };
  for (const auto& s : samples) {
    if (s.percent < threshold_percent) {
      if (!idle) {
        idle = true;
        idle_from = s.at;
      }
    } else {
      close(s.at);
    }
  }
  close(window.end());
  return out;
}

// Seconds of `idle` that fall inside `billed` (both sorted or not).
[[nodiscard]] inline seconds idle_billed_seconds(std::span<const interval> idle, std::span<const interval> billed) {
  seconds total{0};
  for (const auto& i : idle) {
    for (const auto& b : billed) {
      if (auto x = i.intersect(b)) total += x->length();
    }
  }
  return total;
}

}  // namespace gpurent
