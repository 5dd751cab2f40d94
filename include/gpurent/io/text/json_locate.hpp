// SPDX-License-Identifier: MIT
#pragma once
// Where in a JSON text the value at a JSON path ("offers[3].tiers.steps[1].price") is: a
// document keeps no positions, so the line an error names is found by walking the text again,
// and only on the way to an error.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include <gpurent/core/error.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/io/text/json_parse.hpp>

namespace gpurent::io {

namespace detail {
// Where a value of a well-formed JSON text starts, found by walking the text along a JSON
// path ("offers[3].tiers.steps[1].price"): a document keeps no positions, and an error names
// its field by this path. Only run on the way to an error, so it favours plainness.
class json_text_walk {
 public:
  explicit json_text_walk(std::string_view text) noexcept : t_(text) { space(); }
  [[nodiscard]] std::size_t at() const noexcept { return i_; }
  // Into the member whose key starts `path` (the longest such key, as a key may hold a dot);
  // `path` is left at what follows the key. False when there is no such member.
  [[nodiscard]] bool member(std::string_view& path) {
    if (peek() != '{') return false;
    const std::size_t open = i_++;
    std::size_t best = std::string_view::npos, best_len = 0;
    for (space(); peek() == '"';) {
      const std::string key = read_key();
      const std::string_view written = key.empty() ? std::string_view("\"\"") : std::string_view(key);
      space_colon();
      const bool whole = path.starts_with(written) && (path.size() == written.size() || path[written.size()] == '.' || path[written.size()] == '[');
      if (whole && (best == std::string_view::npos || written.size() > best_len)) {
        best = i_;
        best_len = written.size();
      }
      skip_value();
      space();
      if (peek() == ',') ++i_, space();
    }
    i_ = best == std::string_view::npos ? open : best;
    if (best != std::string_view::npos) path.remove_prefix(best_len);
    return best != std::string_view::npos;
  }
  // Into item `k` of the array here; false when there is none.
  [[nodiscard]] bool item(std::size_t k) {
    if (peek() != '[') return false;
    const std::size_t open = i_++;
    for (std::size_t j = 0;; ++j) {
      space();
      if (peek() == ']' || peek() == '\0') break;
      if (j == k) return true;
      skip_value();
      space();
      if (peek() == ',') ++i_;
    }
    i_ = open;
    return false;
  }

 private:
  [[nodiscard]] char peek() const noexcept { return i_ < t_.size() ? t_[i_] : '\0'; }
  void space() noexcept {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
  }
  void space_colon() noexcept {
    space();
    if (peek() == ':') ++i_;
    space();
  }
  void skip_string() noexcept {
    for (++i_; i_ < t_.size() && t_[i_] != '"'; ++i_)
      if (t_[i_] == '\\') ++i_;
    ++i_;
  }
  // The key at a quote, unescaped (through nlohmann when it holds an escape).
  [[nodiscard]] std::string read_key() {
    const std::size_t from = i_;
    skip_string();
    const std::string_view quoted = t_.substr(from, std::min(i_, t_.size()) - from);
    if (quoted.find('\\') == std::string_view::npos) return std::string(quoted.substr(1, quoted.size() >= 2 ? quoted.size() - 2 : 0));
    try {
      return json::parse(quoted).get<std::string>();
    } catch (const json::exception&) {
      return {};
    }
  }
  // Past one value (nesting is bounded by check_json_depth, and counted here, not recursed).
  void skip_value() noexcept {
    std::size_t depth = 0;
    do {
      space();
      const char c = peek();
      if (c == '\0') return;
      if (c == '"') {
        skip_string();
      } else if (c == '{' || c == '[') {
        ++depth, ++i_;
      } else if (c == '}' || c == ']') {
        if (depth == 0) return;
        --depth, ++i_;
      } else if (c == ',' || c == ':') {
        ++i_;
      } else {
        while (i_ < t_.size() && std::string_view(",}] \t\r\n").find(t_[i_]) == std::string_view::npos) ++i_;
      }
    } while (depth > 0);
  }
  std::string_view t_;
  std::size_t i_ = 0;
};
}  // namespace detail

// The line of the value at JSON path `field` in `text` ("offers[3].price"); where the path
// leads to nothing (a missing member), the line of the deepest value it does reach, such as
// the object that lacks the member.
[[nodiscard]] inline std::size_t json_value_line(std::string_view text, std::string_view field) {
  text = without_bom(text);
  detail::json_text_walk w(text);
  std::string_view path = field == "(top level)" ? std::string_view() : field;
  while (!path.empty()) {
    if (path.front() == '.') path.remove_prefix(1);
    if (path.empty()) break;
    if (path.front() == '[') {
      const std::size_t close = path.find(']');
      std::size_t k = 0;
      bool number = close != std::string_view::npos && close > 1;
      for (std::size_t c = 1; number && c < close; ++c) {
        number = path[c] >= '0' && path[c] <= '9';
        k = k * 10 + static_cast<std::size_t>(path[c] - '0');
      }
      if (!number || !w.item(k)) break;
      path.remove_prefix(close + 1);
    } else if (!w.member(path)) {
      break;
    }
  }
  return detail::line_at(text, w.at());
}

// An error of a JSON reader located at the line of the value its field names (kept when the
// error already has a place).
[[nodiscard]] inline error json_located(error e, std::string_view text, std::string_view file) {
  if (e.where.empty() || e.where == file) e.where = detail::json_where(file, json_value_line(text, e.field));
  return e;
}

}  // namespace gpurent::io
