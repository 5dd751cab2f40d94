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

#include <gpurent/io/invoice_json.hpp>
#include <gpurent/io/meter_files.hpp>
#include <gpurent/io/meter_partial.hpp>
#include <gpurent/io/tariff_json.hpp>
#include <gpurent/io/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>

#include "support/tool.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_parallel_quoting {

using namespace gpurent;
namespace fs = std::filesystem;

namespace {
const char* const tariff_text = R"({
  "currency": "EUR", "timezone": "Europe/Berlin",
  "rates": [
    { "resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s" },
    { "resource": "gpu/H100", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s",
      "price_changes": [ { "from": "2026-11-10T06:00:00Z", "unit_price": "0.87" } ] },
    { "resource": "mig/3g, \"half\"", "mode": "on_demand", "per": "1h", "increment": "15min",
      "tiers": { "mode": "graduated", "steps": [ { "up_to": "10", "unit_price": "1.20" }, { "up_to": null, "unit_price": "0.95" } ] } }
  ],
  "credits": [ { "account": "acme, \"inc\"", "amount": "25.00" } ]
})";

// A field as CSV: quoted when it must be, and at random when it need not be (the case the
// old parallel path lost).
std::string field(std::mt19937_64& rng, const std::string& v) {
  const bool must = v.find_first_of(",\"\r\n") != std::string::npos;
  if (!must && rng() % 3 != 0) return v;
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

struct hostile_file {
  std::string text;
  std::size_t records = 0;
};

// One usage file: a label column, random quoting, CRLF or LF, maybe a BOM, blank lines,
// long and non-ASCII ids and accounts, identical repeats of earlier records.
hostile_file hostile_usage(std::mt19937_64& rng, int rows, const std::string& tag) {
  const std::vector<std::string> accounts = {"acme, \"inc\"", "beta", "zeta gmbh", "\xc3\xa9quipe-\xe2\x82\xac", std::string(700, 'a') + "-long"};
  const std::vector<std::pair<std::string, std::string>> rates = {{"gpu/H100", "on_demand"}, {"gpu/H100", "spot"}, {"mig/3g, \"half\"", "on_demand"}};
  const std::string eol = rng() % 2 ? "\r\n" : "\n";
  hostile_file f;
  if (rng() % 2) f.text += "\xEF\xBB\xBF";
  f.text += field(rng, "id") + ",account,resource,mode,quantity,start,end," + field(rng, "project") + eol;
  std::vector<std::string> kept;
  for (int i = 0; i < rows; ++i) {
    if (!kept.empty() && rng() % 10 == 0) {  // an identical repeat of an earlier line
      f.text += kept[rng() % kept.size()];
      ++f.records;
      continue;
    }
    std::string id = tag + "-" + std::to_string(i) + (rng() % 4 == 0 ? ",\"q\"" : "");
    if (rng() % 25 == 0) id += std::string(3000 + rng() % 2000, 'x');
    const auto& [resource, mode] = rates[rng() % rates.size()];
    const int day = 1 + static_cast<int>(rng() % 28);
    const std::string start = "2026-11-" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "T0" + std::to_string(rng() % 10) + ":00:00Z";
    const std::string end = "2026-11-" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "T1" + std::to_string(rng() % 10) + ":30:00Z";
    const std::string project = rng() % 30 == 0 ? std::string(5000, 'p') : "proj " + std::to_string(rng() % 4);
    const std::string line = field(rng, id) + "," + field(rng, accounts[rng() % accounts.size()]) + "," + field(rng, resource) + "," +
                             field(rng, mode) + "," + field(rng, std::to_string(1 + rng() % 8)) + "," + field(rng, start) + "," + field(rng, end) +
                             "," + field(rng, project) + eol;
    f.text += line;
    kept.push_back(line);
    ++f.records;
    if (rng() % 40 == 0) f.text += eol;  // a blank line is no record
  }
  return f;
}

tariff make_tariff() {
  auto t = io::parse_tariff_json(tariff_text, "hostile.json");
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
