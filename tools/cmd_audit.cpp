// SPDX-License-Identifier: MIT
// gpurent audit verify: checks an audit log's hash chain (io/audit/audit_log.hpp). Exit 0 with a
// one-line summary (lines and the last line's hash: keep it to detect lines cut off the end
// later), 2 naming the first bad line.
#include <cstdio>
#include <memory>
#include <string>

#include <gpurent/io/audit/audit_log.hpp>

#include "tool.hpp"

namespace {
using namespace gpurent;

tool::runner setup_audit(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("audit", "audit logs written with --audit (docs/isolation.md)");
  cmd->require_subcommand(1);
  auto* verify = cmd->add_subcommand("verify", "check an audit log's hash chain; names the first bad line");
  verify->add_option("LOG", *path, "audit log (JSON lines)")->required();
  return [path] {
    auto text = io::read_file(*path);
    if (!text) return tool::fail(text.error());
    auto head = io::verify_audit_log(*text, *path);
    if (!head) return tool::fail(head.error());
    fmt::print("{}: {} lines, chain intact, last hash {}\n", *path, head->lines, head->hash);
    return tool::exit_ok;  // main checks that stdout took it
  };
}
GPURENT_TOOL_COMMAND("audit", &setup_audit);
}  // namespace
