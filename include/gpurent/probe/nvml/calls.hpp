// SPDX-License-Identifier: MIT
#pragma once
// How the probe calls a loaded NVML: a return code as an error that names the call (its
// text from the library's nvmlErrorString), and the rule for the optional live-state
// functions: one this NVML lacks, or that the GPU does not support, makes that reading "not
// available", nothing more.

#include <string>

#include <gpurent/core/error.hpp>
#include <gpurent/probe/nvml/abi.hpp>
#include <gpurent/probe/nvml/loader.hpp>

namespace gpurent::probe::detail {

class nvml_calls {
 public:
  explicit nvml_calls(const nvml_state& s) noexcept : s_(s) {}

  // "NVML_ERROR_...: text" for a return code, through the library's nvmlErrorString.
  [[nodiscard]] std::string error_text(nvml_abi::nvmlReturn_t r) const {
    const char* t = s_.fn.error_string != nullptr ? s_.fn.error_string(r) : nullptr;
    return (t != nullptr ? std::string(t) : std::string("unknown NVML error")) + " (NVML return " + std::to_string(r) + ")";
  }

  [[nodiscard]] error failure(nvml_abi::nvmlReturn_t r, const std::string& call) const {
    using namespace nvml_abi;
    error_code c = error_code::io_error;
    if (r == NVML_ERROR_DRIVER_NOT_LOADED || r == NVML_ERROR_LIBRARY_NOT_FOUND || r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_GPU_IS_LOST)
      c = error_code::not_found;
    else if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND || r == NVML_ERROR_LIB_RM_VERSION_MISMATCH)
      c = error_code::unsupported;
    return error{c, "nvml", call + " failed: " + error_text(r), {}};
  }

  // Calls an optional function: "not available" when this NVML lacks it or the GPU does not
  // support it, NVML's error otherwise.
  template <class F, class... A>
  [[nodiscard]] expected<void> ask(F fn, const char* name, A... args) const {
    if (fn == nullptr) return missing(name);
    return answer(fn(args...), name);
  }
  [[nodiscard]] static unexpected<error> missing(const char* name) {
    return make_error(error_code::unsupported, "nvml", std::string("not available: this NVML has no ") + name);
  }
  [[nodiscard]] expected<void> answer(nvml_abi::nvmlReturn_t r, const char* name) const {
    using namespace nvml_abi;
    if (r == NVML_SUCCESS) return {};
    if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND)
      return make_error(error_code::unsupported, "nvml", std::string("not available on this GPU (") + name + ": " + error_text(r) + ")");
    if (r == NVML_ERROR_NO_PERMISSION)
      return make_error(error_code::unsupported, "nvml", std::string("not available without permission (") + name + ": " + error_text(r) + ")");
    return unexpected<error>(failure(r, name));
  }

 private:
  const nvml_state& s_;
};

}  // namespace gpurent::probe::detail
