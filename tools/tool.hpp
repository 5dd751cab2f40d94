// SPDX-License-Identifier: MIT
#pragma once
// Shared plumbing of the gpurent tool: command registration, exit codes, output format,
// error reporting. Commands live in tools/cmd_*.cpp and hold no logic of their own.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>

namespace gpurent::tool {

// Exit statuses, as docs/formats/README.md states them.
inline constexpr int exit_ok = 0;
inline constexpr int exit_invalid = 2;      // invalid input or usage; message on stderr, nothing on stdout
inline constexpr int exit_not_here = 3;     // the thing asked for does not exist here
inline constexpr int exit_not_written = 4;  // an output (stdout or a file) could not be written in full; no partial file is left

enum class output_format { json, table, csv, focus };  // focus: the FOCUS 1.0 CSV of an invoice (meter only)

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

// How a duration option reads its text: core/time.hpp's parse_duration, the one grammar of
// every duration the tool reads (90s, 15min, 1h30min, 2d12h, 1w); `positive` refuses 0.
struct duration_rule {
  bool positive = false;
};

// The one duration parser of the tool's options: an error names the option.
inline expected<seconds> duration_option(const std::string& text, std::string_view option, duration_rule rule = {}) {
  auto d = parse_duration(text);
  if (!d) return unexpected(d.error().in_field(option));
  if (rule.positive && d->count() <= 0) return make_error(error_code::invalid_argument, std::string(option), "must be positive");
  return d;
}

// Writes all of `text` to f, flushes and closes it; the errno of the first failure, 0 when
// every byte is out.
inline int write_and_close(std::FILE* f, const std::string& text) {
  errno = 0;
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  const int err = wrote ? 0 : (errno != 0 ? errno : EIO);
  if (std::fclose(f) != 0 && wrote) return errno != 0 ? errno : EIO;
  return err;
}

inline unexpected<error> write_error(const std::string& path, const std::string& option, int err) {
  return make_error(error_code::write_failed, option, "cannot write " + path + ": " + std::strerror(err));
}

// Writes bytes to `path` as it is (a symlink followed, a device or a pipe written in place);
// an error names the option and the file.
inline expected<void> write_in_place(const std::string& path, const std::string& text, const std::string& option) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return write_error(path, option, errno);
  if (const int err = write_and_close(f, text); err != 0) return write_error(path, option, err);
  return {};
}

// An output written but not yet in place (stage_file): its temporary file, renamed onto path
// by commit_file; tmp is empty for one already written in place.
struct staged_file {
  std::string path, tmp, option;
};

// Whether path names something that is not a regular file (a symlink, a device, a pipe):
// written in place, through the link.
inline bool written_in_place(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(path, ec);
  return !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st);
}

// A regular file (or a new one) is written to a fresh temporary file beside it (mkstemp:
// never one that exists, so never through someone's link), given the mode the file has or a
// new file would get; a failed write removes it. A symlink, a device or a pipe (/dev/stdout,
// /proc/self/fd/1) is written in place, through the link, at once.
inline expected<staged_file> stage_file(const std::string& path, const std::string& text, const std::string& option) {
  if (written_in_place(path)) {
    GPURENT_TRY(write_in_place(path, text, option));
    return staged_file{path, {}, option};
  }
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec) && !ec;
  std::string tmp = path + ".gpurent-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return write_error(path, option, errno);
  struct stat old {};
  mode_t mode = 0;
  if (exists && ::stat(path.c_str(), &old) == 0) {
    mode = old.st_mode & 07777;
  } else {
    mode = ::umask(0);  // what a new file gets: 0666 less the umask (read by setting it)
    ::umask(mode);
    mode = 0666 & ~mode;
  }
  ::fchmod(fd, mode);
  std::FILE* f = ::fdopen(fd, "wb");
  int err = 0;
  if (f == nullptr) {
    err = errno;
    ::close(fd);
  } else {
    err = write_and_close(f, text);
  }
  if (err != 0) {
    std::remove(tmp.c_str());  // the temporary file this call made, and nothing else
    return write_error(path, option, err);
  }
  return staged_file{path, std::move(tmp), option};
}

// Removes a staged file's temporary file (nothing when it was written in place).
inline void discard_file(const staged_file& s) {
  if (!s.tmp.empty()) std::remove(s.tmp.c_str());
}

