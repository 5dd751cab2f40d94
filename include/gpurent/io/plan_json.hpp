// SPDX-License-Identifier: MIT
#pragma once
// Planning as files: the workload and offers JSON readers (errors name the JSON path, e.g.
// "offers[3].price", and the file), the plan as JSON, and the plan's usage CSV and tariff
// JSON in ../shared/protocols/meter.md's formats. The formats are in docs/planning.md.

#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/json_reader.hpp>
#include <gpurent/matching/offers.hpp>
#include <gpurent/planning/planner.hpp>
#include <gpurent/planning/workload.hpp>

namespace gpurent {

namespace detail::plan_json {
using json = nlohmann::json;

inline unexpected<error> fail(const std::string& field, std::string message, error_code c = error_code::invalid_argument) {
  return make_error(c, field, std::move(message));
}

// Reads members of one object, remembering which were read, so unknown members are errors.
class object_reader {
 public:
  object_reader(const json& j, std::string path) : j_(j), path_(std::move(path)) {}
  [[nodiscard]] expected<void> check_object() const {
    if (!j_.is_object()) return fail(path_.empty() ? "(top level)" : path_, std::string("expected an object, got ") + j_.type_name());
    return {};
  }
  [[nodiscard]] std::string field(std::string_view key) const { return path_.empty() ? std::string(key) : path_ + "." + std::string(key); }
  [[nodiscard]] const json* find(const char* key) {
    known_.emplace_back(key);
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  expected<void> string(const char* key, std::string& out, bool required = false) {
    const json* v = find(key);
    if (v == nullptr) return required ? fail(field(key), "missing required field") : expected<void>{};
    if (!v->is_string()) return fail(field(key), std::string("expected a string, got ") + v->type_name());
    out = v->get<std::string>();
    return {};
  }
  template <class I>
  expected<void> integer(const char* key, I& out, std::int64_t lo, std::int64_t hi, bool required = false) {
    const json* v = find(key);
    if (v == nullptr) return required ? fail(field(key), "missing required field") : expected<void>{};
    if (!v->is_number_integer()) return fail(field(key), std::string("expected an integer, got ") + v->type_name());
    const auto x = v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(hi) ? hi + 1 : v->get<std::int64_t>();
    if (x < lo || x > hi) return fail(field(key), "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v->dump());
    out = static_cast<I>(x);
    return {};
  }
  expected<void> boolean(const char* key, bool& out) {
    const json* v = find(key);
    if (v == nullptr) return {};
    if (!v->is_boolean()) return fail(field(key), std::string("expected true or false, got ") + v->type_name());
    out = v->get<bool>();
    return {};
  }
  template <int S>
  expected<void> dec(const char* key, decimal<S>& out, bool required = false) {
    const json* v = find(key);
    if (v == nullptr) return required ? fail(field(key), "missing required field") : expected<void>{};
    if (!v->is_string()) return fail(field(key), std::string("expected a decimal string such as \"2.49\", got ") + v->type_name());
    auto d = decimal<S>::parse(v->get<std::string>());
    if (!d) return unexpected<error>(d.error().in_field(field(key)));
    out = *d;
    return {};
  }
  expected<void> duration(const char* key, seconds& out, bool required = false) {
    const json* v = find(key);
    if (v == nullptr) return required ? fail(field(key), "missing required field") : expected<void>{};
    if (!v->is_string()) return fail(field(key), std::string("expected a duration string such as \"15min\", got ") + v->type_name());
    auto d = parse_duration(v->get<std::string>());
    if (!d) return unexpected<error>(d.error().in_field(field(key)));
    out = *d;
    return {};
  }
  expected<void> strings(const char* key, std::vector<std::string>& out) {
    const json* v = find(key);
    if (v == nullptr) return {};
    if (!v->is_array()) return fail(field(key), std::string("expected an array of strings, got ") + v->type_name());
    for (std::size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) return fail(field(key) + "[" + std::to_string(i) + "]", "expected a string");
      out.push_back((*v)[i].get<std::string>());
    }
    return {};
  }
  // Every member must have been asked for: a misspelt field is an error, not a silent default.
  [[nodiscard]] expected<void> finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (std::find(known_.begin(), known_.end(), it.key()) == known_.end()) return fail(field(it.key()), "unknown field");
    return {};
  }

