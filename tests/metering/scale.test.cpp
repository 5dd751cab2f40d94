// SPDX-License-Identifier: MIT
// Billing at scale (issue 19): the shard hash's known values; usage files streamed in small
// blocks on 1 to 4 threads give byte-identical invoices, partials and errors; partials of
// random shards, written, read and merged in random order, give the one run's invoice; every
// damaged partial is rejected with a message naming its file.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/meter_partial.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>
#include <gpurent/metering/shard.hpp>

#include "support/files.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_scale {

using namespace gpurent;
namespace fs = std::filesystem;

namespace {
const char* const tariff_text = R"({
  "currency": "USD", "timezone": "America/New_York", "rounding_point": "%POINT%",
  "rates": [
    { "resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s" },
    { "resource": "gpu/H100", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s",
      "price_changes": [ { "from": "2026-11-10T06:00:00Z", "unit_price": "0.87" } ] },
    { "resource": "mig/3g", "mode": "on_demand", "per": "1h", "increment": "15min",
      "tiers": { "mode": "graduated", "steps": [ { "up_to": "10", "unit_price": "1.20" }, { "up_to": null, "unit_price": "0.95" } ] } }
  ],
  "credits": [ { "account": "acme", "amount": "25.00" } ]
})";

tariff make(const std::string& point = "line") {
  std::string s = tariff_text;
  s.replace(s.find("%POINT%"), 7, point);
  auto t = io::parse_tariff_json(s, "scale.json");
  REQUIRE(t);
  return *t;
}

// Random records with identical repeats far apart (so they cross blocks and files).
std::vector<usage_record> random_records(std::mt19937_64& rng, const tariff& t, int n) {
  const char* accounts[] = {"acme", "beta", "zeta", "omega"};
  const instant base = *parse_instant("2026-10-28T00:00:00Z");
  std::vector<usage_record> out;
  for (int i = 0; i < n; ++i) {
    if (!out.empty() && rng() % 8 == 0) {
      out.push_back(out[rng() % out.size()]);
      continue;
    }
    usage_record r;
    r.id = "r" + std::to_string(rng() % 1000000);
    r.account = accounts[rng() % 4];
    const rate& rt = t.rate_at(rng() % t.rates().size());
    r.resource = rt.resource;
    r.mode = rt.mode;
    r.quantity = nano_quantity(static_cast<std::int64_t>(1 + rng() % 8) * detail::nano_one / 4);
    r.start = base + seconds{static_cast<std::int64_t>(rng() % (40 * 86400))};
    r.end = r.start + seconds{static_cast<std::int64_t>(1 + rng() % 20000)};
    if (std::ranges::any_of(out, [&](const usage_record& o) { return o.id == r.id; })) continue;  // no accidental conflicts
    out.push_back(r);
  }
  return out;
}

// The records split into `files` CSV files under a scratch folder.
std::vector<std::string> write_files(const std::vector<usage_record>& recs, std::size_t files, const std::string& tag) {
  const fs::path d = gpurent::test::scratch_dir("scale");
  std::vector<std::string> paths;
  for (std::size_t f = 0; f < files; ++f) {
    std::vector<usage_record> part;
    for (std::size_t i = f * recs.size() / files; i < (f + 1) * recs.size() / files; ++i) part.push_back(recs[i]);
    paths.push_back((d / (tag + std::to_string(f) + ".csv")).string());
    gpurent::test::write_file(paths.back(), io::write_usage_csv(part));
  }
  return paths;
}

void flip_bits(std::string& s, std::size_t at, int bits) {
  s[at] = static_cast<char>(static_cast<unsigned char>(s[at]) ^ static_cast<unsigned char>(bits));
}

struct run_result {
  std::string invoice;  // or the error
  std::string partial;
};

run_result run(const tariff& t, const std::vector<std::string>& files, unsigned jobs, shard_spec shard = {}, std::size_t block = 256) {
  auto blank = meter::for_month(t, "2026-11");
  REQUIRE(blank);
  auto shards = io::meter_usage_files(*blank, files, {.shard = shard, .jobs = jobs, .block_bytes = block});
  if (!shards) return {"error: " + shards.error().describe(), {}};
  CHECK(shards->size() == jobs);
  auto inv = meter::finish_shards(*shards);
  REQUIRE(inv);
  auto bytes = io::write_partial(*shards);
  REQUIRE(bytes);
  return {io::write_invoice_json(*inv, {true}), *bytes};
}
}  // namespace

