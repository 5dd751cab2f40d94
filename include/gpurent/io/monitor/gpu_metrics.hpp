// SPDX-License-Identifier: MIT
#pragma once
// What the two metrics readers share (prometheus_json.hpp: a Prometheus HTTP API
// query_range answer; dcgm_text.hpp: the DCGM exporter's text exposition): a series' labels,
// which GPU a series is (its UUID label, else Hostname:gpu; a MIG instance adds
// "/GPU_I_ID"), the unit of each DCGM utilization field, a value as exact thousandths of a
// percent (DCGM's blanks told apart), a timestamp, and the samples of every GPU gathered
// across files. See docs/monitoring.md.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
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

// ---- units ----------------------------------------------------------------------------------

// How a utilization field's values are written: a percentage (0 to 100) or a ratio (0 to 1);
// `none` for a field that is no utilization at all (memory in MiB, power in W, ...).
enum class utilization_scale : std::uint8_t { percent, ratio, none };

// A DCGM field as the DCGM exporter names its series, and its unit.
struct dcgm_field_unit {
  std::string_view field;
  utilization_scale scale;
  std::string_view unit;  // for a person: "percent", "ratio", "MiB", ...
};

// The fields gpurent knows (NVIDIA DCGM dcgmlib/dcgm_fields.h: "GPU Utilization", "Ratio of
// cycles ...", and NVIDIA/dcgm-exporter etc/default-counters.csv for the units of the others).
// The DCGM_FI_PROF_* activity fields are ratios 0..1 (the exporter's HELP text says "(in %)",
// but the values are ratios); the DCGM_FI_DEV_*_UTIL fields are percentages 0..100.
inline constexpr dcgm_field_unit dcgm_field_units[] = {
    {"DCGM_FI_DEV_GPU_UTIL", utilization_scale::percent, "percent"},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", utilization_scale::percent, "percent"},
    {"DCGM_FI_DEV_ENC_UTIL", utilization_scale::percent, "percent"},
    {"DCGM_FI_DEV_DEC_UTIL", utilization_scale::percent, "percent"},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_SM_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_SM_OCCUPANCY", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_DRAM_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_PIPE_FP64_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_PIPE_FP32_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_PIPE_FP16_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_PIPE_INT_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVDEC0_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVDEC1_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVDEC2_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVDEC3_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVDEC4_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVDEC5_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVDEC6_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVDEC7_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVJPG0_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVJPG1_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVJPG2_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVJPG3_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVJPG4_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVJPG5_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVJPG6_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVJPG7_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_PROF_NVOFA0_ACTIVE", utilization_scale::ratio, "ratio"},
    {"DCGM_FI_DEV_FB_USED", utilization_scale::none, "MiB"},
    {"DCGM_FI_DEV_FB_FREE", utilization_scale::none, "MiB"},
    {"DCGM_FI_DEV_POWER_USAGE", utilization_scale::none, "W"},
    {"DCGM_FI_DEV_GPU_TEMP", utilization_scale::none, "degrees C"},
    {"DCGM_FI_DEV_MEMORY_TEMP", utilization_scale::none, "degrees C"},
    {"DCGM_FI_DEV_SM_CLOCK", utilization_scale::none, "MHz"},
    {"DCGM_FI_DEV_MEM_CLOCK", utilization_scale::none, "MHz"},
    {"DCGM_FI_DEV_FAN_SPEED", utilization_scale::none, "percent of the fan's speed"},
    {"DCGM_FI_PROF_PCIE_TX_BYTES", utilization_scale::none, "bytes per second"},
    {"DCGM_FI_PROF_PCIE_RX_BYTES", utilization_scale::none, "bytes per second"},
    {"DCGM_FI_PROF_NVLINK_TX_BYTES", utilization_scale::none, "bytes per second"},
    {"DCGM_FI_PROF_NVLINK_RX_BYTES", utilization_scale::none, "bytes per second"},
};