 private:
  const json& j_;
  std::string path_;
  std::vector<std::string> known_;
};

#define GPURENT_PJ_TRY(expr)                                      \
  do {                                                            \
    if (auto r_ = (expr); !r_) return unexpected<error>(r_.error()); \
  } while (false)


inline expected<std::string> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("(file)", "cannot read " + path, error_code::io_error);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline expected<offer> read_offer(const json& j, const std::string& path) {
  object_reader r(j, path);
  GPURENT_PJ_TRY(r.check_object());
  offer o;
  std::string unit = "gpu", mode = "on_demand";
  std::int64_t vram_gib = 0;
  decimal<3> tflops{};
  GPURENT_PJ_TRY(r.string("id", o.id, true));
  GPURENT_PJ_TRY(r.string("provider", o.provider));
  GPURENT_PJ_TRY(r.string("region", o.region));
  GPURENT_PJ_TRY(r.string("instance", o.instance));
  GPURENT_PJ_TRY(r.string("gpu", o.gpu, true));
  GPURENT_PJ_TRY(r.integer("gpu_count", o.gpu_count, 1, 1024));
  GPURENT_PJ_TRY(r.integer("vram_gib", vram_gib, 1, std::int64_t{1} << 20));
  GPURENT_PJ_TRY(r.dec("tflops", tflops));
  GPURENT_PJ_TRY(r.integer("vcpus", o.vcpus, 0, 1 << 20));
  GPURENT_PJ_TRY(r.integer("memory_gib", o.memory_gib, 0, std::int64_t{1} << 30));
  GPURENT_PJ_TRY(r.integer("disk_gib", o.disk_gib, 0, std::int64_t{1} << 40));
  GPURENT_PJ_TRY(r.string("unit", unit));
  if (auto u = parse_offer_unit(unit)) o.unit = *u;
  else return fail(r.field("unit"), "expected server, gpu, mig_slice or fraction, got \"" + unit + "\"");
  GPURENT_PJ_TRY(r.string("mig_profile", o.mig_profile, o.unit == offer_unit::mig_slice));
  GPURENT_PJ_TRY(r.dec("fraction_step", o.fraction_step, o.unit == offer_unit::fraction));
  GPURENT_PJ_TRY(r.string("mode", mode));
  if (auto m = parse_offer_mode(mode)) o.mode = *m;
  else return fail(r.field("mode"), "expected on_demand, spot or reserved, got \"" + mode + "\"");
  GPURENT_PJ_TRY(r.boolean("multi_node", o.multi_node));
  GPURENT_PJ_TRY(r.integer("max_units", o.max_units, 1, 1 << 24));
  billing_terms& b = o.billing;
  const bool tiered = j.contains("tiers") && !j["tiers"].is_null();
  GPURENT_PJ_TRY(r.dec("price", b.price, !tiered));
  GPURENT_PJ_TRY(r.duration("per", b.per));
  GPURENT_PJ_TRY(r.duration("increment", b.increment));
  GPURENT_PJ_TRY(r.duration("minimum", b.minimum));
  if (const json* s = r.find("spot")) {
    object_reader sr(*s, r.field("spot"));
    GPURENT_PJ_TRY(sr.check_object());
    decimal<6> rate{};
    GPURENT_PJ_TRY(sr.duration("notice", o.notice));
    GPURENT_PJ_TRY(sr.dec("interruptions_per_hour", rate, true));
    o.interruptions_per_hour = static_cast<double>(rate.raw().convert_to<std::int64_t>()) / 1e6;
    GPURENT_PJ_TRY(sr.finish());
  } else if (o.mode == offer_mode::spot) {
    return fail(r.field("spot"), "a spot offer needs {\"notice\", \"interruptions_per_hour\"}");
  }
  if (const json* pc = r.find("price_changes")) {
    if (!pc->is_array()) return fail(r.field("price_changes"), "expected an array");
    for (std::size_t i = 0; i < pc->size(); ++i) {
      object_reader cr((*pc)[i], r.field("price_changes") + "[" + std::to_string(i) + "]");
      GPURENT_PJ_TRY(cr.check_object());
      std::string from;
      offer_price_change c;
      GPURENT_PJ_TRY(cr.string("from", from, true));
      auto t = parse_instant(from);
      if (!t) return unexpected<error>(t.error().in_field(cr.field("from")));
      c.from = *t;
      GPURENT_PJ_TRY(cr.dec("price", c.price, true));
      GPURENT_PJ_TRY(cr.finish());
      b.changes.push_back(c);
    }
  }
  if (const json* t = r.find("tiers")) {
    object_reader tr(*t, r.field("tiers"));
    GPURENT_PJ_TRY(tr.check_object());
    std::string tm;
    GPURENT_PJ_TRY(tr.string("mode", tm, true));
    if (tm == "graduated") b.tiers = price_tier_mode::graduated;
    else if (tm == "volume") b.tiers = price_tier_mode::volume;
    else return fail(tr.field("mode"), "expected graduated or volume, got \"" + tm + "\"");
    const json* steps = tr.find("steps");
    if (steps == nullptr || !steps->is_array()) return fail(tr.field("steps"), "expected an array of steps");
    for (std::size_t i = 0; i < steps->size(); ++i) {
      object_reader sr((*steps)[i], tr.field("steps") + "[" + std::to_string(i) + "]");
      GPURENT_PJ_TRY(sr.check_object());
      offer_tier st;
      if (sr.find("up_to") != nullptr) {
        unit_quantity up{};
        GPURENT_PJ_TRY(sr.dec("up_to", up));
        st.up_to = up;
      }
      GPURENT_PJ_TRY(sr.dec("price", st.price, true));
      GPURENT_PJ_TRY(sr.finish());
      b.steps.push_back(st);
    }
    GPURENT_PJ_TRY(tr.finish());
  }
  GPURENT_PJ_TRY(r.finish());
  o.vram_mib = vram_gib * 1024;
  o.gflops = tflops.raw().convert_to<std::int64_t>();
  return o;
}

inline expected<job> read_job(const json& j, const std::string& path) {
  object_reader r(j, path);
  GPURENT_PJ_TRY(r.check_object());
  job x;
  std::string kind;
  GPURENT_PJ_TRY(r.string("name", x.name, true));
  GPURENT_PJ_TRY(r.string("kind", kind, true));
  if (auto k = parse_job_kind(kind)) x.kind = *k;
  else return fail(r.field("kind"), "expected training, service or experiments, got \"" + kind + "\"");
  GPURENT_PJ_TRY(r.string("account", x.account));
  GPURENT_PJ_TRY(r.duration("start", x.start));
  GPURENT_PJ_TRY(r.string("reference_gpu", x.reference_gpu));
  GPURENT_PJ_TRY(r.integer("memory_gib", x.memory_gib, 0, std::int64_t{1} << 30));
  seconds deadline{0};
  if (r.find("deadline") != nullptr) {
    GPURENT_PJ_TRY(r.duration("deadline", deadline));
    x.deadline = deadline;
  }
  switch (x.kind) {
    case job_kind::training: {
      GPURENT_PJ_TRY(r.dec("gpu_hours", x.gpu_hours, true));
      GPURENT_PJ_TRY(r.integer("max_gpus", x.max_gpus, 1, 1 << 20));
      seconds ck{0};
      if (r.find("checkpoint") != nullptr) {
        GPURENT_PJ_TRY(r.duration("checkpoint", ck));
        x.checkpoint = ck;
      }
      GPURENT_PJ_TRY(r.duration("restart", x.restart));
      break;
    }
    case job_kind::service:
      GPURENT_PJ_TRY(r.duration("duration", x.duration, true));
      GPURENT_PJ_TRY(r.integer("replicas", x.replicas, 1, 1 << 20));
      GPURENT_PJ_TRY(r.dec("gpu_share", x.gpu_share, true));
      GPURENT_PJ_TRY(r.boolean("latency_sensitive", x.latency_sensitive));
      break;
    case job_kind::experiments:
      GPURENT_PJ_TRY(r.integer("runs", x.runs, 1, 1 << 20, true));
      GPURENT_PJ_TRY(r.duration("run_duration", x.run_duration, true));
      GPURENT_PJ_TRY(r.integer("gpus_per_run", x.gpus_per_run, 1, 1024));
      break;
  }
  if (const json* c = r.find("constraints")) {
    object_reader cr(*c, r.field("constraints"));
    GPURENT_PJ_TRY(cr.check_object());
    GPURENT_PJ_TRY(cr.strings("gpus", x.constraints.gpus));
    GPURENT_PJ_TRY(cr.strings("regions", x.constraints.regions));
    GPURENT_PJ_TRY(cr.strings("providers", x.constraints.providers));
    if (cr.find("spot") != nullptr) {
      bool spot = false;
      GPURENT_PJ_TRY(cr.boolean("spot", spot));
      x.constraints.spot = spot;
    }
    GPURENT_PJ_TRY(cr.boolean("reserved", x.constraints.reserved));
    GPURENT_PJ_TRY(cr.finish());
  }
  GPURENT_PJ_TRY(r.finish());
  return x;
}

}  // namespace detail::plan_json

// An offers document: {"currency": "USD", "rounding": "half_even", "offers": [...]}.
// `file` names the text in a JSON syntax error ("file:line").
[[nodiscard]] inline expected<offer_catalog> read_offers_json(std::string_view text, std::string_view file = {}) {
  using namespace detail::plan_json;
  auto j = io::parse_json_text(text, file);
  if (!j) return unexpected<error>(j.error());
  object_reader r(*j, "");
  GPURENT_PJ_TRY(r.check_object());
  std::string ccy = "USD", rounding = "half_even";
  GPURENT_PJ_TRY(r.string("currency", ccy));
  GPURENT_PJ_TRY(r.string("rounding", rounding));
  auto c = parse_currency(ccy);
  if (!c) return unexpected<error>(c.error().in_field("currency"));
  auto m = parse_enum<rounding_mode>(rounding);
  if (!m) return fail("rounding", "expected half_even, half_up, half_down, up or down, got \"" + rounding + "\"");
  const json* list = r.find("offers");
  if (list == nullptr || !list->is_array()) return fail("offers", "missing required array");
  std::vector<offer> offers;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto o = read_offer((*list)[i], "offers[" + std::to_string(i) + "]");
    if (!o) return unexpected<error>(o.error());
    offers.push_back(std::move(*o));
  }
  GPURENT_PJ_TRY(r.finish());
  return offer_catalog::make(*c, *m, std::move(offers));
}