TEST_CASE("shard hash: FNV-1a 64 of the id's bytes, the same everywhere") {
  CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
  CHECK(fnv1a64("r0000001") == 0x1570a3e1a3655654ULL);
  CHECK(shard_of("r0000001", 7) == 3);
  CHECK(parse_shard("3/7") == shard_spec{3, 7});
  CHECK(shard_spec{3, 7}.holds("r0000001"));
  CHECK_FALSE(shard_spec{2, 7}.holds("r0000001"));
  for (const char* bad : {"7/7", "1", "a/2", "1/0", "-1/2", "1/2x", "/2"}) {
    CAPTURE(bad);
    auto s = parse_shard(bad);
    REQUIRE_FALSE(s);
    CHECK(s.error().field == "--shard");
  }
}

TEST_CASE("files streamed in small blocks: 1 to 4 threads give the same invoice and partial, shards merge") {
  for (const char* point : {"line", "record", "invoice"}) {
    const tariff t = make(point);
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      CAPTURE(point);
      CAPTURE(seed);
      std::mt19937_64 rng(seed);
      const auto recs = random_records(rng, t, 300);
      const auto files = write_files(recs, 1 + seed % 3, "same" + std::to_string(seed));
      const run_result one = run(t, files, 1, {}, 1 << 20);
      REQUIRE(one.invoice.starts_with("{"));
      for (unsigned jobs = 1; jobs <= 4; ++jobs) {
        CAPTURE(jobs);
        const run_result r = run(t, files, jobs);
        CHECK(r.invoice == one.invoice);
        CHECK(r.partial == one.partial);
      }
      // Shards of 3, each on 2 threads, read back and merged in a random order.
      auto all = meter::for_month(t, "2026-11");
      REQUIRE(all);
      const meter blank = *all;
      std::vector<std::string> parts;
      for (std::uint32_t k = 0; k < 3; ++k) parts.push_back(run(t, files, 2, {k, 3}).partial);
      std::ranges::shuffle(parts, rng);
      for (const std::string& p : parts) {
        auto m = io::read_partial(blank, p, "p.bin");
        REQUIRE(m);
        REQUIRE(all->merge(*m));
      }
      auto inv = all->finish();
      REQUIRE(inv);
      CHECK(io::write_invoice_json(*inv, {true}) == one.invoice);
      // Overlapping partials: the whole one merged with a shard counts each record once.
      auto whole = io::read_partial(blank, one.partial, "whole.bin");
      REQUIRE(whole);
      auto again = io::read_partial(blank, parts.front(), "part.bin");
      REQUIRE(again);
      REQUIRE(whole->merge(*again));
      CHECK(io::write_invoice_json(*whole->finish(), {true}).size() > 0);
    }
  }
}

TEST_CASE("line blocks: whole lines, any block size; byte ranges that tile a file read each line once") {
  std::mt19937_64 rng(11);
  const fs::path path = gpurent::test::scratch_dir("scale") / "lines.txt";
  for (int iter = 0; iter < 200; ++iter) {
    CAPTURE(iter);
    std::string text;
    const int lines = static_cast<int>(rng() % 30);
    for (int i = 0; i < lines; ++i) {
      text.append(rng() % (iter % 3 == 0 ? 200 : 20), static_cast<char>('a' + i % 26));
      if (i + 1 < lines || rng() % 2) text += '\n';
    }
    gpurent::test::write_file(path, text);
    std::vector<std::uint64_t> cuts{0, text.size()};
    for (std::uint64_t k = rng() % 5; k > 0; --k) cuts.push_back(rng() % (text.size() + 1));
    std::ranges::sort(cuts);
    std::string again;
    for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
      auto b = io::line_blocks::open(path.string(), 64, cuts[p], p + 2 == cuts.size() ? UINT64_MAX : cuts[p + 1]);
      REQUIRE(b);
      std::string block;
      while (true) {
        auto more = b->take(block);
        REQUIRE(more);
        if (!*more) break;
        CHECK((block.back() == '\n' || again.size() + block.size() == text.size()));
        again += block;
      }
    }
    CHECK(again == text);
  }
  CHECK_FALSE(io::line_blocks::open("/nonexistent/x.csv"));
}

