// SPDX-License-Identifier: MIT
#pragma once
// Reads an offers document (docs/planning.md):
//   {"currency": "USD", "rounding": "half_even", "offers": [{...}, ...]}
// Each offer's price becomes a tariff `rate` (tariff/rate.hpp), made by the tariff's own
// constructors, so an offer's price obeys exactly the rules of a tariff file's rate.
// Errors name the JSON path ("offers[3].tiers.steps[1].price") and the file.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/rounding.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/io/text/json_reader.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

namespace detail::offers_json {
using io::json;
using io::json_object;

// A tariff constructor's error, placed at `path` (its field is relative to the rate, and
// a tariff's "unit_price" is an offer's "price").
[[nodiscard]] inline unexpected<error> at(const error& e, const std::string& path) {
  std::string field = e.field;
  for (std::size_t k = field.find("unit_price"); k != std::string::npos; k = field.find("unit_price", k)) field.replace(k, 10, "price");
  return make_error(e.code, field.empty() ? path : path + "." + field, e.message);
}

// "price_changes": [{"from": instant, "price": decimal}, ...], then the schedule.
[[nodiscard]] inline expected<price_schedule> read_schedule(json_object& r, nano_price base) {
  std::vector<price_change> changes;
  GPURENT_TRY(list, r.array("price_changes"));
  for (std::size_t i = 0; *list != nullptr && i < (*list)->size(); ++i) {
    json_object c((**list)[i], io::json_item(r.field("price_changes"), i));
    GPURENT_TRY(c.check());
    price_change pc;
    GPURENT_TRY(c.time_point("from", pc.from, true));
    GPURENT_TRY(io::detail::tariff_json::nano(c, "price", pc.unit_price, true));
    GPURENT_TRY(c.finish());
    changes.push_back(pc);
  }
  auto s = price_schedule::make(base, std::move(changes));
  if (!s) return at(s.error(), r.path());
  return s;
}

// "tiers": {"mode": "graduated" | "volume", "steps": [{"up_to": unit-hours | null, "price": ...}]}
[[nodiscard]] inline expected<tier_table> read_tiers(const json& j, const std::string& path) {
  json_object t(j, path);
  GPURENT_TRY(t.check());
  std::string mode;
  GPURENT_TRY(t.string("mode", mode, true));
  if (mode != "graduated" && mode != "volume") return t.fail("mode", "expected graduated or volume, got \"" + mode + "\"");
  GPURENT_TRY(steps, t.array("steps", true));
  std::vector<tier_step> out;
  for (std::size_t i = 0; i < (*steps)->size(); ++i) {
    json_object s((**steps)[i], io::json_item(t.field("steps"), i));
    GPURENT_TRY(s.check());
    tier_step step;
    if (s.has("up_to")) {
      nano_unit_hours up{};
      GPURENT_TRY(io::detail::tariff_json::nano(s, "up_to", up, true));
      step.up_to = up;
    }
    GPURENT_TRY(io::detail::tariff_json::nano(s, "price", step.unit_price, true));
    GPURENT_TRY(s.finish());
    out.push_back(step);
  }
  GPURENT_TRY(t.finish());
  auto table = tier_table::make(mode == "graduated" ? tier_mode::graduated : tier_mode::volume, std::move(out));
  if (!table) return at(table.error(), path);
  return table;
}

// The price of one unit: price per `per` (with price changes) or tiers, then the billing
// rule (increment, minimum).
[[nodiscard]] inline expected<rate> read_pricing(json_object& r) {
  rate out;
  GPURENT_TRY(r.duration("per", out.per));
  seconds increment{1}, minimum{0};
  GPURENT_TRY(r.duration("increment", increment));
  GPURENT_TRY(r.duration("minimum", minimum));
  auto rule = billing_rule::make(increment, minimum);
  if (!rule) return at(rule.error(), r.path());
  out.time = *rule;
  if (const json* t = r.find("tiers")) {
    if (r.has("price")) return r.fail("price", "a rate has either price or tiers, not both");
    if (r.has("price_changes")) return r.fail("price_changes", "price_changes cannot be combined with tiers");
    GPURENT_TRY(tiers, read_tiers(*t, r.field("tiers")));
    out.kind = price_kind::tiers;
    out.tiers = std::move(*tiers);
    return out;
  }
  nano_price price{};
  GPURENT_TRY(io::detail::tariff_json::nano(r, "price", price, true));
  GPURENT_TRY(schedule, read_schedule(r, price));
  out.price = std::move(*schedule);
  return out;
}

// "spot": {"notice": duration, "interruptions_per_hour": decimal}
[[nodiscard]] inline expected<void> read_spot(json_object& r, offer& o) {
  const json* s = r.find("spot");
  if (s == nullptr) {
    if (o.mode == offer_mode::spot) return r.fail("spot", "a spot offer needs {\"notice\", \"interruptions_per_hour\"}");
    return {};
  }
  json_object sr(*s, r.field("spot"));
  GPURENT_TRY(sr.check());
  decimal<6> rate{};
  GPURENT_TRY(sr.duration("notice", o.notice));
  GPURENT_TRY(sr.dec("interruptions_per_hour", rate, true));
  if (rate.raw() < 0 || rate.raw() > std::int64_t{3600} * 1'000'000)
    return sr.fail("interruptions_per_hour", "must be between 0 and 3600 (one a second)");
  GPURENT_TRY(sr.finish());
  o.interruptions_per_hour = static_cast<double>(rate.raw().convert_to<std::int64_t>()) / 1e6;
  return {};
}

// Residency and isolation (docs/isolation.md): "zone", "jurisdiction", and "isolation" (none,
// gpu, node, network: what the provider guarantees; default by unit). A time-sliced fraction
// cannot promise more than none: it keeps no memory apart from the other tenants on its GPU.
[[nodiscard]] inline expected<void> read_residency(json_object& r, offer& o) {
  GPURENT_TRY(r.string("zone", o.zone));
  GPURENT_TRY(r.string("jurisdiction", o.jurisdiction));
  if (!r.has("isolation")) return {};
  isolation_level level{};
  GPURENT_TRY(r.enumeration("isolation", level));
  if (o.unit == offer_unit::fraction && level != isolation_level::none) {
    return r.fail("isolation", "a time-sliced fraction keeps no memory apart from other tenants: its isolation is none");
  }
  o.isolation = level;
  return {};
}

// Where the price and the billing terms came from, when the price was seen, and the rate of
// unexpected (non-spot) interruptions per GPU-hour.
[[nodiscard]] inline expected<void> read_provenance(json_object& r, offer& o) {
  GPURENT_TRY(r.string("source", o.source));
  GPURENT_TRY(r.string("terms_source", o.terms_source));
  if (r.has("seen")) {
    instant seen{};
    GPURENT_TRY(r.time_point("seen", seen, true));
    o.seen = seen;
  }
  if (r.has("failures_per_gpu_hour")) {
    decimal<9> rate{};
    GPURENT_TRY(r.dec("failures_per_gpu_hour", rate, true));
    if (rate.raw() < 0) return r.fail("failures_per_gpu_hour", "a failure rate cannot be negative");
    o.failures_per_gpu_hour = rate;
  }
  return {};
}

// What is rented: provider, GPU model and count, the unit sold, the capacity mode.
[[nodiscard]] inline expected<void> read_unit(json_object& r, offer& o) {
  std::int64_t vram_gib = 0;
  decimal<3> tflops{};
  GPURENT_TRY(r.string("id", o.id, true));
  GPURENT_TRY(r.string("provider", o.provider));
  GPURENT_TRY(r.string("region", o.region));
  GPURENT_TRY(r.string("instance", o.instance));
  GPURENT_TRY(r.string("gpu", o.gpu, true));
  GPURENT_TRY(r.integer("gpu_count", o.gpu_count, 1, 1024));
  GPURENT_TRY(r.integer("vram_gib", vram_gib, 1, std::int64_t{1} << 20));
  GPURENT_TRY(r.dec("tflops", tflops));
  GPURENT_TRY(r.integer("vcpus", o.vcpus, 0, 1 << 20));
  GPURENT_TRY(r.integer("memory_gib", o.memory_gib, 0, std::int64_t{1} << 30));
  GPURENT_TRY(r.integer("disk_gib", o.disk_gib, 0, std::int64_t{1} << 40));
  GPURENT_TRY(r.enumeration("unit", o.unit));
  GPURENT_TRY(r.string("mig_profile", o.mig_profile, o.unit == offer_unit::mig_slice));
  GPURENT_TRY(r.dec("fraction_step", o.fraction_step, o.unit == offer_unit::fraction));
  GPURENT_TRY(r.enumeration("mode", o.mode));
  GPURENT_TRY(r.boolean("multi_node", o.multi_node));
  GPURENT_TRY(r.integer("max_units", o.max_units, 1, 1 << 24));
  GPURENT_TRY(read_residency(r, o));
  GPURENT_TRY(read_provenance(r, o));
  if (tflops.raw() > std::int64_t{1} << 40)  // a negative one is refused with the other figures (planning/offer.hpp)
    return r.fail("tflops", "must be at most " + std::to_string((std::int64_t{1} << 40) / 1000) + " TFLOPS");
  o.vram_mib = vram_gib * 1024;
  o.gflops = tflops.raw().convert_to<std::int64_t>();
  return {};
}

// "owned": {"fixed_cost": decimal}, for mode "owned": what one unit costs per billing
// period whatever its use; its `price` is then the marginal cost of using it (power).
[[nodiscard]] inline expected<void> read_owned(json_object& r, offer& o) {
  const json* s = r.find("owned");
  if (s == nullptr) {
    if (o.mode == offer_mode::owned) return r.fail("owned", "an owned offer needs {\"fixed_cost\"} (per unit and billing period)");
    return {};
  }
  if (o.mode != offer_mode::owned) return r.fail("owned", "only an offer of mode owned has an owned cost");
  json_object sr(*s, r.field("owned"));
  GPURENT_TRY(sr.check());
  GPURENT_TRY(sr.dec("fixed_cost", o.fixed_cost, true));
  return sr.finish();
}

// Storage and network of a unit, where the provider states them.
[[nodiscard]] inline expected<void> read_storage(json_object& r, offer& o) {
  constexpr std::int64_t most = std::int64_t{1} << 40;
  GPURENT_TRY(r.integer("storage_read_mb_per_s", o.storage_read_mb_per_s, 0, most));
  GPURENT_TRY(r.integer("storage_write_mb_per_s", o.storage_write_mb_per_s, 0, most));
  return r.integer("internode_gbit_per_s", o.internode_gbit_per_s, 0, most);
}

[[nodiscard]] inline expected<offer> read_offer(const json& j, const std::string& path) {
  json_object r(j, path);
  GPURENT_TRY(r.check());
  offer o;
  GPURENT_TRY(read_unit(r, o));
  GPURENT_TRY(pricing, read_pricing(r));
  o.pricing = std::move(*pricing);
  GPURENT_TRY(read_spot(r, o));
  GPURENT_TRY(read_owned(r, o));
  GPURENT_TRY(read_storage(r, o));
  GPURENT_TRY(r.finish());
  return o;
}

// "quotas": [{"provider": "...", "region": "...", "max_gpus": N}, ...]
[[nodiscard]] inline expected<std::vector<offer_quota>> read_quotas(json_object& r) {
  std::vector<offer_quota> out;
  GPURENT_TRY(list, r.array("quotas"));
  for (std::size_t i = 0; *list != nullptr && i < (*list)->size(); ++i) {
    json_object q((**list)[i], io::json_item("quotas", i));
    GPURENT_TRY(q.check());
    offer_quota quota;
    GPURENT_TRY(q.string("provider", quota.provider));
    GPURENT_TRY(q.string("region", quota.region));
    GPURENT_TRY(q.integer("max_gpus", quota.max_gpus, 0, std::int64_t{1} << 30, true));
    GPURENT_TRY(q.finish());
    if (quota.provider.empty() && quota.region.empty()) return q.fail("provider", "a quota names a provider, a region or both");
    out.push_back(std::move(quota));
  }
  return out;
}

// The document's offers.
[[nodiscard]] inline expected<offer_catalog> read_offers(const json& j) {
  json_object r(j, "");
  GPURENT_TRY(r.check());
  std::string ccy = "USD";
  rounding_mode rounding = rounding_mode::half_even;
  GPURENT_TRY(r.string("currency", ccy));
  GPURENT_TRY(r.enumeration("rounding", rounding));
  auto c = parse_currency(ccy);
  if (!c) return unexpected<error>(c.error().in_field("currency"));
  GPURENT_TRY(list, r.array("offers", true));
  std::vector<offer> offers;
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    GPURENT_TRY(o, read_offer((**list)[i], io::json_item("offers", i)));
    offers.push_back(std::move(*o));
  }
  GPURENT_TRY(quotas, read_quotas(r));
  GPURENT_TRY(r.finish());
  return offer_catalog::make(*c, rounding, std::move(offers), std::move(*quotas));
}
}  // namespace detail::offers_json

// An offers document from JSON text; `file` names it in errors ("file:line", the line of the
// field an error names).
[[nodiscard]] inline expected<offer_catalog> read_offers_json(std::string_view text, std::string_view file = {}) {
  GPURENT_TRY(j, io::parse_json_text(text, file));
  auto c = detail::offers_json::read_offers(*j);
  if (!c && !file.empty()) return unexpected(io::json_located(std::move(c.error()), text, file));
  return c;
}

// The same from a file; errors carry the file name in `where`.
[[nodiscard]] inline expected<offer_catalog> read_offers_file(const std::string& path) {
  GPURENT_TRY(text, io::read_file(path));
  auto c = read_offers_json(*text, path);
  if (!c && c.error().where.empty()) return unexpected<error>(error{c.error().code, c.error().field, c.error().message, path});
  return c;
}

}  // namespace gpurent
