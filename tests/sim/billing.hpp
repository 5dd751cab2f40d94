// SPDX-License-Identifier: MIT
#pragma once
// The billing half of the simulation: a run's usage (fleet/run/usage.hpp's usage_of_run)
// delivered as CSV through the usage reader (io::meter_usage_csv), late, out of order and
// partly twice, with instants written in UTC or in the local offset of zones that change DST
// during the run, into one meter per calendar month of the tariff's zone (America/New_York)
// and into three shard meters per month.
//
// Checked at every audit (every `audit_every` delivery batches) on the records delivered so
// far, and at the close on what the segments ran: the merged shards' invoice equals the
// unsharded one; each line's used seconds and record count are those of the truth (every
// second of every member of every segment billed once and only once, whatever the
// duplicates and the order); billed seconds >= used; lines sum to the account's total;
// the credit applied is min(credit, total) and due = total - credit; no amount negative.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <date/date.h>
#include <date/tz.h>

#include <gpurent/core/core.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>

#include "digest.hpp"
#include "scenario.hpp"

namespace gpurent::sim {

// A line of an invoice: (account, resource, mode).
using line_key = std::tuple<std::string, std::string, std::string>;
struct line_truth {
  std::int64_t used = 0;     // seconds inside the month
  std::int64_t records = 0;  // records (members of segments) touching the month
};
using month_truth = std::map<date::year_month, std::map<line_key, line_truth>>;

namespace detail {

// Zones whose local offsets the emitters write instants in (each changes DST in the run).
inline constexpr std::array<std::string_view, 4> emitter_zones = {"UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe"};
inline constexpr std::size_t shards = 3;

// "2026-11-01T01:30:00-04:00": the instant in the local offset of `zone` (UTC as "Z").
[[nodiscard]] inline std::string format_local(instant t, const date::time_zone* zone) {
  if (zone == nullptr) return format_instant(t);
  const auto off = std::chrono::duration_cast<seconds>(zone->get_info(t).offset).count();
  std::string s = format_instant(t + seconds(off));
  s.pop_back();  // the "Z"
  const long long a = off < 0 ? -off : off;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%c%02lld:%02lld", off < 0 ? '-' : '+', a / 3600, (a % 3600) / 60);
  return s + buf;
}

// The tariff: per-second, per-minute, 15-minute and hourly increments, a minimum, graduated
// and volume tiers, spot price changes, credits; `rounding_point` line, record or invoice.
[[nodiscard]] inline std::string tariff_json(std::string_view rounding_point) {
  const std::string rates = R"(
    {"resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s"},
    {"resource": "gpu/H100", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s",
     "price_changes": [{"from": "2026-11-01T06:00:00Z", "unit_price": "0.87"}, {"from": "2026-11-03T00:00:00Z", "unit_price": "1.333333333"}]},
    {"resource": "gpu/GB200", "mode": "on_demand", "per": "1h", "increment": "1s",
     "tiers": {"mode": "graduated", "steps": [{"up_to": "100", "unit_price": "3.60"}, {"up_to": null, "unit_price": "2.95"}]}},
    {"resource": "gpu/GB200", "mode": "spot", "unit_price": "1.77", "per": "1h", "increment": "15min"},
    {"resource": "gpu/L40S", "mode": "on_demand", "unit_price": "0.85", "per": "1h", "increment": "1h"},
    {"resource": "gpu/L40S", "mode": "spot", "per": "1h", "increment": "1s",
     "tiers": {"mode": "volume", "steps": [{"up_to": "10", "unit_price": "0.40"}, {"up_to": null, "unit_price": "0.31"}]}})";
  return R"({"currency": "USD", "timezone": "America/New_York", "rounding": "half_even", "rounding_point": ")" + std::string(rounding_point) +
         R"(", "rates": [)" + rates + R"(], "credits": [{"account": "hp", "amount": "100.00"}, {"account": "spot", "amount": "0.01"}]})";
}

[[nodiscard]] inline std::string month_name(date::year_month ym) {
  char name[16];
  std::snprintf(name, sizeof name, "%04d-%02u", static_cast<int>(ym.year()), static_cast<unsigned>(ym.month()));
  return name;
}

}  // namespace detail

// One delivery of a record: which, in which zone's offset, to which shard.
struct delivery {
  std::size_t record = 0;
  std::uint8_t zone = 0;
  std::uint8_t shard = 0;
};

class billing {
 public:
  // The meters point at the tariff: a billing stays where it was made.
  billing(const billing&) = delete;
  billing& operator=(const billing&) = delete;