// How a metric's values are read.
struct metric_unit {
  utilization_scale scale = utilization_scale::percent;
  bool assumed = false;  // the metric is not in dcgm_field_units: read as a percentage, and said so
  // "percent", "ratio", "percent (assumed)".
  [[nodiscard]] std::string text() const {
    return std::string(scale == utilization_scale::ratio ? "ratio" : "percent") + (assumed ? " (assumed)" : "");
  }
  friend bool operator==(const metric_unit&, const metric_unit&) = default;
};

// The unit of `metric` (dcgm_field_units); an error naming --metric when the field is no
// utilization, since its values read as a percentage would be a wrong answer.
[[nodiscard]] inline expected<metric_unit> utilization_unit(std::string_view metric) {
  for (const dcgm_field_unit& f : dcgm_field_units) {
    if (f.field != metric) continue;
    if (f.scale == utilization_scale::none)
      return make_error(error_code::invalid_argument, "--metric",
                        std::string(metric) + " is in " + std::string(f.unit) + ", not a utilization (a percentage or a ratio)");
    return metric_unit{f.scale, false};
  }
  return metric_unit{utilization_scale::percent, true};
}

// ---- values -----------------------------------------------------------------------------------

namespace detail {
// The decimal `d` times 10^scale as an integer, rounded down, into `out`; the reason when it
// is negative, above `max` (written `top` in the reason; also when only digits cut bring it
// down to `max`), or has nonzero digits cut while `exact`; empty when it fits.
[[nodiscard]] inline std::string scaled_integer(decimal_text d, std::int64_t scale, std::int64_t max, std::string_view top, bool exact,
                                                std::int64_t& out) {
  out = 0;
  if (d.digits.empty()) return {};
  if (d.negative) return "below 0";
  std::int64_t shift = d.exp10 + scale;
  bool cut = false;  // nonzero digits rounded down
  if (shift < 0) {
    const auto drop = static_cast<std::size_t>(std::min<std::int64_t>(-shift, static_cast<std::int64_t>(d.digits.size())));
    cut = d.digits.find_first_not_of('0', d.digits.size() - drop) != std::string::npos;
    if (exact && cut) return "at most " + std::to_string(scale) + " decimals";
    d.digits.resize(d.digits.size() - drop);
    shift = 0;
  }
  const std::string above = "above " + std::string(top);
  if (static_cast<std::int64_t>(d.digits.size()) + shift > static_cast<std::int64_t>(std::to_string(max).size())) return above;
  for (char c : d.digits) out = out * 10 + (c - '0');
  for (std::int64_t k = 0; k < shift; ++k) out *= 10;
  return out > max || (out == max && cut) ? above : std::string();  // 100.0001 is above 100, not 100
}
}  // namespace detail

// A utilization as written in `scale` ("87" percent, "0.87" ratio, "1e2", "4.999") in
// thousandths of a percent, rounded down: below a threshold of at most three decimals of a
// percent exactly when the value itself is. `exact` (for a threshold given by a person)
// refuses digits that would be cut instead.
[[nodiscard]] inline expected<milli_percent> parse_utilization(std::string_view s, utilization_scale scale, bool exact = false) {
  const bool ratio = scale == utilization_scale::ratio;
  const std::string_view top = ratio ? "1" : "100";
  const auto bad = [&](const std::string& why) {
    return make_error(error_code::parse_error, {},
                      std::string(ratio ? "not a ratio" : "not a percentage") + ": \"" + std::string(s) + "\" (" + why + ")");
  };
  detail::decimal_text d;
  if (!detail::split_decimal(s, d)) return bad("expected a number from 0 to " + std::string(top));
  std::int64_t v = 0;
  if (std::string why = detail::scaled_integer(std::move(d), ratio ? 5 : 3, fully_busy.count(), top, exact, v); !why.empty()) return bad(why);
  return milli_percent(static_cast<std::int32_t>(v));
}

// A percentage as written ("87", "4.999", "1e2"): parse_utilization in percent.
[[nodiscard]] inline expected<milli_percent> parse_percent(std::string_view s, bool exact = false) {
  return parse_utilization(s, utilization_scale::percent, exact);
}

