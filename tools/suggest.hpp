// SPDX-License-Identifier: MIT
#pragma once
// "did you mean ...?": when the command line does not parse, each word the command does not
// know (a subcommand or a long option) with the nearest name it does know, by edit distance.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace gpurent::tool {

// Levenshtein distance (insertions, deletions, substitutions of one byte each).
[[nodiscard]] inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The name nearest to `word` when it is near enough (at most a third of its length, and 2 at
// least, edits away); ties go to the first name.
[[nodiscard]] inline std::optional<std::string> nearest_name(std::string_view word, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

namespace detail {
[[nodiscard]] inline std::vector<std::string> long_options(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const CLI::Option* o : cmd.get_options())
    for (const std::string& n : o->get_lnames()) out.push_back("--" + n);
  return out;
}
[[nodiscard]] inline std::vector<const CLI::App*> subcommands_of(const CLI::App& cmd) {
  return cmd.get_subcommands([](const CLI::App*) { return true; });
}
}  // namespace detail

// "did you mean" lines for the words of `args` (argv without the program) that `app` does not
// know: a word starting with "--" among the long options of the command it follows, another
// word among that command's subcommands (when it has some and the word is not an option's value).
[[nodiscard]] inline std::vector<std::string> suggestions(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> out;
  const CLI::App* cur = &app;
  bool value_next = false;
  for (const std::string& w : args) {
    if (w.starts_with("--")) {
      const std::string name = w.substr(0, w.find('='));
      const auto known = detail::long_options(*cur);
      value_next = false;
      if (std::ranges::find(known, name) != known.end()) {
        const CLI::Option* o = cur->get_option_no_throw(name);
        value_next = o != nullptr && o->get_type_size_max() > 0 && w.find('=') == std::string::npos;
      } else if (auto n = nearest_name(name, known)) {
        out.push_back("unknown option " + name + ": did you mean " + *n + "?");
      }
      continue;
    }
    const bool is_value = value_next;
    value_next = false;
    if (is_value || w.starts_with("-")) continue;
    const std::vector<const CLI::App*> subs = detail::subcommands_of(*cur);
    std::vector<std::string> names;
    for (const CLI::App* s : subs) names.push_back(s->get_name());
    if (names.empty()) continue;
    if (const auto at = std::ranges::find(names, w); at != names.end()) {
      cur = subs[static_cast<std::size_t>(at - names.begin())];
    } else if (auto n = nearest_name(w, names)) {
      out.push_back("unknown command \"" + w + "\": did you mean \"" + *n + "\"?");
    }
  }
  return out;
}

}  // namespace gpurent::tool
