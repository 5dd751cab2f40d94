// SPDX-License-Identifier: MIT
#pragma once
// A plan as JSON: `gpurent plan`'s output (docs/planning.md), plus details (spot
// estimates, packing). The plan's usage and tariff are written by the usage CSV and tariff
// JSON writers (io/billing/usage_csv.hpp, io/billing/tariff_json.hpp); its files are read by
// io/plan/offers_json.hpp and io/plan/workload_json.hpp.

#include <nlohmann/json.hpp>

#include <gpurent/planning/format.hpp>
#include <gpurent/planning/planner.hpp>

namespace gpurent {

namespace detail::plan_json {

// The price a plan line was decided at, and its provenance (planning/provenance.hpp); prices
// exact, with at least the currency's minor digits.
[[nodiscard]] inline nlohmann::json price_to_json(const price_record& r, int minor) {
  const auto nano_text = [minor](nano_price p) { return detail::plan_text::price_decimal(p, minor); };
  nlohmann::json x = {
      {"offer", r.offer},       {"mode", to_string(r.mode)},          {"unit", to_string(r.unit)},     {"unit_price", nano_text(r.unit_price)},
      {"per_s", r.per.count()}, {"increment_s", r.increment.count()}, {"minimum_s", r.minimum.count()}};
  nlohmann::json changes = nlohmann::json::array();
  for (const price_change& c : r.changes) changes.push_back({{"from", format_instant(c.from)}, {"price", nano_text(c.unit_price)}});
  x["price_changes"] = std::move(changes);
  if (!r.tiers.empty()) {
    nlohmann::json steps = nlohmann::json::array();
    for (const tier_step& t : r.tiers) {
      nlohmann::json step = {{"price", nano_text(t.unit_price)}};
      step["up_to"] =
          t.up_to ? nlohmann::json(format_exact(ratio<>(int128(t.up_to->raw()), int128(detail::nano_one)))) : nlohmann::json(nullptr);  // unit-hours
      steps.push_back(std::move(step));
    }
    x["tiers"] = {{"mode", r.volume_tiers ? "volume" : "graduated"}, {"steps", std::move(steps)}};
  }
  x["source"] = r.source.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.source);
  x["seen"] = r.seen ? nlohmann::json(format_instant(*r.seen)) : nlohmann::json(nullptr);
  x["terms_source"] = r.terms_source.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.terms_source);
  return x;
}

// The runner-up, the cheaper options ruled out, the offers rejected and what failures cost.
inline void reasons_to_json(const job_plan& j, nlohmann::json& x) {
  const rationale& r = j.why;
  if (r.next)
    x["runner_up"] = {{"offer", r.next->offer}, {"mode", to_string(r.next->mode)}, {"units", r.next->units}, {"cost", r.next->cost.to_string()}};
  nlohmann::json ruled = nlohmann::json::array();
  for (const ruled_out_option& o : r.ruled_out) {
    nlohmann::json y = {
        {"offer", o.offer}, {"mode", to_string(o.mode)}, {"units", o.units}, {"cost", o.cost.to_string()}, {"cause", to_string(o.cause)}};
    if (o.full)
      y["limit"] = o.full->quota
                       ? nlohmann::json{{"quota", {{"provider", o.full->provider}, {"region", o.full->region}, {"max_gpus", o.full->capacity}}}}
                       : nlohmann::json{{"max_units", o.full->capacity}};
    if (!o.held_by.empty()) y["held_by"] = o.held_by;
    if (o.hourly) y["hourly_cost"] = o.hourly->to_string();
    if (o.cap) y["cap"] = detail::plan_text::exact_text(*o.cap, o.hourly ? o.hourly->currency_value().minor_units : 2);
    ruled.push_back(std::move(y));
  }
  if (!ruled.empty()) x["ruled_out"] = std::move(ruled);
  nlohmann::json rejected = nlohmann::json::object();
  for (std::size_t k = 1; k < j.rejected.size(); ++k)
    if (j.rejected[k] > 0) rejected[std::string(to_string(static_cast<offer_rejection>(k)))] = j.rejected[k];
  x["rejected_offers"] = std::move(rejected);
  if (const auto& f = r.failures) {
    x["failures"] = {{"per_gpu_hour", f->rate.per_gpu_hour},
                     {"rate_source", f->rate.from_offer ? "offer" : "default (Llama 3 405B: 419 in 54 days on 16,384 H100s)"},
                     {"gpus", f->gpus},
                     {"expected_failures", f->expected_failures},
                     {"checkpointed", f->checkpointed},
                     {"checkpoint_interval_s", f->checkpointed ? nlohmann::json(f->interval_s) : nlohmann::json(nullptr)},
                     {"rework_per_failure_s", f->rework_per_failure_s},
                     {"failure_free_s", f->solve.count()},
                     {"expected_wall_s", f->wall.count()}};
  }
}

