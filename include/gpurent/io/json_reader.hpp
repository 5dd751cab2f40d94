// SPDX-License-Identifier: MIT
#pragma once
// The io layer's one JSON toolkit: text to a document (syntax errors, numbers no double
// holds and a key given twice in one object become errors naming file:line), and `json_object`, the reader every JSON
// format of gpurent uses (catalog, tariff, offers, workload). It reads the members of one
// object by name, names every field by its JSON path ("offers[3].tiers.steps[1].price") in
// errors, and remembers what it was asked for, so that a member nobody asked for (a typo) is
// an error listing the fields that are known, never a silent default.
//
// Messages, the same in every format:
//   missing required field
//   expected a string, got number            (and: an integer, true or false, an array, ...)
//   expected a decimal string such as "2.49", got number
//   unknown field (expected one of: id, gpu, price)
//   given twice in one object (only one value can be kept)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/core/utf8.hpp>

namespace gpurent::io {

using json = nlohmann::json;

namespace detail {
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

// A key given twice in one object: nlohmann keeps the last value silently, which would drop
// the first (a node listed twice in a topology, a rate field given twice). The parse
// callback sees every event in document order. Counting an object's keys and comparing
// with its size when it closes finds a repeat for the price of a counter; only then a
// second pass (`exact`) keeps each object's keys to name the first key given twice by its
// JSON path ("nodes.n0001").
class json_key_twice {
 public:
  explicit json_key_twice(bool exact) noexcept : exact_(exact) {}
  bool operator()(int /*depth*/, json::parse_event_t e, json& parsed) {
    using event = json::parse_event_t;
    if (e == event::object_start || e == event::array_start) {
      if (!open_.empty() && !open_.back().object) ++open_.back().items;
      open_.push_back(frame{e == event::object_start, 0, {}, {}});
    } else if ((e == event::object_end || e == event::array_end) && !open_.empty()) {
      found_ = found_ || (e == event::object_end && open_.back().items != parsed.size());
      open_.pop_back();
    } else if (e == event::value && !open_.empty() && !open_.back().object) {
      ++open_.back().items;
    } else if (e == event::key && !open_.empty()) {
      frame& f = open_.back();
      ++f.items;
      if (exact_) exact_key(f, parsed.get_ref<const std::string&>());
    }
    return true;
  }
  // Whether some object has a key twice; after an exact pass, the first such key and its path.
  [[nodiscard]] bool found() const noexcept { return found_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] const std::string& key() const noexcept { return key_; }

 private:
  struct frame {
    bool object;
    std::size_t items;  // keys read (objects), items begun (arrays)
    std::string key;    // objects, exact pass: the member being read
    std::unordered_set<std::string> keys;
  };
  void exact_key(frame& f, const std::string& k) {
    f.key = k;
    if (f.keys.insert(k).second || !path_.empty()) return;
    key_ = k;
    for (const frame& o : open_) {  // each open object's key and array's item, outermost first
      if (o.object)
        path_ += (path_.empty() ? "" : ".") + o.key;
      else
        path_ += "[" + std::to_string(o.items - 1) + "]";
    }
  }
  bool exact_;
  bool found_ = false;
  std::vector<frame> open_;
  std::string path_, key_;
};

// The error for a key given twice: a second, exact pass names it (by path) and its line, that
// of its second appearance (line 1 when the key is written with escapes and not found as such).
[[nodiscard]] inline error json_twice_error(std::string_view text, std::string_view file) {
  json_key_twice k(true);
  [[maybe_unused]] const json again = json::parse(text.begin(), text.end(), [&k](int d, json::parse_event_t e, json& p) { return k(d, e, p); });
  const std::string quoted = "\"" + k.key() + "\"";
  std::size_t at = text.find(quoted);
  if (at != std::string_view::npos && text.find(quoted, at + 1) != std::string_view::npos) at = text.find(quoted, at + 1);
  return error{error_code::duplicate, k.path(), "given twice in one object (only one value can be kept)",
               json_where(file, at == std::string_view::npos ? 1 : line_at(text, at))};
}
}  // namespace detail

// How deep arrays and objects may nest in any JSON input: far beyond what a tariff, a
// catalog or a Prometheus answer needs, and shallow enough that no reader (nor nlohmann's
// recursive writer and destructor) can exhaust the stack on a hostile file.
inline constexpr std::size_t json_max_depth = 256;

namespace detail {
// An error when arrays and objects in `text` nest deeper than json_max_depth, at the line
// (counted from `first_line`) where the limit is passed. One pass over the bytes, before any
// parser sees them; strings (and their escaped quotes) are skipped.
[[nodiscard]] inline expected<void> check_json_depth(std::string_view text, std::string_view file, std::size_t first_line = 1) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > json_max_depth)
        return unexpected(error{error_code::parse_error,
                                {},
                                "nested deeper than " + std::to_string(json_max_depth) + " arrays and objects (the limit of every JSON input)",
                                json_where(file, first_line - 1 + line_at(text, i))});
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return {};
}
}  // namespace detail

