// SPDX-License-Identifier: MIT
#pragma once
// Reads a tariff from JSON (../shared/protocols/meter.md, plus the library's extras:
// rounding_point, forgive_below_minor_unit, carry, protection, package, flat_fee). Every
// error names the file and the JSON path of the field ("rates[2].tiers.steps[1].up_to").
// Decimals are strings: a JSON number would already have been rounded by someone's double.

#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <sstream>
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
#include <gpurent/io/file.hpp>
#include <gpurent/io/json_reader.hpp>
#include <gpurent/tariff/tariff.hpp>

namespace gpurent::io {

namespace detail {
using json = nlohmann::json;

struct json_reader {
  std::string file;

  [[nodiscard]] unexpected<error> fail(error_code code, const std::string& path, std::string message) const {
    return unexpected(error{code, path, std::move(message), file});
  }
  [[nodiscard]] unexpected<error> fail(const error& e, const std::string& path) const {
    return unexpected(error{e.code, path, e.message, file});
  }
  [[nodiscard]] expected<void> only_keys(const json& o, const std::string& path, std::initializer_list<std::string_view> keys) const {
    for (auto it = o.begin(); it != o.end(); ++it) {
      bool known = false;
      for (auto k : keys) known = known || it.key() == k;
      if (!known) {
        std::string list;
        for (auto k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
        return fail(error_code::invalid_argument, join(path, it.key()), "unknown field (expected one of: " + list + ")");
      }
    }
    return {};
  }
  [[nodiscard]] static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }
  [[nodiscard]] static std::string item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

  // A string member; `required` false gives nothing when it is absent.
  [[nodiscard]] expected<std::optional<std::string>> text(const json& o, const std::string& path, std::string_view key, bool required) const {
    auto it = o.find(key);
    if (it == o.end()) {
      if (required) return fail(error_code::invalid_argument, join(path, key), "missing");
      return std::optional<std::string>{};
    }
    if (!it->is_string()) {
      return fail(error_code::invalid_argument, join(path, key),
                  std::string("must be a string") + (it->is_number() ? " (write decimals and durations in quotes, e.g. \"2.49\")" : "") + ", got " +
                      it->dump());
    }
    return std::optional<std::string>(it->get<std::string>());
  }
  [[nodiscard]] expected<std::optional<bool>> flag(const json& o, const std::string& path, std::string_view key) const {
    auto it = o.find(key);
    if (it == o.end()) return std::optional<bool>{};
    if (!it->is_boolean()) return fail(error_code::invalid_argument, join(path, key), "must be true or false, got " + it->dump());
    return std::optional<bool>(it->get<bool>());
  }
  [[nodiscard]] expected<std::optional<std::int64_t>> nano(const json& o, const std::string& path, std::string_view key, bool required) const {
    auto s = text(o, path, key, required);
    if (!s) return unexpected(s.error());
    if (!*s) return std::optional<std::int64_t>{};
    auto v = parse_non_negative_nano(**s);
    if (!v) return fail(v.error(), join(path, key));
    return std::optional<std::int64_t>(*v);
  }
  [[nodiscard]] expected<std::optional<seconds>> duration(const json& o, const std::string& path, std::string_view key) const {
    auto s = text(o, path, key, false);
    if (!s) return unexpected(s.error());
    if (!*s) return std::optional<seconds>{};
    auto d = parse_duration(**s);
    if (!d) return fail(d.error(), join(path, key));
    return std::optional<seconds>(*d);
  }
  [[nodiscard]] expected<const json*> array(const json& o, const std::string& path, std::string_view key, bool required) const {
    auto it = o.find(key);
    if (it == o.end()) {
      if (required) return fail(error_code::invalid_argument, join(path, key), "missing");
      return static_cast<const json*>(nullptr);
    }
    if (!it->is_array()) return fail(error_code::invalid_argument, join(path, key), "must be an array, got " + it->dump());
    return &*it;
  }

  [[nodiscard]] expected<tier_table> tiers(const json& o, const std::string& path) const {
    if (!o.is_object()) return fail(error_code::invalid_argument, path, "must be an object with mode and steps");
    if (auto k = only_keys(o, path, {"mode", "steps"}); !k) return unexpected(k.error());
    auto m = text(o, path, "mode", true);
    if (!m) return unexpected(m.error());
    auto mode = parse_enum<tier_mode>(**m);
    if (!mode) return fail(error_code::invalid_argument, join(path, "mode"), "unknown tier mode \"" + **m + "\" (expected " + enum_choices<tier_mode>() + ")");
    auto steps = array(o, path, "steps", true);
    if (!steps) return unexpected(steps.error());
    std::vector<tier_step> out;
    const std::string sp = join(path, "steps");
    for (std::size_t i = 0; i < (*steps)->size(); ++i) {
      const json& s = (**steps)[i];
      const std::string p = item(sp, i);
      if (!s.is_object()) return fail(error_code::invalid_argument, p, "must be an object with up_to and unit_price");
      if (auto k = only_keys(s, p, {"up_to", "unit_price", "flat_fee"}); !k) return unexpected(k.error());
      tier_step st;
      auto up = s.find("up_to");
      if (up == s.end()) return fail(error_code::invalid_argument, join(p, "up_to"), "missing (use null for no bound)");
      if (!up->is_null()) {
        auto u = nano(s, p, "up_to", true);
        if (!u) return unexpected(u.error());
        st.up_to = nano_unit_hours(**u);
      }
      auto price = nano(s, p, "unit_price", true);
      if (!price) return unexpected(price.error());
      st.unit_price = nano_price(**price);
      auto fee = nano(s, p, "flat_fee", false);
      if (!fee) return unexpected(fee.error());
      st.flat_fee = nano_money(fee->value_or(0));
      out.push_back(st);
    }
    auto t = tier_table::make(*mode, std::move(out));
    if (!t) return fail(t.error(), join(path, t.error().field));
    return t;
  }