  billing(std::uint64_t seed, std::uint64_t audit_every) : audit_every_(audit_every) {
    static constexpr std::array<std::string_view, 3> points = {"line", "record", "invoice"};
    auto t = io::parse_tariff_json(detail::tariff_json(points[seed % 3]), "sim-tariff.json");
    if (!t) std::fprintf(stderr, "simulation tariff: %s\n", t.error().describe().c_str());
    GPURENT_ASSERT(t.has_value());
    tariff_ = std::make_unique<tariff>(std::move(*t));
    for (std::size_t i = 0; i < detail::emitter_zones.size(); ++i) zones_[i] = i == 0 ? nullptr : *find_zone(detail::emitter_zones[i]);
  }

  [[nodiscard]] const tariff& tariff_used() const noexcept { return *tariff_; }

  // Delivers `records` (each once, some twice) in a shuffled order, in batches, auditing
  // every audit_every batches; then closes every month against `truth`. The first
  // violation, or "".
  [[nodiscard]] std::string run(const std::vector<usage_record>& records, const month_truth& truth, sim_rng& rng, digest& d) {
    records_ = &records;
    delivered_.assign(records.size(), 0);
    std::vector<delivery> plan = schedule(records.size(), rng);
    std::size_t batches = 0;
    for (std::size_t i = 0; i < plan.size();) {
      const std::size_t n = std::min<std::size_t>(plan.size() - i, 1 + rng.below(48));
      if (auto bad = deliver(std::span(plan).subspan(i, n)); !bad.empty()) return bad;
      i += n;
      if (audit_every_ != 0 && ++batches % audit_every_ == 0) {
        ++audits_;
        for (const auto& [ym, b] : months_)
          if (auto bad = check_month(ym, b, delivered_truth_, nullptr); !bad.empty()) return bad;
      }
    }
    deliveries_ += plan.size();
    return close(truth, d);
  }

  [[nodiscard]] std::uint64_t deliveries() const noexcept { return deliveries_; }
  [[nodiscard]] std::uint64_t audits() const noexcept { return audits_; }
  [[nodiscard]] std::uint64_t months_billed() const noexcept { return months_billed_; }

 private:
  struct month_book {
    interval span{};
    std::unique_ptr<meter> whole;
    std::array<std::unique_ptr<meter>, detail::shards> shard;
  };

  // Every record once, about one in sixteen twice, shuffled (so late and out of order).
  [[nodiscard]] std::vector<delivery> schedule(std::size_t n, sim_rng& rng) const {
    std::vector<delivery> plan;
    const auto one = [&](std::size_t i) {
      plan.push_back({i, static_cast<std::uint8_t>(rng.below(zones_.size())), static_cast<std::uint8_t>(rng.below(detail::shards))});
    };
    for (std::size_t i = 0; i < n; ++i) {
      one(i);
      if (rng.chance(60)) one(i);
    }
    for (std::size_t i = plan.size(); i > 1; --i) std::swap(plan[i - 1], plan[rng.below(i)]);
    return plan;
  }

  month_book& book_for(date::year_month ym) {
    auto it = months_.find(ym);
    if (it != months_.end()) return it->second;
    month_book b;
    b.span = tariff_->month(ym);
    b.whole = std::make_unique<meter>(*tariff_, b.span, detail::month_name(ym));
    for (auto& s : b.shard) s = std::make_unique<meter>(*tariff_, b.span, detail::month_name(ym));
    return months_.emplace(ym, std::move(b)).first->second;
  }

  // One batch: one CSV per (month, meter); the whole meter sees every delivery, a shard some.
  [[nodiscard]] std::string deliver(std::span<const delivery> batch) {
    std::map<std::pair<date::year_month, int>, std::string> csv;
    for (const delivery& f : batch) {
      const usage_record& r = (*records_)[f.record];
      if (delivered_[f.record] == 0) note_delivered(r);
      delivered_[f.record] = 1;
      const std::string row = r.id + "," + r.account + "," + r.resource + "," + r.mode + "," + format_nano(r.quantity) + "," +
                              detail::format_local(r.start, zones_[f.zone]) + "," + detail::format_local(r.end, zones_[f.zone]) + "\n";
      for (date::year_month ym = month_of(tariff_->zone(), r.start); ym <= month_of(tariff_->zone(), r.end - seconds(1)); ym += date::months(1)) {
        (void)book_for(ym);
        csv[{ym, -1}] += row;
        csv[{ym, static_cast<int>(f.shard)}] += row;
      }
    }
    for (auto& [key, text] : csv) {
      month_book& b = months_.at(key.first);
      meter& m = key.second < 0 ? *b.whole : *b.shard[static_cast<std::size_t>(key.second)];
      // One file name per meter (a name per delivery made merges quadratic: finding F2).
      auto ok =
          io::meter_usage_csv(m, "id,account,resource,mode,quantity,start,end\n" + text, "deliveries-" + detail::month_name(key.first) + ".csv");
      if (!ok) return "the meter refused a delivery: " + ok.error().describe();
    }
    return {};
  }

