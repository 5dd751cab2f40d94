// SPDX-License-Identifier: MIT
#pragma once
// What `gpurent meter` and `gpurent-mpi meter` share: the tariff as the command line gives it
// (--rounding-point may override its rounding point) and the invoice printed as --format asks.
#include <cstdio>
#include <string>

#include <gpurent/io/invoice_json.hpp>
#include <gpurent/io/tariff_json.hpp>
#include <gpurent/metering/format.hpp>
#include <gpurent/metering/invoice.hpp>

#include "tool.hpp"

namespace gpurent::tool {

// The tariff, with the rounding point the command line may override.
inline expected<tariff> load_tariff(const std::string& path, const std::string& point) {
  GPURENT_TRY(t, io::load_tariff_json(path));
  if (point.empty()) return t;
  auto p = parse_enum<rounding_point>(point);
  if (!p) {
    return unexpected(error{error_code::invalid_argument,
                            "--rounding-point",
                            "unknown rounding point \"" + point + "\" (expected " + enum_choices<rounding_point>() + ")",
                            {}});
  }
  auto rr = t->rounding();
  rr.point = *p;
  t->set_rounding(rr);
  return t;
}

// The invoice on stdout as --format asks (built whole first); the status to exit with.
inline int print_invoice(const invoice& inv, output_format format, bool detail) {
  const io::invoice_format_options fo{detail};
  std::string out;
  switch (format) {
    case output_format::csv: out = io::write_invoice_csv(inv, fo); break;
    case output_format::table: out = fmt::format("{}", inv); break;  // every line's exact amount and rounding, always
    default: out = io::write_invoice_json(inv, fo); break;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? exit_ok : exit_invalid;
}

}  // namespace gpurent::tool
