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
// The invoice's bytes as `gpurent meter` prints them in `format`.
[[nodiscard]] inline std::string format_invoice(const invoice& inv, output_format format, bool detail) {
  const io::invoice_format_options fo{detail};
  switch (format) {
    case output_format::csv: return io::write_invoice_csv(inv, fo);
    case output_format::table: return fmt::format("{}", inv);  // every line's exact amount and rounding, always
    default: return io::write_invoice_json(inv, fo);
  }
}

// The bytes on stdout; whether they got there is checked once, when the command ends
// (finish_stdout, in main and in gpurent-mpi's rank 0).
inline int print_bytes(const std::string& out) {
  std::fwrite(out.data(), 1, out.size(), stdout);
  return exit_ok;
}

inline int print_invoice(const invoice& inv, output_format format, bool detail) { return print_bytes(format_invoice(inv, format, detail)); }

}  // namespace gpurent::tool
