// SPDX-License-Identifier: MIT
#pragma once
// Usage labels (docs/formats/billing.md, "Labels"): `key=value` pairs a record carries into
// the invoice (a line's amount per label set) and FOCUS's Tags, never into its rating. A
// label set has one text, its key: the pairs in byte order of key, each key once, joined by
// `|` ("project=vision|team=cv"; "" is no labels). Keys are letters, digits, `_`, `.` and
// `-`; values are UTF-8 without `|`.

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/utf8.hpp>

namespace gpurent {

using label_pair = std::pair<std::string_view, std::string_view>;

// Whether `key` is a label key: non-empty, letters, digits, '_', '.' and '-'.
[[nodiscard]] constexpr bool is_label_key(std::string_view key) noexcept {
  if (key.empty()) return false;
  return std::ranges::all_of(
      key, [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'; });
}

namespace detail {
[[nodiscard]] inline unexpected<error> label_error(std::string message) {
  return make_error(error_code::invalid_argument, "labels", std::move(message));
}
}  // namespace detail

// Appends the pairs of a `labels` cell ("k=v|k=v"; empty: none) to `out`, as views into it.
[[nodiscard]] inline expected<void> parse_label_cell(std::string_view cell, std::vector<label_pair>& out) {
  while (!cell.empty()) {
    const std::size_t bar = cell.find('|');
    const std::string_view item = cell.substr(0, bar);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return detail::label_error("\"" + std::string(item) + "\" is not key=value");
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    if (bar == std::string_view::npos) break;
    cell.remove_prefix(bar + 1);
    if (cell.empty()) return detail::label_error("a `|` with no label after it");
  }
  return {};
}

// The label set's key of `pairs` (sorted in place) into `out`; an error (field "labels")
// names a key that is not a label key, a value that is not UTF-8 or holds `|`, a key twice.
[[nodiscard]] inline expected<void> label_set_text(std::span<label_pair> pairs, std::string& out) {
  out.clear();
  std::ranges::sort(pairs, {}, &label_pair::first);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto [key, value] = pairs[i];
    if (!is_label_key(key)) return detail::label_error("label key \"" + std::string(key) + "\": keys are letters, digits, '_', '.' and '-'");
    if (i > 0 && pairs[i - 1].first == key) return detail::label_error("label \"" + std::string(key) + "\" given twice");
    if (!is_utf8(value)) return detail::label_error("label \"" + std::string(key) + "\": " + utf8_problem(value));
    if (value.find('|') != std::string_view::npos) return detail::label_error("label \"" + std::string(key) + "\": a value cannot hold '|'");
    if (i > 0) out += '|';
    out.append(key);
    out += '=';
    out.append(value);
  }
  return {};
}

// Whether `text` is a label set's key as label_set_text writes it (a partial's, read back).
[[nodiscard]] inline bool is_label_set_key(std::string_view text) {
  std::vector<label_pair> pairs;
  std::string canonical;
  return parse_label_cell(text, pairs) && label_set_text(pairs, canonical) && canonical == text;
}

// The pairs of a label set's key (label_set_text's output), in its order.
[[nodiscard]] inline std::vector<std::pair<std::string, std::string>> label_set_pairs(std::string_view text) {
  std::vector<label_pair> views;
  if (!parse_label_cell(text, views)) return {};  // not a label set's key: none
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : views) out.emplace_back(k, v);
  return out;
}

}  // namespace gpurent
