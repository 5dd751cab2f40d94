// SPDX-License-Identifier: MIT
#pragma once
// Reads a tariff from JSON (docs/formats/billing.md, plus the library's extras:
// rounding_point, forgive_below_minor_unit, carry, protection, package, flat_fee). Every
// error names the file and the JSON path of the field ("rates[2].tiers.steps[1].up_to").
// Decimals are strings: a JSON number would already have been rounded by someone's double.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/core/currency.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/rounding.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/io/text/json_reader.hpp>
#include <gpurent/spec/catalog.hpp>
#include <gpurent/tariff/tariff.hpp>

namespace gpurent::io {

namespace detail::tariff_json {

// A non-negative decimal string as a typed nano amount (a price, a fee, a bound, a size).
template <class T>
expected<void> nano(json_object& o, std::string_view key, T& out, bool required = false) {
  return o.parsed(
      key, out, "a decimal string such as \"2.49\"",
      [](std::string_view s) -> expected<T> {
        GPURENT_TRY(v, parse_non_negative_nano(s));
        return T(*v);
      },
      required);
}

// A constructor's error (field relative to `at`) placed at `at`'s path.
[[nodiscard]] inline unexpected<error> relative(const error& e, const json_object& at) { return unexpected<error>(e.in_field(at.field(e.field))); }

[[nodiscard]] inline expected<tier_step> read_step(const json& j, const std::string& path) {
  json_object o(j, path);
  GPURENT_TRY(o.check());
  tier_step st;
  const json* up = o.member("up_to");
  if (up == nullptr) return o.fail("up_to", "missing required field (use null for no bound)");
  if (!up->is_null()) {
    nano_unit_hours bound{};
    GPURENT_TRY(nano(o, "up_to", bound, true));
    st.up_to = bound;
  }
  GPURENT_TRY(nano(o, "unit_price", st.unit_price, true));
  GPURENT_TRY(nano(o, "flat_fee", st.flat_fee));
  GPURENT_TRY(o.finish());
  return st;
}

[[nodiscard]] inline expected<tier_table> read_tiers(const json& j, const std::string& path) {
  json_object o(j, path);
  GPURENT_TRY(o.check());
  tier_mode mode{};
  GPURENT_TRY(o.enumeration("mode", mode, true));
  GPURENT_TRY(steps, o.array("steps", true));
  GPURENT_TRY(o.finish());
  std::vector<tier_step> out;
  for (std::size_t i = 0; i < (*steps)->size(); ++i) {
    GPURENT_TRY(st, read_step((**steps)[i], json_item(o.field("steps"), i)));
    out.push_back(*st);
  }
  auto t = tier_table::make(mode, std::move(out));
  if (!t) return relative(t.error(), o);
  return t;
}

// A package; package_pricing::make names its fields "package.size": placed in `rate`.
[[nodiscard]] inline expected<package_pricing> read_package(const json& j, const json_object& rate) {
  json_object o(j, rate.field("package"));
  GPURENT_TRY(o.check());
  nano_unit_hours size{};
  nano_money price{};
  GPURENT_TRY(nano(o, "size", size, true));
  GPURENT_TRY(nano(o, "price", price, true));
  GPURENT_TRY(o.finish());
  auto p = package_pricing::make(size, price);
  if (!p) return relative(p.error(), rate);
  return p;
}

[[nodiscard]] inline expected<std::vector<price_change>> read_changes(const json* changes, const std::string& path) {
  std::vector<price_change> out;
  for (std::size_t i = 0; changes != nullptr && i < changes->size(); ++i) {
    json_object c((*changes)[i], json_item(path, i));
    GPURENT_TRY(c.check());
    price_change pc;
    GPURENT_TRY(c.time_point("from", pc.from, true));
    GPURENT_TRY(nano(c, "unit_price", pc.unit_price, true));
    GPURENT_TRY(c.finish());
    out.push_back(pc);
  }
  return out;
}

// A rate's members as written, before the rules between them are checked.
struct rate_members {
  rate r;
  std::optional<nano_price> unit_price;
  std::optional<seconds> per, increment, minimum, protection;
  std::string per_tflops;
  const json* changes = nullptr;
  const json* tiers = nullptr;
  const json* package = nullptr;
};

[[nodiscard]] inline expected<void> read_optional_duration(json_object& o, std::string_view key, std::optional<seconds>& out) {
  seconds d{0};
  GPURENT_TRY(o.duration(key, d));
  if (o.has(key)) out = d;
  return {};
}

// Every member in the order the unknown-field message lists them, then that check.
[[nodiscard]] inline expected<rate_members> read_rate_members(json_object& o) {
  rate_members m;
  GPURENT_TRY(o.name("resource", m.r.resource, true));
  GPURENT_TRY(o.name("mode", m.r.mode, true));
  nano_price price{};
  GPURENT_TRY(nano(o, "unit_price", price));
  if (o.has("unit_price")) m.unit_price = price;
  GPURENT_TRY(read_optional_duration(o, "per", m.per));
  GPURENT_TRY(read_optional_duration(o, "increment", m.increment));
  GPURENT_TRY(read_optional_duration(o, "minimum", m.minimum));
  GPURENT_TRY(changes, o.array("price_changes"));
  m.changes = *changes;
  m.tiers = o.find("tiers");
  m.package = o.find("package");
  GPURENT_TRY(read_optional_duration(o, "protection", m.protection));
  GPURENT_TRY(o.string("per_tflops", m.per_tflops));
  GPURENT_TRY(o.finish());
  return m;
}

// One price model per rate; what goes with a unit price (per, changes, protection) only with one.
[[nodiscard]] inline expected<void> check_price_model(const json_object& o, const rate_members& m) {
  const int models = (m.unit_price ? 1 : 0) + (m.tiers ? 1 : 0) + (m.package ? 1 : 0);
  if (models == 0) return o.fail("unit_price", "a rate needs unit_price or tiers");
  if (models > 1) return o.fail(m.tiers ? "tiers" : "package", "a rate has either unit_price, tiers or package, not several");
  if (m.per && m.per->count() <= 0) return o.fail("per", "must be positive");
  if (!m.per && m.unit_price && m.per_tflops.empty()) return o.fail("per", "missing (the duration unit_price is for, e.g. \"1h\")");
  if (m.changes && !m.unit_price) {
    return o.fail("price_changes", m.tiers ? "price_changes cannot be combined with tiers" : "price_changes need a unit_price");
  }
  if (m.protection && !m.unit_price) return o.fail("protection", "a protection period needs a unit_price");
  if (!m.per_tflops.empty() && !m.unit_price) return o.fail("per_tflops", "a price per TFLOPS-hour needs a unit_price");
  return {};
}

// A rate priced per TFLOPS-hour (`per_tflops`: a precision) as a rate per GPU-hour of the
// catalog model its resource names (`compute/MODEL`), at that model's dense throughput in
// that precision (docs/formats/billing.md, "Compute units"); exact (compute_unit_rate).
[[nodiscard]] inline expected<rate> per_tflops_rate(rate r, const json_object& o, const rate_members& m) {
  static constexpr std::array<std::pair<std::string_view, std::optional<sourced<gflops>> dense_throughput::*>, 6> precisions{
      {{"fp64", &dense_throughput::fp64},
       {"fp64_tensor", &dense_throughput::fp64_tensor},
       {"fp32", &dense_throughput::fp32},
       {"tf32", &dense_throughput::tf32},
       {"fp16", &dense_throughput::fp16},
       {"fp8", &dense_throughput::fp8}}};
  if (!m.unit_price) return o.fail("per_tflops", "a price per TFLOPS-hour needs a unit_price");
  if (m.per && *m.per != seconds{3600}) return o.fail("per", "a price per TFLOPS-hour is per hour: leave per out or write \"1h\"");
  const auto p = std::ranges::find(precisions, std::string_view(m.per_tflops),
                                   &std::pair<std::string_view, std::optional<sourced<gflops>> dense_throughput::*>::first);
  if (p == precisions.end()) return o.fail("per_tflops", "expected fp64, fp64_tensor, fp32, tf32, fp16 or fp8, got \"" + m.per_tflops + "\"");
  const std::string_view res = r.resource;
  if (kind_of_resource(res) != resource_kind::compute_unit) return o.fail("resource", "a price per TFLOPS-hour needs a resource named compute/MODEL");
  const gpu_model* model = find_model(res.substr(res.find('/') + 1));
  if (model == nullptr)
    return o.fail("resource", "\"" + std::string(res.substr(res.find('/') + 1)) + "\" is not a GPU model of the catalog (gpurent catalog)");
  const auto& figure = model->throughput.*(p->second);
  if (!figure) return o.fail("per_tflops", "the catalog has no " + m.per_tflops + " figure for " + std::string(model->name));
  auto converted = compute_unit_rate(std::move(r), figure->value);
  if (!converted) return relative(converted.error(), o);
  converted->per_tflops = m.per_tflops;
  return converted;
}

[[nodiscard]] inline expected<rate> read_rate(const json& j, const std::string& path) {
  json_object o(j, path);
  GPURENT_TRY(o.check());
  GPURENT_TRY(m, read_rate_members(o));
  GPURENT_TRY(check_price_model(o, *m));
  rate r = std::move(m->r);
  r.per = m->per.value_or(seconds{3600});
  auto rule = billing_rule::make(m->increment.value_or(seconds{1}), m->minimum.value_or(seconds{0}));
  if (!rule) return relative(rule.error(), o);
  r.time = *rule;
  if (m->unit_price) {
    r.kind = price_kind::unit;
    GPURENT_TRY(changes, read_changes(m->changes, o.field("price_changes")));
    auto s = price_schedule::make(*m->unit_price, std::move(*changes), m->protection.value_or(seconds{0}));
    if (!s) return relative(s.error(), o);
    r.price = std::move(*s);
    if (o.has("per_tflops")) return per_tflops_rate(std::move(r), o, *m);
  } else if (m->tiers) {
    r.kind = price_kind::tiers;
    GPURENT_TRY(t, read_tiers(*m->tiers, o.field("tiers")));
    r.tiers = std::move(*t);
  } else {
    r.kind = price_kind::package;
    GPURENT_TRY(p, read_package(*m->package, o));
    r.package = *p;
  }
  return r;
}

[[nodiscard]] inline expected<std::vector<credit_grant>> read_credits(const json* credits, const currency& ccy) {
  std::vector<credit_grant> out;
  for (std::size_t i = 0; credits != nullptr && i < credits->size(); ++i) {
    json_object c((*credits)[i], json_item("credits", i));
    GPURENT_TRY(c.check());
    credit_grant g{{}, money_value(ccy, 0)};
    GPURENT_TRY(c.name("account", g.account, true));
    GPURENT_TRY(c.parsed(
        "amount", g.amount, "a decimal string such as \"2.49\"", [&](std::string_view s) { return money_value::parse(ccy, s); }, true));
    GPURENT_TRY(c.finish());
    out.push_back(std::move(g));  // tariff::make checks the amounts
  }
  return out;
}

// The commitments: account, resource, mode, units, price and an optional term (start and end
// together); what needs the rates is tariff::make's to check.
[[nodiscard]] inline expected<std::vector<tariff_commitment>> read_commitments(const json* commitments) {
  std::vector<tariff_commitment> out;
  for (std::size_t i = 0; commitments != nullptr && i < commitments->size(); ++i) {
    json_object c((*commitments)[i], json_item("commitments", i));
    GPURENT_TRY(c.check());
    tariff_commitment k;
    instant start{}, end{};
    GPURENT_TRY(c.name("account", k.account, true));
    GPURENT_TRY(c.name("resource", k.resource, true));
    GPURENT_TRY(c.name("mode", k.mode, true));
    GPURENT_TRY(nano(c, "units", k.units, true));
    GPURENT_TRY(nano(c, "price", k.price, true));
    GPURENT_TRY(c.time_point("start", start));
    GPURENT_TRY(c.time_point("end", end));
    if (c.has("start") != c.has("end")) return c.fail(c.has("start") ? "end" : "start", "a term needs both start and end");
    if (c.has("start")) {
      if (end <= start) return c.fail("end", "the term must end after it starts");
      k.term = *interval::make(start, end);
    }
    GPURENT_TRY(c.finish());
    out.push_back(std::move(k));
  }
  return out;
}

// The prepaid packages: id, account, per_tflops (a precision), tflops_hours, price, bought and
// an optional expiry; what needs the rates is tariff::make's to check.
[[nodiscard]] inline expected<std::vector<prepaid_package>> read_prepaid(const json* packages) {
  std::vector<prepaid_package> out;
  for (std::size_t i = 0; packages != nullptr && i < packages->size(); ++i) {
    json_object c((*packages)[i], json_item("prepaid", i));
    GPURENT_TRY(c.check());
    prepaid_package p;
    instant expires{};
    GPURENT_TRY(c.name("id", p.id, true));
    GPURENT_TRY(c.name("account", p.account, true));
    GPURENT_TRY(c.string("per_tflops", p.per_tflops, true));
    GPURENT_TRY(nano(c, "tflops_hours", p.tflops_hours, true));
    GPURENT_TRY(nano(c, "price", p.price, true));
    GPURENT_TRY(c.time_point("bought", p.bought, true));
    GPURENT_TRY(c.time_point("expires", expires));
    if (c.has("expires")) p.expires = expires;
    GPURENT_TRY(c.finish());
    out.push_back(std::move(p));
  }
  return out;
}

// The top level: its members, then the currency and zone, the rates, the credits, the
// commitments and packages, and what only the whole tariff can check (tariff::make).
[[nodiscard]] inline expected<tariff> read_tariff(const json& j) {
  json_object o(j, "");
  GPURENT_TRY(o.check());
  std::string code, zone;
  rounding_rule rr;
  GPURENT_TRY(o.string("currency", code, true));
  GPURENT_TRY(o.string("timezone", zone, true));
  GPURENT_TRY(o.enumeration("rounding", rr.mode));
  GPURENT_TRY(o.enumeration("rounding_point", rr.point));
  GPURENT_TRY(o.boolean("forgive_below_minor_unit", rr.forgive_below_minor_unit));
  GPURENT_TRY(o.boolean("carry", rr.carry));
  GPURENT_TRY(rates, o.array("rates", true));
  GPURENT_TRY(credits, o.array("credits"));
  GPURENT_TRY(commitments, o.array("commitments"));
  GPURENT_TRY(prepaid, o.array("prepaid"));
  GPURENT_TRY(o.finish());
  auto ccy = parse_currency(code);
  if (!ccy) return unexpected<error>(ccy.error().in_field("currency"));
  if (auto z = find_zone(zone); !z) return unexpected<error>(z.error().in_field("timezone"));
  std::vector<rate> rs;
  for (std::size_t i = 0; i < (*rates)->size(); ++i) {
    GPURENT_TRY(r, read_rate((**rates)[i], json_item("rates", i)));
    rs.push_back(std::move(*r));
  }
  GPURENT_TRY(cs, read_credits(*credits, *ccy));
  GPURENT_TRY(ks, read_commitments(*commitments));
  GPURENT_TRY(ps, read_prepaid(*prepaid));
  return tariff::make(*ccy, zone, rr, std::move(rs), std::move(*cs), std::move(*ks), std::move(*ps));
}

}  // namespace detail::tariff_json

// A tariff from JSON text; `file` names it in errors.
[[nodiscard]] inline expected<tariff> parse_tariff_json(std::string_view text, std::string_view file = "tariff.json") {
  auto t = [&]() -> expected<tariff> {
    GPURENT_TRY(j, parse_json_text(text, file));
    return detail::tariff_json::read_tariff(*j);
  }();
  if (!t) return unexpected(json_located(std::move(t.error()), text, file));
  return t;
}

// A tariff from a JSON file.
[[nodiscard]] inline expected<tariff> load_tariff_json(const std::string& path) {
  GPURENT_TRY(text, read_file(path));
  return parse_tariff_json(*text, path);
}

// What divides a unit rate's nano base price into the unit price its tariff writes: the GFLOPS
// of a compute-unit rate (`per_tflops`: the price per TFLOPS-hour), else the rate's price
// divisor (the price per `per`). The tariff writer and the invoice's pricing columns both
// state a unit price with it.
[[nodiscard]] inline std::int64_t written_price_divisor(const rate& r) noexcept { return r.per_tflops.empty() ? r.price_divisor : r.tflops_gflops; }

namespace detail {
// A nano amount as the shortest exact decimal: "2.49", "100".
[[nodiscard]] inline std::string nano_exact(std::int64_t nano) { return format_exact(ratio<>(int128(nano), int128(::gpurent::detail::nano_one))); }

// A nano amount divided by `divisor` as the shortest exact decimal; an error when it does
// not terminate (a compute-unit price whose division the format cannot hold).
[[nodiscard]] inline expected<std::string> nano_text(std::int64_t nano, std::int64_t divisor, const std::string& field) {
  const std::string s = format_exact(ratio<>(int128(nano), int128(::gpurent::detail::nano_one) * divisor));
  if (s.find('/') != std::string::npos) return make_error(error_code::unsupported, field, "the price " + s + " is not a terminating decimal");
  return s;
}

[[nodiscard]] inline expected<json> price_json(const rate& r, const std::string& at) {
  json out = json::object();
  if (r.kind == price_kind::unit) {
    const std::int64_t divisor = written_price_divisor(r);
    GPURENT_TRY(base, nano_text(r.price.base().raw(), divisor, at + ".unit_price"));
    out["unit_price"] = *base;
    if (!r.per_tflops.empty()) out["per_tflops"] = r.per_tflops;
    json changes = json::array();
    for (const price_change& c : r.price.changes()) {
      GPURENT_TRY(p, nano_text(c.unit_price.raw(), divisor, at + ".price_changes"));
      changes.push_back({{"from", format_instant(c.from)}, {"unit_price", *p}});
    }
    if (!changes.empty()) out["price_changes"] = std::move(changes);
    if (r.price.protection().count() != 0) out["protection"] = format_duration(r.price.protection());
  } else if (r.kind == price_kind::tiers) {
    json steps = json::array();
    for (const tier_step& t : r.tiers.steps()) {
      json step = {{"up_to", t.up_to ? json(nano_exact(t.up_to->raw())) : json(nullptr)}, {"unit_price", nano_exact(t.unit_price.raw())}};
      if (t.flat_fee != nano_money{0}) step["flat_fee"] = nano_exact(t.flat_fee.raw());
      steps.push_back(std::move(step));
    }
    out["tiers"] = {{"mode", to_string(r.tiers.mode())}, {"steps", std::move(steps)}};
  } else {
    out["package"] = {{"size", nano_exact(r.package.size.raw())}, {"price", nano_exact(r.package.price.raw())}};
  }
  return out;
}
}  // namespace detail

// A tariff as JSON in the format parse_tariff_json reads (docs/formats/billing.md), so that writing and
// reading give the same tariff. Options at their defaults are left out.
[[nodiscard]] inline expected<nlohmann::json> tariff_to_json(const tariff& t) {
  json rates = json::array();
  for (std::size_t i = 0; i < t.rates().size(); ++i) {
    const rate& r = t.rates()[i];
    GPURENT_TRY(price, detail::price_json(r, "rates[" + std::to_string(i) + "]"));
    json j = std::move(*price);
    j["resource"] = r.resource;
    j["mode"] = r.mode;
    j["per"] = format_duration(r.per);
    j["increment"] = format_duration(r.time.increment());
    j["minimum"] = format_duration(r.time.minimum());
    rates.push_back(std::move(j));
  }
  json out = {
      {"currency", t.currency_value().code}, {"timezone", t.zone_name()}, {"rounding", to_string(t.rounding().mode)}, {"rates", std::move(rates)}};
  if (t.rounding().point != rounding_point::line) out["rounding_point"] = to_string(t.rounding().point);
  if (t.rounding().forgive_below_minor_unit) out["forgive_below_minor_unit"] = true;
  if (t.rounding().carry) out["carry"] = true;
  json credits = json::array();
  for (const credit_grant& c : t.credits()) credits.push_back({{"account", c.account}, {"amount", c.amount.to_string()}});
  if (!credits.empty()) out["credits"] = std::move(credits);
  json commitments = json::array();
  for (const tariff_commitment& c : t.commitments()) {
    json j = {{"account", c.account},
              {"resource", c.resource},
              {"mode", c.mode},
              {"units", detail::nano_exact(c.units.raw())},
              {"price", detail::nano_exact(c.price.raw())}};
    if (c.term) {
      j["start"] = format_instant(c.term->begin());
      j["end"] = format_instant(c.term->end());
    }
    commitments.push_back(std::move(j));
  }
  if (!commitments.empty()) out["commitments"] = std::move(commitments);
  json prepaid = json::array();
  for (const prepaid_package& p : t.prepaid()) {
    json j = {{"id", p.id},
              {"account", p.account},
              {"per_tflops", p.per_tflops},
              {"tflops_hours", detail::nano_exact(p.tflops_hours.raw())},
              {"price", detail::nano_exact(p.price.raw())},
              {"bought", format_instant(p.bought)}};
    if (p.expires) j["expires"] = format_instant(*p.expires);
    prepaid.push_back(std::move(j));
  }
  if (!prepaid.empty()) out["prepaid"] = std::move(prepaid);
  return out;
}

}  // namespace gpurent::io
