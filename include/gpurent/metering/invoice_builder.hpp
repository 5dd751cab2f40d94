// SPDX-License-Identifier: MIT
#pragma once
// Invoice building: a meter's lines rounded at the tariff's rounding point (line, record or
// invoice), commitments and prepaid packages applied, summed per account, the account's
// prepaid credit drawn down. Every amount is the exact line amount of metering/rating.hpp
// until the one rounding the tariff names.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/metering/commitment_cover.hpp>
#include <gpurent/metering/dedup.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/metering/invoice_parts.hpp>
#include <gpurent/metering/line_ledger.hpp>
#include <gpurent/metering/prepaid_draw.hpp>
#include <gpurent/metering/rating.hpp>
#include <gpurent/tariff/commitment.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// A line's key in a carry book: (account, resource, mode).
using line_key = std::tuple<std::string, std::string, std::string>;
// Sub-minor-unit remainders carried from one invoice to the next (rounding_rule::carry).
using carry_book = std::map<line_key, ratio<>>;

namespace detail {

class invoice_builder {
 public:
  // The invoice of `lines` (and, where lines need them, of `book`'s records) for the period
  // named `period_name`; `carry` and `opening` as finish() takes them.
  invoice_builder(const line_ledger& lines, const record_book& book, const std::string& period_name, const carry_book& carry,
                  const prepaid_balances& opening)
      : t_(&lines.tariff_value()), lines_(&lines), book_(&book), period_name_(&period_name), carry_(&carry), opening_(&opening) {}

  [[nodiscard]] expected<invoice> build() const {
    try {
      return build_accounts();
    } catch (const exception& e) {
      return unexpected(e.err());
    } catch (const std::overflow_error&) {
      return overflow_error("the invoice");
    }
  }

 private:
  using placed = ordered_record;
  // A line (of one label set) with records, on its way to the invoice.
  struct pending {
    std::uint32_t owner;  // account and label set
    std::uint32_t rate;
    std::size_t key;  // into the ledger
  };
  using tiered_records = std::unordered_map<std::size_t, std::vector<placed>>;

  [[nodiscard]] expected<invoice> build_accounts() const {
    invoice inv{.ccy = t_->currency_value(),
                .period = *period_name_,
                .timezone = t_->zone_name(),
                .span = lines_->period(),
                .rounding = t_->rounding(),
                .accounts = {},
                .records_out_of_period = lines_->out_of_period(),
                .duplicates_ignored = lines_->duplicates()};
    const std::vector<pending> ls = sorted_lines();
    const tiered_records ordered = order_records();
    const line_owners& owners = lines_->owners();
    for (std::size_t i = 0; i < ls.size();) {
      std::size_t end = i;
      while (end < ls.size() && owners.account_index(ls[end].owner) == owners.account_index(ls[i].owner)) ++end;
      GPURENT_TRY(acc, guarded_account(lines_->account(ls[i].owner), std::span(ls).subspan(i, end - i), ordered));
      inv.accounts.push_back(std::move(*acc));
      i = end;
    }
    // A commitment is charged whether used or not, and a package's balance is carried whether
    // drawn or not: their account is on the invoice without records.
    const std::size_t with_records = inv.accounts.size();
    std::vector<std::string> held;
    for (const tariff_commitment& c : t_->commitments()) held.push_back(c.account);
    for (const prepaid_package& p : t_->prepaid())
      if (p.alive_in(lines_->period())) held.push_back(p.account);
    for (const std::string& name : held) {
      const auto has = [&](const invoice_account& a) { return a.account == name; };
      if (std::ranges::any_of(inv.accounts, has)) continue;
      GPURENT_TRY(acc, guarded_account(name, {}, ordered));
      inv.accounts.push_back(std::move(*acc));
    }
    if (inv.accounts.size() > with_records) std::ranges::sort(inv.accounts, {}, &invoice_account::account);
    return inv;
  }

