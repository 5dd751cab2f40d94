// SPDX-License-Identifier: MIT
// gpurent mig: a model's MIG profiles, and where wanted instances fit next to existing ones
// (with an optional repartition plan when they do not fit as is). Contract: protocols/cli.md.
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/core/format.hpp>
#include <gpurent/spec/mig.hpp>
#include <gpurent/spec/mig_text.hpp>

#include "tool.hpp"

namespace {
using namespace gpurent;

std::string slot_range(const mig_profile& p, int start) {
  return p.memory_slices == 1 ? fmt::format("{}", start) : fmt::format("{}-{}", start, start + p.memory_slices - 1);
}

std::vector<int> start_list(const mig_profile& p) {
  std::vector<int> v;
  for (int s = 0; s < mig_max_slices; ++s)
    if (p.can_start_at(s)) v.push_back(s);
  return v;
}

int run_profiles(const std::string& gpu, tool::output_format format) {
  auto g = resolve_mig_geometry(gpu, "--gpu");
  if (!g) return tool::fail(g.error());
  const mig_geometry& geo = **g;
  if (format == tool::output_format::json) {
    nlohmann::json profiles = nlohmann::json::array();
    for (const mig_profile& p : geo.profiles) {
      const auto mib = p.memory_mib();
      const auto sms = p.sm_count();
      profiles.push_back({{"name", p.name},
                          {"id", p.id},
                          {"compute_slices", p.compute_slices},
                          {"memory_slices", p.memory_slices},
                          {"memory_gib", p.memory_centigib != 0 ? nlohmann::json(p.memory_centigib / 100.0) : nlohmann::json()},
                          {"memory_mib", mib ? nlohmann::json(*mib) : nlohmann::json()},
                          {"sms", sms ? nlohmann::json(*sms) : nlohmann::json()},
                          {"max_instances", p.max_instances},
                          {"media_extensions", p.media_extensions},
                          {"start_slots", start_list(p)},
                          {"source", p.source}});
    }
    nlohmann::json j = {{"gpu", geo.model}, {"compute_slices", geo.compute_slices}, {"memory_slices", geo.memory_slices}, {"profiles", profiles}};
    if (!geo.note.empty()) j["note"] = geo.note;
    fmt::print("{}\n", j.dump());
    return tool::exit_ok;
  }
  fmt::print("{}: {} compute slices, {} memory slices\n", geo.model, geo.compute_slices, geo.memory_slices);
  fmt::print("{:<12} {:>3} {:>7} {:>10} {:>8} {:>4} {:>4} {:>3}  {}\n", "PROFILE", "ID", "COMPUTE", "MEM-SLICES", "GIB", "SMS", "MAX", "+ME",
             "START SLOTS");
  std::vector<std::string_view> sources;
  for (const mig_profile& p : geo.profiles) {
    const std::string gib = p.memory_centigib != 0 ? fmt::format("{}.{:02}", p.memory_centigib / 100, p.memory_centigib % 100) : "-";
    const std::string sms = p.sms != 0 ? fmt::format("{}", p.sms) : "-";
    fmt::print("{:<12} {:>3} {:>7} {:>10} {:>8} {:>4} {:>4} {:>3}  {}\n", p.name, p.id, p.compute_slices, p.memory_slices, gib, sms, p.max_instances,
               p.media_extensions ? "yes" : "no", fmt::join(start_list(p), ","));
    if (std::find(sources.begin(), sources.end(), p.source) == sources.end()) sources.push_back(p.source);
  }
  for (std::string_view s : sources) fmt::print("source: {}\n", s);
  if (!geo.note.empty()) fmt::print("note: {}\n", geo.note);
  return tool::exit_ok;
}

struct fit_options {
  std::string gpu;
  std::string want;
  std::string have;
  bool repartition = false;
  bool drop = false;
  tool::output_format format{};
};

nlohmann::json plan_json(const mig_geometry& g, const expected<mig_plan>& plan, mig_repartition_mode mode,
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
  nlohmann::json placements = nlohmann::json::array();
  for (std::size_t i = 0; i < want.size(); ++i) placements.push_back({{"profile", g.profiles[want[i]].name}, {"start", plan->starts[i]}});
  j["placements"] = placements;
  return j;
}

int run_fit(const fit_options& o) {
  auto g = resolve_mig_geometry(o.gpu, "--gpu");
  if (!g) return tool::fail(g.error());
  const mig_geometry& geo = **g;
  auto want = parse_mig_profiles(geo, o.want, "--want");
  if (!want) return tool::fail(want.error());
  auto have = parse_mig_layout(geo, o.have, "--have");
  if (!have) return tool::fail(have.error());
  const mig_fit_result r = mig_fit(geo, *have, *want);
  const bool json = o.format == tool::output_format::json;
  if (r.fits()) {
    if (json) {
      nlohmann::json placements = nlohmann::json::array();
      for (std::size_t i = 0; i < want->size(); ++i) placements.push_back({{"profile", geo.profiles[(*want)[i]].name}, {"start", r.starts[i]}});
      fmt::print("{}\n", nlohmann::json{{"fits", true}, {"gpu", geo.model}, {"placements", placements}, {"options_left", r.options}}.dump());
    } else {
      fmt::print("fits on {} ({} layouts still possible)\n{:<12} {:>5}  {}\n", geo.model, r.options, "PROFILE", "START", "MEMORY SLICES");
      for (std::size_t i = 0; i < want->size(); ++i) {
        const mig_profile& p = geo.profiles[(*want)[i]];
        fmt::print("{:<12} {:>5}  {}\n", p.name, r.starts[i], slot_range(p, r.starts[i]));
      }
    }
    return tool::exit_ok;
  }
  const std::string reason = mig_explain(geo, *have, *want, r);
  const auto mode = o.drop ? mig_repartition_mode::drop : mig_repartition_mode::move;
  if (json) {
    nlohmann::json j = {{"fits", false}, {"gpu", geo.model}, {"reason", reason}};
    if (o.repartition || o.drop) j["repartition"] = plan_json(geo, mig_plan_repartition(geo, *have, *want, mode), mode, *want);
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("does not fit on {}: {}\n", geo.model, reason);
    if (o.repartition || o.drop) {
      const auto plan = mig_plan_repartition(geo, *have, *want, mode);
      if (!plan) {
        fmt::print("no repartition ({}): {}\n", mode, plan.error().message);
      } else {
        fmt::print("repartition ({}), {} instance(s) destroyed:\n", mode, plan->destroyed);
        for (const mig_operation& op : plan->operations) fmt::print("  {:<8} {}\n", op.kind, mig_name(geo, op.instance));
      }
    }
  }
  return tool::exit_not_here;
}

tool::runner setup_mig(CLI::App& app) {
  auto* mig = app.add_subcommand("mig", "MIG geometry: a model's profiles, and where instances fit");
  mig->require_subcommand(1);

  auto profiles_gpu = std::make_shared<std::string>();
  auto profiles_format = std::make_shared<tool::output_format>();
  auto* profiles = mig->add_subcommand("profiles", "list the model's MIG profiles with their start slots");
  profiles->add_option("--gpu", *profiles_gpu, "GPU model (catalog name or alias)")->required();
  tool::add_format_option(*profiles, *profiles_format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});

  auto fo = std::make_shared<fit_options>();
  auto* fit = mig->add_subcommand("fit", "can these instances be added, and at which start slots (exit 3 when not)");
  fit->add_option("--gpu", fo->gpu, "GPU model (catalog name or alias)")->required();
  fit->add_option("--want", fo->want, "profiles to add, PROFILE[,PROFILE...]")->required();
  fit->add_option("--have", fo->have, "instances already there, PROFILE@START[,...]");
  fit->add_flag("--repartition", fo->repartition, "when it does not fit as is, plan a repartition that moves existing instances");
  fit->add_flag("--drop", fo->drop, "with --repartition: destroy instances in the way instead of moving them");
  tool::add_format_option(*fit, fo->format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});

  return [=]() -> int {
    if (profiles->parsed()) return run_profiles(*profiles_gpu, *profiles_format);
    if (fit->parsed()) return run_fit(*fo);
    return tool::exit_invalid;
  };
}
GPURENT_TOOL_COMMAND("mig", &setup_mig);
}  // namespace
