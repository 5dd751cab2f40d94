// SPDX-License-Identifier: MIT
// The pieces gpurent-mpi is made of (issue 19): records added out of file order (exchange
// rounds) give the invoice and the conflict of one run in order; totals-only partials of
// disjoint shards, added to one meter, give the same invoice, and a damaged one is rejected.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_partial.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/metering.hpp>
#include <gpurent/metering/shard.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_io_meter_partial {

using namespace gpurent;

namespace {
tariff make(const std::string& point) {
  std::string s = R"({ "currency": "USD", "timezone": "UTC", "rounding_point": "%P%", "rates": [
    { "resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s" },
    { "resource": "mig/3g", "mode": "on_demand", "per": "1h", "increment": "15min",
      "tiers": { "mode": "graduated", "steps": [ { "up_to": "10", "unit_price": "1.20" }, { "up_to": null, "unit_price": "0.95" } ] } } ] })";
  s.replace(s.find("%P%"), 3, point);
  auto t = io::parse_tariff_json(s, "t.json");
  REQUIRE(t);
  return *t;
}

// A record at a (file, line) of the input.
struct placed {
  std::string id, account;
  std::size_t rate;
  nano_quantity q;
  instant start, end;
  std::size_t file, line;
};

// Random records over 3 files, about one in five an identical repeat of an earlier one.
std::vector<placed> records(std::mt19937_64& rng, int n) {
  const instant base = *parse_instant("2026-10-30T00:00:00Z");
  std::vector<placed> out;
  for (int i = 0; i < n; ++i) {
    if (!out.empty() && rng() % 5 == 0) {
      placed p = out[rng() % out.size()];
      out.push_back(p);
    } else {
      const instant s = base + seconds{static_cast<std::int64_t>(rng() % (35 * 86400))};
      out.push_back({"r" + std::to_string(i), rng() % 2 == 0 ? "acme" : "beta", rng() % 2,
                     nano_quantity(static_cast<std::int64_t>(1 + rng() % 4) * detail::nano_one), s,
                     s + seconds{static_cast<std::int64_t>(1 + rng() % 9000)}, 0, 0});
    }
    out.back().file = static_cast<std::size_t>(i) * 3 / static_cast<std::size_t>(n);
    out.back().line = static_cast<std::size_t>(i) + 2;
  }
  return out;
}

const std::array<std::string, 3> files = {"a.csv", "b.csv", "c.csv"};

meter blank_meter(const tariff& t) {
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  for (const std::string& f : files) m->set_source(f);  // numbered in file order
  return *m;
}

expected<void> add(meter& m, const placed& p, bool out_of_order, meter::record_view* displaced = nullptr) {
  m.set_source(files[p.file]);
  if (!out_of_order) return m.add(p.id, p.account, p.rate, p.q, p.start, p.end, p.line);
  return m.add_out_of_order(p.id, p.account, p.rate, p.q, p.start, p.end, p.line, displaced);
}

std::string invoice_of(std::span<const meter> parts) {
  auto inv = meter::finish_shards(parts);
  REQUIRE(inv);
  return io::write_invoice_json(*inv, {true});
}
}  // namespace

TEST_CASE("out of file order into shards, totals-only partials added at one meter: the invoice of one run") {
  for (const std::string point : {"line", "invoice", "record"}) {
    const tariff t = make(point);
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      CAPTURE(point);
      CAPTURE(seed);
      std::mt19937_64 rng(seed);
      std::vector<placed> recs = records(rng, 300);
      meter one = blank_meter(t);
      for (const placed& p : recs) REQUIRE(add(one, p, false));
      const std::string expected_invoice = invoice_of(std::span<const meter>(&one, 1));
      std::ranges::shuffle(recs, rng);
      const std::uint32_t n = 1 + static_cast<std::uint32_t>(seed % 4);
      std::vector<meter> shards(n, blank_meter(t));
      for (const placed& p : recs) REQUIRE(add(shards[shard_of(p.id, n)], p, true));
      CHECK(invoice_of(shards) == expected_invoice);
      if (one.finish_needs_records()) continue;  // record-point tiers: every record to one place
      const meter blank = blank_meter(t);
      std::vector<meter> parts{shards.front()};
      for (std::size_t k = 1; k < shards.size(); ++k) {
        auto bytes = io::write_totals_partial(shards[k]);
        REQUIRE(bytes);
        auto back = io::read_totals_partial(blank, *bytes, "rank");
        REQUIRE(back);
        parts.push_back(*back);
      }
      CHECK(invoice_of(parts) == expected_invoice);
    }
  }
}

