// SPDX-License-Identifier: MIT
#pragma once
// What every entry point of the C API (include/gpurent_c.h) shares: the status of an error
// (the tool's exit statuses), strings handed to the caller (malloc'd, freed by gpurent_free),
// and the guard that keeps every C++ exception inside.

#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include <gpurent_c.h>
#include <gpurent/core/error.hpp>

namespace gpurent::c_api {

// A copy of s for the caller (NUL-terminated, malloc'd); nullptr when memory is short.
[[nodiscard]] char* copy_out(std::string_view s) noexcept;

// The status of a library error, as the tool's exit status for it (tools/tool.hpp's fail).
[[nodiscard]] int status_of(const error& e) noexcept;

// Reports a failure: its text into *out_error (when wanted), the status returned.
int fail(int status, std::string_view text, char** out_error) noexcept;
inline int fail(const error& e, char** out_error) noexcept { return fail(status_of(e), e.describe(), out_error); }

// A missing required pointer argument: GPURENT_EINVAL naming it.
int missing(std::string_view argument, char** out_error) noexcept;

// Hands a result to the caller: *out_json the text, *out_error NULL; GPURENT_ENOMEM when it
// cannot be copied.
int give(std::string_view text, char** out_json, char** out_error) noexcept;

// Runs body (which returns a status) with nothing escaping: out of memory is GPURENT_ENOMEM
// with no text, a library exception its error, anything else GPURENT_EINTERNAL with its text.
// Clears *out_error first.
template <class Body>
int guarded(char** out_error, Body&& body) noexcept {
  if (out_error != nullptr) *out_error = nullptr;
  try {
    return std::forward<Body>(body)();
  } catch (const std::bad_alloc&) {
    return GPURENT_ENOMEM;
  } catch (const gpurent::exception& e) {
    try {
      return fail(e.err(), out_error);
    } catch (...) {
      return GPURENT_ENOMEM;  // describe() could not allocate
    }
  } catch (const std::exception& e) {
    return fail(GPURENT_EINTERNAL, e.what(), out_error);
  } catch (...) {
    return fail(GPURENT_EINTERNAL, "an unknown exception", out_error);
  }
}

}  // namespace gpurent::c_api
