// SPDX-License-Identifier: MIT
#pragma once
// Prepaid packages drawn down by an account's usage in one month (docs/formats/billing.md,
// "Prepaid packages"): the records of rates priced per TFLOPS-hour of a package's precision,
// in (start, id) order across the account's lines, each draw as much of its billed
// TFLOPS-hours as the packages it may use hold, the package that expires first first. Exact:
// balances are FLOP, draws whole nano GPU-seconds (a balance too small for one stays in it).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/metering/commitment_cover.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/invoice_parts.hpp>
#include <gpurent/metering/line_ledger.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/prepaid.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// One record that may draw: its rate (a compute-unit rate), its unclipped span and quantity.
struct drawing_record {
  std::size_t rate = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
  nano_quantity quantity{};
};

// An account's draws in a month: per record (in the order given) its rating and the billed
// unit-seconds the packages paid, and each package's entry for the invoice.
struct prepaid_draws {
  std::vector<rated_usage> rated;
  std::vector<nano_usage> covered;
  std::vector<invoice_prepaid> packages;
};

namespace detail {

// A package's balance at the start of `period`: all of it when bought in the period, else the
// carried balance (an error when none was given).
[[nodiscard]] inline expected<int128> opening_balance(const prepaid_package& p, const interval& period, const prepaid_balances& opening) {
  if (p.bought >= period.begin()) return p.size_flop();
  auto it = opening.find(p.id);
  if (it == opening.end())
    return make_error(error_code::invalid_argument, "prepaid",
                      "package \"" + p.id + "\" was bought before this month: its balance at the start of the month is the previous month's " +
                          "closing balance (gpurent meter --previous FILE)");
  if (it->second < 0 || it->second > p.size_flop())
    return make_error(error_code::invalid_argument, "prepaid", "package \"" + p.id + "\": a carried balance outside 0 and its size");
  return it->second;
}

}  // namespace detail

// The draws of `account`'s records (sorted by (start, id)) on its packages alive in `period`,
// starting from `opening` for those bought before it. A record draws from the packages of its
// rate's precision bought at or before its start and not expired at it.
[[nodiscard]] inline expected<prepaid_draws> draw_prepaid(const tariff& t, const interval& period, const std::string& account,
                                                          const prepaid_balances& opening, std::span<const drawing_record> records) {
  prepaid_draws out;
  std::vector<const prepaid_package*> mine;
  std::vector<int128> left;
  for (const prepaid_package& p : t.prepaid()) {
    if (p.account != account || !p.alive_in(period)) continue;
    GPURENT_TRY(o, detail::opening_balance(p, period, opening));
    mine.push_back(&p);
    left.push_back(*o);
    out.packages.push_back({.id = p.id,
                            .per_tflops = p.per_tflops,
                            .tflops_hours = p.tflops_hours,
                            .bought = p.bought,
                            .expires = p.expires,
                            .exact = {},
                            .amount = money_value(t.currency_value(), 0),
                            .opening = *o});
  }
  for (const drawing_record& e : records) {
    const rate& r = t.rate_at(e.rate);
    rated_usage& u = out.rated.emplace_back();
    nano_usage& paid = out.covered.emplace_back();
    if (rate_usage(r, period, instant{seconds{e.start}}, instant{seconds{e.end}}, e.quantity, u) == rating_status::overflow)
      return detail::overflow_error("a prepaid draw");
    const int128 g(r.tflops_gflops);
    for (std::size_t k = 0; k < mine.size() && paid < u.usage; ++k) {
      if (mine[k]->per_tflops != r.per_tflops || !mine[k]->usable_at(instant{seconds{e.start}})) continue;
      const int128 want = detail::to_int128((u.usage - paid).raw());
      const int128 take = left[k] / g < want ? left[k] / g : want;
      left[k] -= take * g;
      out.packages[k].drawn += take * g;
      const nano_usage before = paid;
      paid = paid + nano_usage(*detail::to_i128(take));
      out.packages[k].used = out.packages[k].used + (std::min(paid, u.used_usage) - std::min(before, u.used_usage));
    }
  }
  for (std::size_t k = 0; k < mine.size(); ++k) {
    invoice_prepaid& e = out.packages[k];
    const bool ends = mine[k]->expires && *mine[k]->expires <= period.end();
    (ends ? e.expired : e.closing) = left[k];
    if (mine[k]->bought_in(period)) {
      e.exact = ratio<>(int128(mine[k]->price.raw()), int128(detail::nano_one));
      e.amount = money_value(t.currency_value(), detail::round_minor(t, e.exact));
    }
  }
  return out;
}

// What each line of an account pays after its prepaid packages (`lines`: for each line that
// draws, its records in (start, id) order; none for the others), and the packages' entries.
struct account_draws {
  std::vector<std::optional<committed_line>> paid;  // by line
  std::vector<invoice_prepaid> packages;
};
[[nodiscard]] inline expected<account_draws> draw_account(const tariff& t, const interval& period, const std::string& account,
                                                          const prepaid_balances& opening,
                                                          std::span<const std::optional<std::span<const detail::ordered_record>>> lines) {
  account_draws out{.paid = std::vector<std::optional<committed_line>>(lines.size()), .packages = {}};
  if (std::ranges::none_of(t.prepaid(), [&](const prepaid_package& p) { return p.account == account; })) return out;
  struct ref {
    const detail::ordered_record* rec;
    std::size_t line;
  };
  std::vector<ref> refs;
  for (std::size_t i = 0; i < lines.size(); ++i)
    for (const detail::ordered_record& rec : lines[i].value_or(std::span<const detail::ordered_record>{})) refs.push_back({&rec, i});
  std::ranges::stable_sort(refs, [](const ref& a, const ref& b) { return std::tie(a.rec->start, a.rec->id) < std::tie(b.rec->start, b.rec->id); });
  std::vector<drawing_record> in;
  for (const ref& x : refs) in.push_back({x.rec->e.rate, x.rec->e.start, x.rec->e.end, x.rec->e.quantity});
  GPURENT_TRY(d, draw_prepaid(t, period, account, opening, in));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i] || lines[i]->empty()) continue;
    std::vector<rated_usage> rated;
    std::vector<nano_usage> covered;
    for (std::size_t k = 0; k < refs.size(); ++k) {  // the line's records in its (start, id) order
      if (refs[k].line != i) continue;
      rated.push_back(d->rated[k]);
      covered.push_back(d->covered[k]);
    }
    GPURENT_TRY(paid, pay_uncovered(t.rate_at(lines[i]->front().e.rate), rated, covered));
    out.paid[i] = std::move(*paid);
  }
  out.packages = std::move(d->packages);
  return out;
}

}  // namespace gpurent
