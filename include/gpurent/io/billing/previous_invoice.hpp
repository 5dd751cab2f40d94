// SPDX-License-Identifier: MIT
#pragma once
// What a month takes over from the previous month's invoice JSON (gpurent meter --previous;
// docs/formats/billing.md, "Prepaid packages" and rule 7's carry): the closing balance of each
// prepaid package and, under a tariff that carries rounding remainders, each line's
// `carry_out` (written with --detail). Errors name the file and the field.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include <gpurent/core/calendar.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/io/text/json_locate.hpp>
#include <gpurent/io/text/json_object.hpp>
#include <gpurent/io/text/json_parse.hpp>
#include <gpurent/metering/invoice_builder.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent::io {

struct previous_month {
  prepaid_balances prepaid;  // by package id, in FLOP
  carry_book carry;          // by (account, resource, mode)
};

namespace detail::previous_json {

// A package's closing balance: a package of the tariff, of the same account, an exact number of
// TFLOPS-hours within its size.
[[nodiscard]] inline expected<void> read_package(const json& j, const std::string& path, const std::string& account, const tariff& t,
                                                 previous_month& out) {
  json_object o(j, path);
  GPURENT_TRY(o.check());
  std::string id;
  ratio<> closing;
  GPURENT_TRY(o.string("id", id, true));
  GPURENT_TRY(o.parsed("closing_tflops_hours", closing, "an exact number", parse_exact, true));
  const auto it = std::ranges::find(t.prepaid(), id, &prepaid_package::id);
  if (it == t.prepaid().end() || it->account != account)
    return o.fail("id", "package \"" + id + "\" of account \"" + account + "\" is not in the tariff");
  const ratio<> flop = closing * ratio<>(int128(flop_per_tflops_hour), int128(1));
  if (flop.den() != 1 || flop.num() < 0 || flop.num() > it->size_flop())
    return o.fail("closing_tflops_hours", "not a balance of this package (between 0 and its " + format_exact(tflops_hours_of(it->size_flop())) +
                                              " TFLOPS-hours, in whole FLOP)");
  out.prepaid[id] = flop.num();
  return {};
}

// A line's carry_out, when the tariff carries remainders.
[[nodiscard]] inline expected<void> read_carry(const json& j, const std::string& path, const std::string& account, previous_month& out) {
  json_object o(j, path);
  GPURENT_TRY(o.check());
  std::string resource, mode;
  ratio<> carry;
  GPURENT_TRY(o.string("resource", resource, true));
  GPURENT_TRY(o.string("mode", mode, true));
  if (!o.has("carry_out")) return o.fail("carry_out", "missing: the tariff carries remainders, so write the previous invoice with --detail");
  GPURENT_TRY(o.parsed("carry_out", carry, "an exact number", parse_exact, true));
  out.carry[line_key{account, resource, mode}] = carry;
  return {};
}

[[nodiscard]] inline std::string month_text(date::year_month ym) {
  const unsigned m = static_cast<unsigned>(ym.month());
  return std::to_string(static_cast<int>(ym.year())) + (m < 10 ? "-0" : "-") + std::to_string(m);
}

[[nodiscard]] inline expected<previous_month> read(const json& j, const tariff& t, date::year_month month) {
  json_object top(j, "");
  GPURENT_TRY(top.check());
  std::string ccy, period;
  GPURENT_TRY(top.string("currency", ccy, true));
  GPURENT_TRY(top.string("period", period, true));
  if (ccy != t.currency_value().code)
    return top.fail("currency", "the previous invoice is in " + ccy + ", the tariff in " + std::string(t.currency_value().code));
  const date::year_month before = month - date::months{1};
  if (auto ym = parse_year_month(period); !ym || *ym != before)
    return top.fail("period", "\"" + period + "\" is not the month before " + month_text(month) + " (" + month_text(before) + ")");
  GPURENT_TRY(accounts, top.array("accounts", true));
  previous_month out;
  for (std::size_t i = 0; i < (*accounts)->size(); ++i) {
    const std::string at = json_item("accounts", i);
    json_object a((**accounts)[i], at);
    GPURENT_TRY(a.check());
    std::string account;
    GPURENT_TRY(a.string("account", account, true));
    GPURENT_TRY(prepaid, a.array("prepaid"));
    GPURENT_TRY(lines, a.array("lines"));
    for (std::size_t k = 0; *prepaid != nullptr && k < (*prepaid)->size(); ++k)
      GPURENT_TRY(read_package((**prepaid)[k], at + "." + json_item("prepaid", k), account, t, out));
    for (std::size_t k = 0; t.rounding().carry && *lines != nullptr && k < (*lines)->size(); ++k)
      GPURENT_TRY(read_carry((**lines)[k], at + "." + json_item("lines", k), account, out));
  }
  return out;
}

}  // namespace detail::previous_json

// The previous month's invoice JSON (`text`, named `file` in errors) for metering `month`
// under `t`: it must be in the tariff's currency and for the month before.
[[nodiscard]] inline expected<previous_month> parse_previous_invoice(std::string_view text, const tariff& t, date::year_month month,
                                                                     std::string_view file = "previous.json") {
  auto p = [&]() -> expected<previous_month> {
    GPURENT_TRY(j, parse_json_text(text, file));
    return detail::previous_json::read(*j, t, month);
  }();
  if (!p) return unexpected(json_located(std::move(p.error()), text, file));
  return p;
}

}  // namespace gpurent::io
