// SPDX-License-Identifier: MIT
#pragma once
// The io layer's one file reader: the whole of a file, or an io_error naming it.

#include <fstream>
#include <string>

#include <gpurent/core/error.hpp>

namespace gpurent::io {

[[nodiscard]] inline expected<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return unexpected(error{error_code::io_error, {}, "cannot open \"" + path + "\" for reading", path});
  std::string s;
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size > 0) {
    s.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(s.data(), static_cast<std::streamsize>(s.size()));
  }
  if (!in && !in.eof()) return unexpected(error{error_code::io_error, {}, "cannot read \"" + path + "\"", path});
  return s;
}

}  // namespace gpurent::io
