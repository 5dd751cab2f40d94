// SPDX-License-Identifier: MIT
#pragma once
// The io layer's one file reader: the whole of a file, or an io_error naming it; and the one
// check every reader of a path makes before opening it (a directory opens and reads as
// nothing, or as a size no buffer holds, so it is refused by name first).

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include <gpurent/core/error.hpp>

namespace gpurent::io {

// An error when `path` names a directory: what an input file cannot be.
[[nodiscard]] inline expected<void> check_input_path(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return unexpected(error{error_code::io_error, {}, "\"" + path + "\" is a directory, not a file", path});
  return {};
}

// The whole file; a pipe or a device is read to its end (its size is not known in advance).
[[nodiscard]] inline expected<std::string> read_file(const std::string& path) {
  GPURENT_TRY(check_input_path(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return unexpected(error{error_code::io_error, {}, "cannot open \"" + path + "\" for reading", path});
  std::string s;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  if (!ec && size > 0) s.reserve(static_cast<std::size_t>(size));
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) s.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return unexpected(error{error_code::io_error, {}, "cannot read \"" + path + "\"", path});
  return s;
}

}  // namespace gpurent::io
