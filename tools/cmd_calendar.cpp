// SPDX-License-Identifier: MIT
// gpurent calendar: the billing period of a month in a time zone, as UTC instants.
#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <gpurent/core/calendar.hpp>
#include <gpurent/core/format.hpp>

#include "tool.hpp"

namespace {
using namespace gpurent;

tool::runner setup_calendar(CLI::App& app) {
  struct options {
    std::string zone = "UTC";
    std::string period;
    tool::output_format format{};
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("calendar", "the billing period of a calendar month in an IANA time zone, as UTC instants");
  cmd->add_option("--timezone", o->zone, "IANA time zone (default UTC)");
  cmd->add_option("--period", o->period, "month, YYYY-MM")->required();
  tool::add_format_option(*cmd, o->format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});
  return [o] {
    auto zone = find_zone(o->zone);
    if (!zone) return tool::fail(zone.error().in_field("--timezone"));
    auto ym = parse_year_month(o->period);
    if (!ym) return tool::fail(ym.error().in_field("--period"));
    const auto month = writable_month_period(*zone, *ym);
    if (!month) return tool::fail(month.error().in_field("--period"));
    const interval p = *month;
    const auto secs = p.length().count();
    if (o->format == tool::output_format::json) {
      nlohmann::json j = {
          {"timezone", o->zone}, {"period", o->period}, {"start", format_instant(p.begin())}, {"end", format_instant(p.end())}, {"seconds", secs}};
      fmt::print("{}\n", j.dump());
    } else {
      fmt::print("{} in {}: {} ({} s, {})\n", o->period, o->zone, p, secs, format_duration(p.length()));
    }
    return tool::exit_ok;
  };
}
GPURENT_TOOL_COMMAND("calendar", &setup_calendar);
}  // namespace