// A workload document: {"period": "2026-11", "timezone": "UTC", "account": "acme", "jobs": [...]}.
// `file` names the text in a JSON syntax error ("file:line").
[[nodiscard]] inline expected<workload> read_workload_json(std::string_view text, std::string_view file = {}) {
  using namespace detail::plan_json;
  auto j = io::parse_json_text(text, file);
  if (!j) return unexpected<error>(j.error());
  object_reader r(*j, "");
  GPURENT_PJ_TRY(r.check_object());
  workload w;
  GPURENT_PJ_TRY(r.string("period", w.period));
  GPURENT_PJ_TRY(r.string("timezone", w.timezone));
  GPURENT_PJ_TRY(r.string("account", w.account));
  const json* list = r.find("jobs");
  if (list == nullptr || !list->is_array()) return fail("jobs", "missing required array");
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto x = read_job((*list)[i], "jobs[" + std::to_string(i) + "]");
    if (!x) return unexpected<error>(x.error());
    w.jobs.push_back(std::move(*x));
  }
  GPURENT_PJ_TRY(r.finish());
  GPURENT_PJ_TRY(validate(w));
  return w;
}

// The same from files; errors carry the file name in `where`.
[[nodiscard]] inline expected<offer_catalog> read_offers_file(const std::string& path) {
  auto text = detail::plan_json::slurp(path);
  if (!text) return unexpected<error>(text.error());
  auto c = read_offers_json(*text, path);
  if (!c) {
    error e = c.error();
    if (e.where.empty()) e.where = path;
    return unexpected<error>(std::move(e));
  }
  return c;
}
[[nodiscard]] inline expected<workload> read_workload_file(const std::string& path) {
  auto text = detail::plan_json::slurp(path);
  if (!text) return unexpected<error>(text.error());
  auto w = read_workload_json(*text, path);
  if (!w) {
    error e = w.error();
    if (e.where.empty()) e.where = path;
    return unexpected<error>(std::move(e));
  }
  return w;
}

