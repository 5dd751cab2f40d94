// SPDX-License-Identifier: MIT
#pragma once
// Waste: what increments and minimums cost the customer (billed versus used seconds per
// line), and idle time from utilization samples (a GPU billed while below X% busy for more
// than Y minutes): when each GPU was observed, when it was idle, and what the idle parts of
// the usage billed on it cost under the tariff (rated by the meter, as `gpurent meter` rates:
// the usage as billed less the usage with its idle time taken out).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/usage.hpp>

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

// ---- utilization ------------------------------------------------------------------------------

struct utilization_tag {};
// How busy a GPU is, in thousandths of a percent (100% = 100 000): exact for the whole
// percents NVML and the DCGM exporter report and for three decimals of a Prometheus expression.
using milli_percent = detail::quantity<utilization_tag, std::int32_t>;
[[nodiscard]] constexpr milli_percent percent(std::int32_t whole) noexcept { return milli_percent(whole * 1000); }
inline constexpr milli_percent fully_busy = percent(100);
// "87", "2.5", "4.999": a percentage as a decimal without trailing zeros.
[[nodiscard]] inline std::string format_percent(milli_percent p) {
  std::string s = std::to_string(p.count() / 1000);
  if (const auto frac = p.count() % 1000; frac != 0) {
    std::string f = std::to_string(1000 + frac).substr(1);
    f.erase(f.find_last_not_of('0') + 1);
    s += "." + f;
  }
  return s;
}

// Utilization from `at` until the next sample (idle_rules say how long at most).
struct utilization_sample {
  instant at{};
  milli_percent busy{};
  constexpr utilization_sample() = default;
  constexpr utilization_sample(instant t, milli_percent u) noexcept : at(t), busy(u) {}
  // A whole percent, as NVML and the DCGM exporter report it.
  constexpr utilization_sample(instant t, int whole_percent) noexcept : at(t), busy(percent(whole_percent)) {}
  friend constexpr bool operator==(const utilization_sample&, const utilization_sample&) = default;
};

// How samples become observed and idle time.
struct idle_rules {
  milli_percent threshold = percent(5);  // idle while the value in force is below this
  seconds min_idle{1800};                // idle stretches of at most this are dropped
  seconds max_gap{300};                  // a sample holds until the next one, but at most this
  // How long the last sample holds (at most max_gap). Unset: the series' scrape interval, the
  // median gap between its samples, so a day scraped every minute observes 24 h, not 24 h 5 min.
  std::optional<seconds> last_hold;

  [[nodiscard]] expected<void> check() const {
    if (threshold < milli_percent(0) || threshold > fully_busy)
      return make_error(error_code::invalid_argument, "threshold", "a percentage is 0..100");
    if (min_idle < seconds{0}) return make_error(error_code::invalid_argument, "min_idle", "must not be negative");
    if (max_gap <= seconds{0}) return make_error(error_code::invalid_argument, "max_gap", "must be positive");
    if (last_hold && *last_hold < seconds{0}) return make_error(error_code::invalid_argument, "last_hold", "must not be negative");
    return {};
  }
};

// One series of samples (one GPU) under idle_rules, within a window.
struct utilization_report {
  std::vector<interval> observed;  // when a sample was in force: sorted, disjoint, not touching
  std::vector<interval> idle;      // idle periods longer than min_idle: sorted, disjoint
  seconds scrape_interval{0};      // the median gap between distinct sample times (0: fewer than two)

  [[nodiscard]] seconds observed_seconds() const noexcept { return total(observed); }
  [[nodiscard]] seconds idle_seconds() const noexcept { return total(idle); }
  [[nodiscard]] static seconds total(std::span<const interval> s) noexcept {
    seconds t{0};
    for (const interval& i : s) t += i.length();
    return t;
  }
  friend bool operator==(const utilization_report&, const utilization_report&) = default;
};

namespace detail {

// The median of the positive gaps between sorted sample times (the lower middle of an even
// count, so the answer is one of the gaps); 0 with fewer than two distinct times.
[[nodiscard]] inline seconds median_gap(std::span<const utilization_sample> sorted) {
  std::vector<seconds> gaps;
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].at > sorted[i - 1].at) gaps.push_back(sorted[i].at - sorted[i - 1].at);
  if (gaps.empty()) return seconds{0};
  const auto mid = gaps.begin() + static_cast<std::ptrdiff_t>((gaps.size() - 1) / 2);
  std::ranges::nth_element(gaps, mid);
  return *mid;
}

