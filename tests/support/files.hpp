// SPDX-License-Identifier: MIT
// The files a test writes and reads back, one way for every layer's tests: a scratch folder
// of this process per name, write_file (the one helper that puts a test's text into a file)
// and slurp (a file's bytes back).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

namespace gpurent::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` to `p` byte for byte (the file is closed on return) and gives `p` back as a
// string, ready for a command line: `write_file(scratch() / "nodes.csv", text)`.
inline std::string write_file(const std::filesystem::path& p, std::string_view text) {
  {
    std::ofstream out(p, std::ios::binary);
    out << text;
  }
  return p.string();
}

// Where the scratch directory of this process for `name` is (scratch_dir makes it).
inline std::filesystem::path scratch_path(std::string_view name) {
  return std::filesystem::temp_directory_path() / ("gpurent-test-" + std::string(name) + "-" + std::to_string(::getpid()));
}

// A scratch directory of this process for `name`, made empty on first use: its name holds
// the process id, and an earlier test run whose process had the same id (ids are reused, and
// /tmp outlives a run) may have left files there that a test counting what is in the folder
// would take for its own (CI saw one: a link another test case had left).
inline std::filesystem::path scratch_dir(std::string_view name) {
  static std::mutex m;
  static std::set<std::string, std::less<>> made;
  const std::filesystem::path d = scratch_path(name);
  const std::lock_guard lock(m);
  if (made.insert(std::string(name)).second) std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace gpurent::test