TEST_CASE("files on threads: the first error is the one a single thread reports") {
  const tariff t = make();
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    auto recs = random_records(rng, t, 200);
    // A conflicting repeat of an early record late, and (some seeds) a bad quantity between.
    usage_record conflict = recs[rng() % 20];
    conflict.end = conflict.end + seconds{1};
    recs.insert(recs.begin() + static_cast<std::ptrdiff_t>(100 + rng() % 100), conflict);
    auto files = write_files(recs, 2, "err" + std::to_string(seed));
    if (seed % 2 == 0) {
      std::string text = gpurent::test::slurp(files[1]);
      const std::size_t at = text.find('\n', text.size() / 2) + 1;
      text.insert(at, "bad,acme,gpu/H100,on_demand,x,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n");
      gpurent::test::write_file(files[1], text);
    }
    if (seed % 3 == 0) files.push_back("/nonexistent/usage.csv");
    const run_result one = run(t, files, 1);
    REQUIRE(one.invoice.starts_with("error: "));
    for (unsigned jobs = 2; jobs <= 4; ++jobs) CHECK(run(t, files, jobs).invoice == one.invoice);
  }
}

TEST_CASE("partials: every damaged byte, every truncation, another tariff, period or version is rejected naming the file") {
  const tariff t = make();
  std::mt19937_64 rng(7);
  const auto recs = random_records(rng, t, 6);
  const auto files = write_files(recs, 1, "small");
  const std::string good = run(t, files, 1).partial;
  auto blank = meter::for_month(t, "2026-11");
  REQUIRE(blank);
  REQUIRE(io::read_partial(*blank, good, "good.bin"));
  const auto rejected = [&](const std::string& bytes, const std::string& why) {
    auto m = io::read_partial(*blank, bytes, "bad.bin");
    REQUIRE_FALSE(m);
    CHECK(m.error().where == "bad.bin");
    CHECK(m.error().message.find(why) != std::string::npos);
  };
  for (std::size_t i = 0; i < good.size(); ++i) {
    CAPTURE(i);
    for (const int flip : {0x01, 0x80, 0xFF}) {
      std::string bad = good;
      flip_bits(bad, i, flip);
      rejected(bad, "invalid partial result");
    }
  }
  for (std::size_t n = 0; n < good.size(); ++n) rejected(good.substr(0, n), "invalid partial result");
  rejected(good + "x", "invalid partial result");
  rejected("GPURENTQ" + good.substr(8), "not a gpurent partial result");
  std::string v3 = good;
  v3[8] = 3;
  rejected(v3, "format version 3; this gpurent reads version 2");
  std::string v1 = good;  // before label sets
  v1[8] = 1;
  rejected(v1, "format version 1; this gpurent reads version 2");
  // Damage behind a recomputed checksum: the structure and the re-rating catch it.
  const auto resealed = [](std::string bytes) {
    bytes.resize(bytes.size() - 8);
    const std::uint64_t sum = fnv1a64(bytes);
    for (int k = 0; k < 8; ++k) bytes.push_back(static_cast<char>(static_cast<unsigned char>(sum >> (8 * k))));
    return bytes;
  };
  // The first line's record count: past the names (u64 counts at 40, 48 and 56, u32 lengths)
  // and the line's three indices.
  const auto u = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(good[at + static_cast<std::size_t>(k)]);
    return static_cast<std::size_t>(v);
  };
  std::size_t pos = io::partial_header_bytes;
  for (std::size_t n = u(40, 8) + u(48, 8) + u(56, 8); n > 0; --n) pos += 4 + u(pos, 4);
  std::string totals = good;
  flip_bits(totals, pos + 12, 1);
  rejected(resealed(totals), "its line totals are not those of its records");
  std::string count = good;
  flip_bits(count, 88, 0x80);  // the count of repeats ignored: negative
  flip_bits(count, 80, 1);     // the count of records out of period
  rejected(resealed(count), "damaged");
  std::string v4 = good;
  v4[8] = 4;
  rejected(resealed(v4), "format version 4");
  // Another tariff (a different price), another period.
  std::string other_text = tariff_text;
  other_text.replace(other_text.find("%POINT%"), 7, "line");
  other_text.replace(other_text.find("2.49"), 4, "2.50");
  auto other = io::parse_tariff_json(other_text, "other.json");
  REQUIRE(other);
  auto other_blank = meter::for_month(*other, "2026-11");
  REQUIRE(other_blank);
  auto wrong_tariff = io::read_partial(*other_blank, good, "bad.bin");
  REQUIRE_FALSE(wrong_tariff);
  CHECK(wrong_tariff.error().message.find("another tariff") != std::string::npos);
  auto october = meter::for_month(t, "2026-10");
  REQUIRE(october);
  auto wrong_period = io::read_partial(*october, good, "bad.bin");
  REQUIRE_FALSE(wrong_period);
  CHECK(wrong_period.error().message.find("another period") != std::string::npos);
}

}  // namespace test_metering_scale
