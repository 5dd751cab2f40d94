// SPDX-License-Identifier: MIT
#pragma once
// An input handed over by the Python layer: a file (no text; `name` is its path) or text made
// in Python from a DataFrame or a dict (`name` names it in errors, "<jobs>").
#include <optional>
#include <string>

#include <gpurent/io/text/file.hpp>

#include "errors.hpp"

namespace gpurent::py {

[[nodiscard]] inline std::string input_text(const std::optional<std::string>& text, const std::string& name) {
  return text ? *text : value_or_throw(io::read_file(name));
}

}  // namespace gpurent::py