// `at + d`, but never past `cap` (and without overflow for d = seconds::max()).
[[nodiscard]] constexpr instant hold_until(instant at, seconds d, instant cap) noexcept { return (at >= cap || d >= cap - at) ? cap : at + d; }

// Appends [b, e) to sorted `set`, joining it to the last interval when they touch.
inline void append_joined(std::vector<interval>& set, instant b, instant e) {
  if (!set.empty() && set.back().end() == b)
    set.back() = *interval::make(set.back().begin(), e);
  else
    set.push_back(*interval::make(b, e));
}

}  // namespace detail

// When `samples` (any order) were in force inside `window` and when their GPU was idle.
// A sample holds from its time until the next sample, but at most rules.max_gap; beyond
// that the GPU is not observed, which is never idle. An idle period is a run of samples
// below the threshold with no unobserved time inside, clipped to the window, kept when
// longer than rules.min_idle. Samples at one instant: the last given is in force.
[[nodiscard]] inline expected<utilization_report> analyze_utilization(std::vector<utilization_sample> samples, const idle_rules& rules,
                                                                      const interval& window) {
  GPURENT_TRY(rules.check());
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (samples[i].busy < milli_percent(0) || samples[i].busy > fully_busy)
      return make_error(error_code::invalid_argument, "samples[" + std::to_string(i) + "].busy", "a percentage is 0..100");
  std::ranges::stable_sort(samples, {}, &utilization_sample::at);
  utilization_report out;
  out.scrape_interval = detail::median_gap(samples);
  const seconds last = std::min(rules.last_hold.value_or(out.scrape_interval), rules.max_gap);
  std::optional<interval> run;  // the idle run being built
  const auto close_run = [&] {
    if (run && run->length() > rules.min_idle) out.idle.push_back(*run);
    run.reset();
  };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const utilization_sample& s = samples[i];
    const bool has_next = i + 1 < samples.size();
    instant e = detail::hold_until(s.at, has_next ? rules.max_gap : last, window.end());
    if (has_next) e = std::min(e, samples[i + 1].at);
    const instant b = std::max(s.at, window.begin());
    if (b >= e) continue;  // outside the window, or replaced at once by a sample at the same instant
    if (!out.observed.empty() && out.observed.back().end() != b) close_run();  // unobserved in between
    detail::append_joined(out.observed, b, e);
    if (s.busy >= rules.threshold) {
      close_run();
    } else if (run) {
      run = *interval::make(run->begin(), e);
    } else {
      run = *interval::make(b, e);
    }
  }
  close_run();
  return out;
}

// The stretches of `window` where utilization stays below `threshold_percent` for longer than
// `min_idle`. Samples may come in any order; before the first sample nothing is known (not
// idle); each holds until the next, the last until the window's end (no gap rule).
[[nodiscard]] inline expected<std::vector<interval>> idle_periods(std::vector<utilization_sample> samples, int threshold_percent, seconds min_idle,
                                                                  const interval& window) {
  if (threshold_percent < 0 || threshold_percent > 100) return make_error(error_code::invalid_argument, "threshold", "a percentage is 0..100");
  const idle_rules rules{percent(threshold_percent), min_idle, seconds::max(), seconds::max()};
  GPURENT_TRY(report, analyze_utilization(std::move(samples), rules, window));
  return std::move(report->idle);
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

// The common part of two sorted, disjoint interval sets, sorted and disjoint.
[[nodiscard]] inline std::vector<interval> intersect_sets(std::span<const interval> a, std::span<const interval> b) {
  std::vector<interval> out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (auto x = a[i].intersect(b[j])) out.push_back(*x);
    if (a[i].end() < b[j].end())
      ++i;
    else
      ++j;
  }
  return out;
}

// ---- the cost of idle time ---------------------------------------------------------------------