// Whether a value as written is one of DCGM's "blanks" (the field has no value; NVIDIA DCGM
// dcgmlib/dcgm_structs.h): each type's base and the 15 codes above it (not found, not
// supported, ...), written as an integer: DCGM_INT32_BLANK 0x7ffffff0 .. 0x7fffffff,
// DCGM_FP64_BLANK 2^47 = 140737488355328 .. +15, DCGM_INT64_BLANK 0x7ffffffffffffff0 ..
// 0x7fffffffffffffff. Nothing else is: 1e400, 2^63, NaN are no blanks but bad values.
[[nodiscard]] inline bool is_dcgm_blank(std::string_view v) {
  detail::decimal_text d;
  if (!detail::split_decimal(v, d) || d.negative || d.digits.empty()) return false;
  if (d.exp10 < 0) {  // "2147483632.0": only zeros may follow the point
    const auto frac = static_cast<std::size_t>(-d.exp10);
    if (frac > d.digits.size() || d.digits.find_first_not_of('0', d.digits.size() - frac) != std::string::npos) return false;
    d.digits.resize(d.digits.size() - frac);
  } else if (d.exp10 > 19) {
    return false;
  }
  const std::string whole = d.digits + std::string(static_cast<std::size_t>(std::max<std::int64_t>(d.exp10, 0)), '0');
  constexpr std::pair<std::string_view, std::string_view> ranges[] = {
      {"2147483632", "2147483647"}, {"140737488355328", "140737488355343"}, {"9223372036854775792", "9223372036854775807"}};
  for (const auto& [lo, hi] : ranges)
    if (whole.size() == lo.size() && whole >= lo && whole <= hi) return true;
  return false;
}

// A sample's value of `metric` read in `unit`: nothing for a DCGM blank, an error naming the
// metric for anything that is no value of the unit (NaN, infinities, out of range).
[[nodiscard]] inline expected<std::optional<milli_percent>> read_utilization_value(std::string_view v, std::string_view metric,
                                                                                   const metric_unit& unit) {
  if (is_dcgm_blank(v)) return std::nullopt;
  auto busy = parse_utilization(v, unit.scale);
  if (!busy) return make_error(busy.error().code, {}, std::string(metric) + (unit.assumed ? " (unit assumed)" : "") + ": " + busy.error().message);
  return *busy;
}

// A time in seconds since the epoch as written ("1762128000", "1762128000.781"), rounded down
// to the whole second (instants are whole seconds); `per_second` 1000 reads milliseconds. An
// instant outside earliest_instant..latest_instant (the years 0000-9999, core/time.hpp) is an
// error: no report could write it.
[[nodiscard]] inline expected<instant> parse_epoch(std::string_view s, std::int64_t per_second = 1) {
  detail::decimal_text d;
  if (!detail::split_decimal(s, d)) return make_error(error_code::parse_error, {}, "not a timestamp: \"" + std::string(s) + "\"");
  const auto outside = [&] { return make_error(error_code::parse_error, {}, "timestamp \"" + std::string(s) + "\" is outside the years 0000-9999"); };
  std::string digits = d.digits;
  std::int64_t shift = d.exp10;
  bool dropped = false;  // a fraction of a second was cut (floor moves a negative time down)
  if (shift < 0) {
    const auto drop = static_cast<std::size_t>(std::min<std::int64_t>(-shift, static_cast<std::int64_t>(digits.size())));
    dropped = digits.find_first_not_of('0', digits.size() - drop) != std::string::npos;
    digits.resize(digits.size() - drop);
    shift = 0;
  }
  if (static_cast<std::int64_t>(digits.size()) + shift > 15) return outside();  // beyond the years in seconds or milliseconds
  std::int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  for (std::int64_t k = 0; k < shift; ++k) v *= 10;
  if (d.negative) v = -v - (dropped ? 1 : 0);
  const instant t{seconds(v >= 0 ? v / per_second : -((-v + per_second - 1) / per_second))};
  if (t < earliest_instant || t > latest_instant) return outside();
  return t;
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
