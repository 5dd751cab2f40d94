// SPDX-License-Identifier: MIT
// gpurent_meter_json: the invoice of usage files under a tariff for one month, the bytes
// `gpurent meter --format json` prints (tools/cmd_meter.cpp runs the same library calls).
#include <cstddef>
#include <string>
#include <vector>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/meter.hpp>

#include "api.hpp"

namespace {
using namespace gpurent;

// The invoice JSON; every thread of this machine meters (the output is the same for any number).
expected<std::string> invoice_json(const std::string& tariff_path, const std::vector<std::string>& usage, const std::string& period) {
  GPURENT_TRY(t, io::load_tariff_json(tariff_path));
  auto m = meter::for_month(*t, period);
  if (!m) return unexpected(m.error().in_field("period"));
  const io::meter_run_options run{.shard = {}, .jobs = io::machine_cores(), .block_bytes = io::default_block_bytes};
  GPURENT_TRY(shards, io::meter_usage_files(*m, usage, run));
  GPURENT_TRY(inv, meter::finish_shards(*shards));
  return io::write_invoice_json(*inv, io::invoice_format_options{false});
}
}  // namespace

extern "C" GPURENT_C_API int gpurent_meter_json(const char* tariff_path, const char* const* usage_paths, size_t n, const char* period,
                                                char** out_json, char** out_error) {
  using namespace gpurent::c_api;
  return guarded(out_error, [&]() -> int {
    if (out_json == nullptr) return missing("out_json", out_error);
    *out_json = nullptr;
    if (tariff_path == nullptr) return missing("tariff_path", out_error);
    if (period == nullptr) return missing("period", out_error);
    if (usage_paths == nullptr && n > 0) return missing("usage_paths", out_error);
    std::vector<std::string> usage;
    for (std::size_t i = 0; i < n; ++i) {
      if (usage_paths[i] == nullptr) return missing("usage_paths[" + std::to_string(i) + "]", out_error);
      usage.emplace_back(usage_paths[i]);
    }
    if (usage.empty()) return fail(GPURENT_EINVAL, "usage_paths: no usage file (n is 0)", out_error);
    auto json = invoice_json(tariff_path, usage, period);
    if (!json) return fail(json.error(), out_error);
    return give(*json, out_json, out_error);
  });
}
