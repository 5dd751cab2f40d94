// SPDX-License-Identifier: MIT
#pragma once
// What a month takes over from the previous month's invoice JSON (gpurent meter --previous;
// docs/formats/billing.md, "Prepaid packages" and rule 7's carry): the closing balance of each
// prepaid package and, under a tariff that carries rounding remainders, each line's
// `carry_out` (written with --detail). It must be an invoice the meter wrote under the same
// tariff: its currency and time zone, the month before, only the invoice's fields, each
// account, line and package once, a carry smaller than one minor unit (it is a rounding
// remainder) and a balance within its package. Errors name the file and the field.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <span>
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

// The fields of the invoice JSON (io/billing/invoice_json.hpp, --detail included) at each
// level: known, so that any other is an error (a hand edit, or another file).
inline constexpr std::string_view top_fields[] = {
    "currency", "period", "timezone", "start", "end", "rounding", "accounts", "records_out_of_period", "duplicates_ignored"};
inline constexpr std::string_view account_fields[] = {"account",        "lines", "commitments", "prepaid",         "total",
                                                      "credit_applied", "due",   "exact_total", "credit_remaining"};
inline constexpr std::string_view line_fields[] = {"resource", "mode",     "records",   "billed_seconds", "amount",        "used_seconds", "exact",
                                                   "carry_in", "rounding", "carry_out", "forgiven",       "waste_seconds", "waste_amount", "labels"};
inline constexpr std::string_view package_fields[] = {"id",
                                                      "per_tflops",
                                                      "tflops_hours",
                                                      "bought",
                                                      "expires",
                                                      "amount",
                                                      "opening_tflops_hours",
                                                      "drawn_tflops_hours",
                                                      "expired_tflops_hours",
                                                      "closing_tflops_hours",
                                                      "exact"};

// Every member of o must be one of `fields`.
[[nodiscard]] inline expected<void> only(json_object& o, std::span<const std::string_view> fields) {
  for (const std::string_view f : fields) (void)o.member(f);
  return o.finish();
}

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
  if (!out.prepaid.emplace(id, flop.num()).second) return o.fail("id", "package \"" + id + "\" appears twice (one balance can be kept)");
  return only(o, package_fields);
}

// A line: each once per account; its carry_out when the tariff carries remainders, a
// rounding remainder (smaller than the currency's minor unit, either way).
[[nodiscard]] inline expected<void> read_line(const json& j, const std::string& path, const std::string& account, const tariff& t,
                                              std::map<line_key, bool>& seen, previous_month& out) {
  json_object o(j, path);
  GPURENT_TRY(o.check());
  std::string resource, mode;
  GPURENT_TRY(o.string("resource", resource, true));
  GPURENT_TRY(o.string("mode", mode, true));
  const line_key key{account, resource, mode};
  if (!seen.emplace(key, true).second) return o.fail("resource", "line " + resource + "/" + mode + " appears twice in account \"" + account + "\"");
  if (t.rounding().carry) {
    if (!o.has("carry_out")) return o.fail("carry_out", "missing: the tariff carries remainders, so write the previous invoice with --detail");
    ratio<> carry;
    GPURENT_TRY(o.parsed("carry_out", carry, "an exact number", parse_exact, true));
    const ratio<> minor(int128(1), ::gpurent::detail::pow10<int128>(t.currency_value().minor_units));
    if (!(carry < minor) || !(-minor < carry))
      return o.fail("carry_out", "not a rounding remainder: it must be smaller than one minor unit (" + format_exact(minor) + " " +
                                     std::string(t.currency_value().code) + ") either way");
    out.carry[key] = carry;
  }
  return only(o, line_fields);
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
  std::string zone;
  GPURENT_TRY(top.string("timezone", zone, true));
  if (zone != t.zone_name()) return top.fail("timezone", "the previous invoice is in " + zone + ", the tariff in " + t.zone_name());
  const date::year_month before = month - date::months{1};
  if (auto ym = parse_year_month(period); !ym || *ym != before)
    return top.fail("period", "\"" + period + "\" is not the month before " + month_text(month) + " (" + month_text(before) + ")");
  GPURENT_TRY(accounts, top.array("accounts", true));
  previous_month out;
  std::map<std::string, bool, std::less<>> accounts_seen;
  std::map<line_key, bool> lines_seen;
  for (std::size_t i = 0; i < (*accounts)->size(); ++i) {
    const std::string at = json_item("accounts", i);
    json_object a((**accounts)[i], at);
    GPURENT_TRY(a.check());
    std::string account;
    GPURENT_TRY(a.string("account", account, true));
    if (!accounts_seen.emplace(account, true).second) return a.fail("account", "account \"" + account + "\" appears twice");
    GPURENT_TRY(prepaid, a.array("prepaid"));
    GPURENT_TRY(lines, a.array("lines"));
    for (std::size_t k = 0; *prepaid != nullptr && k < (*prepaid)->size(); ++k)
      GPURENT_TRY(read_package((**prepaid)[k], at + "." + json_item("prepaid", k), account, t, out));
    for (std::size_t k = 0; *lines != nullptr && k < (*lines)->size(); ++k)
      GPURENT_TRY(read_line((**lines)[k], at + "." + json_item("lines", k), account, t, lines_seen, out));
    GPURENT_TRY(only(a, account_fields));
  }
  GPURENT_TRY(only(top, top_fields));
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
