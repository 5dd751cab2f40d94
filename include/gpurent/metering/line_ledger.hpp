// SPDX-License-Identifier: MIT
#pragma once
// The meter's lines: each record rated (metering/rating.hpp) and summed into the totals of
// its (account, rate) line, the counts of records out of period and of identical repeats,
// and the one rounding of an amount to minor units at the tariff's mode. Lines are what a
// meter's invoice is built from and what meters that share no record add up.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/bytes.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/core/wide.hpp>
#include <gpurent/metering/owners.hpp>
#include <gpurent/metering/paged.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/metering/record_store.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent::detail {

// Whether the tariff forgives `exact` (below one minor unit, when it forgives such amounts).
[[nodiscard]] inline bool forgiven_below_minor(const tariff& t, const ratio<>& exact) {
  return t.rounding().forgive_below_minor_unit && detail::abs(exact.num()) * detail::pow10<int128>(t.currency_value().minor_units) < exact.den();
}
// The one rounding of an amount to minor units, with the tariff's mode; 0 when the tariff
// forgives amounts below one minor unit and this is one.
[[nodiscard]] inline int128 round_minor(const tariff& t, const ratio<>& exact) {
  if (forgiven_below_minor(t, exact)) return 0;
  return exact.round_to_digits(t.currency_value().minor_units, t.rounding().mode);
}

// The overflow of one line's totals (adding shards or partial results), naming the line.
[[nodiscard]] inline unexpected<error> line_overflow_error(const tariff& t, std::string_view account, std::string_view labels, std::size_t rate) {
  const auto& r = t.rate_at(rate);
  std::string what = "account \"" + std::string(account) + "\"";
  if (!labels.empty()) what += " (labels " + std::string(labels) + ")";
  return make_error(
      error_code::overflow, "account",
      "overflow: the totals of " + what + " for " + r.resource + " " + r.mode + " do not fit (64-bit seconds and counts, 128-bit amounts)");
}

class line_ledger {
 public:
  line_ledger(const tariff& t, interval period) : t_(&t), n_rates_(t.rates().size()), period_(period) {}

  [[nodiscard]] const tariff& tariff_value() const noexcept { return *t_; }
  [[nodiscard]] const interval& period() const noexcept { return period_; }
  // Only meters of one tariff and one period add up.
  [[nodiscard]] bool same_terms(const line_ledger& o) const noexcept { return o.t_ == t_ && o.period_ == period_; }

  // The index of the owner (account, label set), a new one (with a line per rate) for an
  // owner not seen before (metering/owners.hpp).
  std::uint32_t intern(std::string_view account, std::string_view labels = {}) {
    bool added = false;
    const std::uint32_t o = owners_.intern(account, labels, added);
    if (added) lines_.resize(owners_.size() * n_rates_);
    return o;
  }
  [[nodiscard]] const std::string& account(std::uint32_t owner) const noexcept { return owners_.account(owner); }
  [[nodiscard]] const std::string& labels(std::uint32_t owner) const noexcept { return owners_.labels(owner); }
  [[nodiscard]] const line_owners& owners() const noexcept { return owners_; }
  // How the owners of two records differ: "account", "labels", or "" (the same owner).
  [[nodiscard]] std::string_view owner_difference(std::uint32_t a, std::uint32_t b) const noexcept {
    if (a == b) return {};
    return owners_.account_index(a) != owners_.account_index(b) ? "account" : "labels";
  }
  // Lines are numbered owner x rates + rate.
  [[nodiscard]] std::size_t key(std::uint32_t account, std::uint32_t rate) const noexcept { return std::size_t{account} * n_rates_ + rate; }
  [[nodiscard]] std::size_t size() const noexcept { return lines_.size(); }
  [[nodiscard]] std::uint32_t owner_of(std::size_t key) const noexcept { return static_cast<std::uint32_t>(key / n_rates_); }
  [[nodiscard]] std::uint32_t rate_of(std::size_t key) const noexcept { return static_cast<std::uint32_t>(key % n_rates_); }
  [[nodiscard]] const line_totals& at(std::size_t key) const noexcept { return lines_[key]; }

