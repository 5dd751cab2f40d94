// SPDX-License-Identifier: MIT
#pragma once
// The advisors' answers as the tool prints them (docs/advisors.md): commitment sizing, build
// versus rent (scalar and load-profile forms), checkpointing on spot and the scaling rules,
// each as JSON and as a table. Exact values are printed as the library keeps them: amounts in
// the currency's minor units, rates and shares rounded half to even at a stated place.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/build_vs_rent.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/commitment.hpp>
#include <gpurent/planning/format.hpp>
#include <gpurent/planning/scaling.hpp>

namespace gpurent::io {

namespace advise_text {
// An exact amount rounded half to even to the currency's minor units ("123.45").
[[nodiscard]] inline std::string amount(const ratio<>& r, const currency& c) {
  return money_value::round(c, r, rounding_mode::half_even).to_string();
}
// A rate per hour to six places.
[[nodiscard]] inline std::string hourly(const ratio<>& r) { return r.round<6, round_half_even>().to_string(); }
// A share to four places, as a number.
[[nodiscard]] inline double share(const ratio<>& r) { return r.round_to_digits(4, rounding_mode::half_even).convert_to<double>() / 1e4; }
[[nodiscard]] inline nlohmann::ordered_json share_or_null(const std::optional<ratio<>>& r) {
  return r ? nlohmann::ordered_json(share(*r)) : nlohmann::ordered_json();
}
[[nodiscard]] inline std::string percent(double s) { return fmt::format("{:.2f}%", s * 100); }
// Estimates of a random process, shown to the millisecond; null when infinite.
[[nodiscard]] inline nlohmann::ordered_json seconds_json(double s) {
  return std::isfinite(s) ? nlohmann::ordered_json(std::round(s * 1000) / 1000) : nlohmann::ordered_json();
}
}  // namespace advise_text

// ---- advise commitment: the offer and its two prices per unit-hour, over `hours` of load.
struct commitment_case {
  std::string offer;
  currency ccy{"USD", 2};
  std::size_t hours = 0;
  ratio<> on_demand, committed;
};

[[nodiscard]] inline nlohmann::ordered_json commitment_json(const commitment_case& in, const commitment_advice& a) {
  using namespace advise_text;
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const commitment_option& x : a.curve)
    curve.push_back({{"level", x.level}, {"cost", x.cost.to_string()}, {"utilization", share(x.utilization)}});
  nlohmann::ordered_json j = {{"offer", in.offer},
                              {"currency", std::string(in.ccy.code)},
                              {"hours", in.hours},
                              {"peak", a.curve.back().level},
                              {"on_demand_per_hour", hourly(in.on_demand)},
                              {"committed_per_hour", hourly(in.committed)},
                              {"level", a.best.level},
                              {"cost", a.best.cost.to_string()},
                              {"on_demand_cost", a.on_demand_cost.to_string()},
                              {"savings", a.savings.to_string()},
                              {"utilization", share(a.best.utilization)}};
  if (a.term)
    j["term"] = {{"hours", static_cast<double>(a.term->length.count()) / 3600},
                 {"cost", a.term->cost.to_string()},
                 {"on_demand_cost", a.term->on_demand_cost.to_string()},
                 {"savings", a.term->savings.to_string()}};
  j["curve"] = curve;
  return j;
}

[[nodiscard]] inline std::string commitment_table(const commitment_case& in, const commitment_advice& a) {
  using namespace advise_text;
  const std::string_view code = in.ccy.code;
  std::string s = fmt::format("offer {}: committed {} {}/h, on demand {} {}/h, over {} hours (peak {})\n", in.offer, hourly(in.committed), code,
                              hourly(in.on_demand), code, in.hours, a.curve.back().level);
  s += fmt::format("commit {} units: {} against {} on demand, saving {} (utilization {})\n", a.best.level, money_text(a.best.cost),
                   a.on_demand_cost.to_string(), a.savings.to_string(), percent(share(a.best.utilization)));
  if (a.term)
    s += fmt::format("over the {} term: {} against {} on demand, saving {}\n", format_duration(a.term->length), money_text(a.term->cost),
                     a.term->on_demand_cost.to_string(), a.term->savings.to_string());
  s += fmt::format("{:>6} {:>16} {:>12}\n", "LEVEL", "COST", "UTILIZATION");
  for (const commitment_option& x : a.curve) s += fmt::format("{:>6} {:>16} {:>12}\n", x.level, x.cost.to_string(), percent(share(x.utilization)));
  return s;
}

// ---- advise build-vs-rent

