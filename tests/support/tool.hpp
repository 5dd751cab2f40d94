// SPDX-License-Identifier: MIT
// Running the gpurent tool from a test: one helper for every layer's command tests. The tool
// runs through the shell with its stdout and stderr captured to files, so a test sees both
// streams and the exit status exactly as a user's shell would. The files a test writes and
// reads are support/files.hpp's.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "support/files.hpp"

namespace gpurent::test {

struct tool_result {
  int status = -1;  // the exit status; -1 when the tool did not exit normally (signal)
  std::string out;
  std::string err;
};

// The tool under test: GPURENT_TEST_TOOL when set (scripts/device-check runs the tests from a
// bundle), else the one this build made.
inline std::string tool_path() {
  const char* t = std::getenv("GPURENT_TEST_TOOL");
  if (t != nullptr && *t != '\0') return t;
#if defined(GPURENT_TOOL_PATH)
  return GPURENT_TOOL_PATH;
#else
  return {};
#endif
}

// GPURENT_EXPECT_GPU=1: the machine has a GPU and the GPU paths must be taken, not skipped.
inline bool expect_gpu() {
  const char* e = std::getenv("GPURENT_EXPECT_GPU");
  return e != nullptr && std::string_view(e) == "1";
}

// Runs `gpurent ARGS` (ARGS as the shell reads them) with `env` ("VAR=value ...") in front,
// in `cwd` (unchanged when empty).
inline tool_result run_tool(const std::string& args, const std::string& env = {}, const std::filesystem::path& cwd = {}) {
  static int n = 0;
  const auto dir = scratch_dir("tool");
  const std::string tag = std::to_string(n++);
  const auto out = dir / (tag + ".out");
  const auto err = dir / (tag + ".err");
  std::string cmd;
  if (!cwd.empty()) cmd += "cd '" + cwd.string() + "' && ";
  if (!env.empty()) cmd += "env " + env + " ";
  cmd += "'" + tool_path() + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int raw = std::system(cmd.c_str());
  tool_result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

}  // namespace gpurent::test
