// SPDX-License-Identifier: MIT
// The parallel meter against its slow twin on hostile but valid usage files (issue 32): RFC
// 4180 quoting of any field (quotes doubled inside, commas inside), CRLF line ends, a UTF-8
// byte-order mark, blank lines, non-ASCII names and fields of thousands of bytes. Every
// number of threads (1, 2, 3, 8), every block size, shards merged in any order give the
// bytes of one plain pass over the whole text (meter_usage_csv).
//
// Why the suite missed the lost records: every generated file before this one came from
// write_usage_csv, which quotes only what must be quoted, and the ids and accounts it wrote
// never needed it. So the parallel path never parsed a quoted id, the only case where a row's
// view points into the parser's scratch space instead of the block (which the next quoted
// line overwrote). Here most rows quote something, at random, and the sanitizer build runs it.
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

#include "metering/hostile_usage.hpp"
#include "support/files.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_parallel_quoting {

using namespace gpurent;
namespace fs = std::filesystem;

namespace {
using gpurent::test::hostile_file;
using gpurent::test::hostile_usage;

tariff make_tariff() {
  auto t = io::parse_tariff_json(gpurent::test::hostile_tariff, "hostile.json");
  REQUIRE(t);
  return *t;
}

meter blank_meter(const tariff& t) {
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  return *m;
}

// The slow twin: every file's whole text through the plain reader into one meter.
std::string one_pass(const tariff& t, const std::vector<std::string>& texts, const std::vector<std::string>& paths) {
  meter m = blank_meter(t);
  for (std::size_t k = 0; k < texts.size(); ++k) {
    auto r = io::meter_usage_csv(m, texts[k], paths[k]);
    if (!r) return "error: " + r.error().describe();
  }
  auto inv = m.finish();
  REQUIRE(inv);
  return io::write_invoice_json(*inv, {true});
}

struct fast_run {
  std::string invoice;
  std::vector<meter> shards;
};

fast_run threads(const tariff& t, const std::vector<std::string>& paths, unsigned jobs, std::size_t block, shard_spec shard = {}) {
  auto shards = io::meter_usage_files(blank_meter(t), paths, {.shard = shard, .jobs = jobs, .block_bytes = block});
  if (!shards) return {"error: " + shards.error().describe(), {}};
  auto inv = meter::finish_shards(*shards);
  REQUIRE(inv);
  return {io::write_invoice_json(*inv, {true}), std::move(*shards)};
}
}  // namespace

TEST_CASE("parallel meter = one plain pass on hostile valid files: quoting, CRLF, BOM, blank lines, long fields") {
  const tariff t = make_tariff();
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const fs::path d = gpurent::test::scratch_dir("hostile");
    std::vector<std::string> texts, paths;
    std::size_t records = 0;
    for (std::size_t f = 0; f < 1 + seed % 3; ++f) {
      hostile_file h = hostile_usage(rng, 150 + static_cast<int>(rng() % 150), "s" + std::to_string(seed) + "f" + std::to_string(f));
      records += h.records;
      paths.push_back((d / ("h" + std::to_string(seed) + "-" + std::to_string(f) + ".csv")).string());
      gpurent::test::write_file(paths.back(), h.text);
      texts.push_back(std::move(h.text));
    }
    const std::string want = one_pass(t, texts, paths);
    REQUIRE(want.starts_with("{"));
    CHECK(want.find("\"records\"") != std::string::npos);
    for (unsigned jobs : {1U, 2U, 3U, 8U}) {
      for (std::size_t block : {std::size_t{64}, std::size_t{700}, std::size_t{1} << 20}) {
        CAPTURE(jobs);
        CAPTURE(block);
        CHECK(threads(t, paths, jobs, block).invoice == want);
      }
    }
    // Shards of 3 on 2 threads each, written as partials, merged in a random order.
    meter all = blank_meter(t);
    std::vector<std::string> parts;
    for (std::uint32_t k = 0; k < 3; ++k) {
      const fast_run r = threads(t, paths, 2, 256, {k, 3});
      auto bytes = io::write_partial(r.shards);
      REQUIRE(bytes);
      parts.push_back(*bytes);
    }
    std::ranges::shuffle(parts, rng);
    for (const std::string& p : parts) {
      auto m = io::read_partial(blank_meter(t), p, "part.bin");
      REQUIRE(m);
      REQUIRE(all.merge(*m));
    }
    auto inv = all.finish();
    REQUIRE(inv);
    CHECK(io::write_invoice_json(*inv, {true}) == want);
    CHECK(records > 0);
  }
}

TEST_CASE("parallel meter: quoted ids and accounts in one block keep every record (the probe's 8 records of one hour)") {
  const tariff t = make_tariff();
  std::string text = "id,account,resource,mode,quantity,start,end\n";
  for (int i = 1; i <= 8; ++i)
    text += "\"job-" + std::to_string(i) + "\",\"acct " + std::to_string(i % 3) + "\",gpu/H100,on_demand,1,2026-11-0" + std::to_string(i) +
            "T00:00:00Z,2026-11-0" + std::to_string(i) + "T01:00:00Z\n";
  const fs::path p = gpurent::test::scratch_dir("hostile") / "eight.csv";
  gpurent::test::write_file(p, text);
  const std::string want = one_pass(t, {text}, {p.string()});
  for (unsigned jobs : {2U, 4U}) {
    CAPTURE(jobs);
    const fast_run r = threads(t, {p.string()}, jobs, std::size_t{1} << 20);
    CHECK(r.invoice == want);
    std::size_t records = 0;
    for (const meter& m : r.shards) records += m.distinct_records();
    CHECK(records == 8);
  }
}

}  // namespace test_metering_parallel_quoting