  // Rates a record and adds (sign +1) or removes (-1) its contribution.
  expected<void> contribute(const meter_record& e, int sign) {
    const contribution c = contribute_status(e, sign);
    if (c == contribution::ok) return {};
    return unexpected(contribution_error(c));
  }
  // The same as a status, for the per-record path (an expected<void> returned from a call
  // costs GCC a clear of its 112-byte error union).
  enum class contribution : std::uint8_t { ok, record_overflow, line_overflow };
  [[nodiscard]] static error contribution_error(contribution c) {
    return overflow_error(c == contribution::record_overflow ? "the amount of this record" : "the line totals").value();
  }
  [[nodiscard]] contribution contribute_status(const meter_record& e, int sign) {
    const rate& r = t_->rate_at(e.rate);
    rated_usage u;
    switch (rate_usage(r, period_, instant{seconds{e.start}}, instant{seconds{e.end}}, e.quantity, u)) {
      case rating_status::out_of_period: out_of_period_ += sign; return contribution::ok;
      case rating_status::overflow: return contribution::record_overflow;
      case rating_status::rated: break;
    }
    i128 rounded = 0;
    if (t_->rounding().point == rounding_point::record && r.kind == price_kind::unit) {
      auto v = detail::to_i128(round_minor(*t_, exact_amount(u.amount, r.denominator())));
      GPURENT_ASSERT(v.has_value());
      rounded = *v;
    }
    line_totals& l = lines_[key(e.account, e.rate)];
    const bool with_waste = sums_waste(r);
    if (!(sign > 0 ? l.add(u, rounded, with_waste) : l.subtract(u, rounded, with_waste))) return contribution::line_overflow;
    return contribution::ok;
  }

  // Adds the lines and counts of a ledger of the same terms, account by account name.
  [[nodiscard]] expected<void> merge_totals(const line_ledger& o) {
    for (std::size_t k = 0; k < o.lines_.size(); ++k) {
      if (o.lines_[k] == line_totals{}) continue;
      const std::uint32_t own = o.owner_of(k);
      const std::size_t at = key(intern(o.account(own), o.labels(own)), o.rate_of(k));
      if (!lines_[at].merge(o.lines_[k])) return line_overflow_error(*t_, o.account(own), o.labels(own), o.rate_of(k));
    }
    if (!add_to(out_of_period_, o.out_of_period_) || !add_to(duplicates_, o.duplicates_)) return overflow_error("record counts");
    return {};
  }
  // Adds one line's totals (false on overflow).
  [[nodiscard]] bool add_line(std::string_view account, std::string_view labels, std::uint32_t rate, const line_totals& t) {
    const std::size_t at = key(intern(account, labels), rate);
    return lines_[at].merge(t);
  }
  // Calls f(account, labels, rate index, totals) for each line (and label set) with records,
  // in no particular order.
  template <class F>
  void for_each_line(F&& f) const {
    for (std::size_t k = 0; k < lines_.size(); ++k)
      if (!(lines_[k] == line_totals{}))
        f(std::string_view(account(owner_of(k))), std::string_view(labels(owner_of(k))), std::size_t{rate_of(k)}, lines_[k]);
  }

  [[nodiscard]] std::int64_t out_of_period() const noexcept { return out_of_period_; }
  [[nodiscard]] std::int64_t duplicates() const noexcept { return duplicates_; }
  void count_duplicate() noexcept { ++duplicates_; }
  [[nodiscard]] bool add_out_of_period(std::int64_t n) noexcept { return add_to(out_of_period_, n); }
  [[nodiscard]] bool add_duplicates(std::int64_t n) noexcept { return add_to(duplicates_, n); }

 private:
  const tariff* t_;
  std::size_t n_rates_;
  interval period_;
  line_owners owners_;
  std::vector<line_totals> lines_;  // owner x n_rates_ + rate
  std::int64_t out_of_period_ = 0;
  std::int64_t duplicates_ = 0;
};

}  // namespace gpurent::detail