  // finish_account, an overflow naming the account whose amounts overflowed.
  [[nodiscard]] expected<invoice_account> guarded_account(const std::string& name, std::span<const pending> ls, const tiered_records& ordered) const {
    const std::string where = " in the invoice of account \"" + name + "\"";
    try {
      return finish_account(name, ls, ordered);
    } catch (const exception& e) {
      return make_error(e.err().code, "account", e.err().message + where);
    } catch (const std::overflow_error& e) {
      return make_error(error_code::overflow, "account", std::string("overflow: ") + e.what() + where);
    } catch (const std::range_error& e) {
      return make_error(error_code::overflow, "account", std::string("overflow: ") + e.what() + where);
    }
  }

  // The lines with records, by account, resource, mode and label set (byte order).
  [[nodiscard]] std::vector<pending> sorted_lines() const {
    std::vector<pending> ls;
    for (std::size_t k = 0; k < lines_->size(); ++k) {
      if (lines_->at(k).records > 0) ls.push_back({lines_->owner_of(k), lines_->rate_of(k), k});
    }
    std::ranges::sort(ls, [&](const pending& a, const pending& b) {
      const rate& ra = t_->rate_at(a.rate);
      const rate& rb = t_->rate_at(b.rate);
      return std::tie(lines_->account(a.owner), ra.resource, ra.mode, lines_->labels(a.owner)) <
             std::tie(lines_->account(b.owner), rb.resource, rb.mode, lines_->labels(b.owner));
    });
    return ls;
  }
  // The key of an invoice line (account and rate, whatever the label set) among tiered_records.
  [[nodiscard]] std::size_t invoice_line_key(std::uint32_t owner, std::uint32_t rate) const {
    return std::size_t{lines_->owners().account_index(owner)} * t_->rates().size() + rate;
  }

  // The records of the lines that need them, in (start, id) order: tiered lines at the record
  // point, lines a commitment covers and lines that draw prepaid packages.
  [[nodiscard]] tiered_records order_records() const {
    tiered_records ordered;
    const bool tiered = t_->rounding().point == rounding_point::record;
    if (!tiered && t_->commitments().empty() && t_->prepaid().empty()) return ordered;
    const record_store& records = book_->records();
    for (std::size_t k = 0; k < records.size(); ++k) {
      const meter_record e = records.at(k);
      const std::string& account = lines_->account(e.account);
      const bool needed = (tiered && t_->rate_at(e.rate).kind != price_kind::unit) || t_->commitment_for(account, e.rate) != nullptr ||
                          t_->draws_prepaid(account, e.rate);
      if (needed) ordered[invoice_line_key(e.account, e.rate)].push_back({e.start, records.id_of(k), e});
    }
    for (auto& [k, v] : ordered) {
      std::ranges::sort(v, [](const placed& a, const placed& b) { return a.start != b.start ? a.start < b.start : a.id < b.id; });
    }
    return ordered;
  }

