// SPDX-License-Identifier: MIT
#pragma once
// A tariff: the rates of resources by (resource, mode), the currency and time zone of its
// invoices, its rounding rule, its prepaid credits, its commitments and its prepaid packages.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <date/tz.h>

#include <gpurent/core/calendar.hpp>
#include <gpurent/core/currency.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/integer.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/core/rounding.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/billing_time.hpp>
#include <gpurent/tariff/commitment.hpp>
#include <gpurent/tariff/prepaid.hpp>
#include <gpurent/tariff/schedule.hpp>
#include <gpurent/tariff/tiers.hpp>

namespace gpurent {

// What a rate prices, from the resource name's first segment ("gpu/H100-80GB").
enum class resource_kind : std::uint8_t { server, gpu, mig_slice, fractional_share, compute_unit, storage, network, other };

[[nodiscard]] constexpr resource_kind kind_of_resource(std::string_view resource) noexcept {
  const auto slash = resource.find('/');
  const std::string_view head = resource.substr(0, slash);
  if (head == "server") return resource_kind::server;
  if (head == "gpu") return resource_kind::gpu;
  if (head == "mig") return resource_kind::mig_slice;
  if (head == "share") return resource_kind::fractional_share;
  if (head == "compute") return resource_kind::compute_unit;
  if (head == "storage") return resource_kind::storage;
  if (head == "network") return resource_kind::network;
  return resource_kind::other;
}

template <>
struct enum_names<resource_kind> {
  static constexpr enum_entry<resource_kind> entries[] = {{resource_kind::server, "server"},
                                                          {resource_kind::gpu, "gpu"},
                                                          {resource_kind::mig_slice, "mig_slice"},
                                                          {resource_kind::fractional_share, "fractional_share"},
                                                          {resource_kind::compute_unit, "compute_unit"},
                                                          {resource_kind::storage, "storage"},
                                                          {resource_kind::network, "network"},
                                                          {resource_kind::other, "other"}};
};

// A fractional share as a rating quantity: 250 milli-GPU is 0.25 GPU, exactly.
[[nodiscard]] constexpr nano_quantity quantity_of(milli_gpu share) noexcept { return nano_quantity(std::int64_t{share.count()} * 1'000'000); }

enum class price_kind : std::uint8_t { unit, tiers, package };

template <>
struct enum_names<price_kind> {
  static constexpr enum_entry<price_kind> entries[] = {{price_kind::unit, "unit"}, {price_kind::tiers, "tiers"}, {price_kind::package, "package"}};
};

// The price of one (resource, mode). Unit prices are per `per` of one unit of quantity
// (optionally changing over time); tier and package prices are per unit-hour.
struct rate {
  std::string resource;
  std::string mode;
  seconds per{3600};
  billing_rule time{};
  price_kind kind = price_kind::unit;
  price_schedule price{};     // kind == unit: base price, changes, protection period
  tier_table tiers{};         // kind == tiers
  package_pricing package{};  // kind == package
  // Unit prices are divided by this too: a price per TFLOPS-hour for a GPU of g GFLOPS is
  // price x g / 1000 per GPU-hour, exactly (see compute_unit_rate).
  std::int64_t price_divisor = 1;
  // A compute-unit rate (compute_unit_rate): the GFLOPS its price per TFLOPS-hour was
  // converted with, and the precision they are of (tariff `per_tflops`); 0 and "" otherwise.
  std::int64_t tflops_gflops = 0;
  std::string per_tflops;

