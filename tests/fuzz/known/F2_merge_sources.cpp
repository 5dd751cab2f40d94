// SPDX-License-Identifier: MIT
// Known finding F2 (found by the simulation; see docs/reliability.md). Exits non-zero while
// the bug is there: meter::merge looks every record's source file up linearly among the
// meter's sources, so merging meters fed from many files is quadratic. Compares a merge of
// N records from N files with one of N records from one file name.

#include <chrono>
#include <cstdio>
#include <string>

#include <gpurent/io/tariff_json.hpp>
#include <gpurent/io/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>

namespace {

double merge_seconds(const gpurent::tariff& t, int n, bool one_file) {
  using namespace gpurent;
  auto a = *meter::for_month(t, "2026-11");
  auto b = a;
  for (int i = 0; i < n; ++i) {
    const std::string csv = "id,account,resource,mode,quantity,start,end\nr" + std::to_string(i) +
                            ",acme,gpu/x,m,1,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z\n";
    if (!io::meter_usage_csv(i % 2 ? a : b, csv, one_file ? std::string("usage.csv") : "usage-" + std::to_string(i) + ".csv")) return -1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (!a.merge(b)) return -1;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main() {
  const auto t = gpurent::io::parse_tariff_json(
      R"({"currency": "USD", "timezone": "UTC", "rates": [{"resource": "gpu/x", "mode": "m", "unit_price": "1", "per": "1h"}]})");
  if (!t) return 2;
  const int n = 8000;
  const double many = merge_seconds(*t, n, false);
  const double one = merge_seconds(*t, n, true);
  std::printf("merge of %d records: %.3f s from %d files, %.3f s from one file\n", n, many, n, one);
  return many > 10 * one + 0.05 ? 1 : 0;
}
