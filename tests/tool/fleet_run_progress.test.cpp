// SPDX-License-Identifier: MIT
// `gpurent fleet run`'s progress line (issue 17: "a progress line on stderr when stderr is a
// terminal"; issue 34: --progress forces it for logs, --quiet silences it): under a
// pseudo-terminal (util-linux `script`) the line is there and ends with the run's end
// instant; with stderr a file, stderr stays empty and stdout is the same JSON. The line's
// text while a run goes on: tests/io/result_writers.test.cpp.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/tool.hpp"

namespace test_tool_fleet_run_progress {

using gpurent::test::run_tool;

// Runs `script` with the tool's command; its stdout is the terminal's whole output.
gpurent::test::tool_result run_on_terminal(const std::string& args) {
  const std::string inner = "'" + gpurent::test::tool_path() + "' " + args;
  const auto dir = gpurent::test::scratch_dir("fleet_progress");
  const auto out = dir / "terminal.out";
  const std::string cmd = "script -qec \"" + inner + "\" /dev/null >'" + out.string() + "' 2>&1";
  const int raw = std::system(cmd.c_str());
  gpurent::test::tool_result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = gpurent::test::slurp(out);
  return r;
}

TEST_CASE("fleet run: a progress line on stderr only when stderr is a terminal") {
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    MESSAGE("skipped: util-linux `script` is not installed (Debian: bsdutils)");
    return;
  }
  const auto dir = gpurent::test::scratch_dir("fleet_progress");
  gpurent::test::write_file(dir / "nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\n");
  // a (1 GPU, 0..100); b needs all 4 GPUs: it waits for a and runs 100..200.
  gpurent::test::write_file(dir / "jobs.csv",
                            "name,workers,num_gpu,gpu_milli,priority,preemptible,arrival,duration,checkpoint_every\n"
                            "a,1,1,1000,0,false,0,100,1800\nb,1,4,1000,0,false,50,100,1800\n");
  const std::string args = "fleet run --nodes '" + (dir / "nodes.csv").string() + "' --jobs '" + (dir / "jobs.csv").string() + "'";

  const auto plain = run_tool(args);
  REQUIRE(plain.status == 0);
  CHECK(plain.err.empty());
  auto json = nlohmann::json::parse(plain.out);
  CHECK(json["classes"]["hp"]["completed"] == 2);
  json.erase("elapsed_s");  // the one figure that differs between two runs

  const auto term = run_on_terminal(args);
  REQUIRE(term.status == 0);
  const auto at = term.out.find("fleet run: t = 200 s, done in ");
  REQUIRE_MESSAGE(at != std::string::npos, term.out);
  // The terminal turns "\n" into "\r\n"; the JSON after the progress line is the same.
  std::string rest = term.out.substr(term.out.find('\n', at) + 1);
  std::erase(rest, '\r');
  auto again = nlohmann::json::parse(rest);
  again.erase("elapsed_s");
  CHECK(again == json);

  // --quiet silences it on a terminal; --progress forces it into a log, a line at a time.
  const auto quiet = run_on_terminal(args + " --quiet");
  REQUIRE(quiet.status == 0);
  CHECK(quiet.out.find("fleet run: t = ") == std::string::npos);
  const auto logged = run_tool(args + " --progress");
  REQUIRE(logged.status == 0);
  CHECK(logged.err == "fleet run: t = 200 s, done in " + logged.err.substr(30, logged.err.size() - 30));
  CHECK(logged.err.ends_with(" s\n"));
  CHECK(logged.err.find('\r') == std::string::npos);
  CHECK(run_tool(args + " --progress --quiet").status == 2);
}

}  // namespace test_tool_fleet_run_progress