  // The exact denominator of a unit-kind amount numerator (nano price x nano quantity x s).
  [[nodiscard]] int128 denominator() const { return int128(detail::nano_one) * detail::nano_one * per.count() * price_divisor; }
  friend bool operator==(const rate&, const rate&) = default;
};

// A unit rate priced per TFLOPS-hour, turned into a rate per GPU of the given throughput
// (take `gflops` from the catalog). Exact: no division happens before the final rounding.
[[nodiscard]] inline expected<rate> compute_unit_rate(rate r, gflops throughput) {
  if (r.kind != price_kind::unit) return make_error(error_code::unsupported, "kind", "compute-unit conversion applies to unit prices");
  if (throughput.count() <= 0) return make_error(error_code::invalid_argument, "gflops", "throughput must be positive");
  const std::int64_t g = throughput.count();
  std::vector<price_change> changes = r.price.changes();
  nano_price base;
  if (!scale_into(r.price.base(), g, base)) return make_error(error_code::overflow, "unit_price", "price x GFLOPS overflows");
  for (auto& c : changes) {
    if (!scale_into(c.unit_price, g, c.unit_price)) return make_error(error_code::overflow, "unit_price", "price x GFLOPS overflows");
  }
  auto s = price_schedule::make(base, std::move(changes), r.price.protection());
  if (!s) return unexpected(s.error());
  r.price = std::move(*s);
  if (!detail::mul_into(r.price_divisor, std::int64_t{1000}, r.price_divisor))
    return make_error(error_code::overflow, "unit_price", "divisor overflows");
  r.per = seconds{3600};
  r.tflops_gflops = g;
  return r;
}

// Where the one rounding happens. `line` is the tool's default; `record` rounds each record's
// amount (a line is the sum of rounded records); `invoice` rounds an account's exact total
// once and allocates it over the lines by largest remainder.
enum class rounding_point : std::uint8_t { record, line, invoice };

template <>
struct enum_names<rounding_point> {
  static constexpr enum_entry<rounding_point> entries[] = {
      {rounding_point::record, "record"}, {rounding_point::line, "line"}, {rounding_point::invoice, "invoice"}};
};

struct rounding_rule {
  rounding_mode mode = rounding_mode::half_even;
  rounding_point point = rounding_point::line;
  // Amounts whose exact value is below one minor unit are not charged (Volcengine-style),
  // instead of being rounded.
  bool forgive_below_minor_unit = false;
  // The sub-minor-unit remainder of each line is reported as a carry for the next invoice,
  // and a carry from the previous one is added before rounding (line point only).
  bool carry = false;
  friend bool operator==(const rounding_rule&, const rounding_rule&) = default;
};

// A prepaid balance of an account, in the tariff's currency.
struct credit_grant {
  std::string account;
  money_value amount;
  friend bool operator==(const credit_grant&, const credit_grant&) = default;
};

namespace detail {
struct string_hash {
  using is_transparent = void;
  [[nodiscard]] std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
}  // namespace detail

class tariff {
 public:
  // Checks what no single rate can: a zone that exists, one rate per (resource, mode), one
  // credit per account, in the tariff's currency and not negative.
  [[nodiscard]] static expected<tariff> make(currency ccy, std::string zone_name, rounding_rule rounding, std::vector<rate> rates,
                                             std::vector<credit_grant> credits = {}, std::vector<tariff_commitment> commitments = {},
                                             std::vector<prepaid_package> prepaid = {}) {
    tariff t;
    auto zone = find_zone(zone_name);
    if (!zone) return unexpected(zone.error());
    t.ccy_ = ccy;
    t.zone_name_ = std::move(zone_name);
    t.zone_ = *zone;
    t.rounding_ = rounding;
    t.rates_ = std::move(rates);
    for (std::size_t i = 0; i < t.rates_.size(); ++i) {
      auto& modes = t.index_[t.rates_[i].resource];
      for (const auto& [m, j] : modes) {
        if (m == t.rates_[i].mode) {
          return make_error(
              error_code::duplicate, "rates[" + std::to_string(i) + "]",
              "a second rate for resource \"" + t.rates_[i].resource + "\" and mode \"" + m + "\" (first: rates[" + std::to_string(j) + "])");
        }
      }
      modes.emplace_back(t.rates_[i].mode, i);
    }
    for (std::size_t i = 0; i < credits.size(); ++i) {
      const std::string f = "credits[" + std::to_string(i) + "]";
      if (!(credits[i].amount.currency_value() == ccy)) {
        return make_error(error_code::currency_mismatch, f + ".amount",
                          "a credit in " + std::string(credits[i].amount.currency_value().code) + " in a tariff in " + std::string(ccy.code));
      }
      if (credits[i].amount.minor_units() < 0) return make_error(error_code::invalid_argument, f + ".amount", "a credit must not be negative");
      if (!t.credits_.emplace(credits[i].account, credits[i].amount).second) {
        return make_error(error_code::duplicate, "credits[" + std::to_string(i) + "].account",
                          "a second credit for account \"" + credits[i].account + "\"");
      }
    }
    GPURENT_TRY(t.set_commitments(std::move(commitments)));
    GPURENT_TRY(t.set_prepaid(std::move(prepaid)));
    return t;
  }
  [[nodiscard]] const currency& currency_value() const noexcept { return ccy_; }
  [[nodiscard]] const std::string& zone_name() const noexcept { return zone_name_; }
  [[nodiscard]] const date::time_zone* zone() const noexcept { return zone_; }
  [[nodiscard]] const rounding_rule& rounding() const noexcept { return rounding_; }
  [[nodiscard]] const std::vector<rate>& rates() const noexcept { return rates_; }
  [[nodiscard]] const rate& rate_at(std::size_t i) const noexcept { return rates_[i]; }
  void set_rounding(rounding_rule r) noexcept { rounding_ = r; }