// Renames a staged file onto its path (the temporary file is removed if that fails).
inline expected<void> commit_file(const staged_file& s) {
  if (s.tmp.empty() || std::rename(s.tmp.c_str(), s.path.c_str()) == 0) return {};
  const int err = errno;
  std::remove(s.tmp.c_str());
  return write_error(s.path, s.option, err);
}

// Writes an output file whole (bytes as given); an error names the option that asked for it
// and the file. Only when every byte is out is the file renamed into place: a failed write
// (a full disk) leaves no partial file and keeps an earlier file whole (stage_file).
inline expected<void> write_file(const std::string& path, const std::string& text, const std::string& option) {
  GPURENT_TRY(s, stage_file(path, text, option));
  return commit_file(*s);
}

// An output of a command that writes several.
struct output_text {
  const std::string& path;
  std::string text;
  std::string option;
};

// Several outputs, all or none: each regular file is written to its temporary file, then
// those written in place (links, devices, pipes), and only when all are out is any renamed
// into place. A failed write leaves every regular output as it was before the command (only
// a rename that fails after all are written can leave the ones before it renamed).
inline expected<void> write_files(std::span<const output_text> outs) {
  std::vector<staged_file> staged;
  const auto stage = [&](bool in_place) -> expected<void> {
    for (const output_text& o : outs) {
      if (written_in_place(o.path) != in_place) continue;
      auto s = stage_file(o.path, o.text, o.option);
      if (!s) return unexpected(s.error());
      staged.push_back(std::move(*s));
    }
    return {};
  };
  auto done = stage(false);
  if (done) done = stage(true);
  for (const staged_file& s : staged) {
    if (!done) {
      discard_file(s);
    } else if (auto c = commit_file(s); !c) {
      done = c;
    }
  }
  return done;
}

// A file option as given: its name and its path (empty: not given).
struct file_option {
  std::string_view option;
  const std::string& path;
};

// One file option per path of an option given several times or of positional files.
inline void add_file_options(std::vector<file_option>& out, std::string_view option, const std::vector<std::string>& paths) {
  for (const std::string& p : paths) out.push_back({option, p});
}

// Refuses, before anything is read or written, an output that names an input or another
// output: the same path, or the same file by another path (a link). A device or a pipe
// (/dev/null, /dev/stdout) may be named more than once. Every command that writes a file
// calls it first.
inline expected<void> distinct_outputs(std::span<const file_option> inputs, std::span<const file_option> outputs) {
  namespace fs = std::filesystem;
  const auto same = [](const std::string& a, const std::string& b) {
    // Absolute first: weakly_canonical leaves a relative path whose first part does not exist
    // ("a.csv" not yet written) as it is, so it would differ from "./a.csv".
    std::error_code e1, e2, e3, e4;
    const fs::path x = fs::weakly_canonical(fs::absolute(a, e3), e1), y = fs::weakly_canonical(fs::absolute(b, e4), e2);
    if (!e1 && !e2 && !e3 && !e4 && x == y) return true;
    std::error_code e5;
    return fs::equivalent(a, b, e5) && !e5;
  };
  const auto special = [](const std::string& p) {
    std::error_code e;
    const fs::file_status st = fs::status(p, e);
    return !e && fs::exists(st) && !fs::is_regular_file(st);
  };
  for (auto o = outputs.begin(); o != outputs.end(); ++o) {
    if (o->path.empty() || special(o->path)) continue;
    const auto clash = [&](const file_option& f) { return !f.path.empty() && same(o->path, f.path); };
    for (const file_option& i : inputs)
      if (clash(i))
        return make_error(error_code::invalid_argument, std::string(o->option),
                          "names the same file as " + std::string(i.option) + " (" + o->path + "): the output would overwrite the input");
    for (auto p = outputs.begin(); p != o; ++p)
      if (clash(*p))
        return make_error(error_code::invalid_argument, std::string(o->option),
                          "names the same file as " + std::string(p->option) + " (" + o->path + "): one output would overwrite the other");
  }
  return {};
}

inline expected<void> distinct_outputs(std::initializer_list<file_option> inputs, std::initializer_list<file_option> outputs) {
  return distinct_outputs(std::span<const file_option>(inputs.begin(), inputs.size()), std::span<const file_option>(outputs.begin(), outputs.size()));
}