[[nodiscard]] inline nlohmann::ordered_json build_rates_json(const ratio<>& fixed_h, const ratio<>& variable_h, const decimal<9>& rent,
                                                             const std::optional<ratio<>>& break_even) {
  using namespace advise_text;
  return {{"fixed_per_hour", hourly(fixed_h)},
          {"variable_per_hour", hourly(variable_h)},
          {"rent_per_hour", hourly(ratio<>(rent))},
          {"break_even_utilization", share_or_null(break_even)}};
}

// The scalar form: one utilization.
[[nodiscard]] inline nlohmann::ordered_json build_scalar_json(const currency& ccy, const decimal<9>& rent, const ratio<>& utilization,
                                                              const build_vs_rent& r) {
  using namespace advise_text;
  nlohmann::ordered_json j = {{"form", "scalar"}, {"currency", std::string(ccy.code)}};
  j.update(build_rates_json(r.fixed_per_hour, r.variable_per_hour, rent, r.break_even));
  j["utilization"] = share(utilization);
  j["owned_per_delivered_hour"] = hourly(r.owned_per_delivered_hour);
  j["own_is_cheaper"] = r.own_is_cheaper;
  return j;
}

[[nodiscard]] inline std::string build_scalar_table(const nlohmann::ordered_json& j, const currency& ccy, const build_vs_rent& r) {
  using namespace advise_text;
  std::string s =
      fmt::format("owned: {} {}/h fixed + {} per used hour; at {} utilization a delivered GPU-hour costs {} against {} rented\n",
                  j["fixed_per_hour"].get<std::string>(), ccy.code, j["variable_per_hour"].get<std::string>(),
                  percent(j["utilization"].get<double>()), j["owned_per_delivered_hour"].get<std::string>(), j["rent_per_hour"].get<std::string>());
  s += fmt::format("break-even utilization: {}; {}\n", r.break_even ? percent(share(*r.break_even)) : "none (renting always wins)",
                   r.own_is_cheaper ? "owning is cheaper" : "renting is cheaper");
  return s;
}

// The profile form: the owned pool size that costs least over an hourly load.
[[nodiscard]] inline nlohmann::ordered_json owned_pool_json(const currency& ccy, const decimal<9>& rent, const owned_pool_advice& a) {
  using namespace advise_text;
  const auto option = [&](const owned_pool_option& x) {
    return nlohmann::ordered_json{{"owned", x.owned},
                                  {"cost", amount(x.cost, ccy)},
                                  {"utilization", x.owned == 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(share(x.utilization))}};
  };
  nlohmann::ordered_json j = {{"form", "profile"}, {"currency", std::string(ccy.code)}};
  j.update(build_rates_json(a.fixed_per_hour, a.variable_per_hour, rent, a.break_even));
  j.update({{"hours", a.hours}, {"gpu_hours", a.gpu_hours}, {"peak", a.all_owned.owned}});
  j.update(option(a.best));
  // Savings as the differences of the amounts shown, as size_commitment gives them.
  const auto money = [&](const ratio<>& r) { return money_value::round(ccy, r, rounding_mode::half_even); };
  const money_value best = money(a.best.cost), rented = money(a.all_rented.cost), owned = money(a.all_owned.cost);
  j.update({{"all_rented_cost", rented.to_string()},
            {"all_owned_cost", owned.to_string()},
            {"savings_vs_rented", (rented - best).to_string()},
            {"savings_vs_owned", (owned - best).to_string()}});
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const owned_pool_option& x : a.curve) curve.push_back(option(x));
  j["curve"] = curve;
  return j;
}

[[nodiscard]] inline std::string owned_pool_table(const nlohmann::ordered_json& j) {
  using namespace advise_text;
  const std::string code = j["currency"];
  std::string s =
      fmt::format("owned: {} {}/h fixed + {} per used hour; rented {}/h; break-even utilization {}\n", j["fixed_per_hour"].get<std::string>(), code,
                  j["variable_per_hour"].get<std::string>(), j["rent_per_hour"].get<std::string>(),
                  j["break_even_utilization"].is_null() ? "none" : percent(j["break_even_utilization"].get<double>()));
  s += fmt::format("{} hours, {} GPU-hours, peak {}\n", j["hours"].get<std::int64_t>(), j["gpu_hours"].get<std::int64_t>(),
                   j["peak"].get<std::int64_t>());
  s += fmt::format("own {} GPUs, rent the rest: {} {} (all rented {}, all owned {}; saving {} and {})\n", j["owned"].get<std::int64_t>(),
                   j["cost"].get<std::string>(), code, j["all_rented_cost"].get<std::string>(), j["all_owned_cost"].get<std::string>(),
                   j["savings_vs_rented"].get<std::string>(), j["savings_vs_owned"].get<std::string>());
  s += fmt::format("{:>6} {:>16} {:>12}\n", "OWNED", "COST", "UTILIZATION");
  for (const nlohmann::ordered_json& x : j["curve"])
    s += fmt::format("{:>6} {:>16} {:>12}\n", x["owned"].get<std::int64_t>(), x["cost"].get<std::string>(),
                     x["utilization"].is_null() ? "-" : percent(x["utilization"].get<double>()));
  return s;
}

