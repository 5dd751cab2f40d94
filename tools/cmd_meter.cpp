// SPDX-License-Identifier: MIT
// gpurent meter: a usage CSV under a tariff JSON, for one calendar month, to an invoice
// (../shared/protocols/meter.md). The whole output is built before anything is printed,
// so an error leaves stdout empty.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <gpurent/io/audit_record.hpp>
#include <gpurent/io/invoice_json.hpp>
#include <gpurent/io/tariff_json.hpp>
#include <gpurent/io/usage_csv.hpp>
#include <gpurent/metering/format.hpp>
#include <gpurent/metering/meter.hpp>

#include "audit_option.hpp"
#include "tool.hpp"

namespace {
using namespace gpurent;

struct meter_options {
  std::string tariff_path;
  std::string usage_path;
  std::string period;
  std::string rounding_point;
  bool detail = false;
  tool::output_format format{};
  tool::audit_cli audit;
};

int run_meter(const meter_options& o) {
  auto audit = tool::open_audit(o.audit);
  if (!audit) return tool::fail(audit.error());
  auto t = io::load_tariff_json(o.tariff_path);
  if (!t) return tool::fail(t.error());
  if (!o.rounding_point.empty()) {
    auto p = parse_enum<rounding_point>(o.rounding_point);
    if (!p) {
      return tool::fail(error{error_code::invalid_argument,
                              "--rounding-point",
                              "unknown rounding point \"" + o.rounding_point + "\" (expected " + enum_choices<rounding_point>() + ")",
                              {}});
    }
    auto rr = t->rounding();
    rr.point = *p;
    t->set_rounding(rr);
  }
  auto m = meter::for_month(*t, o.period);
  if (!m) return tool::fail(m.error().in_field("--period"));
  auto text = io::read_file(o.usage_path);
  if (!text) return tool::fail(text.error());
  m->reserve(text->size() / 64);
  if (auto r = io::meter_usage_csv(*m, *text, o.usage_path); !r) return tool::fail(r.error());
  auto inv = m->finish();
  if (!inv) return tool::fail(inv.error());
  const io::invoice_format_options fo{o.detail};
  std::string out;
  switch (o.format) {
    case tool::output_format::csv: out = io::write_invoice_csv(*inv, fo); break;
    case tool::output_format::table: out = fmt::format("{}", *inv); break;  // every line's exact amount and rounding, always
    default: out = io::write_invoice_json(*inv, fo); break;
  }
  if (*audit) {
    auto tariff_text = io::read_file(o.tariff_path);
    if (!tariff_text) return tool::fail(tariff_text.error());
    const auto fmt_name = o.format == tool::output_format::csv ? "csv" : o.format == tool::output_format::table ? "table" : "json";
    (*audit)->record("meter", io::audit_meter(o.tariff_path, *tariff_text, o.usage_path, *text, o.period, fmt_name, out));
    if (auto r = (*audit)->commit(); !r) return tool::fail(r.error());
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? tool::exit_ok : tool::exit_invalid;
}

tool::runner setup_meter(CLI::App& app) {
  auto o = std::make_shared<meter_options>();
  auto* cmd = app.add_subcommand("meter", "rate a usage CSV under a tariff for one calendar month (protocols/meter.md)");
  cmd->add_option("--tariff", o->tariff_path, "tariff JSON file")->required();
  cmd->add_option("--usage", o->usage_path, "usage CSV file (id,account,resource,mode,quantity,start,end)")->required();
  cmd->add_option("--period", o->period, "calendar month in the tariff's time zone, YYYY-MM")->required();
  cmd->add_option("--rounding-point", o->rounding_point, "override the tariff's rounding point: record, line (default) or invoice");
  cmd->add_flag("--detail", o->detail, "add exact amounts, every rounding and waste to the output");
  tool::add_format_option(*cmd, o->format,
                          {{"json", tool::output_format::json}, {"csv", tool::output_format::csv}, {"table", tool::output_format::table}});
  tool::add_audit_options(*cmd, o->audit);
  return [o] { return run_meter(*o); };
}
GPURENT_TOOL_COMMAND("meter", &setup_meter);
}  // namespace
