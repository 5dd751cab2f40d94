// SPDX-License-Identifier: MIT
// gpurent audit verify: checks an audit log's hash chain (io/audit/audit_log.hpp). Exit 0 with
// what it checked (lines and the last line's hash: keep it to detect lines cut off the end
// later), as JSON or a one-line table; 2 naming the first bad line.
#include <cstdio>
#include <memory>
#include <string>

#include <gpurent/io/audit/audit_log.hpp>

#include "tool.hpp"

namespace {
using namespace gpurent;

struct verify_options {
  std::string path;
  tool::output_format format{};
};

tool::runner setup_audit(CLI::App& app) {
  auto o = std::make_shared<verify_options>();
  auto* cmd = app.add_subcommand("audit", "audit logs written with --audit (docs/isolation.md)");
  cmd->require_subcommand(1);
  auto* verify = cmd->add_subcommand("verify", "check an audit log's hash chain; names the first bad line");
  verify->add_option("LOG", o->path, "audit log (JSON lines)")->required();
  tool::add_format_option(*verify, o->format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});
  return [o] {
    auto text = io::read_audit_log(o->path);
    if (!text) return tool::fail(text.error());
    auto head = io::verify_audit_log(*text, o->path);
    if (!head) return tool::fail(head.error());
    if (o->format == tool::output_format::json) {
      fmt::print("{}\n", io::ordered_json{{"log", o->path}, {"lines", head->lines}, {"chain", "intact"}, {"last_hash", head->hash}}.dump(2));
    } else {
      fmt::print("{}: {} lines, chain intact, last hash {}\n", o->path, head->lines, head->hash);
    }
    return tool::exit_ok;  // main checks that stdout took it
  };
}
GPURENT_TOOL_COMMAND("audit", &setup_audit);
}  // namespace