[[nodiscard]] inline nlohmann::json job_to_json(const job_plan& j, int minor) {
  nlohmann::json x = {{"name", j.name},
                      {"kind", to_string(j.kind)},
                      {"offer", j.offer},
                      {"mode", to_string(j.mode)},
                      {"sharing", to_string(j.sharing)},
                      {"count", j.count},
                      {"expected_cost", j.expected_cost.to_string()},
                      {"price", price_to_json(j.price, minor)},
                      {"expected_seconds", j.wall.count()},
                      {"start", format_instant(j.start)},
                      {"end", format_instant(j.end)},
                      {"used_seconds", j.waste.used.count()},
                      {"billed_seconds", j.waste.billed.count()},
                      {"reason", to_string(j.why)}};
  if (j.naive_cost) {
    x["naive_cost"] = j.naive_cost->to_string();
    x["naive_offer"] = j.naive_offer;
  }
  if (j.gpus > 0) x["gpus"] = j.gpus;
  if (j.delay != delay_cause::none) x["delayed_by"] = {{"seconds", j.delayed.count()}, {"cause", to_string(j.delay)}};
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
  reasons_to_json(j, x);
  return x;
}

}  // namespace detail::plan_json

namespace detail::plan_json {

// Owned pools: what each costs and how much of it the plan uses.
[[nodiscard]] inline nlohmann::json owned_to_json(const plan_result& p) {
  nlohmann::json pools = nlohmann::json::array();
  for (const owned_pool_report& r : p.owned) {
    const auto share = [](const ratio<>& q) { return static_cast<double>(q.num().convert_to<long double>() / q.den().convert_to<long double>()); };
    nlohmann::json x = {{"offer", r.offer},
                        {"units", r.units},
                        {"fixed_cost", r.fixed_cost.to_string()},
                        {"marginal_cost", r.marginal_cost.to_string()},
                        {"utilization", share(r.utilization)},
                        {"gpu_hours", decimal<3>::from_raw(r.gpu_hours.round_to_digits(3, rounding_mode::half_even)).to_string()}};
    if (r.cost_per_gpu_hour) x["cost_per_gpu_hour"] = r.cost_per_gpu_hour->to_string();
    pools.push_back(std::move(x));
  }
  return pools;
}

}  // namespace detail::plan_json

namespace detail::plan_json {

// The naive baseline and the savings against it, or why there are none.
inline void baseline_to_json(const plan_result& p, nlohmann::json& out) {
  if (!p.naive.total) {
    out["baseline"] = {{"feasible", false},
                       {"stuck_job", p.naive.stuck_job},
                       {"reason", p.naive.no_option ? "no whole on-demand GPUs or servers it may use run it" : "none of them has room for it"}};
    return;
  }
  out["baseline"] = {{"feasible", true}};
  out["naive_cost"] = p.naive.total->to_string();
  out["savings"] = p.savings()->to_string();
  if (const std::string note = savings_note(p); !note.empty()) out["savings_note"] = note;
}

}  // namespace detail::plan_json

// The plan as JSON.
[[nodiscard]] inline nlohmann::json plan_to_json(const plan_result& p) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const job_plan& j : p.jobs) jobs.push_back(detail::plan_json::job_to_json(j, p.ccy.minor_units));
  nlohmann::json out{{"currency", p.ccy.code},
                     {"period", p.period},
                     {"timezone", p.timezone},
                     {"jobs", std::move(jobs)},
                     {"total_cost", p.total_cost.to_string()},
                     {"billed_total", p.billed_total.to_string()},
                     {"packing",
                      {{"candidates", p.packing.items},
                       {"shared_units", p.packing.bins},
                       {"method", p.packing.exact ? "exact (subset DP)" : "first-fit-decreasing"},
                       {"optimal", p.packing.exact},
                       {"cost", p.packing.cost.to_string()},
                       {"lower_bound", p.packing.lower_bound.to_string()},
                       {"gap", p.packing.gap}}},
                     {"usage_records", p.usage.size()}};
  detail::plan_json::baseline_to_json(p, out);
  if (p.budget) {
    const ratio<> left = ratio<>(*p.budget) - ratio<>(p.spend().minor_units(), detail::pow10<int128>(p.ccy.minor_units));
    const int minor = p.ccy.minor_units;
    out["budget"] = {{"budget", detail::plan_text::exact_text(*p.budget, minor)},
                     {"spend", p.spend().to_string()},
                     {"left", detail::plan_text::exact_text(left, minor)}};
  }
  if (p.packing.dissolved > 0) out["packing"]["dissolved"] = p.packing.dissolved;
  if (!p.set_aside.empty()) {
    nlohmann::json aside = nlohmann::json::array();
    for (const set_aside_offer& o : p.set_aside)
      aside.push_back({{"offer", o.id}, {"mode", to_string(o.mode)}, {"gpu", o.gpu}, {"reason", o.reason}});
    out["set_aside"] = std::move(aside);
  }
  if (!p.owned.empty()) {
    out["owned"] = detail::plan_json::owned_to_json(p);
    out["owned_fixed_cost"] = p.owned_fixed_cost.to_string();
    out["total_with_owned_fixed_cost"] = (p.total_cost + p.owned_fixed_cost).to_string();
  }
  return out;
}

// A budget the cheapest plan does not fit, as JSON (planning/budget.hpp).
[[nodiscard]] inline nlohmann::json budget_to_json(const budget_report& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const budget_step& s : r.steps)
    steps.push_back({{"job", s.job}, {"action", to_string(s.action)}, {"saving", s.saving.to_string()}, {"spend_after", s.spend_after.to_string()}});
  const int minor = r.cheapest.currency_value().minor_units;
  return {{"budget", detail::plan_text::exact_text(r.budget, minor)},
          {"cheapest_spend", r.cheapest.to_string()},
          {"over_by", detail::plan_text::exact_text(r.over, minor)},
          {"message", budget_text(r)},
          {"what_would_fit", std::move(steps)},
          {"spend_after", r.spend_after.to_string()}};
}

}  // namespace gpurent