  // One account: its lines rounded at the tariff's rounding point (then told per label set),
  // its commitments and packages, their total, its credit.
  [[nodiscard]] expected<invoice_account> finish_account(const std::string& name, std::span<const pending> ls, const tiered_records& ordered) const {
    const money_value zero(t_->currency_value(), 0);
    invoice_account acc{
        .account = name, .lines = {}, .commitments = {}, .prepaid = {}, .total = zero, .credit_applied = zero, .due = zero, .credit_remaining = zero};
    std::vector<std::span<const pending>> sets;  // each line's label sets
    for (std::size_t i = 0, end = 0; i < ls.size(); i = end) {
      for (end = i + 1; end < ls.size() && ls[end].rate == ls[i].rate;) ++end;
      sets.push_back(ls.subspan(i, end - i));
    }
    std::vector<std::optional<std::span<const placed>>> drawing(sets.size());  // the lines that draw packages
    for (std::size_t i = 0; i < sets.size(); ++i)
      if (t_->draws_prepaid(name, sets[i].front().rate)) drawing[i] = records_of(sets[i].front(), ordered);
    GPURENT_TRY(drawn, draw_account(*t_, lines_->period(), name, *opening_, drawing));
    std::vector<committed_parts> parts(sets.size());
    for (std::size_t i = 0; i < sets.size(); ++i) {
      GPURENT_TRY(l, finish_line(sets[i], acc.account, ordered, parts[i], drawn->paid[i]));
      acc.exact_total += l->exact;
      acc.lines.push_back(std::move(*l));
    }
    if (t_->rounding().point == rounding_point::invoice) allocate_invoice(acc);  // the lines' total, as commitments below
    for (const invoice_prepaid& p : drawn->packages) acc.exact_total += p.exact;
    acc.prepaid = std::move(drawn->packages);
    for (std::size_t i = 0; i < acc.lines.size(); ++i) GPURENT_TRY(share_labels(acc.lines[i], sets[i], parts[i]));
    for (const tariff_commitment& c : t_->commitments()) {
      if (c.account != name) continue;
      nano_usage covered{};
      for (std::size_t i = 0; i < sets.size(); ++i)
        if (sets[i].front().rate == c.rate) covered = parts[i].covered;
      acc.commitments.push_back(commitment_entry(*t_, c, lines_->period(), covered));
      acc.exact_total += acc.commitments.back().exact;
    }
    std::ranges::sort(acc.commitments, [](const invoice_commitment& a, const invoice_commitment& b) {
      return std::tie(a.resource, a.mode) < std::tie(b.resource, b.mode);
    });
    settle(acc);
    return acc;
  }

  // A line's parts per label set (invoice_parts.hpp: label_shares); none without labels.
  [[nodiscard]] expected<void> share_labels(invoice_line& l, std::span<const pending> sets, const committed_parts& cp) const {
    if (std::ranges::all_of(sets, [&](const pending& p) { return lines_->labels(p.owner).empty(); })) return {};
    std::vector<label_set_totals> totals;
    for (const pending& p : sets) {
      std::optional<cost_numerator> paid;
      if (cp.committed) paid = cp.by_owner.contains(p.owner) ? cp.by_owner.at(p.owner) : cost_numerator{};
      totals.push_back({lines_->labels(p.owner), &lines_->at(p.key), paid});
    }
    GPURENT_TRY(shares, label_shares(t_->rate_at(sets.front().rate), l, totals));
    l.labels = std::move(*shares);
    return {};
  }

  // The records of a line (all its label sets) in (start, id) order, where the line needs them.
  [[nodiscard]] std::span<const placed> records_of(const pending& p, const tiered_records& ordered) const {
    auto it = ordered.find(invoice_line_key(p.owner, p.rate));
    return it == ordered.end() ? std::span<const placed>{} : std::span<const placed>(it->second);
  }

  // One line: its exact amount and waste (the rating of metering/rating.hpp) over the records
  // of all its label sets, less what a commitment or package paid, rounded at the line or
  // record point (the invoice point rounds the account's total in allocate_invoice).
  [[nodiscard]] expected<invoice_line> finish_line(std::span<const pending> sets, const std::string& account, const tiered_records& ordered,
                                                   committed_parts& cp, const std::optional<committed_line>& drawn) const {
    const pending& p = sets.front();
    const rate& r = t_->rate_at(p.rate);
    line_totals tot;
    for (const pending& s : sets)
      if (!tot.merge(lines_->at(s.key))) return overflow_error("the totals of line " + r.resource + "/" + r.mode);
    auto exact = line_exact(r, tot);
    if (!exact) return overflow_error("the amount of line " + r.resource + "/" + r.mode);
    auto waste = line_waste(r, tot, *exact);
    if (!waste) return overflow_error("the waste of line " + r.resource);
    invoice_line l{.resource = r.resource,
                   .mode = r.mode,
                   .records = tot.records,
                   .billed_seconds = tot.billed_seconds,
                   .used_seconds = tot.used_seconds,
                   .usage = tot.usage,
                   .used_usage = tot.used_usage,
                   .exact = *exact,
                   .amount = money_value(t_->currency_value(), 0),
                   .waste = *waste,
                   .labels = {}};
    const std::span<const placed> recs = records_of(p, ordered);
    std::vector<committed_record> in;
    std::vector<std::uint32_t> owners;
    for (const placed& rec : recs) {
      in.push_back({rec.e.start, rec.e.end, rec.e.quantity});
      owners.push_back(rec.e.account);
    }
    if (const tariff_commitment* c = t_->commitment_for(account, p.rate)) {
      GPURENT_TRY(commit_line(*t_, lines_->period(), *c, in, owners, l, cp));
    } else if (drawn) {
      GPURENT_TRY(settle_covered_line(*t_, r, *drawn, owners, l, cp));
    } else if (t_->rounding().point == rounding_point::record) {
      GPURENT_TRY(minor, record_point_amount(*t_, lines_->period(), r, recs, tot));
      l.amount = money_value(t_->currency_value(), *minor);
    }
    if (t_->rounding().point == rounding_point::line) round_line(l, account);
    return l;
  }

