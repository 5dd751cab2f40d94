// SPDX-License-Identifier: MIT
// Fuzz target: the parallel usage reader (io::meter_usage_files on 2 and 3 threads, in
// blocks of a size the input picks) against one thread over the same file. The invoice, or
// the error, must be the same bytes: a record lost or mangled on the parallel path (issue
// 32: quoted ids kept as views into a buffer the next line overwrote) shows as a difference
// or, under AddressSanitizer, as a read of freed memory.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/metering.hpp>

#include "fuzz.hpp"

namespace {

using namespace gpurent;

const meter& blank() {
  static const tariff t = *io::parse_tariff_json(R"({"currency": "USD", "timezone": "UTC", "rates": [
    {"resource": "gpu/a", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s"},
    {"resource": "g,\"b\"", "mode": "spot", "unit_price": "1.10", "per": "1h"}]})");
  static const meter m = *meter::for_month(t, "2026-11");
  return m;
}

// The invoice of `path` on `jobs` threads in blocks of `block` bytes, or the error.
std::string run(const std::string& path, unsigned jobs, std::size_t block) {
  auto shards = io::meter_usage_files(blank(), std::span<const std::string>(&path, 1), {.shard = {}, .jobs = jobs, .block_bytes = block});
  if (!shards) return "error: " + shards.error().describe();
  auto inv = meter::finish_shards(*shards);
  if (!inv) return "error: " + inv.error().describe();
  return io::write_invoice_json(*inv, {true});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t block = 16 + data[0] * 4;  // blocks of 16 to 1036 bytes: many rows per block, and rows across blocks
  const std::string_view text = gpurent_fuzz::as_text(data + 1, size - 1);
  static const std::string path = "/tmp/gpurent-fuzz-usage-parallel-" + std::to_string(::getpid()) + ".csv";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  FUZZ_CHECK(f != nullptr, "cannot write " + path);
  FUZZ_CHECK(std::fwrite(text.data(), 1, text.size(), f) == text.size());
  std::fclose(f);
  const std::string one = run(path, 1, block);
  FUZZ_CHECK(run(path, 2, block) == one, "2 threads differ from 1: " + one);
  FUZZ_CHECK(run(path, 3, 1 << 20) == one, "3 threads in one block differ from 1: " + one);
  return 0;
}
