// SPDX-License-Identifier: MIT
#pragma once
// The audit log: one JSON line per decision, hash-chained so that an edit, a deletion or a
// reordering is detected, and at the line where it happened (docs/isolation.md, "The audit
// log").
//
// A line is the canonical JSON text (nlohmann's dump of an ordered object: members in the
// order written, no spaces, UTF-8 as is) of
//
//   {"seq":N,"prev":"<hash of line N-1>", ...the record's members..., "hash":"<SHA-256>"}
//
// `seq` counts lines from 1; `prev` of line 1 is `audit_genesis` (64 zeros); `hash` is the
// SHA-256 (hex) of the line's text without its `"hash"` member (the same object dumped
// without it). Every line ends with '\n'. Reading a line back and dumping it again gives the
// same bytes, so anyone can recompute the chain with any JSON library that keeps member
// order (floating-point members are avoided: records write decimals as strings).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/io/text/file.hpp>
#include <gpurent/io/text/json_reader.hpp>
#include <gpurent/io/text/sha256.hpp>

namespace gpurent::io {

using ordered_json = nlohmann::ordered_json;

// The `prev` of the first line: no line before it.
inline constexpr std::string_view audit_genesis = "0000000000000000000000000000000000000000000000000000000000000000";

// Where a chain stands: how many lines it has and the hash of the last one. A holder who
// keeps the head of a log it was given can later tell whether lines were cut off its end.
struct audit_head {
  std::uint64_t lines = 0;
  std::string hash{audit_genesis};
  friend bool operator==(const audit_head&, const audit_head&) = default;
};

// Who made the decisions and when: the first members of every record after seq and prev.
// The library reads no clock: the caller (the tool) says what time it is.
struct audit_context {
  std::string time;   // RFC 3339
  std::string actor;  // empty: not given, and then not written
};

namespace detail {
[[nodiscard]] inline std::string canonical(const ordered_json& j) { return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace); }

// The line of `body` (a canonical object without "hash") once its hash is appended.
[[nodiscard]] inline std::string with_hash(std::string_view body, std::string_view hash) {
  std::string line(body.substr(0, body.size() - 1));
  line += body.size() > 2 ? ",\"hash\":\"" : "\"hash\":\"";
  line += hash;
  line += "\"}";
  return line;
}
}  // namespace detail

// Turns records into chained lines. Records are objects; their members follow seq, prev,
// time, actor (and must not be named so, nor "hash").
class audit_chain {
 public:
  explicit audit_chain(audit_context ctx, audit_head from = {}) : ctx_(std::move(ctx)), head_(std::move(from)) {}

  // The line (with its '\n') of a record of this kind, advancing the head.
  [[nodiscard]] std::string line(std::string_view kind, const ordered_json& record) {
    ordered_json j = ordered_json::object();
    j["seq"] = head_.lines + 1;
    j["prev"] = head_.hash;
    j["time"] = ctx_.time;
    if (!ctx_.actor.empty()) j["actor"] = ctx_.actor;
    j["kind"] = kind;
    for (const auto& [k, v] : record.items()) {
      GPURENT_ASSERT(!j.contains(k) && k != "hash");
      j[k] = v;
    }
    const std::string body = detail::canonical(j);
    head_.hash = sha256_hex(body);
    ++head_.lines;
    std::string out = detail::with_hash(body, head_.hash);
    out += '\n';
    return out;
  }
  [[nodiscard]] const audit_head& head() const noexcept { return head_; }

 private:
  audit_context ctx_;
  audit_head head_;
};

