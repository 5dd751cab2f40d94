// SPDX-License-Identifier: MIT
#pragma once
// Errors at the boundary: what went wrong, in which field, where.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

#include <gpurent/core/enum.hpp>

namespace gpurent {

enum class error_code : std::uint8_t {
  invalid_argument,   // a value that is malformed or out of its domain
  parse_error,        // text that does not follow the grammar
  overflow,           // a result that does not fit the integer width
  currency_mismatch,  // two currencies meet in one operation
  unknown_name,       // a model, profile, currency, zone, resource... that does not exist
  duplicate,          // a conflicting repeat of a record
  not_found,          // the thing asked for does not exist here (no GPU, no fit)
  io_error,           // a file that cannot be read or written
  unsupported,        // valid input this build cannot do (no CUDA, no NVML)
  write_failed,       // output that could not be written in full (a full disk, a closed pipe)
};

template <>
struct enum_names<error_code> {
  static constexpr enum_entry<error_code> entries[] = {{error_code::invalid_argument, "invalid_argument"},
                                                       {error_code::parse_error, "parse_error"},
                                                       {error_code::overflow, "overflow"},
                                                       {error_code::currency_mismatch, "currency_mismatch"},
                                                       {error_code::unknown_name, "unknown_name"},
                                                       {error_code::duplicate, "duplicate"},
                                                       {error_code::not_found, "not_found"},
                                                       {error_code::io_error, "io_error"},
                                                       {error_code::unsupported, "unsupported"},
                                                       {error_code::write_failed, "write_failed"}};
};

// An input error: a code, the field it concerns and a message for a person. Readers add
// the file and line where the field came from (`where`), so a message reads
// "usage.csv:14: field 'quantity': not a decimal: \"1,5\"".
struct error {
  error_code code = error_code::invalid_argument;
  std::string field;
  std::string message;
  std::string where;  // "file:line", empty when the value did not come from a file

  [[nodiscard]] std::string describe() const {
    std::string s;
    if (!where.empty()) {
      s += where;
      s += ": ";
    }
    if (!field.empty()) {
      s += "field '";
      s += field;
      s += "': ";
    }
    s += message;
    return s;
  }
  // The same error, located in a file.
  [[nodiscard]] error at(std::string_view file, std::size_t line) const {
    error e = *this;
    e.where = std::string(file) + ":" + std::to_string(line);
    return e;
  }
  [[nodiscard]] error in_field(std::string_view f) const {
    error e = *this;
    e.field = std::string(f);
    return e;
  }
  friend bool operator==(const error&, const error&) = default;
};

template <class T>
using expected = tl::expected<T, error>;
using tl::unexpected;

[[nodiscard]] inline unexpected<error> make_error(error_code code, std::string field, std::string message) {
  return unexpected<error>(error{code, std::move(field), std::move(message), {}});
}

// The value of a name, or an error in `field`: expected server, gpu, ... got "rack".
template <NamedEnum E>
[[nodiscard]] expected<E> parse_enum_field(std::string_view name, std::string_view field) {
  if (auto e = parse_enum<E>(name)) return *e;
  return make_error(error_code::invalid_argument, std::string(field), "expected " + enum_choices<E>() + ", got \"" + std::string(name) + "\"");
}

// Propagates an error: GPURENT_TRY(expr) returns expr's error from the enclosing function
// when there is one; GPURENT_TRY(var, expr) also names the value (`var` is the expected, so
// `*var` is the value). The enclosing function returns an expected<...> or an unexpected.
#define GPURENT_TRY(...) GPURENT_TRY_PICK(__VA_ARGS__, GPURENT_TRY_NAMED, GPURENT_TRY_UNNAMED, unused)(__VA_ARGS__)
#define GPURENT_TRY_PICK(a, b, macro, ...) macro
#define GPURENT_TRY_UNNAMED(expr)                                                                                                   \
  do {                                                                                                                              \
    if (auto gpurent_try_ = (expr); !gpurent_try_) return ::gpurent::unexpected<::gpurent::error>(std::move(gpurent_try_.error())); \
  } while (false)
#define GPURENT_TRY_NAMED(var, expr) \
  auto var = (expr);                 \
  if (!var) return ::gpurent::unexpected<::gpurent::error>(std::move(var.error()))

// What a throwing policy throws: the same error, as an exception.
class exception : public std::runtime_error {
 public:
  explicit exception(error e) : std::runtime_error(e.describe()), err_(std::move(e)) {}
  [[nodiscard]] const error& err() const noexcept { return err_; }

 private:
  error err_;
};

}  // namespace gpurent
