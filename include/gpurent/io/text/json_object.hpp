// SPDX-License-Identifier: MIT
#pragma once
// `json_object`, the reader every JSON format of gpurent uses (catalog, tariff, offers,
// workload). It reads the members of one object by name, names every field by its JSON path
// ("offers[3].tiers.steps[1].price") in errors, and remembers what it was asked for, so that
// a member nobody asked for (a typo) is an error listing the fields that are known, never a
// silent default.
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
#include <utility>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/text/json_parse.hpp>

namespace gpurent::io {

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