#undef GPURENT_PJ_TRY

namespace detail::plan_json {
// A decimal without trailing fractional zeros: "2.490000000" -> "2.49", "1.000" -> "1".
template <int S>
[[nodiscard]] std::string trim(const decimal<S>& d) {
  std::string s = d.to_string();
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}
}  // namespace detail::plan_json

// The plan as JSON (the contract of cli.md's `gpurent plan`, plus details).
[[nodiscard]] inline nlohmann::json plan_to_json(const plan_result& p) {
  using json = nlohmann::json;
  json jobs = json::array();
  for (const job_plan& j : p.jobs) {
    json x = {{"name", j.name},
              {"kind", to_string(j.kind)},
              {"offer", j.offer},
              {"mode", to_string(j.mode)},
              {"sharing", j.sharing},
              {"count", j.count},
              {"expected_cost", j.expected_cost.to_string()},
              {"naive_cost", j.naive_cost.to_string()},
              {"naive_offer", j.naive_offer},
              {"expected_seconds", j.wall.count()},
              {"used_seconds", j.waste.used.count()},
              {"billed_seconds", j.waste.billed.count()},
              {"reason", j.reason}};
    if (j.gpus > 0) x["gpus"] = j.gpus;
    if (!j.shares_with.empty()) x["shares_with"] = j.shares_with;
    if (j.spot) {
      const spot_estimate& e = *j.spot;
      x["spot"] = {{"mtbf_s", e.mtbf_s},
                   {"young_interval_s", e.young_s},
                   {"daly_interval_s", e.daly_s},
                   {"notice_fits_checkpoint", e.notice_fits_checkpoint},
                   {"rework_per_interruption_s", e.rework_per_interruption_s},
                   {"expected_interruptions", e.expected_interruptions},
                   {"expected_wall_s", e.wall.count()}};
    }
    jobs.push_back(std::move(x));
  }
  const auto savings = p.naive_cost - p.total_cost;
  return json{{"currency", p.ccy.code},
              {"period", p.period},
              {"timezone", p.timezone},
              {"jobs", std::move(jobs)},
              {"total_cost", p.total_cost.to_string()},
              {"naive_cost", p.naive_cost.to_string()},
              {"savings", savings.to_string()},
              {"billed_total", p.billed_total.to_string()},
              {"packing",
               {{"candidates", p.packing.items},
                {"shared_units", p.packing.bins},
                {"method", p.packing.exact ? "exact (subset DP)" : "first-fit-decreasing"},
                {"cost", p.packing.cost.to_string()},
                {"lower_bound", p.packing.lower_bound.to_string()},
                {"gap", p.packing.gap}}},
              {"usage_records", p.usage.size()}};
}

