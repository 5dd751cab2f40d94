// SPDX-License-Identifier: MIT
// Money multiply-add: sum of price x quantity x seconds over a million records, three ways
// in one binary: gpurent's checked decimals, the plain __int128 loop (the physical limit:
// same arithmetic, no checks), and Boost's cpp_dec_float_50 (a decimal float, the usual
// "exact enough" alternative). Then parsing a million decimal texts: decimal<9>::parse
// (checked, with its error messages) against a plain unchecked digit loop. Ratios come from
// one run:
//   build/bench/gpurent_bench_money --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <boost/multiprecision/cpp_dec_float.hpp>

#include <gpurent/core/decimal.hpp>

namespace {
__extension__ using i128 = __int128;  // the plain, unchecked baseline
constexpr std::size_t n = 1'000'000;

struct data {
  std::vector<std::int64_t> price_nano, qty_milli, secs;  // 2.49 -> 2490000000, 0.5 -> 500
  data() : price_nano(n), qty_milli(n), secs(n) {
    std::mt19937_64 rng(42);
    for (std::size_t i = 0; i < n; ++i) {
      price_nano[i] = static_cast<std::int64_t>(rng() % 10'000'000'000ULL);  // up to 10.00 per unit
      qty_milli[i] = static_cast<std::int64_t>(rng() % 8000 + 1);            // up to 8 units
      secs[i] = static_cast<std::int64_t>(rng() % 86400 + 1);                // up to a day
    }
  }
};
const data& input() {
  static const data d;
  return d;
}

void plain_int128(benchmark::State& state) {
  const auto& d = input();
  for (auto _ : state) {
    i128 acc = 0;
    for (std::size_t i = 0; i < n; ++i) acc += static_cast<i128>(d.price_nano[i]) * d.qty_milli[i] * d.secs[i];
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(plain_int128)->Unit(benchmark::kMillisecond);

void gpurent_decimal(benchmark::State& state) {
  const auto& d = input();
  std::vector<gpurent::decimal<9>> prices;
  std::vector<gpurent::decimal<3>> qtys;
  prices.reserve(n);
  qtys.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    prices.push_back(gpurent::decimal<9>::from_raw(d.price_nano[i]));
    qtys.push_back(gpurent::decimal<3>::from_raw(d.qty_milli[i]));
  }
  for (auto _ : state) {
    gpurent::decimal<12> acc;
    for (std::size_t i = 0; i < n; ++i) acc += (prices[i] * qtys[i]) * d.secs[i];
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(gpurent_decimal)->Unit(benchmark::kMillisecond);

void boost_cpp_dec_float_50(benchmark::State& state) {
  using f50 = boost::multiprecision::cpp_dec_float_50;
  const auto& d = input();
  std::vector<f50> prices, qtys;
  prices.reserve(n);
  qtys.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    prices.push_back(f50(d.price_nano[i]) / 1'000'000'000);
    qtys.push_back(f50(d.qty_milli[i]) / 1000);
  }
  for (auto _ : state) {
    f50 acc = 0;
    for (std::size_t i = 0; i < n; ++i) acc += prices[i] * qtys[i] * d.secs[i];
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(boost_cpp_dec_float_50)->Unit(benchmark::kMillisecond);
// Prices as a usage CSV or tariff carries them (all below 10): "7.123456789", "2.49", "0.5", "4".
const std::vector<std::string>& price_texts() {
  static const std::vector<std::string> t = [] {
    const auto& d = input();
    std::vector<std::string> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t v = d.price_nano[i];
      std::string s = std::to_string(v / 1'000'000'000);
      std::string frac = std::to_string(v % 1'000'000'000);
      frac.insert(0, 9 - frac.size(), '0');
      frac.resize(i % 4 == 0 ? 9 : i % 4 == 1 ? 2 : i % 4 == 2 ? 1 : 0);  // full, cents, one digit, whole
      if (!frac.empty()) {
        s += '.';
        s += frac;
      }
      out.push_back(std::move(s));
    }
    return out;
  }();
  return t;
}

// Baseline: the same digits to the same raw value, no checks of any kind.
std::int64_t parse_plain_nano(const std::string& s) {
  std::int64_t v = 0;
  int frac = -1;
  for (const char c : s) {
    if (c == '.') {
      frac = 0;
      continue;
    }
    v = v * 10 + (c - '0');
    if (frac >= 0) ++frac;
  }
  for (int k = frac < 0 ? 0 : frac; k < 9; ++k) v *= 10;
  return v;
}

void parse_plain(benchmark::State& state) {
  const auto& t = price_texts();
  for (auto _ : state) {
    std::int64_t acc = 0;
    for (const auto& s : t) acc += parse_plain_nano(s);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(parse_plain)->Unit(benchmark::kMillisecond);

void parse_gpurent_decimal(benchmark::State& state) {
  const auto& t = price_texts();
  std::int64_t plain = 0;
  gpurent::decimal<9> checked;
  for (const auto& s : t) {
    const auto r = gpurent::decimal<9>::parse(s);
    if (!r) {
      state.SkipWithError(("decimal<9>::parse rejected " + s + ": " + r.error().message).c_str());
      return;
    }
    plain += parse_plain_nano(s);
    checked += *r;
  }
  if (checked.raw() != plain) state.SkipWithError("decimal<9>::parse and the plain loop disagree");
  for (auto _ : state) {
    gpurent::decimal<9> acc;
    for (const auto& s : t) acc += *gpurent::decimal<9>::parse(s);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(parse_gpurent_decimal)->Unit(benchmark::kMillisecond);
}  // namespace

BENCHMARK_MAIN();