// The usage label naming the GPU a record ran on: its UUID, or "Hostname:index", as the
// utilization series name it (several GPUs joined by ';': the record is idle while all are).
inline constexpr std::string_view gpu_label = "gpu";

// The GPUs a record's `gpu` label names (empty when it has none).
[[nodiscard]] inline std::vector<std::string_view> record_gpus(const usage_record& r) {
  std::vector<std::string_view> out;
  for (const auto& [name, value] : r.labels) {
    if (name != gpu_label) continue;
    std::string_view v = value;
    while (!v.empty()) {
      const auto semi = v.find(';');
      if (const auto g = v.substr(0, semi); !g.empty()) out.push_back(g);
      v = semi == std::string_view::npos ? std::string_view() : v.substr(semi + 1);
    }
  }
  return out;
}

// The GPUs' reports by name, as `bill_idle` reads them.
using gpu_reports = std::map<std::string, utilization_report, std::less<>>;

// When every GPU of `gpus` was observed, and when all of them were idle (none: both empty).
[[nodiscard]] inline std::pair<std::vector<interval>, std::vector<interval>> joint_activity(std::span<const std::string_view> gpus,
                                                                                            const gpu_reports& reports) {
  std::pair<std::vector<interval>, std::vector<interval>> out;
  for (std::size_t k = 0; k < gpus.size(); ++k) {
    const auto it = reports.find(gpus[k]);
    if (it == reports.end()) return {};
    out.first = k == 0 ? it->second.observed : intersect_sets(out.first, it->second.observed);
    out.second = k == 0 ? it->second.idle : intersect_sets(out.second, it->second.idle);
  }
  return out;
}

// The parts of `r` inside `periods` (sorted, disjoint): records of their own with r's account,
// resource, mode, quantity and labels, ids "<id>#idle<k>" (k from 1).
[[nodiscard]] inline std::vector<usage_record> usage_within(const usage_record& r, std::span<const interval> periods) {
  std::vector<usage_record> out;
  for (const interval& p : periods) {
    const auto x = p.intersect(r.span());
    if (!x) continue;
    usage_record part = r;
    part.id = r.id + "#idle" + std::to_string(out.size() + 1);
    part.start = x->begin();
    part.end = x->end();
    out.push_back(std::move(part));
  }
  return out;
}

// Seconds of a line's usage in the period that no utilization sample covered.
struct unobserved_line {
  std::string account, resource, mode;
  std::int64_t seconds = 0;  // quantity not applied, as billed_seconds
  friend bool operator==(const unobserved_line&, const unobserved_line&) = default;
};

// Usage under a tariff against its GPUs' idle periods, each rated by the meter (so increments,
// minimums, tiers and rounding are the tariff's): the whole usage (`billed`, the invoice
// `gpurent meter` prints); its idle parts as records of their own (`idle`: how many and their
// seconds); and the usage with each record's idle time taken out (`active`, without_idle), so
// that what idle time cost is billed - active per line (idle_cost_of).
struct idle_billing {
  invoice billed;
  invoice idle;
  invoice active;
  std::vector<unobserved_line> unobserved;  // by account, resource, mode; only lines with some
};

// The record `r` had its GPU been released for `idle` of its seconds in `period`: the same
// start (so the same minimum rule and price protection), its end in the period moved `idle`
// earlier, billed as one record; none when all of its time in the period was idle. A record
// outside the period, or without idle time, is itself.
[[nodiscard]] inline std::optional<usage_record> without_idle(const usage_record& r, const interval& period, seconds idle) {
  const auto in_period = r.span().intersect(period);
  if (!in_period || idle <= seconds{0}) return r;
  if (idle >= in_period->length()) return std::nullopt;
  usage_record out = r;
  out.end = in_period->end() - idle;
  return out;
}

// What a line's idle time cost: the money and billed seconds it would not have cost without
// it, billed minus active, each floored at 0, so never more than the line's own amount.
struct idle_cost {
  std::int64_t billed_seconds = 0;
  ratio<> exact{};
  money_value amount;
};
namespace detail {
inline void add_unobserved(std::map<std::tuple<std::string, std::string, std::string>, std::int64_t>& acc, const usage_record& r,
                           const interval& period, std::span<const interval> observed) {
  const auto in_period = r.span().intersect(period);
  if (!in_period) return;
  std::int64_t covered = 0;
  for (const interval& o : observed)
    if (const auto x = o.intersect(*in_period)) covered += x->length().count();
  if (const std::int64_t gap = in_period->length().count() - covered; gap > 0) acc[{r.account, r.resource, r.mode}] += gap;
}
}  // namespace detail

