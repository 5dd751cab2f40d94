// SPDX-License-Identifier: MIT
// Fuzz target: the usage CSV reader (io::parse_usage_csv, io::meter_usage_csv). Every
// accepted record is valid (id, account, quantity > 0, end > start); records written back
// (every field quoted) read the same; and metering is shard-independent: the rows split
// over two meters and merged give the same result as one meter (both fail on a conflicting
// repeated id, or both give the same invoice).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>

#include "fuzz.hpp"

namespace {

using namespace gpurent;

std::string csv_quote(std::string_view s) {
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

const tariff& the_tariff() {
  static const tariff t = *io::parse_tariff_json(R"({"currency": "USD", "timezone": "America/New_York", "rates": [
    {"resource": "gpu/H100-80GB", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s"},
    {"resource": "gpu/H100-80GB", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s",
     "price_changes": [{"from": "2026-11-10T06:00:00Z", "unit_price": "0.87"}]},
    {"resource": "x", "mode": "y", "per": "1h", "increment": "1s",
     "tiers": {"mode": "graduated", "steps": [{"up_to": "1", "unit_price": "1.20"}, {"up_to": null, "unit_price": "0.95"}]}}],
    "credits": [{"account": "acme", "amount": "1.00"}]})");
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gpurent_fuzz::as_text(data, size);
  const auto recs = io::parse_usage_csv(text, "u.csv");
  if (!recs) {
    FUZZ_CHECK(recs.error().where.starts_with("u.csv"), "an error does not name the file: " + recs.error().describe());
    return 0;
  }
  std::string again = "\"id\",\"account\",\"resource\",\"mode\",\"quantity\",\"start\",\"end\"";
  if (!recs->empty()) {
    for (const auto& [k, v] : recs->front().record.labels) again += "," + csv_quote(k);
  }
  again += "\r\n";
  for (const auto& lr : *recs) {
    const usage_record& r = lr.record;
    FUZZ_CHECK(validate(r).has_value(), "the reader accepted an invalid record: " + validate(r).error().describe());
    FUZZ_CHECK(lr.line >= 2);
    again += csv_quote(r.id) + "," + csv_quote(r.account) + "," + csv_quote(r.resource) + "," + csv_quote(r.mode) + "," + format_nano(r.quantity) +
             "," + format_instant(r.start) + "," + format_instant(r.end);
    for (const auto& [k, v] : r.labels) again += "," + csv_quote(v);
    again += "\r\n";
  }
  const auto back = io::parse_usage_csv(again, "again.csv");
  FUZZ_CHECK(back.has_value(), back ? std::string{} : back.error().describe());
  FUZZ_CHECK(back->size() == recs->size(), "records written back read as another count");
  for (std::size_t i = 0; i < recs->size(); ++i) FUZZ_CHECK((*back)[i].record == (*recs)[i].record, "a record written back reads differently");

  // Shard independence. Rows go to shard (row index mod 2), as plain records.
  auto whole = meter::for_month(the_tariff(), "2026-11");
  FUZZ_CHECK(whole.has_value());
  meter a = *whole, b = *whole;
  const auto fed = io::meter_usage_csv(*whole, text, "u.csv");
  bool shards_ok = true;
  for (std::size_t i = 0; i < recs->size() && shards_ok; ++i) shards_ok = (i % 2 == 0 ? a : b).add((*recs)[i].record).has_value();
  if (shards_ok) shards_ok = a.merge(b).has_value();
  FUZZ_CHECK(fed.has_value() == shards_ok, "one meter and two merged shards disagree on accepting the records");
  if (!fed) return 0;
  const auto inv = whole->finish();
  const auto inv_shards = a.finish();
  FUZZ_CHECK(inv.has_value() && inv_shards.has_value());
  // Error locations differ (file names), amounts and lines must not.
  FUZZ_CHECK(inv->accounts == inv_shards->accounts, "the merged shard invoice differs from the unsharded one");
  FUZZ_CHECK(inv->records_out_of_period == inv_shards->records_out_of_period && inv->duplicates_ignored == inv_shards->duplicates_ignored,
             "out-of-period or duplicate counts differ between shards and whole");
  return 0;
}