TEST_CASE("out of file order: the earliest conflict, added again at the end, is the one a run in order reports") {
  const tariff t = make("line");
  const instant s = *parse_instant("2026-11-02T00:00:00Z");
  const placed a{"x", "acme", 0, nano_quantity(detail::nano_one), s, s + seconds{600}, 0, 5};
  placed copy = a, b = a, c = a;
  copy.file = 1;
  copy.line = 20;
  b.file = 2;
  b.line = 30;
  b.q = nano_quantity(2 * detail::nano_one);
  c.file = 2;
  c.line = 40;
  meter in_order = blank_meter(t);
  REQUIRE(add(in_order, a, false));
  REQUIRE(add(in_order, copy, false));
  const auto want = add(in_order, b, false);
  REQUIRE_FALSE(want);
  CHECK(want.error().describe().find("c.csv:30") != std::string::npos);
  std::vector<placed> order{a, copy, b, c};
  std::ranges::sort(order, {}, &placed::line);
  do {
    meter m = blank_meter(t);
    std::optional<std::pair<std::size_t, placed>> first;  // the earliest error's line and record
    for (const placed& p : order) {
      meter::record_view displaced{};
      if (add(m, p, true, &displaced)) continue;
      placed at = p;
      if (!displaced.id.empty()) {
        const auto file = static_cast<std::size_t>(std::ranges::find(files, displaced.source) - files.begin());
        at = {std::string(displaced.id),
              std::string(displaced.account),
              displaced.rate,
              displaced.quantity,
              displaced.start,
              displaced.end,
              file,
              displaced.line};
      }
      if (!first || at.line < first->first) first = {at.line, at};
    }
    REQUIRE(first);
    CHECK(first->first == 30);
    const auto again = add(m, first->second, true);
    REQUIRE_FALSE(again);
    CHECK(again.error().describe() == want.error().describe());
  } while (std::next_permutation(order.begin(), order.end(), [](const placed& x, const placed& y) { return x.line < y.line; }));
}

TEST_CASE("totals-only partials: damaged, cut, of another tariff or read as a full partial are rejected") {
  const tariff t = make("line");
  std::mt19937_64 rng(3);
  meter m = blank_meter(t);
  for (const placed& p : records(rng, 20)) REQUIRE(add(m, p, false));
  auto good = io::write_totals_partial(m);
  REQUIRE(good);
  const meter blank = blank_meter(t);
  REQUIRE(io::read_totals_partial(blank, *good, "p"));
  for (std::size_t i = 0; i < good->size(); ++i) {
    std::string bad = *good;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    CHECK_FALSE(io::read_totals_partial(blank, bad, "p"));
  }
  for (std::size_t n = 0; n < good->size(); ++n) CHECK_FALSE(io::read_totals_partial(blank, good->substr(0, n), "p"));
  const auto full = io::read_partial(blank, *good, "p");
  REQUIRE_FALSE(full);
  CHECK(full.error().message.find("totals-only") != std::string::npos);
  auto whole = io::write_partial(std::span<const meter>(&m, 1));
  REQUIRE(whole);
  CHECK_FALSE(io::read_totals_partial(blank, *whole, "p"));
  const tariff other = make("invoice");
  CHECK_FALSE(io::read_totals_partial(blank_meter(other), *good, "p"));
}

TEST_CASE("partials: an account name that is not UTF-8, checksum and all, is rejected (the invoice's JSON could not hold it)") {
  const tariff t = make("line");
  std::mt19937_64 rng(5);
  meter m = blank_meter(t);
  for (const placed& p : records(rng, 20)) REQUIRE(add(m, p, false));
  const meter blank = blank_meter(t);
  // "beta" becomes "bet\x9A" (still after "acme"), the checksum recomputed: only the text is wrong.
  const auto spoil = [](std::string bytes) {
    const std::size_t at = bytes.find("beta");
    REQUIRE(at != std::string::npos);
    bytes[at + 3] = '\x9A';
    bytes.resize(bytes.size() - 8);
    const std::uint64_t sum = fnv1a64(bytes);
    for (int k = 0; k < 8; ++k) bytes.push_back(static_cast<char>(static_cast<unsigned char>(sum >> (8 * k))));
    return bytes;
  };
  const auto whole = io::write_partial(std::span<const meter>(&m, 1));
  const auto totals = io::write_totals_partial(m);
  REQUIRE(whole);
  REQUIRE(totals);
  REQUIRE(io::read_partial(blank, *whole, "p"));  // untouched, it reads
  const auto bad_whole = io::read_partial(blank, spoil(*whole), "p");
  REQUIRE_FALSE(bad_whole);
  CHECK(bad_whole.error().describe() ==
        "p: field 'partial': invalid partial result: damaged: its file, account or label set names are cut short, out of order, not UTF-8 or not "
        "label sets");
  const auto bad_totals = io::read_totals_partial(blank, spoil(*totals), "p");
  REQUIRE_FALSE(bad_totals);
  CHECK(bad_totals.error().message.find("not UTF-8") != std::string::npos);
}

}  // namespace test_io_meter_partial