  // Record r's first delivery: its seconds join the truth of the months it touches (the
  // truth audits check while deliveries go on).
  void note_delivered(const usage_record& r) {
    for (date::year_month ym = month_of(tariff_->zone(), r.start); ym <= month_of(tariff_->zone(), r.end - seconds(1)); ym += date::months(1)) {
      const interval m = book_for(ym).span;
      const instant s = std::max(r.start, m.begin()), e = std::min(r.end, m.end());
      if (s >= e) continue;
      line_truth& l = delivered_truth_[ym][{r.account, r.resource, r.mode}];
      l.used += (e - s).count();
      ++l.records;
    }
  }

  [[nodiscard]] std::string close(const month_truth& truth, digest& d) {
    for (const auto& [ym, lines] : truth) (void)book_for(ym);  // a month used but never billed lacks its lines
    for (const auto& [ym, b] : months_) {
      if (auto bad = check_month(ym, b, truth, &d); !bad.empty()) return bad;
      ++months_billed_;
    }
    months_.clear();
    return {};
  }

  [[nodiscard]] std::string check_lines(const std::string& name, const invoice_account& a, const std::map<line_key, line_truth>& lines) const;
  [[nodiscard]] std::string check_month(date::year_month ym, const month_book& b, const month_truth& truth, digest* d) const;

  std::unique_ptr<tariff> tariff_;
  std::array<const date::time_zone*, detail::emitter_zones.size()> zones_{};
  std::uint64_t audit_every_ = 0;
  const std::vector<usage_record>* records_ = nullptr;
  std::vector<std::uint8_t> delivered_;
  month_truth delivered_truth_;  // of the records delivered so far
  std::map<date::year_month, month_book> months_;
  std::uint64_t deliveries_ = 0, audits_ = 0, months_billed_ = 0;
};

// One account's lines against the truth, the total, the credit and what is due.
inline std::string billing::check_lines(const std::string& name, const invoice_account& a, const std::map<line_key, line_truth>& lines) const {
  money_value sum(tariff_->currency_value(), 0);
  for (const invoice_line& l : a.lines) {
    const std::string line = "invoice " + name + " line " + a.account + " " + l.resource + " " + l.mode;
    const auto it = lines.find({a.account, l.resource, l.mode});
    if (it == lines.end()) return line + " bills what nobody used";
    if (l.used_seconds != it->second.used)
      return line + " has " + std::to_string(l.used_seconds) + " used seconds; the segments ran " + std::to_string(it->second.used);
    if (l.records != it->second.records) return line + " counts " + std::to_string(l.records) + " records, not " + std::to_string(it->second.records);
    if (l.billed_seconds < l.used_seconds) return line + " bills fewer seconds than were used";
    if (l.amount.minor_units() < 0) return line + " is negative";
    sum = sum + l.amount;
  }
  const std::string acc = "invoice " + name + " account " + a.account;
  if (!(sum == a.total)) return acc + ": the lines do not sum to the total";
  const int128 credit = tariff_->credit_for(a.account).minor_units();
  const int128 applied = a.total.minor_units() < credit ? a.total.minor_units() : credit;
  if (a.credit_applied.minor_units() != applied) return acc + ": the wrong credit applied";
  if (!(a.due == a.total - a.credit_applied)) return acc + ": due is not total - credit";
  if (a.due.minor_units() < 0 || a.total.minor_units() < 0) return acc + ": a negative amount";
  return {};
}

// The merged shards' invoice equals the whole meter's, and both agree with the truth; at the
// close (d set) the totals go into the digest.
inline std::string billing::check_month(date::year_month ym, const month_book& b, const month_truth& truth, digest* d) const {
  const std::string name = detail::month_name(ym);
  meter merged = *b.shard[0];
  for (std::size_t s = 1; s < b.shard.size(); ++s)
    if (auto ok = merged.merge(*b.shard[s]); !ok) return "merging the shard meters of " + name + " failed: " + ok.error().describe();
  auto whole = b.whole->finish();
  auto from_shards = merged.finish();
  if (!whole) return "invoice " + name + " failed: " + whole.error().describe();
  if (!from_shards) return "the sharded invoice " + name + " failed: " + from_shards.error().describe();
  if (!(*whole == *from_shards)) return "the sharded invoice " + name + " differs from the unsharded one";
  static const std::map<line_key, line_truth> none;
  const auto it = truth.find(ym);
  const std::map<line_key, line_truth>& lines = it == truth.end() ? none : it->second;
  std::size_t count = 0;
  for (const invoice_account& a : whole->accounts) {
    count += a.lines.size();
    if (auto bad = check_lines(name, a, lines); !bad.empty()) return bad;
    if (d == nullptr) continue;
    d->add(a.account);
    d->add(static_cast<std::uint64_t>(a.total.minor_units().convert_to<std::int64_t>()));
    for (const invoice_line& l : a.lines) d->add(static_cast<std::uint64_t>(l.billed_seconds));
  }
  if (count != lines.size()) return "invoice " + name + " lacks a line that was used";
  return {};
}

}  // namespace gpurent::sim
