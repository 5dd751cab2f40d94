// SPDX-License-Identifier: MIT
// gpurent meter: usage CSVs under a tariff JSON, for one calendar month, to an invoice
// (docs/formats/billing.md), on every core, optionally one shard of the ids, optionally
// writing the meter's partial result; `gpurent meter merge` prints the invoice of partial
// results (docs/formats/billing.md). The whole output is built before anything is printed, so an error leaves
// stdout empty.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/meter_partial.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/metering/format.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/shard.hpp>

#include "audit_option.hpp"
#include "meter_common.hpp"
#include "tool.hpp"

namespace {
using namespace gpurent;

struct meter_options {
  std::string tariff_path;
  std::vector<std::string> usage_paths;
  std::string period;
  std::string rounding_point;
  std::string shard;
  unsigned jobs = io::machine_cores();
  std::string partial_out;
  std::string previous;
  bool detail = false;
  tool::output_format format{};
  tool::audit_cli audit;
  // meter merge
  std::vector<std::string> partials;
  bool detail_merge = false;
  tool::output_format format_merge{};
};

// With --audit: one "meter" line with the digests of the tariff, each usage file (read once
// more, in blocks, only then), the previous invoice, and the invoice bytes as printed, and
// the options that change them (--rounding-point, --shard, --detail) when given.
expected<void> audit_meter_run(const meter_options& o, io::audit_file& log, const std::string& out) {
  GPURENT_TRY(tariff_text, io::read_file(o.tariff_path));
  std::vector<io::ordered_json> usage;
  for (const std::string& u : o.usage_paths) {
    GPURENT_TRY(digest, io::file_sha256_hex(u));
    usage.push_back(io::ordered_json{{"file", u}, {"sha256", *digest}});
  }
  const auto fmt_name = o.format == tool::focus_format           ? "focus"
                        : o.format == tool::output_format::csv   ? "csv"
                        : o.format == tool::output_format::table ? "table"
                                                                 : "json";
  io::ordered_json line = io::audit_meter(o.tariff_path, *tariff_text, std::move(usage), o.period, fmt_name, out);
  // What else changes the amounts or the bytes: the previous invoice, a rounding point, a shard.
  if (!o.previous.empty()) {
    GPURENT_TRY(previous, io::file_sha256_hex(o.previous));
    line["previous"] = io::ordered_json{{"file", o.previous}, {"sha256", *previous}};
  }
  if (!o.rounding_point.empty()) line["rounding_point"] = o.rounding_point;
  if (!o.shard.empty()) line["shard"] = o.shard;
  if (o.detail) line["detail"] = true;
  log.record("meter", line);
  return log.commit();
}

int run_meter(const meter_options& o) {
  for (const char* name : {"--tariff", "--usage", "--period"}) {
    const bool given = std::string_view(name) == "--tariff"  ? !o.tariff_path.empty()
                       : std::string_view(name) == "--usage" ? !o.usage_paths.empty()
                                                             : !o.period.empty();
    if (!given) return tool::fail(error{error_code::invalid_argument, name, std::string(name) + " is required", {}});
  }
  std::vector<tool::file_option> inputs{{"--tariff", o.tariff_path}, {"--previous", o.previous}};
  tool::add_file_options(inputs, "--usage", o.usage_paths);
  const std::vector<tool::file_option> outputs{{"--partial-out", o.partial_out}, {"--audit", o.audit.path}};
  if (auto d = tool::distinct_outputs(inputs, outputs); !d) return tool::fail(d.error());
  auto audit = tool::open_audit(o.audit);
  if (!audit) return tool::fail(audit.error());
  auto t = tool::load_tariff(o.tariff_path, o.rounding_point);
  if (!t) return tool::fail(t.error());
  auto m = meter::for_month(*t, o.period);
  if (!m) return tool::fail(m.error().in_field("--period"));
  io::meter_run_options run{.shard = {}, .jobs = o.jobs, .block_bytes = io::default_block_bytes};
  if (!o.shard.empty()) {
    auto s = parse_shard(o.shard);
    if (!s) return tool::fail(s.error());
    run.shard = *s;
  }
  auto previous = tool::load_previous(o.previous, *t, o.period);
  if (!previous) return tool::fail(previous.error());
  auto shards = io::meter_usage_files(*m, o.usage_paths, run);
  if (!shards) return tool::fail(shards.error());
  auto inv = meter::finish_shards(*shards, previous->carry, previous->prepaid);
  if (!inv) return tool::fail(inv.error());
  // Formatted before --partial-out is staged: nothing between staging and committing (or
  // discarding) it can leave its temporary file behind.
  const std::string out = tool::format_invoice(*inv, o.format, o.detail, &*t);
  std::optional<tool::staged_file> partial;  // kept only once the invoice is out
  if (!o.partial_out.empty()) {
    auto bytes = io::write_partial(*shards);
    if (!bytes) return tool::fail(bytes.error());
    auto s = tool::stage_file(o.partial_out, *bytes, "--partial-out");
    if (!s) return tool::fail(s.error());
    partial = std::move(*s);
  }
  if (const int printed = tool::print_result(out); printed != tool::exit_ok) {
    if (partial) tool::discard_file(*partial);
    return printed;
  }
  if (partial)
    if (auto c = tool::commit_file(*partial); !c) return tool::fail(c.error());
  if (*audit)
    if (auto r = audit_meter_run(o, **audit, out); !r) return tool::fail(r.error());
  return tool::exit_ok;
}

int run_merge(const meter_options& o) {
  auto t = tool::load_tariff(o.tariff_path, o.rounding_point);
  if (!t) return tool::fail(t.error());
  auto all = meter::for_month(*t, o.period);
  if (!all) return tool::fail(all.error().in_field("--period"));
  auto previous = tool::load_previous(o.previous, *t, o.period);
  if (!previous) return tool::fail(previous.error());
  const meter blank = *all;
  for (const std::string& p : o.partials) {
    auto bytes = io::read_file(p);
    if (!bytes) return tool::fail(bytes.error());
    auto part = io::read_partial(blank, *bytes, p);
    if (!part) return tool::fail(part.error());
    if (auto r = all->merge(*part); !r) return tool::fail(r.error());
  }
  auto inv = all->finish(previous->carry, previous->prepaid);
  if (!inv) return tool::fail(inv.error());
  return tool::print_invoice(*inv, o.format_merge, o.detail_merge, &*t);
}

void add_merge(CLI::App& cmd, meter_options& o) {
  auto* merge = cmd.add_subcommand("merge", "print the invoice of partial results (--partial-out), as one run over all their records");
  merge->add_option("--tariff", o.tariff_path, "tariff JSON file the partials were made under")->required();
  merge->add_option("--period", o.period, "calendar month in the tariff's time zone, YYYY-MM")->required();
  merge->add_option("--rounding-point", o.rounding_point, "the rounding point the partials were made with, if overridden");
  merge->add_option("partials", o.partials, "partial result files")->required();
  merge->add_option("--previous", o.previous, "the previous month's invoice JSON: prepaid balances and carried remainders start from it");
  merge->add_flag("--detail", o.detail_merge, "add exact amounts, every rounding and waste to the output");
  tool::add_format_option(*merge, o.format_merge, tool::meter_formats());
}

tool::runner setup_meter(CLI::App& app) {
  auto o = std::make_shared<meter_options>();
  auto* cmd = app.add_subcommand("meter", "rate usage CSVs under a tariff for one calendar month (docs/formats/billing.md)");
  cmd->add_option("--tariff", o->tariff_path, "tariff JSON file");
  cmd->add_option("--usage", o->usage_paths, "usage CSV files (id,account,resource,mode,quantity,start,end), rated as one stream");
  cmd->add_option("--period", o->period, "calendar month in the tariff's time zone, YYYY-MM");
  cmd->add_option("--rounding-point", o->rounding_point, "override the tariff's rounding point: record, line (default) or invoice");
  cmd->add_option("--shard", o->shard, "rate only the records whose id is in shard K of N (FNV-1a 64 of the id, mod N)");
  cmd->add_option("--jobs", o->jobs, "threads (default: this machine's cores); the output is the same for any number")->check(CLI::Range(1U, 4096U));
  cmd->add_option("--partial-out", o->partial_out, "also write the meter's partial result to this file (for `gpurent meter merge`)");
  cmd->add_option("--previous", o->previous, "the previous month's invoice JSON: prepaid balances and carried remainders start from it");
  cmd->add_flag("--detail", o->detail, "add exact amounts, every rounding and waste to the output");
  tool::add_format_option(*cmd, o->format, tool::meter_formats());
  tool::add_audit_options(*cmd, o->audit);
  add_merge(*cmd, *o);
  return [o, cmd] { return cmd->get_subcommand("merge")->parsed() ? run_merge(*o) : run_meter(*o); };
}
GPURENT_TOOL_COMMAND("meter", &setup_meter);
}  // namespace
