// SPDX-License-Identifier: MIT
#pragma once
// The supply a plan draws on: a capacity ledger (planning/ledger.hpp) with one resource per
// offer (its max_units) and one per quota (GPUs across a provider's or a region's offers).
// A job holds all the units it rents from its start to its end; shared units likewise for
// the span of the jobs on them.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <gpurent/core/time.hpp>
#include <gpurent/planning/ledger.hpp>
#include <gpurent/planning/offer.hpp>

namespace gpurent {

class plan_supply {
 public:
  explicit plan_supply(const offer_catalog& cat) : cat_(&cat) {
    for (const offer& o : cat.offers()) offer_resource_.push_back(ledger_.add_resource(o.max_units));
    for (const offer_quota& q : cat.quotas()) quota_resource_.push_back(ledger_.add_resource(q.max_gpus * 1000));
  }
  // `units` of offer oi from `from` to `to`, with nothing over any capacity.
  [[nodiscard]] bool fits(std::size_t oi, std::int64_t units, instant from, instant to) const {
    const auto c = claims(oi, units);
    return ledger_.fits(c, from, to);
  }
  void reserve(std::size_t oi, std::int64_t units, instant from, instant to) {
    const auto c = claims(oi, units);
    ledger_.reserve(c, from, to);
  }
  // Undoes a reservation (a search trying alternatives).
  void release(std::size_t oi, std::int64_t units, instant from, instant to) { reserve(oi, -units, from, to); }
  // The first limit that `units` of oi over [from, to) would exceed: the offer's own units
  // (quota false) or quota `index` of the catalog; none when they fit.
  struct full_limit {
    bool quota = false;
    std::size_t index = 0;
  };
  [[nodiscard]] std::optional<full_limit> first_full(std::size_t oi, std::int64_t units, instant from, instant to) const {
    const capacity_ledger::claim own{offer_resource_[oi], units};
    if (!ledger_.fits(std::span(&own, 1), from, to)) return full_limit{false, oi};
    const offer& o = (*cat_)[oi];
    for (std::size_t q = 0; q < cat_->quotas().size(); ++q) {
      const capacity_ledger::claim c{quota_resource_[q], units * o.unit_milli_gpu()};
      if (cat_->quotas()[q].covers(o) && !ledger_.fits(std::span(&c, 1), from, to)) return full_limit{true, q};
    }
    return std::nullopt;
  }
  // The earliest start in [earliest, latest] at which `units` of oi are free for `length`.
  [[nodiscard]] std::optional<instant> earliest_fit(std::size_t oi, std::int64_t units, instant earliest, instant latest, seconds length) const {
    if (latest < earliest) return std::nullopt;
    const auto c = claims(oi, units);
    return ledger_.earliest_fit(c, earliest, latest, length);
  }

 private:
  [[nodiscard]] std::vector<capacity_ledger::claim> claims(std::size_t oi, std::int64_t units) const {
    const offer& o = (*cat_)[oi];
    std::vector<capacity_ledger::claim> c{{offer_resource_[oi], units}};
    for (std::size_t q = 0; q < cat_->quotas().size(); ++q)
      if (cat_->quotas()[q].covers(o)) c.push_back({quota_resource_[q], units * o.unit_milli_gpu()});
    return c;
  }

  const offer_catalog* cat_;
  capacity_ledger ledger_;
  std::vector<std::size_t> offer_resource_;
  std::vector<std::size_t> quota_resource_;
};

}  // namespace gpurent
