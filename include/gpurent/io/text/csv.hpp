// SPDX-License-Identifier: MIT
#pragma once
// Writing CSV (RFC 4180): a field is quoted when it holds a comma, a quote or a line break,
// with its quotes doubled.

#include <initializer_list>
#include <string>
#include <string_view>

namespace gpurent::io {

inline void csv_field(std::string& out, std::string_view v) {
  if (v.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += v;
    return;
  }
  out += '"';
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// Fields joined by commas, then a newline.
inline void csv_row(std::string& out, std::initializer_list<std::string_view> fields) {
  bool first = true;
  for (std::string_view f : fields) {
    if (!first) out += ',';
    csv_field(out, f);
    first = false;
  }
  out += '\n';
}

}  // namespace gpurent::io
