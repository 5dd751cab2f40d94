// SPDX-License-Identifier: MIT
#pragma once
// The price a plan line was decided at, and where it came from: the offer's unit price in
// force at the job's start and every change that takes effect during its run (or its tiers),
// its billing terms, and the offer's `source`, `seen` and `terms_source`. A plan records it
// so that a later cost report prices the plan's decisions as they were made, never at
// whatever the catalog says on the day of the report (SkyPilot's issue 2780).

#include <optional>
#include <string>
#include <vector>

#include <gpurent/core/time.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

struct price_record {
  std::string offer;
  offer_mode mode = offer_mode::on_demand;
  offer_unit unit = offer_unit::gpu;
  nano_price unit_price{};  // per unit per `per`, in force at the start (tiered: per unit-hour, the first step)
  seconds per{3600};
  std::vector<price_change> changes;  // taking effect after the start and before the end
  std::vector<tier_step> tiers;       // a tiered offer's steps (then unit_price is the first)
  bool volume_tiers = false;          // tiers: volume (else graduated)
  seconds increment{1};               // billing terms
  seconds minimum{0};
  std::string source;           // the offer's price source ("" when it states none)
  std::optional<instant> seen;  // when the price was seen
  std::string terms_source;     // where the billing terms came from
};

// What offer o charged for a line running over [start, end).
[[nodiscard]] inline price_record price_record_of(const offer& o, instant start, instant end) {
  price_record r;
  r.offer = o.id;
  r.mode = o.mode;
  r.unit = o.unit;
  r.increment = o.pricing.time.increment();
  r.minimum = o.pricing.time.minimum();
  r.source = o.source;
  r.seen = o.seen;
  r.terms_source = o.terms_source;
  if (o.tiered()) {
    r.tiers = o.pricing.tiers.steps();
    r.volume_tiers = o.pricing.tiers.mode() == tier_mode::volume;
    r.unit_price = r.tiers.front().unit_price;
    return r;
  }
  r.unit_price = o.pricing.price.price_at(start);
  r.per = o.pricing.per;
  for (const price_change& c : o.pricing.price.changes())
    if (c.from > start && c.from < end) r.changes.push_back(c);
  return r;
}

}  // namespace gpurent
