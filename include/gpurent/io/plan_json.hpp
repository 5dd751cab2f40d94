// SPDX-License-Identifier: MIT
#pragma once
// A plan as JSON: the contract of protocols/cli.md's `gpurent plan`, plus details (spot
// estimates, packing). The plan's usage and tariff are written by the usage CSV and tariff
// JSON writers (io/usage_csv.hpp, io/tariff_json.hpp); its files are read by
// io/offers_json.hpp and io/workload_json.hpp.

#include <nlohmann/json.hpp>

#include <gpurent/planning/format.hpp>
#include <gpurent/planning/planner.hpp>

namespace gpurent {

namespace detail::plan_json {

[[nodiscard]] inline nlohmann::json job_to_json(const job_plan& j) {
  nlohmann::json x = {{"name", j.name},
                      {"kind", to_string(j.kind)},
                      {"offer", j.offer},
                      {"mode", to_string(j.mode)},
                      {"sharing", to_string(j.sharing)},
                      {"count", j.count},
                      {"expected_cost", j.expected_cost.to_string()},
                      {"naive_cost", j.naive_cost.to_string()},
                      {"naive_offer", j.naive_offer},
                      {"expected_seconds", j.wall.count()},
                      {"start", format_instant(j.start)},
                      {"end", format_instant(j.end)},
                      {"used_seconds", j.waste.used.count()},
                      {"billed_seconds", j.waste.billed.count()},
                      {"reason", to_string(j.why)}};
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

// The plan as JSON.
[[nodiscard]] inline nlohmann::json plan_to_json(const plan_result& p) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const job_plan& j : p.jobs) jobs.push_back(detail::plan_json::job_to_json(j));
  nlohmann::json out{{"currency", p.ccy.code},
                     {"period", p.period},
                     {"timezone", p.timezone},
                     {"jobs", std::move(jobs)},
                     {"total_cost", p.total_cost.to_string()},
                     {"naive_cost", p.naive_cost.to_string()},
                     {"savings", (p.naive_cost - p.total_cost).to_string()},
                     {"billed_total", p.billed_total.to_string()},
                     {"packing",
                      {{"candidates", p.packing.items},
                       {"shared_units", p.packing.bins},
                       {"method", p.packing.exact ? "exact (subset DP)" : "first-fit-decreasing"},
                       {"cost", p.packing.cost.to_string()},
                       {"lower_bound", p.packing.lower_bound.to_string()},
                       {"gap", p.packing.gap}}},
                     {"usage_records", p.usage.size()}};
  if (p.packing.dissolved > 0) out["packing"]["dissolved"] = p.packing.dissolved;
  if (!p.owned.empty()) {
    out["owned"] = detail::plan_json::owned_to_json(p);
    out["owned_fixed_cost"] = p.owned_fixed_cost.to_string();
    out["total_with_owned_fixed_cost"] = (p.total_cost + p.owned_fixed_cost).to_string();
  }
  return out;
}

}  // namespace gpurent
