// SPDX-License-Identifier: MIT
// gpurent catalog: the built-in GPU models, their specs and where every number comes from.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/io/spec/catalog_table.hpp>
#include <gpurent/spec/format.hpp>
#include <gpurent/spec/spec.hpp>

#include "tool.hpp"

namespace {
using namespace gpurent;

tool::runner setup_catalog(CLI::App& app) {
  struct options {
    tool::output_format format{};
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("catalog", "the built-in GPU models, their specs and where each number comes from");
  tool::add_format_option(*cmd, o->format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});
  return [o] {
    if (o->format == tool::output_format::json) {
      fmt::print("{}\n", io::catalog_listing_json(builtin_catalog(), builtin_sources()).dump(2));
    } else {
      fmt::print("{}", io::catalog_table(builtin_catalog(), builtin_sources()));
    }
    return tool::exit_ok;
  };
}
GPURENT_TOOL_COMMAND("catalog", &setup_catalog);
}  // namespace
