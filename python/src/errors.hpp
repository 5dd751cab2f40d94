// SPDX-License-Identifier: MIT
#pragma once
// How a library error reaches Python: thrown here as library_error, turned by the module's
// translator (module.cpp) into gpurent.Error (python/gpurent/_errors.py) with its file, line,
// field, code and message.

#include <exception>
#include <string>
#include <utility>

#include <gpurent/core/error.hpp>

namespace gpurent::py {

class library_error : public std::exception {
 public:
  explicit library_error(error e) : e_(std::move(e)), text_(e_.describe()) {}
  [[nodiscard]] const char* what() const noexcept override { return text_.c_str(); }
  [[nodiscard]] const error& err() const noexcept { return e_; }
  // The whole text, a NUL in it included (what() ends at the first).
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

 private:
  error e_;
  std::string text_;
};

// The value of r, or its error thrown as library_error.
template <class T>
T value_or_throw(expected<T>&& r) {
  if (!r) throw library_error(std::move(r.error()));
  if constexpr (!std::is_void_v<T>) return std::move(*r);
}

// Registers the translator of library_error (the module's init calls it once).
void register_errors();

}  // namespace gpurent::py
