// SPDX-License-Identifier: MIT
// Rating speed against its physical limit, in one run: the library's checked rating of flat
// per-second records (clipping, minimum, increment, exact amount, line aggregation) versus a
// plain __int128 loop doing the same arithmetic without checks; graduated tiers per record;
// the whole meter (dedup by id included); end to end on a usage file (scripts/gen-usage's, or one
// of the same shape written here) against a plain line- and field-splitting loop over it.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/text/line_blocks.hpp>
#include <gpurent/metering/metering.hpp>

using namespace gpurent;
__extension__ using i128 = __int128;  // the plain, unchecked baseline

namespace {
constexpr std::size_t n_records = 1 << 20;
constexpr std::uint32_t n_lines = 64;

struct raw_record {
  std::int64_t start, end, quantity;
  std::uint32_t line;
};

const std::vector<raw_record>& records() {
  static const std::vector<raw_record> r = [] {
    std::mt19937_64 rng(42);
    const std::int64_t base = parse_instant("2026-10-31T00:00:00Z")->time_since_epoch().count();
    std::vector<raw_record> v(n_records);
    for (auto& x : v) {
      x.start = base + static_cast<std::int64_t>(rng() % (32 * 86400));
      x.end = x.start + 1 + static_cast<std::int64_t>(rng() % 20000);
      x.quantity = static_cast<std::int64_t>(1 + rng() % 8) * detail::nano_one;
      x.line = static_cast<std::uint32_t>(rng() % n_lines);
    }
    return v;
  }();
  return r;
}

const tariff& the_tariff() {
  static const tariff t = *io::parse_tariff_json(R"({"currency":"USD","timezone":"UTC","rates":[
    {"resource":"gpu/H100","mode":"on_demand","unit_price":"2.49","per":"1h","increment":"1s","minimum":"60s"},
    {"resource":"mig/3g","mode":"on_demand","per":"1h","tiers":{"mode":"graduated","steps":[
      {"up_to":"1000","unit_price":"1.20"},{"up_to":"100000","unit_price":"0.95"},{"up_to":null,"unit_price":"0.80"}]}}]})");
  return t;
}

const interval& november() {
  static const interval p = the_tariff().month(date::year(2026) / date::month(11));
  return p;
}