  [[nodiscard]] expected<rate> read_rate(const json& o, const std::string& p) const {
    if (!o.is_object()) return fail(error_code::invalid_argument, p, "must be an object");
    if (auto k = only_keys(o, p, {"resource", "mode", "unit_price", "per", "increment", "minimum", "price_changes", "tiers", "package", "protection"}); !k) {
      return unexpected(k.error());
    }
    rate r;
    for (auto [key, dst] : {std::pair<std::string_view, std::string*>{"resource", &r.resource}, {"mode", &r.mode}}) {
      auto s = text(o, p, key, true);
      if (!s) return unexpected(s.error());
      if ((*s)->empty()) return fail(error_code::invalid_argument, join(p, key), "must not be empty");
      *dst = **s;
    }
    auto price = nano(o, p, "unit_price", false);
    if (!price) return unexpected(price.error());
    const bool has_tiers = o.contains("tiers"), has_package = o.contains("package");
    const int models = (*price ? 1 : 0) + (has_tiers ? 1 : 0) + (has_package ? 1 : 0);
    if (models == 0) return fail(error_code::invalid_argument, join(p, "unit_price"), "a rate needs unit_price or tiers");
    if (models > 1) {
      return fail(error_code::invalid_argument, join(p, has_tiers ? "tiers" : "package"), "a rate has either unit_price, tiers or package, not several");
    }
    auto per = duration(o, p, "per");
    if (!per) return unexpected(per.error());
    if (*per && (*per)->count() <= 0) return fail(error_code::invalid_argument, join(p, "per"), "must be positive");
    if (!*per && *price) return fail(error_code::invalid_argument, join(p, "per"), "missing (the duration unit_price is for, e.g. \"1h\")");
    r.per = per->value_or(seconds{3600});
    auto inc = duration(o, p, "increment");
    if (!inc) return unexpected(inc.error());
    auto min = duration(o, p, "minimum");
    if (!min) return unexpected(min.error());
    auto rule = billing_rule::make(inc->value_or(seconds{1}), min->value_or(seconds{0}));
    if (!rule) return fail(rule.error(), join(p, rule.error().field));
    r.time = *rule;
    auto prot = duration(o, p, "protection");
    if (!prot) return unexpected(prot.error());
    auto changes = array(o, p, "price_changes", false);
    if (!changes) return unexpected(changes.error());
    if (*changes && !*price) {
      return fail(error_code::invalid_argument, join(p, "price_changes"), has_tiers ? "price_changes cannot be combined with tiers" : "price_changes need a unit_price");
    }
    if (*prot && !*price) return fail(error_code::invalid_argument, join(p, "protection"), "a protection period needs a unit_price");
    if (*price) {
      r.kind = price_kind::unit;
      std::vector<price_change> pcs;
      if (*changes) {
        const std::string cp = join(p, "price_changes");
        for (std::size_t i = 0; i < (*changes)->size(); ++i) {
          const json& c = (**changes)[i];
          const std::string ip = item(cp, i);
          if (!c.is_object()) return fail(error_code::invalid_argument, ip, "must be an object with from and unit_price");
          if (auto k = only_keys(c, ip, {"from", "unit_price"}); !k) return unexpected(k.error());
          auto from = text(c, ip, "from", true);
          if (!from) return unexpected(from.error());
          auto t = parse_instant(**from);
          if (!t) return fail(t.error(), join(ip, "from"));
          auto cpr = nano(c, ip, "unit_price", true);
          if (!cpr) return unexpected(cpr.error());
          pcs.push_back({*t, nano_price(**cpr)});
        }
      }
      auto s = price_schedule::make(nano_price(**price), std::move(pcs), prot->value_or(seconds{0}));
      if (!s) return fail(s.error(), join(p, s.error().field));
      r.price = std::move(*s);
    } else if (has_tiers) {
      r.kind = price_kind::tiers;
      auto t = tiers(o["tiers"], join(p, "tiers"));
      if (!t) return unexpected(t.error());
      r.tiers = std::move(*t);
    } else {
      r.kind = price_kind::package;
      const json& pk = o["package"];
      const std::string pp = join(p, "package");
      if (!pk.is_object()) return fail(error_code::invalid_argument, pp, "must be an object with size and price");
      if (auto k = only_keys(pk, pp, {"size", "price"}); !k) return unexpected(k.error());
      auto size = nano(pk, pp, "size", true);
      if (!size) return unexpected(size.error());
      auto pr = nano(pk, pp, "price", true);
      if (!pr) return unexpected(pr.error());
      auto pkg = package_pricing::make(nano_unit_hours(**size), nano_money(**pr));
      if (!pkg) return fail(pkg.error(), join(p, pkg.error().field));
      r.package = *pkg;
    }
    return r;
  }

