// SPDX-License-Identifier: MIT
#pragma once
// JSON text to a document, for every JSON input of gpurent: syntax errors, numbers no double
// holds, a key given twice in one object and nesting deeper than json_max_depth become errors
// naming file:line. Readers take the document from here to json_object (io/text/json_object.hpp).

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/core/error.hpp>
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

}  // namespace gpurent::io