// The physical limit: the same clipping, minimum, round-up and aggregation, unchecked.
void plain_int128_loop(benchmark::State& state) {
  const auto& recs = records();
  const std::int64_t pb = november().begin().time_since_epoch().count(), pe = november().end().time_since_epoch().count();
  // The tariff is data, not constants: keep the compiler from folding the increment (a
  // division by 1) and the price into the loop, as it cannot for the library either.
  std::int64_t price = 2'490'000'000, inc = 1, min = 60;
  benchmark::DoNotOptimize(price);
  benchmark::DoNotOptimize(inc);
  benchmark::DoNotOptimize(min);
  std::vector<i128> amount(n_lines);
  std::vector<std::int64_t> billed(n_lines), count(n_lines);
  for (auto _ : state) {
    for (const auto& r : recs) {
      const std::int64_t b = r.start > pb ? r.start : pb;
      const std::int64_t e = r.end < pe ? r.end : pe;
      if (b >= e) continue;
      const std::int64_t a = e - b;
      const std::int64_t x = (r.start >= pb && a < min) ? min : a;
      const std::int64_t bs = (x + inc - 1) / inc * inc;
      amount[r.line] += static_cast<i128>(price) * r.quantity * bs;
      billed[r.line] += bs;
      count[r.line] += 1;
    }
    benchmark::DoNotOptimize(amount.data());
    benchmark::DoNotOptimize(billed.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(recs.size()));
}
BENCHMARK(plain_int128_loop)->Unit(benchmark::kMillisecond);

// The library's hot path: rate_usage + line_totals::add, every operation checked.
void rate_flat_per_second(benchmark::State& state) {
  const auto& recs = records();
  const rate& r = the_tariff().rate_at(0);
  const interval p = november();
  std::vector<line_totals> lines(n_lines);
  for (auto _ : state) {
    for (const auto& x : recs) {
      rated_usage u;
      const auto s = rate_usage(r, p, instant{seconds{x.start}}, instant{seconds{x.end}}, nano_quantity(x.quantity), u);
      if (s == rating_status::rated) {
        if (!lines[x.line].add(u, 0)) state.SkipWithError("overflow");
      } else if (s == rating_status::overflow) {
        state.SkipWithError("overflow");
      }
    }
    benchmark::DoNotOptimize(lines.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(recs.size()));
}
BENCHMARK(rate_flat_per_second)->Unit(benchmark::kMillisecond);

// Graduated tiers, each record laid on the steps after the line's records before it.
void rate_graduated_per_record(benchmark::State& state) {
  const auto& recs = records();
  const rate& r = the_tariff().rate_at(1);
  const interval p = november();
  std::vector<nano_usage> before(n_lines);
  std::vector<cost_numerator> cost(n_lines);
  for (auto _ : state) {
    std::fill(before.begin(), before.end(), nano_usage{});
    std::fill(cost.begin(), cost.end(), cost_numerator{});
    for (const auto& x : recs) {
      rated_usage u;
      if (rate_usage(r, p, instant{seconds{x.start}}, instant{seconds{x.end}}, nano_quantity(x.quantity), u) != rating_status::rated) continue;
      cost_numerator part;
      if (!r.tiers.graduated_part(before[x.line], u.usage, part) || !add_to(cost[x.line], part)) state.SkipWithError("overflow");
      before[x.line] = before[x.line] + u.usage;
    }
    benchmark::DoNotOptimize(cost.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(recs.size()));
}
BENCHMARK(rate_graduated_per_record)->Unit(benchmark::kMillisecond);

// Graduated tiers as the meter does them: usage summed per line, the tiers applied once.
void rate_graduated_line(benchmark::State& state) {
  const auto& recs = records();
  const rate& r = the_tariff().rate_at(1);
  const interval p = november();
  std::vector<line_totals> lines(n_lines);
  for (auto _ : state) {
    for (const auto& x : recs) {
      rated_usage u;
      if (rate_usage(r, p, instant{seconds{x.start}}, instant{seconds{x.end}}, nano_quantity(x.quantity), u) != rating_status::rated) continue;
      if (!lines[x.line].add(u, 0)) state.SkipWithError("overflow");
    }
    cost_numerator total;
    for (const auto& l : lines) {
      cost_numerator c;
      if (!line_cost(r, l, c) || !add_to(total, c)) state.SkipWithError("overflow");
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(recs.size()));
}
BENCHMARK(rate_graduated_line)->Unit(benchmark::kMillisecond);

// The whole meter: dedup by string id, account interning, rating, aggregation, invoice.
void meter_add_and_finish(benchmark::State& state) {
  const auto& recs = records();
  const std::size_t n = 1 << 18;
  std::vector<std::string> ids(n), accounts(n_lines);
  for (std::size_t i = 0; i < n; ++i) ids[i] = "rec-" + std::to_string(i);
  for (std::uint32_t i = 0; i < n_lines; ++i) accounts[i] = "account-" + std::to_string(i);
  for (auto _ : state) {
    auto m = meter::for_month(the_tariff(), "2026-11");
    m->reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& x = recs[i];
      if (!m->add(ids[i], accounts[x.line], 0, nano_quantity(x.quantity), instant{seconds{x.start}}, instant{seconds{x.end}}, i + 2))
        state.SkipWithError("add");
    }
    auto inv = m->finish();
    benchmark::DoNotOptimize(inv);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}
BENCHMARK(meter_add_and_finish)->Unit(benchmark::kMillisecond);

// A usage file of scripts/gen-usage's shape: GPURENT_BENCH_USAGE and GPURENT_BENCH_TARIFF when
// set (scripts/gen-usage --records N --tariff T --usage U), else 2^20 rows written here.
struct usage_file {
  std::string usage, tariff_json;
};
const usage_file& the_usage() {
  static const usage_file f = [] {
    const char* u = std::getenv("GPURENT_BENCH_USAGE");
    const char* t = std::getenv("GPURENT_BENCH_TARIFF");
    if (u != nullptr && t != nullptr) return usage_file{u, *io::read_file(t)};
    const std::string tariff = R"({"currency": "USD", "timezone": "America/New_York", "rounding": "half_even", "rates": [
      {"resource": "gpu/H100-80GB", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s"},
      {"resource": "gpu/H100-80GB", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s",
       "price_changes": [{"from": "2026-11-10T06:00:00Z", "unit_price": "0.87"}, {"from": "2026-11-20T06:00:00Z", "unit_price": "1.05"}]},
      {"resource": "gpu/A100-80GB", "mode": "on_demand", "unit_price": "1.29", "per": "1h", "increment": "1s"},
      {"resource": "mig/H100-80GB/3g.40gb", "mode": "on_demand", "per": "1h", "increment": "1s",
       "tiers": {"mode": "graduated", "steps": [{"up_to": "100", "unit_price": "1.20"}, {"up_to": null, "unit_price": "0.95"}]}}]})";
    const char* rates[] = {"gpu/H100-80GB,on_demand", "gpu/H100-80GB,spot", "gpu/A100-80GB,on_demand", "mig/H100-80GB/3g.40gb,on_demand"};
    const char* quantities[] = {"1", "2", "4", "8", "0.5", "0.25"};
    const std::string path = (std::filesystem::temp_directory_path() / "gpurent-bench-usage.csv").string();
    std::ofstream out(path, std::ios::binary);
    out << "id,account,resource,mode,quantity,start,end\n";
    std::mt19937_64 rng(1);
    const instant base = *parse_instant("2026-10-30T00:00:00Z");
    std::vector<std::string> kept;
    for (int i = 0; i < (1 << 20); ++i) {
      if (!kept.empty() && rng() % 100 == 0) {  // about 1% identical repeats
        out << kept[rng() % kept.size()];
        continue;
      }
      const instant start = base + seconds{static_cast<std::int64_t>(rng() % (33 * 86400))};
      char row[160];
      std::snprintf(row, sizeof row, "r%07d,acct-%04d,%s,%s,%s,%s\n", i, static_cast<int>(rng() % 1000), rates[rng() % 4], quantities[rng() % 6],
                    format_instant(start).c_str(), format_instant(start + seconds{1 + static_cast<std::int64_t>(rng() % (6 * 3600))}).c_str());
      out << row;
      if (kept.size() < 10000) kept.emplace_back(row);
    }
    return usage_file{path, tariff};
  }();
  return f;
}

// The physical limit of reading the file: every line found, every field's end found (the
// lengths summed so nothing is optimised away), in the same 4 MiB blocks.
void usage_file_split_only(benchmark::State& state) {
  const std::string& path = the_usage().usage;
  std::int64_t rows = 0;
  for (auto _ : state) {
    auto blocks = io::line_blocks::open(path);
    std::string block;
    std::size_t sum = 0;
    rows = 0;
    while (*blocks->take(block)) {
      const char* p = block.data();
      const char* const end = p + block.size();
      while (p < end) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
        if (nl == nullptr) nl = end;
        for (const char* f = p; f < nl;) {
          const char* c = static_cast<const char*>(std::memchr(f, ',', static_cast<std::size_t>(nl - f)));
          if (c == nullptr) c = nl;
          sum += static_cast<std::size_t>(c - f);
          f = c + 1;
        }
        ++rows;
        p = nl + 1;
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * rows);
}
BENCHMARK(usage_file_split_only)->Unit(benchmark::kMillisecond)->UseRealTime();

// gpurent meter end to end on the same file: streamed, parsed, checked, deduplicated, rated,
// the invoice; Arg = threads (--jobs).
void usage_file_metered(benchmark::State& state) {
  const usage_file& f = the_usage();
  static const tariff t = *io::parse_tariff_json(f.tariff_json);
  const meter blank = *meter::for_month(t, "2026-11");
  const std::vector<std::string> files{f.usage};
  std::int64_t rows = 0;
  for (auto _ : state) {
    auto shards =
        io::meter_usage_files(blank, files, {.shard = {}, .jobs = static_cast<unsigned>(state.range(0)), .block_bytes = io::default_block_bytes});
    if (!shards) state.SkipWithError(shards.error().describe().c_str());
    auto inv = meter::finish_shards(*shards);
    benchmark::DoNotOptimize(inv);
    rows = 0;
    for (const meter& m : *shards) rows += static_cast<std::int64_t>(m.distinct_records()) + m.duplicates_ignored();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * rows);
}
BENCHMARK(usage_file_metered)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
}  // namespace

BENCHMARK_MAIN();