// JSON text to a document. Syntax errors carry the line nlohmann reports; other parse
// exceptions (a number too large for a double: out_of_range 406) quote their token, whose
// first appearance gives the line. A key given twice in one object is an error too, and so is
// nesting deeper than json_max_depth. A UTF-8 byte-order mark at the start is skipped.
[[nodiscard]] inline expected<json> parse_json_text(std::string_view text, std::string_view file) {
  text = without_bom(text);
  GPURENT_TRY(detail::check_json_depth(text, file));
  detail::json_key_twice twice(false);
  try {
    json doc = json::parse(text.begin(), text.end(), [&twice](int depth, json::parse_event_t e, json& parsed) { return twice(depth, e, parsed); });
    if (twice.found()) return unexpected(detail::json_twice_error(text, file));
    return doc;
  } catch (const json::parse_error& e) {
    const std::size_t upto = e.byte > 0 ? e.byte - 1 : 0;
    return unexpected(
        error{error_code::parse_error, {}, std::string("not valid JSON: ") + e.what(), detail::json_where(file, detail::line_at(text, upto))});
  } catch (const json::exception& e) {
    const std::string what = e.what();
    std::size_t line = 1;
    if (const auto open = what.find('\''), close = what.rfind('\''); open != std::string::npos && close > open) {
      const auto at = text.find(std::string_view(what).substr(open + 1, close - open - 1));
      if (at != std::string_view::npos) line = detail::line_at(text, at);
    }
    return unexpected(error{error_code::parse_error, {}, std::string("not valid JSON: ") + what, detail::json_where(file, line)});
  }
}

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

// "offers[3]": the path of an array item.
[[nodiscard]] inline std::string json_item(std::string_view path, std::size_t i) { return std::string(path) + "[" + std::to_string(i) + "]"; }

// An error in the field at `path`.
[[nodiscard]] inline unexpected<error> json_fail(std::string path, std::string message, error_code code = error_code::invalid_argument) {
  return make_error(code, std::move(path), std::move(message));
}

