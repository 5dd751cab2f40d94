// SPDX-License-Identifier: MIT
#pragma once
// What `gpurent meter` and `gpurent-mpi meter` share: the tariff as the command line gives it
// (--rounding-point may override its rounding point) and the invoice printed as --format asks.
#include <cstdio>
#include <string>

#include <gpurent/io/billing/invoice_csv.hpp>
#include <gpurent/io/billing/invoice_focus.hpp>
#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/previous_invoice.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
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

// --previous: the previous month's invoice JSON for metering `period` under `t` (its prepaid
// balances and carried remainders); nothing carried without one.
inline expected<io::previous_month> load_previous(const std::string& path, const tariff& t, const std::string& period) {
  if (path.empty()) return io::previous_month{};
  auto ym = parse_year_month(period);
  if (!ym) return unexpected<error>(ym.error().in_field("--period"));
  GPURENT_TRY(text, io::read_file(path));
  return io::parse_previous_invoice(*text, t, *ym, path);
}

// `--format focus`, meter's own: the FOCUS 1.0 CSV (io/billing/invoice_focus.hpp).
inline constexpr output_format focus_format = output_format::focus;

// The --format choices of `gpurent meter` and `meter merge`.
inline std::initializer_list<std::pair<std::string, output_format>> meter_formats() {
  static const std::initializer_list<std::pair<std::string, output_format>> f{
      {"json", output_format::json}, {"table", output_format::table}, {"csv", output_format::csv}, {"focus", focus_format}};
  return f;
}

// The invoice on stdout as --format asks (built whole first); the status to exit with.
// The invoice's bytes as `gpurent meter` prints them in `format` (focus reads the tariff's
// prices when given).
[[nodiscard]] inline std::string format_invoice(const invoice& inv, output_format format, bool detail, const tariff* t = nullptr) {
  const io::invoice_format_options fo{detail};
  if (format == focus_format) return io::write_invoice_focus(inv, t);
  switch (format) {
    case output_format::csv: return io::write_invoice_csv(inv, fo, t);
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

inline int print_invoice(const invoice& inv, output_format format, bool detail, const tariff* t = nullptr) {
  return print_bytes(format_invoice(inv, format, detail, t));
}

}  // namespace gpurent::tool