// The usage the plan produces, in meter.md's CSV format.
[[nodiscard]] inline std::string usage_csv(const plan_result& p) {
  std::string s = "id,account,resource,mode,quantity,start,end\n";
  for (const plan_record& r : p.usage) {
    s += r.id + "," + r.account + "," + r.resource + "," + std::string(to_string(r.mode)) + "," + detail::plan_json::trim(r.quantity) + "," +
         format_instant(r.start) + "," + format_instant(r.end) + "\n";
  }
  return s;
}

// The tariff the plan priced its usage with, in meter.md's JSON format.
[[nodiscard]] inline nlohmann::json tariff_json(const plan_result& p, const offer_catalog& cat) {
  using json = nlohmann::json;
  using detail::plan_json::trim;
  json rates = json::array();
  for (std::size_t oi : p.tariff) {
    const offer& o = cat[oi];
    const billing_terms& b = o.billing;
    json r = {{"resource", o.resource()}, {"mode", to_string(o.mode)}};
    if (b.tiers == price_tier_mode::none) r["unit_price"] = trim(b.price);
    r["per"] = format_duration(b.per);
    r["increment"] = format_duration(b.increment);
    r["minimum"] = format_duration(b.minimum);
    if (!b.changes.empty()) {
      json ch = json::array();
      for (const offer_price_change& c : b.changes) ch.push_back({{"from", format_instant(c.from)}, {"unit_price", trim(c.price)}});
      r["price_changes"] = std::move(ch);
    }
    if (b.tiers != price_tier_mode::none) {
      json steps = json::array();
      for (const offer_tier& t : b.steps)
        steps.push_back({{"up_to", t.up_to ? json(trim(*t.up_to)) : json(nullptr)}, {"unit_price", trim(t.price)}});
      r["tiers"] = {{"mode", b.tiers == price_tier_mode::graduated ? "graduated" : "volume"}, {"steps", std::move(steps)}};
    }
    rates.push_back(std::move(r));
  }
  return json{{"currency", cat.currency_value().code}, {"timezone", p.timezone}, {"rounding", to_string(cat.rounding())}, {"rates", std::move(rates)}};
}

}  // namespace gpurent
