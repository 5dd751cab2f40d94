// SPDX-License-Identifier: MIT
// A billing pipeline: usage records in (in any order, with repeats), rated in shards as a
// distributed biller would, shards merged, one invoice out. The merged invoice is identical,
// byte for byte, to rating everything in one place.
#include <cstdio>
#include <string>
#include <vector>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/metering.hpp>

using namespace gpurent;
using gpurent::io::parse_tariff_json;
using gpurent::io::write_invoice_json;

int main() {
  // Per-minute H100s with a minute's minimum; spot per second with a price drop on the 10th.
  const auto tariff = parse_tariff_json(R"({
    "currency": "USD", "timezone": "America/New_York", "rounding": "half_even",
    "rates": [
      { "resource": "gpu/H100-80GB", "mode": "on_demand", "unit_price": "2.49", "per": "1h",
        "increment": "60s", "minimum": "60s" },
      { "resource": "gpu/H100-80GB", "mode": "spot", "unit_price": "1.10", "per": "1h",
        "price_changes": [ { "from": "2026-11-10T06:00:00Z", "unit_price": "0.87" } ] } ],
    "credits": [ { "account": "acme", "amount": "25.00" } ] })");
  if (!tariff) return std::fprintf(stderr, "%s\n", tariff.error().describe().c_str()), 1;

  // 600 records over November; every 7th arrives twice (at-least-once delivery).
  std::vector<usage_record> records;
  for (int i = 0; i < 600; ++i) {
    usage_record r;
    r.id = "rec-" + std::to_string(i);
    r.account = i % 3 == 0 ? "acme" : "globex";
    r.resource = "gpu/H100-80GB";
    r.mode = i % 2 == 0 ? "on_demand" : "spot";
    r.quantity = nano_quantity((1 + i % 4) * detail::nano_one);
    r.start = *parse_instant("2026-11-01T00:00:00Z") + std::chrono::minutes(67 * i);
    r.end = r.start + std::chrono::seconds(95 + 13 * i);
    records.push_back(r);
    if (i % 7 == 0) records.push_back(r);
  }

  auto rate_all = [&](std::size_t shards) -> expected<invoice> {
    std::vector<meter> parts;
    for (std::size_t s = 0; s < shards; ++s) {
      auto m = meter::for_month(*tariff, "2026-11");
      if (!m) return unexpected(m.error());
      parts.push_back(std::move(*m));
    }
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (auto ok = parts[(i * 2654435761U) % shards].add(records[i], i + 1); !ok) return unexpected(ok.error());
    }
    for (std::size_t s = 1; s < shards; ++s) {
      if (auto ok = parts[0].merge(parts[s]); !ok) return unexpected(ok.error());
    }
    return parts[0].finish();
  };

  const auto one = rate_all(1), eight = rate_all(8);
  if (!one || !eight) return 1;
  const std::string a = write_invoice_json(*one), b = write_invoice_json(*eight);
  std::fputs(a.c_str(), stdout);
  std::printf("one shard and eight shards agree: %s\n", a == b ? "yes" : "NO");
  return a == b && one->duplicates_ignored > 0 ? 0 : 1;
}