  // Line point (the tool's default): the exact amount, plus the previous invoice's carry when the tariff
  // carries remainders, rounded once.
  void round_line(invoice_line& l, const std::string& account) const {
    ratio<> base = l.exact;
    if (t_->rounding().carry) {
      auto it = carry_->find(line_key{account, l.resource, l.mode});
      if (it != carry_->end()) l.carry_in = it->second;
      base += l.carry_in;
    }
    l.forgiven = forgiven_below_minor(*t_, base);
    l.amount = money_value(t_->currency_value(), round_minor(*t_, base));
  }

  // Invoice point: the account's exact total rounded once, allocated over its lines by the
  // largest remainder of each line's exact amount (ties: the earlier line).
  void allocate_invoice(invoice_account& acc) const {
    const currency& c = t_->currency_value();
    const int128 minor_one = detail::pow10<int128>(c.minor_units);
    const int128 total = round_minor(*t_, acc.exact_total);
    std::vector<int128> parts(acc.lines.size());
    std::vector<ratio<>> remainders(acc.lines.size());
    for (std::size_t i = 0; i < acc.lines.size(); ++i) {
      parts[i] = acc.lines[i].exact.round_to_digits(c.minor_units, rounding_mode::down);
      remainders[i] = acc.lines[i].exact - ratio<>(parts[i], minor_one);
    }
    distribute_remainder(total, parts, remainders);
    for (std::size_t i = 0; i < acc.lines.size(); ++i) {
      acc.lines[i].amount = money_value(c, parts[i]);
      acc.lines[i].forgiven = parts[i] == 0 && total == 0 && !(acc.lines[i].exact == ratio<>{});
    }
  }

  // The account's total (the sum of its rounded lines and commitments), each line's rounding, and its
  // prepaid credit drawn down by the total (tariff/commitment.hpp's credit_balance).
  void settle(invoice_account& acc) const {
    const currency& c = t_->currency_value();
    const int128 minor_one = detail::pow10<int128>(c.minor_units);
    int128 total = 0;
    for (auto& l : acc.lines) {
      total += l.amount.minor_units();
      l.rounding = ratio<>(l.amount.minor_units(), minor_one) - (l.exact + l.carry_in);
    }
    for (const invoice_commitment& k : acc.commitments) total += k.amount.minor_units();
    for (const invoice_prepaid& k : acc.prepaid) total += k.amount.minor_units();
    acc.total = money_value(c, total);
    credit_balance credit(t_->credit_for(acc.account));
    const credit_balance::draw_result d = credit.draw(acc.total);
    acc.credit_applied = d.applied;
    acc.due = d.due;
    acc.credit_remaining = credit.remaining();
  }

  const tariff* t_;
  const line_ledger* lines_;
  const record_book* book_;
  const std::string* period_name_;
  const carry_book* carry_;
  const prepaid_balances* opening_;
};

}  // namespace detail
}  // namespace gpurent
