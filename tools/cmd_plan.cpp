// SPDX-License-Identifier: MIT
// gpurent plan: what to rent for a workload, how to share it, and what it costs (docs/planning.md).
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/plan_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/budget.hpp>
#include <gpurent/planning/format.hpp>
#include <gpurent/planning/planner.hpp>

#include "audit_option.hpp"
#include "plan_example.hpp"
#include "tool.hpp"

namespace {
using namespace gpurent;

struct plan_options_cli {
  std::string workload;
  std::string offers;
  std::string emit_usage;
  std::string emit_tariff;
  tool::output_format format{};
  tool::audit_cli audit;
};

// The usage and the tariff the plan was priced with, in the meter's formats (docs/formats/billing.md).
expected<void> emit(const plan_options_cli& o, const plan_result& p) {
  GPURENT_TRY(t, io::tariff_to_json(*p.prices));
  const std::vector<tool::output_text> outs{{o.emit_usage, io::write_usage_csv(p.usage), "--emit-usage"},
                                            {o.emit_tariff, t->dump(2) + "\n", "--emit-tariff"}};
  return tool::write_files(outs);  // both or neither
}

// The file a plan was made from (the built-in example's text when there is none).
expected<std::string> input_text(const std::string& path, std::string_view example) {
  if (path.empty()) return std::string(example);
  return io::read_file(path);
}

// With --audit: one "plan" line per job, then one "plan-output" line with the inputs' and the
// output's digests.
expected<void> audit_plan(const plan_options_cli& o, io::audit_file& log, const workload& w, const offer_catalog& cat, const plan_result& p,
                          std::string_view out) {
  for (std::size_t i = 0; i < w.jobs.size() && i < p.jobs.size(); ++i) log.record("plan", io::audit_plan_job(w.jobs[i], p.jobs[i], cat));
  GPURENT_TRY(wt, input_text(o.workload, tool::example_workload_json));
  GPURENT_TRY(ot, input_text(o.offers, tool::example_offers_json));
  log.record("plan-output", io::ordered_json{{"workload", io::audit_input(o.workload.empty() ? "(built-in example)" : o.workload, *wt)},
                                             {"offers", io::audit_input(o.offers.empty() ? "(built-in example)" : o.offers, *ot)},
                                             {"output_sha256", io::sha256_hex(out)}});
  return log.commit();
}

// A budget the cheapest plan does not fit: exit 3, the budget, the cheapest spend and what
// would fit on stderr; with --format json, the same as JSON on stdout.
int over_budget(const plan_options_cli& o, const budget_report& r) {
  fmt::print(stderr, "gpurent: {}\n", budget_text(r));
  if (o.format == tool::output_format::json) fmt::print("{}\n", budget_to_json(r).dump(2));
  return tool::exit_not_here;
}

int run_plan(const plan_options_cli& o) {
  if (auto d = tool::distinct_outputs({{"--workload", o.workload}, {"--offers", o.offers}},
                                      {{"--emit-usage", o.emit_usage}, {"--emit-tariff", o.emit_tariff}, {"--audit", o.audit.path}});
      !d)
    return tool::fail(d.error());
  auto audit = tool::open_audit(o.audit);
  if (!audit) return tool::fail(audit.error());
  auto cat = o.offers.empty() ? read_offers_json(tool::example_offers_json) : read_offers_file(o.offers);
  if (!cat) return tool::fail(cat.error());
  std::string text(tool::example_workload_json);  // read once: a plan error is located in it too
  if (!o.workload.empty()) {
    auto t = io::read_file(o.workload);
    if (!t) return tool::fail(t.error());
    text = std::move(*t);
  }
  auto w = read_workload_json(text, o.workload);
  if (!w) return tool::fail(w.error());
  auto p = plan(*w, *cat);
  if (!p) {
    error e = p.error();
    if (e.where.empty() && !o.workload.empty()) e = io::json_located(std::move(e), text, o.workload);  // at the line of the job it names
    return tool::fail(e);
  }
  auto over = check_budget(*w, *cat, *p);
  if (!over) return tool::fail(over.error());
  if (*over) return over_budget(o, **over);
  if (!o.emit_usage.empty()) {
    if (auto r = emit(o, *p); !r) return tool::fail(r.error());
  }
  const std::string out = o.format == tool::output_format::json ? plan_to_json(*p).dump(2) + "\n" : format_plan_table(*p);
  if (const int printed = tool::print_result(out); printed != tool::exit_ok) return printed;
  if (*audit)
    if (auto r = audit_plan(o, **audit, *w, *cat, *p, out); !r) return tool::fail(r.error());
  return tool::exit_ok;
}

tool::runner setup_plan(CLI::App& app) {
  auto o = std::make_shared<plan_options_cli>();
  auto* cmd = app.add_subcommand("plan", "choose what to rent for a workload, how to share it and what it costs (built-in example without files)");
  cmd->add_option("--workload", o->workload, "workload JSON (docs/planning.md); default: the built-in example");
  cmd->add_option("--offers", o->offers, "offers JSON (docs/planning.md); default: the built-in example catalog");
  tool::add_format_option(*cmd, o->format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});
  auto* usage = cmd->add_option("--emit-usage", o->emit_usage, "write the plan's usage as a usage CSV for gpurent meter");
  auto* tariff = cmd->add_option("--emit-tariff", o->emit_tariff, "write the plan's tariff as a tariff JSON for gpurent meter");
  usage->needs(tariff);
  tariff->needs(usage);
  tool::add_audit_options(*cmd, o->audit);
  return [o] { return run_plan(*o); };
}
GPURENT_TOOL_COMMAND("plan", &setup_plan);
}  // namespace
