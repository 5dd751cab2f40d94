// SPDX-License-Identifier: MIT
// Fuzz target: the partial result reader (io::read_partial). Any bytes, as they are and
// with their checksum recomputed (so the fuzzer gets past it to the structure), are either
// rejected with a message naming the file, or read into a meter whose partial, written
// again, reads back to the same invoice and is written again the same (a canonical form).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_partial.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/metering.hpp>

#include "fuzz.hpp"

namespace {

using namespace gpurent;

// The tariff of the seeds in tests/fuzz/corpus/meter_partial/ (`gpurent meter --partial-out`
// of a few records under it: docs/tariff-metering.md, "Partial results").
const meter& blank() {
  static const tariff t = *io::parse_tariff_json(R"({"currency": "USD", "timezone": "America/New_York", "rates": [
    {"resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s"},
    {"resource": "gpu/H100", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s",
     "price_changes": [{"from": "2026-11-10T06:00:00Z", "unit_price": "0.87"}]},
    {"resource": "mig/3g", "mode": "on_demand", "per": "1h", "increment": "1s",
     "tiers": {"mode": "graduated", "steps": [{"up_to": "1", "unit_price": "1.20"}, {"up_to": null, "unit_price": "0.95"}]}}],
    "credits": [{"account": "acme", "amount": "1.00"}]})");
  static const meter m = *meter::for_month(t, "2026-11");
  return m;
}

void check(std::string_view bytes) {
  const auto m = io::read_partial(blank(), bytes, "p.bin");
  if (!m) {
    FUZZ_CHECK(m.error().where == "p.bin", "an error does not name the file: " + m.error().describe());
    FUZZ_CHECK(m.error().message.starts_with("invalid partial result: "), m.error().describe());
    return;
  }
  const auto inv = m->finish();
  const auto again = io::write_partial(std::span<const meter>(&*m, 1));
  FUZZ_CHECK(again.has_value(), again ? std::string{} : again.error().describe());
  const auto back = io::read_partial(blank(), *again, "again.bin");
  FUZZ_CHECK(back.has_value(), back ? std::string{} : back.error().describe());
  const auto inv_back = back->finish();
  FUZZ_CHECK(inv.has_value() == inv_back.has_value(), "a partial written again finishes differently");
  if (inv) FUZZ_CHECK(io::write_invoice_json(*inv, {true}) == io::write_invoice_json(*inv_back, {true}), "a partial written again bills differently");
  const auto third = io::write_partial(std::span<const meter>(&*back, 1));
  FUZZ_CHECK(third.has_value() && *third == *again, "writing a partial is not canonical");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = gpurent_fuzz::as_text(data, size);
  check(bytes);
  if (size >= 8) {
    std::string sealed(bytes.substr(0, size - 8));
    const std::uint64_t sum = fnv1a64(sealed);
    for (int k = 0; k < 8; ++k) sealed.push_back(static_cast<char>(static_cast<unsigned char>(sum >> (8 * k))));
    check(sealed);
  }
  return 0;
}