// Rates `records` (each with the line it came from in `source`) for the month `period` of
// tariff `t`, and the parts of them that fell in idle periods of their GPUs (record_gpus).
// A record naming no GPU, or a GPU without samples, has no idle part; its time is unobserved.
// A record the meter counts as a repeat of an earlier one (dedup.hpp) counts once everywhere.
[[nodiscard]] inline expected<idle_billing> bill_idle(const tariff& t, std::string_view period, std::span<const usage_record> records,
                                                      std::span<const std::size_t> lines, std::string_view source, const gpu_reports& reports) {
  GPURENT_TRY(all, meter::for_month(t, period));
  GPURENT_TRY(idle, meter::for_month(t, period));
  GPURENT_TRY(active, meter::for_month(t, period));
  for (meter* m : {&*all, &*idle, &*active}) m->set_source(std::string(source));
  std::map<std::tuple<std::string, std::string, std::string>, std::int64_t> unobserved;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::size_t line = i < lines.size() ? lines[i] : 0;
    const std::int64_t repeats = all->duplicates_ignored();
    GPURENT_TRY(all->add(records[i], line));
    if (all->duplicates_ignored() != repeats) continue;
    const auto gpus = record_gpus(records[i]);
    const auto [observed, idle_times] = joint_activity(gpus, reports);
    seconds idle_s{0};
    for (const usage_record& part : usage_within(records[i], idle_times)) {
      GPURENT_TRY(idle->add(part, line));
      if (const auto x = part.span().intersect(all->period())) idle_s += x->length();
    }
    if (const auto kept = without_idle(records[i], all->period(), idle_s)) GPURENT_TRY(active->add(*kept, line));
    detail::add_unobserved(unobserved, records[i], all->period(), observed);
  }
  GPURENT_TRY(billed_inv, all->finish());
  GPURENT_TRY(idle_inv, idle->finish());
  GPURENT_TRY(active_inv, active->finish());
  idle_billing out{std::move(*billed_inv), std::move(*idle_inv), std::move(*active_inv), {}};
  for (const auto& [key, secs] : unobserved) out.unobserved.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), secs});
  return out;
}

// The line of (account, resource, mode) in `inv`; null when it has none.
[[nodiscard]] inline const invoice_line* find_line(const invoice& inv, std::string_view account, std::string_view resource, std::string_view mode) {
  for (const invoice_account& a : inv.accounts) {
    if (a.account != account) continue;
    for (const invoice_line& l : a.lines)
      if (l.resource == resource && l.mode == mode) return &l;
  }
  return nullptr;
}

// The idle cost of `billed`, a line of `account` in b.billed: its amount, exact amount and
// billed seconds less those of its line in b.active (none: every record of it was all idle).
[[nodiscard]] inline idle_cost idle_cost_of(const idle_billing& b, std::string_view account, const invoice_line& billed) {
  const invoice_line* kept = find_line(b.active, account, billed.resource, billed.mode);
  idle_cost out{billed.billed_seconds, billed.exact, billed.amount};
  if (kept == nullptr) return out;
  out.billed_seconds = std::max<std::int64_t>(0, billed.billed_seconds - kept->billed_seconds);
  out.exact = std::max(ratio<>{}, billed.exact - kept->exact);
  out.amount = money_value(billed.amount.currency_value(), std::max(int128(0), int128(billed.amount.minor_units() - kept->amount.minor_units())));
  return out;
}

// idle / observed in ten-thousandths, rounded half up (2934 for 29.34%); 0 when nothing was observed.
[[nodiscard]] constexpr std::int64_t share_basis_points(seconds idle, seconds observed) noexcept {
  if (observed <= seconds{0}) return 0;
  return (idle.count() * 20'000 + observed.count()) / (2 * observed.count());
}

}  // namespace gpurent