// ---- advise checkpoint: the job's times, the interruption rate, and the checkpoint's size
// and storage bandwidths when the times came from them.
struct checkpoint_case {
  seconds solve{0}, write{0}, restart{0}, notice{0};
  double per_hour = 0;
  std::optional<bytes> size;
  std::optional<seconds> restore;
  std::int64_t write_mbps = 0, read_mbps = 0;
};

[[nodiscard]] inline nlohmann::ordered_json checkpoint_json(const checkpoint_case& in, const spot_estimate& e) {
  using namespace advise_text;
  nlohmann::ordered_json j = {{"solve_s", in.solve.count()},
                              {"write_s", in.write.count()},
                              {"restart_s", in.restart.count()},
                              {"notice_s", in.notice.count()},
                              {"interruptions_per_hour", in.per_hour}};
  if (in.size) j.update({{"checkpoint_bytes", in.size->count()}, {"write_mb_per_s", in.write_mbps}});
  if (in.restore) j.update({{"read_mb_per_s", in.read_mbps}, {"restore_s", in.restore->count()}});
  j.update({{"feasible", e.feasible},
            {"mtbf_s", seconds_json(e.mtbf_s)},
            {"notice_fits_checkpoint", e.notice_fits_checkpoint},
            {"young_interval_s", seconds_json(e.young_s)},
            {"daly_interval_s", seconds_json(e.daly_s)},
            {"rework_per_interruption_s", seconds_json(e.rework_per_interruption_s)},
            {"expected_wall_s", seconds_json(e.expected_wall_s)},
            {"expected_interruptions", seconds_json(e.expected_interruptions)},
            {"wall_s", e.wall.count()},
            {"interruptions", e.interruptions}});
  return j;
}

[[nodiscard]] inline std::string checkpoint_table(const checkpoint_case& in, const spot_estimate& e) {
  std::string s;
  if (in.size)
    s += fmt::format("checkpoint: {} bytes, written in {}{}\n", in.size->count(), format_duration(in.write),
                     in.restore ? ", read back in " + format_duration(*in.restore) : std::string());
  s += fmt::format("{} of work, checkpoint write {}, restart {}, notice {}, {} interruptions per hour\n", format_duration(in.solve),
                   format_duration(in.write), format_duration(in.restart), format_duration(in.notice), in.per_hour);
  if (!e.feasible) return s + "infeasible: interruptions come faster than the work progresses\n";
  if (in.per_hour > 0) s += fmt::format("mean time between interruptions {:.0f} s; Young {:.0f} s, Daly {:.0f} s\n", e.mtbf_s, e.young_s, e.daly_s);
  s += fmt::format("{}\n", e.notice_fits_checkpoint
                               ? "the notice holds a checkpoint: write on notice, lose write + restart per interruption"
                               : fmt::format("checkpoint every Daly interval; {:.0f} s of work lost per interruption", e.rework_per_interruption_s));
  s += fmt::format("expected wall time {} ({:.1f} s), {} interruptions ({:.2f})\n", format_duration(e.wall), e.expected_wall_s, e.interruptions,
                   e.expected_interruptions);
  return s;
}

// ---- advise scaling: the decision over `nodes` nodes with `queued` jobs waiting.
[[nodiscard]] inline nlohmann::ordered_json scaling_json(const scaling_decision& d, std::size_t nodes, std::int64_t queued) {
  return {{"action", to_string(d.action)},
          {"add", d.add},
          {"release", d.release},
          {"waiting", d.waiting},
          {"reason", d.reason},
          {"nodes", nodes},
          {"queued", queued},
          {"mean_utilization", std::round(d.mean_utilization * 1e4) / 1e4}};
}

[[nodiscard]] inline std::string scaling_table(const scaling_decision& d, std::size_t nodes, std::int64_t queued) {
  std::string s = fmt::format("{} node(s), mean utilization {}, {} queued: {}\n", nodes, advise_text::percent(d.mean_utilization), queued, d.reason);
  s += fmt::format("{}{}\n", to_string(d.action), d.add > 0 ? fmt::format(": add {}", d.add) : std::string());
  if (!d.release.empty()) s += fmt::format("release now: {}\n", fmt::join(d.release, ", "));
  if (!d.waiting.empty()) s += fmt::format("waiting for a checkpoint: {}\n", fmt::join(d.waiting, ", "));
  return s;
}

}  // namespace gpurent::io
