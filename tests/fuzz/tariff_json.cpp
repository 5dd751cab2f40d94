// SPDX-License-Identifier: MIT
// Fuzz target: the tariff JSON reader (io::parse_tariff_json) and the meter under whatever
// tariff it accepts. Errors name the file; an accepted tariff finds each of its rates by
// (resource, mode), and metering a fixed set of records under it gives an invoice whose
// lines are non-negative (prices cannot be), sum to the totals, apply credit correctly, and
// equal the invoice of two shard meters merged. Also: the fast decimal path of parse_nano
// agrees with decimal<9>::parse on the same text.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/metering.hpp>

#include "fuzz.hpp"

namespace {

using namespace gpurent;

void check_nano(std::string_view s) {
  const auto fast = parse_nano(s);
  const auto slow = decimal<9>::parse(s);
  if (!slow) {
    FUZZ_CHECK(!fast, "parse_nano accepted what decimal<9>::parse rejects: " + std::string(s));
    return;
  }
  const bool fits = detail::abs(slow->raw()) <= int128(INT64_MAX);
  FUZZ_CHECK(fast.has_value() == fits, "parse_nano and decimal<9>::parse disagree on: " + std::string(s));
  if (fast) FUZZ_CHECK(int128(*fast) == slow->raw(), "parse_nano's value differs: " + std::string(s));
}

void check_invoice(const tariff& t, const invoice& inv) {
  const money_value zero(t.currency_value(), 0);
  for (const invoice_account& a : inv.accounts) {
    money_value sum = zero;
    for (const invoice_line& l : a.lines) {
      FUZZ_CHECK(l.amount.minor_units() >= 0, "a negative line from non-negative prices");
      FUZZ_CHECK(l.billed_seconds >= l.used_seconds, "billed fewer seconds than used");
      sum = sum + l.amount;
    }
    FUZZ_CHECK(sum == a.total, "lines do not sum to the total");
    const int128 credit = t.credit_for(a.account).minor_units();
    FUZZ_CHECK(a.credit_applied.minor_units() == (a.total.minor_units() < credit ? a.total.minor_units() : credit), "wrong credit applied");
    FUZZ_CHECK(a.due == a.total - a.credit_applied, "due != total - credit");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gpurent_fuzz::as_text(data, size);
  if (size <= 64) check_nano(text);
  const auto t = io::parse_tariff_json(text, "t.json");
  if (!t) {
    FUZZ_CHECK(t.error().where.starts_with("t.json"), "an error does not name the file: " + t.error().describe());
    return 0;
  }
  FUZZ_CHECK(t->zone() != nullptr && parse_currency(t->currency_value().code).has_value());
  for (std::size_t i = 0; i < t->rates().size(); ++i) {
    const rate& r = t->rate_at(i);
    const auto found = t->find(r.resource, r.mode);
    FUZZ_CHECK(found && *found == i, "a rate is not found by its own resource and mode");
    FUZZ_CHECK(r.per.count() > 0 && r.time.increment().count() > 0, "a rate with a non-positive period or increment");
  }
  auto whole = meter::for_month(*t, "2026-11");
  FUZZ_CHECK(whole.has_value());
  meter a = *whole, b = *whole;
  static constexpr std::string_view accounts[] = {"acme", "bolt"};
  static constexpr nano_quantity quantities[] = {nano_quantity(1'000'000'000), nano_quantity(500'000'000), nano_quantity(2'500'000'000)};
  const instant base = *parse_instant("2026-11-01T03:59:00Z");  // just before the month starts in New York
  std::size_t n = 0;
  for (std::size_t i = 0; i < t->rates().size() && i < 6; ++i) {
    for (std::size_t k = 0; k < 4; ++k) {
      const rate& r = t->rate_at(i);
      const instant start = base + seconds(static_cast<std::int64_t>(k * 86400 * 9 + i * 3607));
      const usage_record u{"r" + std::to_string(n++),
                           std::string(accounts[k % 2]),
                           r.resource,
                           r.mode,
                           quantities[k % 3],
                           start,
                           start + seconds(static_cast<std::int64_t>(61 + k * 5000)),
                           {}};
      const auto ok = whole->add(u);
      const auto shard_ok = (k % 2 == 0 ? a : b).add(u);
      FUZZ_CHECK(ok.has_value() == shard_ok.has_value(), "a shard and the whole meter disagree on a record");
      if (!ok) FUZZ_CHECK(ok.error().code == error_code::overflow, ok.error().describe());
    }
  }
  const auto merged = a.merge(b);
  FUZZ_CHECK(merged.has_value(), merged ? std::string{} : merged.error().describe());
  const auto inv = whole->finish();
  const auto inv_shards = a.finish();
  FUZZ_CHECK(inv.has_value() == inv_shards.has_value(), "sharded and unsharded metering disagree on success");
  if (!inv) {
    FUZZ_CHECK(inv.error().code == error_code::overflow, inv.error().describe());
    return 0;
  }
  FUZZ_CHECK(*inv == *inv_shards, "the merged shard invoice differs from the unsharded one");
  check_invoice(*t, *inv);
  return 0;
}
