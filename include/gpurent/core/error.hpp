// SPDX-License-Identifier: MIT
#pragma once
// Errors at the boundary: what went wrong, in which field, where.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

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
};

[[nodiscard]] constexpr std::string_view to_string(error_code c) noexcept {
  switch (c) {
    case error_code::invalid_argument: return "invalid_argument";
    case error_code::parse_error: return "parse_error";
    case error_code::overflow: return "overflow";
    case error_code::currency_mismatch: return "currency_mismatch";
    case error_code::unknown_name: return "unknown_name";
    case error_code::duplicate: return "duplicate";
    case error_code::not_found: return "not_found";
    case error_code::io_error: return "io_error";
    case error_code::unsupported: return "unsupported";
  }
  return "unknown";
}

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
    if (!where.empty()) { s += where; s += ": "; }
    if (!field.empty()) { s += "field '"; s += field; s += "': "; }
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

// What a throwing policy throws: the same error, as an exception.
class exception : public std::runtime_error {
 public:
  explicit exception(error e) : std::runtime_error(e.describe()), err_(std::move(e)) {}
  [[nodiscard]] const error& err() const noexcept { return err_; }

 private:
  error err_;
};

}  // namespace gpurent
