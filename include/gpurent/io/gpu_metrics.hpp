// SPDX-License-Identifier: MIT
#pragma once
// What the two metrics readers share (prometheus_json.hpp: a Prometheus HTTP API
// query_range answer; dcgm_text.hpp: the DCGM exporter's text exposition): a series' labels,
// which GPU a series is (its UUID label, else Hostname:gpu; a MIG instance adds
// "/GPU_I_ID"), a utilization value as exact thousandths of a percent, and the samples of
// every GPU gathered across files. See docs/monitoring.md.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/waste.hpp>

namespace gpurent::io {

// The series gpurent idle reads unless told otherwise: the DCGM exporter's GPU utilization
// (percent of time a kernel ran, as NVML's utilization.gpu).
inline constexpr std::string_view default_utilization_metric = "DCGM_FI_DEV_GPU_UTIL";

// A series' labels as written, __name__ included.
using metric_labels = std::vector<std::pair<std::string, std::string>>;

[[nodiscard]] inline std::string_view label_value(const metric_labels& labels, std::string_view name) noexcept {
  for (const auto& [k, v] : labels)
    if (k == name) return v;
  return {};
}

// Which GPU a series is: the UUID label; else "Hostname:gpu"; a series of one MIG instance
// (a GPU_I_ID label) adds "/GPU_I_ID". Empty when the labels name no GPU.
[[nodiscard]] inline std::string gpu_series_name(const metric_labels& labels) {
  std::string name(label_value(labels, "UUID"));
  if (name.empty()) {
    const auto host = label_value(labels, "Hostname"), index = label_value(labels, "gpu");
    if (host.empty() || index.empty()) return {};
    name = std::string(host) + ":" + std::string(index);
  }
  if (const auto gi = label_value(labels, "GPU_I_ID"); !gi.empty()) name += "/" + std::string(gi);
  return name;
}

// Whether a series is the metric asked for: its __name__ is that metric, or it has no name
// (the answer to an expression such as avg_over_time(DCGM_FI_DEV_GPU_UTIL[5m])).
[[nodiscard]] inline bool is_metric(const metric_labels& labels, std::string_view metric) noexcept {
  const auto name = label_value(labels, "__name__");
  return name.empty() || name == metric;
}

namespace detail {

// A decimal number as written ("87", "3.5", "1e2", "+0.25") split into its digits and the
// power of ten they are scaled by; false when it is no such number (NaN, Inf, junk).
struct decimal_text {
  bool negative = false;
  std::string digits;      // no leading zeros; empty for zero
  std::int64_t exp10 = 0;  // value = digits x 10^exp10
};
[[nodiscard]] inline bool split_decimal(std::string_view s, decimal_text& out) {
  out = {};
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) out.negative = s[i++] == '-';
  std::size_t int_digits = 0, frac_digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++int_digits) out.digits += s[i];
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++frac_digits) out.digits += s[i];
  if (int_digits + frac_digits == 0) return false;
  std::int64_t e = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    const bool neg = i < s.size() && s[i] == '-';
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const std::size_t from = i;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) e = std::min<std::int64_t>(e * 10 + (s[i] - '0'), 1'000'000);
    if (i == from) return false;
    if (neg) e = -e;
  }
  if (i != s.size()) return false;
  out.digits.erase(0, std::min(out.digits.find_first_not_of('0'), out.digits.size()));
  out.exp10 = e - static_cast<std::int64_t>(frac_digits);
  return true;
}

}  // namespace detail