  // The index of the rate selected by exact (resource, mode), without allocating.
  [[nodiscard]] std::optional<std::size_t> find(std::string_view resource, std::string_view mode) const noexcept {
    auto it = index_.find(resource);
    if (it == index_.end()) return std::nullopt;
    for (const auto& [m, i] : it->second) {
      if (m == mode) return i;
    }
    return std::nullopt;
  }
  // The prepaid credit of an account (0 when none).
  [[nodiscard]] money_value credit_for(std::string_view account) const {
    auto it = credits_.find(account);
    return it == credits_.end() ? money_value(ccy_, 0) : it->second;
  }
  // The prepaid credits, by account (byte order), so that what lists them is deterministic.
  [[nodiscard]] std::vector<credit_grant> credits() const {
    std::vector<credit_grant> v;
    v.reserve(credits_.size());
    for (const auto& [account, amount] : credits_) v.push_back({account, amount});
    std::sort(v.begin(), v.end(), [](const credit_grant& a, const credit_grant& b) { return a.account < b.account; });
    return v;
  }
  [[nodiscard]] interval month(date::year_month ym) const { return month_period(zone_, ym); }
  // The commitments, in the order given; the one of (account, rate index), if any.
  [[nodiscard]] const std::vector<tariff_commitment>& commitments() const noexcept { return commitments_; }
  [[nodiscard]] const tariff_commitment* commitment_for(std::string_view account, std::size_t rate) const noexcept {
    for (const tariff_commitment& c : commitments_)
      if (c.rate == rate && c.account == account) return &c;
    return nullptr;
  }
  // The prepaid packages, in the order they are drawn: by expiry (none last), purchase, id.
  [[nodiscard]] const std::vector<prepaid_package>& prepaid() const noexcept { return prepaid_; }
  // Whether usage of `account` on rate `rate` draws from a package of the account.
  [[nodiscard]] bool draws_prepaid(std::string_view account, std::size_t rate) const noexcept {
    const std::string& p = rates_[rate].per_tflops;
    return !p.empty() && std::ranges::any_of(prepaid_, [&](const prepaid_package& k) { return k.account == account && k.per_tflops == p; });
  }

 private:
  tariff() = default;  // only make() builds one: a tariff always has its currency and zone
  currency ccy_{};
  std::string zone_name_ = "UTC";
  const date::time_zone* zone_ = nullptr;
  rounding_rule rounding_{};
  std::vector<rate> rates_;
  std::unordered_map<std::string, std::vector<std::pair<std::string, std::size_t>>, detail::string_hash, std::equal_to<>> index_;
  std::unordered_map<std::string, money_value, detail::string_hash, std::equal_to<>> credits_;
  std::vector<tariff_commitment> commitments_;
  std::vector<prepaid_package> prepaid_;

