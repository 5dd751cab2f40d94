// SPDX-License-Identifier: MIT
#pragma once
// `--audit LOG` (with `--audit-actor` and `--audit-time`) for the commands that make
// decisions: each appends hash-chained JSON lines to LOG (io/audit/audit_log.hpp), written only
// when the command succeeds. `gpurent audit verify LOG` checks a log.

#include <chrono>
#include <optional>
#include <string>

#include <date/date.h>
#include <CLI/CLI.hpp>

#include <gpurent/core/time.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/io/audit/audit_log.hpp>

namespace gpurent::tool {

struct audit_cli {
  std::string path;
  std::string actor;
  std::string time;
};

inline void add_audit_options(CLI::App& cmd, audit_cli& a) {
  auto* log = cmd.add_option("--audit", a.path, "append one hash-chained JSON line per decision to LOG (check it: gpurent audit verify LOG)");
  cmd.add_option("--audit-actor", a.actor, "who made the decisions, written in every audit line")->needs(log);
  cmd.add_option("--audit-time", a.time, "RFC 3339 time written in the audit lines (default: now)")->needs(log);
}

// The log to append to, none without --audit. The tool, not the library, reads the clock.
[[nodiscard]] inline expected<std::optional<io::audit_file>> open_audit(const audit_cli& a) {
  if (a.path.empty()) return std::optional<io::audit_file>{};
  if (!is_utf8(a.actor)) return make_error(error_code::invalid_argument, "--audit-actor", utf8_problem(a.actor));
  // date::format, not format_instant: GCC's -O2 format-truncation check trips on the latter's
  // snprintf when it is inlined here. A given time is written in UTC, as the clock's is.
  std::string time;
  if (a.time.empty()) {
    time = date::format("%FT%TZ", std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  } else if (auto t = parse_instant(a.time); !t) {
    return unexpected(t.error().in_field("--audit-time"));
  } else {
    time = date::format("%FT%TZ", *t);
  }
  GPURENT_TRY(f, io::audit_file::open(a.path, {time, a.actor}));
  return std::optional<io::audit_file>(std::move(*f));
}

}  // namespace gpurent::tool
