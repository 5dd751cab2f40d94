// SPDX-License-Identifier: MIT
// gpurent mig: a model's MIG profiles, and where wanted instances fit next to existing ones
// (with an optional repartition plan when they do not fit as is). Documented in docs/spec-mig.md.
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <gpurent/io/spec/mig_json.hpp>
#include <gpurent/spec/mig.hpp>
#include <gpurent/spec/mig_text.hpp>

#include "tool.hpp"

namespace {
using namespace gpurent;

int run_profiles(const std::string& gpu, tool::output_format format) {
  auto g = resolve_mig_geometry(gpu, "--gpu");
  if (!g) return tool::fail(g.error());
  fmt::print("{}", format == tool::output_format::json ? io::mig_profiles_json(**g).dump() + "\n" : io::mig_profiles_table(**g));
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

int run_fit(const fit_options& o) {
  auto g = resolve_mig_geometry(o.gpu, "--gpu");
  if (!g) return tool::fail(g.error());
  const mig_geometry& geo = **g;
  auto want = parse_mig_profiles(geo, o.want, "--want");
  if (!want) return tool::fail(want.error());
  auto have = parse_mig_layout(geo, o.have, "--have");
  if (!have) return tool::fail(have.error());
  const mig_fit_result r = mig_fit(geo, *have, *want);
  io::mig_fit_report f{geo, *want, r, {}, o.drop ? mig_repartition_mode::drop : mig_repartition_mode::move, nullptr};
  std::optional<expected<mig_plan>> plan;
  if (!r.fits()) {
    f.reason = mig_explain(geo, *have, *want, r);
    if (o.repartition || o.drop) f.plan = &plan.emplace(mig_plan_repartition(geo, *have, *want, f.mode));
  }
  fmt::print("{}", o.format == tool::output_format::json ? io::mig_fit_json(f).dump() + "\n" : io::mig_fit_table(f));
  return r.fits() ? tool::exit_ok : tool::exit_not_here;
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
  fit->add_flag("--drop", fo->drop, "plan a repartition that destroys instances in the way instead of moving them (implies --repartition)");
  tool::add_format_option(*fit, fo->format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});

  return [=]() -> int {
    if (profiles->parsed()) return run_profiles(*profiles_gpu, *profiles_format);
    if (fit->parsed()) return run_fit(*fo);
    return tool::exit_invalid;
  };
}
GPURENT_TOOL_COMMAND("mig", &setup_mig);
}  // namespace