namespace detail {
[[nodiscard]] inline error audit_error(std::string_view file, std::uint64_t line, std::string message) {
  return error{error_code::parse_error, {}, std::move(message), std::string(file) + ":" + std::to_string(line)};
}

// Checks one line (no '\n') against the head before it; the line's hash on success.
[[nodiscard]] inline expected<std::string> check_audit_line(std::string_view text, const audit_head& before, std::string_view file) {
  const std::uint64_t n = before.lines + 1;
  GPURENT_TRY(check_json_depth(text, file, n));
  ordered_json j;
  try {
    j = ordered_json::parse(text);
  } catch (const ordered_json::exception&) {
    return unexpected(audit_error(file, n, "not a JSON line (edited or cut off)"));
  }
  if (!j.is_object() || !j.contains("hash") || !j["hash"].is_string() || !j.contains("seq") || !j.contains("prev")) {
    return unexpected(audit_error(file, n, "not an audit record (seq, prev and hash are required)"));
  }
  const std::string hash = j["hash"].get<std::string>();
  j.erase("hash");
  const std::string body = canonical(j);
  if (with_hash(body, hash) != text) return unexpected(audit_error(file, n, "not in canonical form (edited)"));
  if (sha256_hex(body) != hash) return unexpected(audit_error(file, n, "content does not match its hash (edited)"));
  if (!j["seq"].is_number_unsigned() || j["seq"].get<std::uint64_t>() != n) {
    return unexpected(
        audit_error(file, n, "seq is " + j["seq"].dump() + ", expected " + std::to_string(n) + " (a line was dropped, inserted or moved here)"));
  }
  if (j["prev"] != before.hash) {
    return unexpected(audit_error(file, n, "prev does not match the hash of line " + std::to_string(n - 1) + " (lines were replaced or reordered)"));
  }
  return hash;
}
}  // namespace detail

// Checks a whole log: every line complete, canonical, matching its hash, numbered in order
// and chained to the one before. The head on success; the first bad line's error otherwise.
// An empty log is valid (0 lines, the genesis hash). What no check of the text alone can
// show: lines cut off the end at a line boundary (compare the head with one kept earlier).
[[nodiscard]] inline expected<audit_head> verify_audit_log(std::string_view text, std::string_view file) {
  audit_head head;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) {
      return unexpected(detail::audit_error(file, head.lines + 1, "incomplete line (no end of line: the log was cut off)"));
    }
    GPURENT_TRY(hash, detail::check_audit_line(text.substr(at, end - at), head, file));
    head.hash = std::move(*hash);
    ++head.lines;
    at = end + 1;
  }
  return head;
}

// The text of the audit log at `path`, which must be a regular file (or a link to one): a
// log is read whole and then appended to, so a pipe (it would wait for the tool's own
// output) or a device (/dev/zero never ends, /dev/full holds nothing) is refused by name.
[[nodiscard]] inline expected<std::string> read_audit_log(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    return unexpected(
        error{error_code::io_error, {}, "the audit log \"" + path + "\" is not a regular file (a pipe or a device cannot hold its chain)", path});
  return read_file(path);
}

// An audit log file that decisions are appended to: it continues the chain of what the file
// holds already (which must verify), and writes on commit(), so a run that fails adds
// nothing.
class audit_file {
 public:
  [[nodiscard]] static expected<audit_file> open(std::string path, audit_context ctx) {
    audit_head head;
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      GPURENT_TRY(text, read_audit_log(path));
      GPURENT_TRY(h, verify_audit_log(*text, path));
      head = std::move(*h);
    }
    return audit_file(std::move(path), audit_chain(std::move(ctx), std::move(head)));
  }

  void record(std::string_view kind, const ordered_json& r) { pending_ += chain_.line(kind, r); }
  [[nodiscard]] const audit_head& head() const noexcept { return chain_.head(); }

  // Appends the pending lines; when they cannot all be written (a full disk), the file is cut
  // back to the lines it held, so that the chain still verifies and the run is an error.
  [[nodiscard]] expected<void> commit() {
    std::error_code ec;
    const std::uintmax_t before = std::filesystem::exists(path_, ec) ? std::filesystem::file_size(path_, ec) : 0;
    std::ofstream out(path_, std::ios::binary | std::ios::app);
    out.write(pending_.data(), static_cast<std::streamsize>(pending_.size()));
    out.close();
    if (!out) {
      if (std::filesystem::is_regular_file(path_, ec)) std::filesystem::resize_file(path_, before, ec);
      return unexpected(error{error_code::io_error, {}, "cannot write the audit log \"" + path_ + "\"", path_});
    }
    pending_.clear();
    return {};
  }

 private:
  audit_file(std::string path, audit_chain chain) : path_(std::move(path)), chain_(std::move(chain)) {}
  std::string path_;
  audit_chain chain_;
  std::string pending_;
};

}  // namespace gpurent::io
