// SPDX-License-Identifier: MIT
#pragma once
// JSON text to a document, with every error the parser can report turned into a parse_error
// that names the file and line: syntax errors (nlohmann's parse_error, which knows the byte)
// and the others it throws while parsing, such as a number too large for a double
// (out_of_range 406, which knows only the token: its line is where the token first appears).

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <gpurent/core/error.hpp>

namespace gpurent::io::detail {

// 1-based line of byte offset `upto` (clamped to the text).
[[nodiscard]] inline std::size_t line_at(std::string_view text, std::size_t upto) noexcept {
  std::size_t line = 1;
  for (std::size_t i = 0; i < upto && i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

// "file:line", or "line N" when there is no file name.
[[nodiscard]] inline std::string json_where(std::string_view file, std::size_t line) {
  return file.empty() ? "line " + std::to_string(line) : std::string(file) + ":" + std::to_string(line);
}

[[nodiscard]] inline expected<nlohmann::json> parse_json_text(std::string_view text, std::string_view file) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    const std::size_t upto = e.byte > 0 ? e.byte - 1 : 0;
    return unexpected(error{error_code::parse_error, {}, std::string("not valid JSON: ") + e.what(), json_where(file, line_at(text, upto))});
  } catch (const nlohmann::json::exception& e) {
    // The message quotes the offending token: "... parsing '1e999'".
    const std::string what = e.what();
    std::size_t line = 1;
    if (const auto open = what.find('\''), close = what.rfind('\''); open != std::string::npos && close > open) {
      const auto at = text.find(std::string_view(what).substr(open + 1, close - open - 1));
      if (at != std::string_view::npos) line = line_at(text, at);
    }
    return unexpected(error{error_code::parse_error, {}, std::string("not valid JSON: ") + what, json_where(file, line)});
  }
}

}  // namespace gpurent::io::detail
