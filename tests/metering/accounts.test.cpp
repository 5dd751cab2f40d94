// SPDX-License-Identifier: MIT
// The meter's account table (open addressing over a word-at-a-time hash): thousands of
// accounts that share prefixes, suffixes and lengths each keep their own line; a repeat of a
// record is a repeat (same account index), and merging meters that saw the accounts in
// another order gives the invoice of one meter.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/meter.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_accounts {

using namespace gpurent;

namespace {
// Accounts of 1 to 60 bytes: runs of one letter, a prefix with a counter, the same with a
// suffix (names that differ only in their last byte or their length).
std::vector<std::string> account_names() {
  std::vector<std::string> names;
  for (std::size_t n = 1; n <= 60; ++n) names.emplace_back(n, 'a');
  for (int i = 0; i < 3000; ++i) {
    names.push_back("acct-" + std::to_string(i));
    names.push_back("acct-" + std::to_string(i) + "z");
    names.push_back(std::string(static_cast<std::size_t>(i % 23), 'p') + "/" + std::to_string(i * 7919));
  }
  return names;
}
}  // namespace

TEST_CASE("the meter's accounts: 9,060 names sharing prefixes and lengths, each its own line, repeats found") {
  auto t = io::parse_tariff_json(
      R"({"currency":"USD","timezone":"UTC","rates":[{"resource":"gpu","mode":"od","unit_price":"3.60","per":"1h","increment":"1s"}]})", "t.json");
  REQUIRE(t);
  auto one = meter::for_month(*t, "2026-11");
  REQUIRE(one);
  meter even = *one, odd = *one;
  const std::vector<std::string> names = account_names();
  const instant s0 = *parse_instant("2026-11-02T00:00:00Z");
  const auto add = [&](meter& m, std::size_t i) {
    // Account i runs i + 1 seconds: its line's billed seconds say which account it is.
    return m.add("r" + std::to_string(i), names[i], 0, nano_quantity(1'000'000'000), s0, s0 + seconds{static_cast<std::int64_t>(i) + 1}, i + 2);
  };
  for (std::size_t i = 0; i < names.size(); ++i) REQUIRE(add(*one, i));
  for (std::size_t i = names.size(); i-- > 0;) REQUIRE(add(i % 2 == 0 ? even : odd, i));  // the other order
  for (std::size_t i = 0; i < names.size(); i += 3) REQUIRE(add(*one, i));                // identical repeats
  CHECK(one->duplicates_ignored() == static_cast<std::int64_t>((names.size() + 2) / 3));
  const auto inv = one->finish();
  REQUIRE(inv);
  REQUIRE(inv->accounts.size() == names.size());
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < names.size(); ++i) index[names[i]] = i;
  for (const invoice_account& a : inv->accounts) {
    REQUIRE(a.lines.size() == 1);
    INFO(a.account);
    REQUIRE(index.count(a.account) == 1);
    CHECK(a.lines[0].billed_seconds == static_cast<std::int64_t>(index[a.account]) + 1);
    CHECK(a.lines[0].records == 1);
  }
  REQUIRE(even.merge(odd));
  const auto merged = even.finish();
  REQUIRE(merged);
  CHECK(merged->accounts == inv->accounts);
}

}  // namespace test_metering_accounts