class json_object {
 public:
  // `path` is the object's JSON path, empty for the document itself.
  json_object(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  // The value must be an object: call first.
  [[nodiscard]] expected<void> check() const {
    if (!j_.is_object()) return json_fail(path_.empty() ? "(top level)" : path_, std::string("expected an object, got ") + j_.type_name());
    return {};
  }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  // The member's path; an empty key is written "" so that an error still names it.
  [[nodiscard]] std::string field(std::string_view key) const {
    const std::string k = key.empty() ? std::string("\"\"") : std::string(key);
    return path_.empty() ? k : path_ + "." + k;
  }
  [[nodiscard]] unexpected<error> fail(std::string_view key, std::string message) const { return json_fail(field(key), std::move(message)); }

  // The member, as written (a JSON null too); nullptr when absent. Marks the key as known.
  [[nodiscard]] const json* member(std::string_view key) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  // The member; nullptr when absent or null (null means "not given").
  [[nodiscard]] const json* find(std::string_view key) {
    const json* v = member(key);
    return v == nullptr || v->is_null() ? nullptr : v;
  }
  // Whether the member is there and not null (a key the reader knows, as `member` marks it).
  [[nodiscard]] bool has(std::string_view key) { return find(key) != nullptr; }

  expected<void> string(std::string_view key, std::string& out, bool required = false) {
    return read(key, required, "a string", &json::is_string, [&](const json& v) -> expected<void> {
      out = v.get<std::string>();
      return {};
    });
  }
  // A string that must not be empty when given.
  expected<void> name(std::string_view key, std::string& out, bool required = false) {
    GPURENT_TRY(string(key, out, required));
    if (has(key) && out.empty()) return fail(key, "must not be empty");
    return {};
  }
  template <class I>
  expected<void> integer(std::string_view key, I& out, std::int64_t lo, std::int64_t hi, bool required = false) {
    return read(key, required, "an integer", &json::is_number_integer, [&](const json& v) -> expected<void> {
      const bool huge = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
      const std::int64_t x = huge ? hi : v.get<std::int64_t>();
      if (huge || x < lo || x > hi) return fail(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
      out = static_cast<I>(x);
      return {};
    });
  }
  expected<void> boolean(std::string_view key, bool& out, bool required = false) {
    return read(key, required, "true or false", &json::is_boolean, [&](const json& v) -> expected<void> {
      out = v.get<bool>();
      return {};
    });
  }
  // A string member turned into a value by `parse` (text -> expected<T>); `what` names the
  // form the type error asks for. Errors of `parse` are placed in this member's field.
  template <class T, class Parse>
  expected<void> parsed(std::string_view key, T& out, std::string_view what, Parse&& parse, bool required = false) {
    return read(key, required, what, &json::is_string, [&](const json& v) -> expected<void> {
      auto p = parse(v.get<std::string>());
      if (!p) return unexpected<error>(p.error().in_field(field(key)));
      out = *p;
      return {};
    });
  }
  // A decimal written as a string ("2.49"): a JSON number went through someone's double.
  template <int S, class... P>
  expected<void> dec(std::string_view key, decimal<S, P...>& out, bool required = false) {
    return parsed(
        key, out, "a decimal string such as \"2.49\"", [](std::string_view t) { return decimal<S, P...>::parse(t); }, required);
  }
  expected<void> duration(std::string_view key, seconds& out, bool required = false) {
    return parsed(
        key, out, "a duration string such as \"15min\"", [](std::string_view t) { return parse_duration(t); }, required);
  }
  expected<void> time_point(std::string_view key, instant& out, bool required = false) {
    return parsed(
        key, out, "an RFC 3339 instant such as \"2026-11-03T10:15:00Z\"", [](std::string_view t) { return parse_instant(t); }, required);
  }
  // One of an enum's names (core/enum.hpp): "expected server, gpu, ... got \"rack\"".
  template <NamedEnum E>
  expected<void> enumeration(std::string_view key, E& out, bool required = false) {
    return read(key, required, "a string", &json::is_string, [&](const json& v) -> expected<void> {
      GPURENT_TRY(e, parse_enum_field<E>(v.get<std::string>(), field(key)));
      out = *e;
      return {};
    });
  }
  expected<void> strings(std::string_view key, std::vector<std::string>& out, bool required = false) {
    return read(key, required, "an array of strings", &json::is_array, [&](const json& v) -> expected<void> {
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string()) return json_fail(json_item(field(key), i), std::string("expected a string, got ") + v[i].type_name());
        out.push_back(v[i].get<std::string>());
      }
      return {};
    });
  }
  // The array member (nullptr when absent and not required).
  [[nodiscard]] expected<const json*> array(std::string_view key, bool required = false) {
    const json* v = find(key);
    if (v == nullptr) return required ? fail(key, "missing required field") : expected<const json*>(nullptr);
    if (!v->is_array()) return fail(key, std::string("expected an array, got ") + v->type_name());
    return v;
  }

  // Every member must have been asked for: a misspelt field is an error, not a default.
  [[nodiscard]] expected<void> finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (std::find(known_.begin(), known_.end(), it.key()) != known_.end()) continue;
      std::string list;
      for (const std::string& k : known_) list += (list.empty() ? "" : ", ") + k;
      return fail(it.key(), "unknown field (expected one of: " + list + ")");
    }
    return {};
  }

 private:
  template <class F>
  expected<void> read(std::string_view key, bool required, std::string_view what, bool (json::*is)() const noexcept, F&& take) {
    const json* v = find(key);
    if (v == nullptr) return required ? fail(key, "missing required field") : expected<void>{};
    if (!((*v).*is)()) return fail(key, "expected " + std::string(what) + ", got " + v->type_name());
    return take(*v);
  }

  const json& j_;
  std::string path_;
  std::vector<std::string> known_;
};

}  // namespace gpurent::io
