// SPDX-License-Identifier: MIT
#pragma once
// Shared plumbing of the gpurent tool: command registration, exit codes, output format,
// error reporting. Commands live in tools/cmd_*.cpp and hold no logic of their own.

#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <gpurent/core/error.hpp>

namespace gpurent::tool {

// Exit statuses, as ../shared/protocols/cli.md fixes them.
inline constexpr int exit_ok = 0;
inline constexpr int exit_invalid = 2;   // invalid input or usage; message on stderr, nothing on stdout
inline constexpr int exit_not_here = 3;  // the thing asked for does not exist here

enum class output_format { json, table, csv };

// A command's setup adds its subcommand and options to the app and returns what runs it.
using runner = std::function<int()>;
using setup_fn = runner (*)(CLI::App&);

inline std::map<std::string, setup_fn>& registry() {
  static std::map<std::string, setup_fn> r;  // sorted by name, so --help lists them in order
  return r;
}

struct registration {
  registration(const char* name, setup_fn f) { registry().emplace(name, f); }
};

// Adds `--format` with the given choices; the default is the first. Only the names are
// accepted (in any case): CLI::CheckedTransformer would also take the enum's number, so
// `--format 1` read as the second choice.
inline void add_format_option(CLI::App& cmd, output_format& out, std::initializer_list<std::pair<std::string, output_format>> choices) {
  std::map<std::string, output_format> m(choices.begin(), choices.end());
  std::string names;
  for (const auto& c : choices) names += (names.empty() ? "" : ",") + c.first;
  out = choices.begin()->second;
  CLI::Validator by_name(
      [m, names](std::string& text) -> std::string {
        std::string lower = text;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const auto at = m.find(lower);
        if (at == m.end()) return "expected one of {" + names + "}, got \"" + text + "\"";
        text = std::to_string(static_cast<int>(at->second));  // what the option's enum is read from
        return {};
      },
      "{" + names + "}", "FORMAT");
  cmd.add_option("--format", out, "output format")->transform(by_name);
}

// Reports an input error on stderr and returns the invalid-input status.
// Writes an output file whole (bytes as given); an error names the option that asked for it.
inline expected<void> write_file(const std::string& path, const std::string& text, const std::string& option) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return make_error(error_code::io_error, option, "cannot write " + path);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) return make_error(error_code::io_error, option, "cannot write " + path);
  return {};
}

inline int fail(const error& e) {
  fmt::print(stderr, "gpurent: {}\n", e.describe());
  return e.code == error_code::not_found ? exit_not_here : exit_invalid;
}

}  // namespace gpurent::tool

#define GPURENT_TOOL_CONCAT2(a, b) a##b
#define GPURENT_TOOL_CONCAT(a, b) GPURENT_TOOL_CONCAT2(a, b)
#define GPURENT_TOOL_COMMAND(name, fn) \
  static const ::gpurent::tool::registration GPURENT_TOOL_CONCAT(gpurent_tool_reg_, __COUNTER__) { name, fn }
