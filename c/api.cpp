// SPDX-License-Identifier: MIT
// The C API's shared parts (api.hpp), its version and gpurent_free.
#include "api.hpp"

#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

#include <gpurent/version.hpp>

namespace gpurent::c_api {

char* copy_out(std::string_view s) noexcept {
  auto* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) return nullptr;
  if (!s.empty()) std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

int status_of(const error& e) noexcept { return e.code == error_code::not_found ? GPURENT_ENOTFOUND : GPURENT_EINVAL; }

int fail(int status, std::string_view text, char** out_error) noexcept {
  if (out_error == nullptr) return status;
  *out_error = copy_out(text);
  return *out_error == nullptr ? GPURENT_ENOMEM : status;
}

int missing(std::string_view argument, char** out_error) noexcept {
  std::string text;
  try {
    text = std::string(argument) + ": a required argument is NULL";
  } catch (...) {
    return GPURENT_ENOMEM;
  }
  return fail(GPURENT_EINVAL, text, out_error);
}

int give(std::string_view text, char** out_json, char** out_error) noexcept {
  *out_json = copy_out(text);
  if (out_error != nullptr) *out_error = nullptr;
  return *out_json == nullptr ? GPURENT_ENOMEM : GPURENT_OK;
}

}  // namespace gpurent::c_api

namespace {
// gpurent::version as a NUL-terminated string with static storage.
constexpr auto version_text = [] {
  std::array<char, gpurent::version.size() + 1> out{};
  for (std::size_t i = 0; i < gpurent::version.size(); ++i) out[i] = gpurent::version[i];
  return out;
}();
}  // namespace

extern "C" {

GPURENT_C_API const char* gpurent_version(void) { return version_text.data(); }

GPURENT_C_API void gpurent_free(char* text) { std::free(text); }
}