  // Each commitment names an account and a rate of this tariff with one price for every
  // second (a commitment's coverage is not defined under tiers, packages or price changes),
  // positive units, a non-negative price, a term with an end after its start; at most one per
  // (account, rate).
  [[nodiscard]] expected<void> set_commitments(std::vector<tariff_commitment> cs) {
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const std::string f = "commitments[" + std::to_string(i) + "]";
      tariff_commitment& c = cs[i];
      if (c.account.empty()) return make_error(error_code::invalid_argument, f + ".account", "a commitment needs an account");
      const auto r = find(c.resource, c.mode);
      if (!r) return make_error(error_code::unknown_name, f + ".resource", "no rate for resource \"" + c.resource + "\" and mode \"" + c.mode + "\"");
      if (rates_[*r].kind != price_kind::unit || !rates_[*r].price.is_flat())
        return make_error(error_code::invalid_argument, f + ".resource",
                          "a commitment covers a rate with one unit price (no tiers, package, price changes or protection)");
      if (c.units <= nano_quantity{0}) return make_error(error_code::invalid_argument, f + ".units", "must be greater than 0");
      if (c.price < nano_money{0}) return make_error(error_code::invalid_argument, f + ".price", "must not be negative");
      if (c.term && c.term->empty()) return make_error(error_code::invalid_argument, f + ".end", "the term must end after it starts");
      c.rate = *r;
      for (std::size_t j = 0; j < i; ++j)
        if (cs[j].account == c.account && cs[j].rate == c.rate)
          return make_error(error_code::duplicate, f,
                            "a second commitment of account \"" + c.account + "\" on this rate (first: commitments[" + std::to_string(j) + "])");
    }
    commitments_ = std::move(cs);
    return {};
  }
  // Each package has a unique id, an account, positive TFLOPS-hours, a non-negative price, an
  // expiry after its purchase, and a precision some rate is priced per TFLOPS-hour of; a rate
  // it pays has one price for every second and no commitment of the same account.
  [[nodiscard]] expected<void> set_prepaid(std::vector<prepaid_package> ps) {
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const std::string f = "prepaid[" + std::to_string(i) + "]";
      const prepaid_package& p = ps[i];
      if (p.id.empty()) return make_error(error_code::invalid_argument, f + ".id", "a package needs an id");
      if (p.account.empty()) return make_error(error_code::invalid_argument, f + ".account", "a package needs an account");
      if (p.tflops_hours <= nano_quantity{0}) return make_error(error_code::invalid_argument, f + ".tflops_hours", "must be greater than 0");
      if (p.price < nano_money{0}) return make_error(error_code::invalid_argument, f + ".price", "must not be negative");
      if (p.expires && *p.expires <= p.bought) return make_error(error_code::invalid_argument, f + ".expires", "must be after bought");
      for (std::size_t j = 0; j < i; ++j)
        if (ps[j].id == p.id)
          return make_error(error_code::duplicate, f + ".id", "a second package \"" + p.id + "\" (first: prepaid[" + std::to_string(j) + "])");
      bool priced = false;
      for (std::size_t r = 0; r < rates_.size(); ++r) {
        if (rates_[r].per_tflops != p.per_tflops) continue;
        priced = true;
        if (!rates_[r].price.is_flat() || commitment_for(p.account, r) != nullptr)
          return make_error(error_code::invalid_argument, f + ".per_tflops",
                            "the rate of " + rates_[r].resource + "/" + rates_[r].mode +
                                " has price changes, protection or a commitment of this account: a package pays a rate with one price");
      }
      if (!priced) return make_error(error_code::unknown_name, f + ".per_tflops", "no rate is priced per TFLOPS-hour of \"" + p.per_tflops + "\"");
    }
    const auto order = [](const prepaid_package& p) {
      return std::tuple<instant, instant, const std::string&>(p.expires.value_or(instant::max()), p.bought, p.id);
    };
    std::ranges::stable_sort(ps, [&](const prepaid_package& a, const prepaid_package& b) { return order(a) < order(b); });
    prepaid_ = std::move(ps);
    return {};
  }
};

}  // namespace gpurent