// A percentage as written ("87", "4.999", "1e2") in thousandths of a percent, rounded down:
// below a threshold of at most three decimals exactly when the value itself is. `exact`
// (for a threshold given by a person) refuses digits beyond the third decimal instead.
[[nodiscard]] inline expected<milli_percent> parse_percent(std::string_view s, bool exact = false) {
  const auto bad = [&](std::string why) {
    return make_error(error_code::parse_error, {}, "not a percentage: \"" + std::string(s) + "\" (" + why + ")");
  };
  detail::decimal_text d;
  if (!detail::split_decimal(s, d)) return bad("expected a number from 0 to 100");
  if (d.digits.empty()) return milli_percent(0);
  if (d.negative) return bad("below 0");
  std::int64_t shift = d.exp10 + 3;  // to thousandths
  std::string digits = d.digits;
  if (shift < 0) {
    const auto drop = static_cast<std::size_t>(std::min<std::int64_t>(-shift, static_cast<std::int64_t>(digits.size())));
    if (exact && digits.find_first_not_of('0', digits.size() - drop) != std::string::npos) return bad("at most three decimals");
    digits.resize(digits.size() - drop);
    shift = 0;
  }
  if (static_cast<std::int64_t>(digits.size()) + shift > 6) return bad("above 100");
  std::int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  for (std::int64_t k = 0; k < shift; ++k) v *= 10;
  if (v > fully_busy.count()) return bad("above 100");
  return milli_percent(static_cast<std::int32_t>(v));
}

// A time in seconds since the epoch as written ("1762128000", "1762128000.781"), rounded down
// to the whole second (instants are whole seconds); `per_second` 1000 reads milliseconds.
[[nodiscard]] inline expected<instant> parse_epoch(std::string_view s, std::int64_t per_second = 1) {
  detail::decimal_text d;
  if (!detail::split_decimal(s, d)) return make_error(error_code::parse_error, {}, "not a timestamp: \"" + std::string(s) + "\"");
  std::string digits = d.digits;
  std::int64_t shift = d.exp10;
  bool dropped = false;  // a fraction of a second was cut (floor moves a negative time down)
  if (shift < 0) {
    const auto drop = static_cast<std::size_t>(std::min<std::int64_t>(-shift, static_cast<std::int64_t>(digits.size())));
    dropped = digits.find_first_not_of('0', digits.size() - drop) != std::string::npos;
    digits.resize(digits.size() - drop);
    shift = 0;
  }
  if (static_cast<std::int64_t>(digits.size()) + shift > 15)
    return make_error(error_code::parse_error, {}, "timestamp out of range: \"" + std::string(s) + "\"");
  std::int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  for (std::int64_t k = 0; k < shift; ++k) v *= 10;
  if (d.negative) v = -v - (dropped ? 1 : 0);
  const std::int64_t secs = v >= 0 ? v / per_second : -((-v + per_second - 1) / per_second);
  return instant(seconds(secs));
}

// A percentage as a JSON number: 5, or 2.5 (Json: nlohmann::json or nlohmann::ordered_json).
template <class Json>
[[nodiscard]] Json percent_json(milli_percent p) {
  if (p.count() % 1000 == 0) return Json(p.count() / 1000);
  return Json(static_cast<double>(p.count()) / 1000.0);
}

// One GPU's utilization samples, gathered from every series and file that names it.
struct gpu_utilization {
  std::string gpu;
  std::vector<utilization_sample> samples;  // by time; one per instant
  friend bool operator==(const gpu_utilization&, const gpu_utilization&) = default;
};

// Gathers samples by GPU across series and files. Two samples of one GPU at one instant
// (two series, e.g. before and after a pod label changed, or overlapping files) keep the
// busier value: idle time is never claimed on a guess.
class gpu_utilization_set {
 public:
  void add(const std::string& gpu, utilization_sample s) { by_gpu_[gpu].push_back(s); }
  [[nodiscard]] bool empty() const noexcept { return by_gpu_.empty(); }

  // Every GPU, by name, its samples sorted and one per instant.
  [[nodiscard]] std::vector<gpu_utilization> take() {
    std::vector<gpu_utilization> out;
    for (auto& [gpu, samples] : by_gpu_) {
      std::ranges::stable_sort(samples, {}, &utilization_sample::at);
      std::vector<utilization_sample> one;
      for (const utilization_sample& s : samples) {
        if (!one.empty() && one.back().at == s.at)
          one.back().busy = std::max(one.back().busy, s.busy);
        else
          one.push_back(s);
      }
      out.push_back({gpu, std::move(one)});
    }
    by_gpu_.clear();
    return out;
  }

 private:
  std::map<std::string, std::vector<utilization_sample>> by_gpu_;
};

}  // namespace gpurent::io
