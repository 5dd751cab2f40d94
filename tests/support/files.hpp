// SPDX-License-Identifier: MIT
// The files a test writes and reads back, one way for every layer's tests: a scratch folder
// of this process per name, write_file (the one helper that puts a test's text into a file)
// and slurp (a file's bytes back).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
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

// A scratch directory of this process for `name`, created on first use.
inline std::filesystem::path scratch_dir(std::string_view name) {
  auto d = std::filesystem::temp_directory_path() / ("gpurent-test-" + std::string(name) + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace gpurent::test