  [[nodiscard]] expected<tariff> read(const json& j) const {
    if (!j.is_object()) return fail(error_code::invalid_argument, "", "a tariff is a JSON object");
    if (auto k = only_keys(j, "", {"currency", "timezone", "rounding", "rounding_point", "forgive_below_minor_unit", "carry", "rates", "credits"}); !k) {
      return unexpected(k.error());
    }
    auto code = text(j, "", "currency", true);
    if (!code) return unexpected(code.error());
    auto ccy = parse_currency(**code);
    if (!ccy) return fail(ccy.error(), "currency");
    auto zone = text(j, "", "timezone", true);
    if (!zone) return unexpected(zone.error());
    if (auto z = find_zone(**zone); !z) return fail(z.error(), "timezone");
    rounding_rule rr;
    auto mode = text(j, "", "rounding", false);
    if (!mode) return unexpected(mode.error());
    if (*mode) {
      auto m = parse_enum<rounding_mode>(**mode);
      if (!m) return fail(error_code::invalid_argument, "rounding", "unknown rounding mode \"" + **mode + "\" (expected half_even, half_up, half_down, up or down)");
      rr.mode = *m;
    }
    auto point = text(j, "", "rounding_point", false);
    if (!point) return unexpected(point.error());
    if (*point) {
      auto pt = parse_enum<rounding_point>(**point);
      if (!pt) return fail(error_code::invalid_argument, "rounding_point", "unknown rounding point \"" + **point + "\" (expected " + enum_choices<rounding_point>() + ")");
      rr.point = *pt;
    }
    auto forgive = flag(j, "", "forgive_below_minor_unit");
    if (!forgive) return unexpected(forgive.error());
    rr.forgive_below_minor_unit = forgive->value_or(false);
    auto carry = flag(j, "", "carry");
    if (!carry) return unexpected(carry.error());
    rr.carry = carry->value_or(false);
    auto rates = array(j, "", "rates", true);
    if (!rates) return unexpected(rates.error());
    std::vector<rate> rs;
    for (std::size_t i = 0; i < (*rates)->size(); ++i) {
      auto r = read_rate((**rates)[i], item("rates", i));
      if (!r) return unexpected(r.error());
      rs.push_back(std::move(*r));
    }
    std::vector<credit_grant> credits;
    auto cs = array(j, "", "credits", false);
    if (!cs) return unexpected(cs.error());
    if (*cs) {
      for (std::size_t i = 0; i < (*cs)->size(); ++i) {
        const json& c = (**cs)[i];
        const std::string p = item("credits", i);
        if (!c.is_object()) return fail(error_code::invalid_argument, p, "must be an object with account and amount");
        if (auto k = only_keys(c, p, {"account", "amount"}); !k) return unexpected(k.error());
        auto acc = text(c, p, "account", true);
        if (!acc) return unexpected(acc.error());
        if ((*acc)->empty()) return fail(error_code::invalid_argument, join(p, "account"), "must not be empty");
        auto amt = text(c, p, "amount", true);
        if (!amt) return unexpected(amt.error());
        auto m = money_value::parse(*ccy, **amt);
        if (!m) return fail(m.error(), join(p, "amount"));
        if (m->minor_units() < 0) return fail(error_code::invalid_argument, join(p, "amount"), "a credit must not be negative");
        credits.push_back({**acc, *m});
      }
    }
    auto t = tariff::make(*ccy, **zone, rr, std::move(rs), std::move(credits));
    if (!t) return fail(t.error(), t.error().field);
    return t;
  }
};
}  // namespace detail

// A tariff from JSON text; `file` names it in errors.
[[nodiscard]] inline expected<tariff> parse_tariff_json(std::string_view text, std::string_view file = "tariff.json") {
  detail::json_reader rd{std::string(file)};
  auto j = parse_json_text(text, file);
  if (!j) return unexpected(std::move(j.error()));
  return rd.read(*j);
}

// A tariff from a JSON file.
[[nodiscard]] inline expected<tariff> load_tariff_json(const std::string& path) {
  auto text = read_file(path);
  if (!text) return unexpected(text.error());
  return parse_tariff_json(*text, path);
}

}  // namespace gpurent::io
