// SPDX-License-Identifier: MIT
#pragma once
// `gpurent mig` results as the tool prints them: a model's MIG profiles, and where wanted
// instances fit (with a repartition plan when they do not fit as is), as JSON and as a table.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/core/format.hpp>
#include <gpurent/spec/mig.hpp>
#include <gpurent/spec/mig_text.hpp>

namespace gpurent::io {

namespace detail::mig_json {
inline std::string slot_range(const mig_profile& p, int start) {
  return p.memory_slices == 1 ? fmt::format("{}", start) : fmt::format("{}-{}", start, start + p.memory_slices - 1);
}

inline std::vector<int> start_list(const mig_profile& p) {
  std::vector<int> v;
  for (int s = 0; s < mig_max_slices; ++s)
    if (p.can_start_at(s)) v.push_back(s);
  return v;
}

inline nlohmann::json placements(const mig_geometry& g, const std::vector<mig_profile_index>& want, const auto& starts) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < want.size(); ++i) out.push_back({{"profile", g.profiles[want[i]].name}, {"start", starts[i]}});
  return out;
}
}  // namespace detail::mig_json

[[nodiscard]] inline nlohmann::json mig_profiles_json(const mig_geometry& geo) {
  using nlohmann::json;
  json profiles = json::array();
  for (const mig_profile& p : geo.profiles) {
    const auto mib = p.memory_mib();
    const auto sms = p.sm_count();
    profiles.push_back({{"name", p.name},
                        {"id", p.id},
                        {"compute_slices", p.compute_slices},
                        {"memory_slices", p.memory_slices},
                        {"memory_gib", p.memory_centigib != 0 ? json(p.memory_centigib / 100.0) : json()},
                        {"memory_mib", mib ? json(*mib) : json()},
                        {"sms", sms ? json(*sms) : json()},
                        {"max_instances", p.max_instances},
                        {"media_extensions", p.media_extensions},
                        {"start_slots", detail::mig_json::start_list(p)},
                        {"source", p.source}});
  }
  json j = {{"gpu", geo.model}, {"compute_slices", geo.compute_slices}, {"memory_slices", geo.memory_slices}, {"profiles", profiles}};
  if (!geo.note.empty()) j["note"] = geo.note;
  return j;
}

[[nodiscard]] inline std::string mig_profiles_table(const mig_geometry& geo) {
  std::string s = fmt::format("{}: {} compute slices, {} memory slices\n", geo.model, geo.compute_slices, geo.memory_slices);
  s += fmt::format("{:<12} {:>3} {:>7} {:>10} {:>8} {:>4} {:>4} {:>3}  {}\n", "PROFILE", "ID", "COMPUTE", "MEM-SLICES", "GIB", "SMS", "MAX", "+ME",
                   "START SLOTS");
  std::vector<std::string_view> sources;
  for (const mig_profile& p : geo.profiles) {
    const std::string gib = p.memory_centigib != 0 ? fmt::format("{}.{:02}", p.memory_centigib / 100, p.memory_centigib % 100) : "-";
    const std::string sms = p.sms != 0 ? fmt::format("{}", p.sms) : "-";
    s += fmt::format("{:<12} {:>3} {:>7} {:>10} {:>8} {:>4} {:>4} {:>3}  {}\n", p.name, p.id, p.compute_slices, p.memory_slices, gib, sms,
                     p.max_instances, p.media_extensions ? "yes" : "no", fmt::join(detail::mig_json::start_list(p), ","));
    if (std::find(sources.begin(), sources.end(), p.source) == sources.end()) sources.push_back(p.source);
  }
  for (std::string_view src : sources) s += fmt::format("source: {}\n", src);
  if (!geo.note.empty()) s += fmt::format("note: {}\n", geo.note);
  return s;
}

// A repartition plan (or why there is none) in the given mode.
[[nodiscard]] inline nlohmann::json mig_plan_json(const mig_geometry& g, const expected<mig_plan>& plan, mig_repartition_mode mode,
                                                  const std::vector<mig_profile_index>& want) {
  nlohmann::json j = {{"mode", to_string(mode)}};
  if (!plan) {
    j["possible"] = false;
    j["reason"] = plan.error().message;
    return j;
  }
  j["possible"] = true;
  j["destroyed"] = plan->destroyed;
  nlohmann::json ops = nlohmann::json::array();
  for (const mig_operation& op : plan->operations)
    ops.push_back({{"op", to_string(op.kind)}, {"profile", g.profiles[op.instance.profile].name}, {"start", op.instance.start}});
  j["operations"] = ops;
  j["placements"] = detail::mig_json::placements(g, want, plan->starts);
  return j;
}

// What `mig fit` found. `plan`: the repartition when one was asked for (nullptr: none).
struct mig_fit_report {
  const mig_geometry& geo;
  const std::vector<mig_profile_index>& want;
  const mig_fit_result& fit;
  std::string reason;  // when it does not fit: mig_explain
  mig_repartition_mode mode = mig_repartition_mode::move;
  const expected<mig_plan>* plan = nullptr;
};

[[nodiscard]] inline nlohmann::json mig_fit_json(const mig_fit_report& f) {
  if (f.fit.fits())
    return {{"fits", true},
            {"gpu", f.geo.model},
            {"placements", detail::mig_json::placements(f.geo, f.want, f.fit.starts)},
            {"options_left", f.fit.options}};
  nlohmann::json j = {{"fits", false}, {"gpu", f.geo.model}, {"reason", f.reason}};
  if (f.plan != nullptr) j["repartition"] = mig_plan_json(f.geo, *f.plan, f.mode, f.want);
  return j;
}

[[nodiscard]] inline std::string mig_fit_table(const mig_fit_report& f) {
  const mig_geometry& geo = f.geo;
  if (f.fit.fits()) {
    std::string s = fmt::format("fits on {} ({} still possible)\n{:<12} {:>5}  {}\n", geo.model, plural(f.fit.options, "layout", "layouts"),
                                "PROFILE", "START", "MEMORY SLICES");
    for (std::size_t i = 0; i < f.want.size(); ++i) {
      const mig_profile& p = geo.profiles[f.want[i]];
      s += fmt::format("{:<12} {:>5}  {}\n", p.name, f.fit.starts[i], detail::mig_json::slot_range(p, f.fit.starts[i]));
    }
    return s;
  }
  std::string s = fmt::format("does not fit on {}: {}\n", geo.model, f.reason);
  if (f.plan == nullptr) return s;
  if (!*f.plan) return s + fmt::format("no repartition ({}): {}\n", f.mode, f.plan->error().message);
  s += fmt::format("repartition ({}), {} instance(s) destroyed:\n", f.mode, (*f.plan)->destroyed);
  for (const mig_operation& op : (*f.plan)->operations) s += fmt::format("  {:<8} {}\n", op.kind, mig_name(geo, op.instance));
  return s;
}

}  // namespace gpurent::io