// Reports an error on stderr and returns its exit status.
inline int fail(const error& e) {
  fmt::print(stderr, "gpurent: {}\n", e.describe());
  if (e.code == error_code::write_failed) return exit_not_written;
  return e.code == error_code::not_found ? exit_not_here : exit_invalid;
}

// After a command: whatever it printed must have reached stdout, or the run is no success
// (a full disk, a closed pipe: the buffered tail is only written here).
inline int finish_stdout(int status) {
  errno = 0;
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return status;
  const int err = errno;
  std::clearerr(stdout);  // reported once, here
  fmt::print(stderr, "gpurent: cannot write the output to stdout: {}\n", err != 0 ? std::strerror(err) : "a write failed");
  return exit_not_written;
}

// Prints a command's result on stdout now and says whether all of it got there (exit_ok, or
// exit 4 with the message): what a command keeps besides, such as an --audit line recording
// what it printed, comes only after.
[[nodiscard]] inline int print_result(std::string_view out) {
  std::fwrite(out.data(), 1, out.size(), stdout);
  return finish_stdout(exit_ok);
}

// A number option's text as a finite double: a plain decimal read whole (CLI11 would take
// "1e400" as infinity); none otherwise.
inline std::optional<double> finite_number(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// An integer or number option's text that CLI11 would take wrongly: it reads integers with
// strtoll's base 0 ("010" as 8, "0x10" as 16), clamps 2^63 to 2^63 - 1, reads "-1" as an
// unsigned 2^64 - 1, and takes "1e400" as infinity. The message, or empty when `text` is a
// plain decimal that fits its type (INT, UINT: 64 bits; CLI11 checks narrower types itself).
inline std::string number_option_problem(const std::string& type, const std::string& text) {
  if (type == "FLOAT") return finite_number(text) ? std::string() : "expected a finite decimal number, got \"" + text + "\"";
  const bool is_signed = type == "INT";
  const std::string_view number = text.starts_with('+') ? std::string_view(text).substr(1) : std::string_view(text);  // CLI11 takes "+5"
  const std::string_view digits = is_signed && number.starts_with('-') ? number.substr(1) : number;
  const bool plain =
      !digits.empty() && std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; }) && (digits.size() == 1 || digits[0] != '0');
  if (!plain) return "expected a decimal integer" + std::string(is_signed ? "" : " >= 0") + ", got \"" + text + "\"";
  std::int64_t s = 0;
  std::uint64_t u = 0;
  const char* const end = number.data() + number.size();
  const auto r = is_signed ? std::from_chars(number.data(), end, s) : std::from_chars(number.data(), end, u);
  if (r.ec != std::errc{}) return text + " is out of range (" + (is_signed ? "a 64-bit signed integer" : "a 64-bit unsigned integer") + ")";
  return {};
}

// The first integer or number option of the parsed command whose text CLI11 would have taken
// wrongly (number_option_problem), as an error naming the option.
inline std::optional<error> bad_number_option(const CLI::App& app) {
  for (const CLI::Option* o : app.get_options()) {
    std::string type = o->get_type_name();  // "UINT", or "UINT:INT in [1 - 4096]" with a check
    type = type.substr(0, type.find_first_of(": "));
    if (o->count() == 0 || (type != "INT" && type != "UINT" && type != "FLOAT")) continue;
    for (const std::string& text : o->results())
      if (std::string why = number_option_problem(type, text); !why.empty()) return error{error_code::invalid_argument, o->get_name(), why, {}};
  }
  for (const CLI::App* sub : app.get_subcommands())
    if (auto e = bad_number_option(*sub)) return e;
  return std::nullopt;
}

// A parse error's number option said the tool's way: CLI11 says "Could not convert: --params =
// 7e10" without what was expected; bad_number_option names the option and what it takes.
// Nothing when the error is another kind (its own message is then the one to print).
inline std::optional<error> conversion_problem(const CLI::App& app, const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::ConversionError*>(&e) == nullptr) return std::nullopt;
  return bad_number_option(app);
}

}  // namespace gpurent::tool

#define GPURENT_TOOL_CONCAT2(a, b) a##b
#define GPURENT_TOOL_CONCAT(a, b) GPURENT_TOOL_CONCAT2(a, b)
#define GPURENT_TOOL_COMMAND(name, fn) \
  static const ::gpurent::tool::registration GPURENT_TOOL_CONCAT(gpurent_tool_reg_, __COUNTER__) { name, fn }
