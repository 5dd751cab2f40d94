// SPDX-License-Identifier: MIT
// A downstream program that only sees the packaged library (installed CMake package,
// FetchContent, add_subdirectory, Conan's test_package): it places one job with the matcher
// and rates one usage record with the meter, so it needs gpurent::gpurent and gpurent::io;
// linked with gpurent::probe too, it asks the CUDA runtime and NVML for GPUs (none is fine).
#include <chrono>
#include <string>

#include <gpurent/gpurent.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#ifdef GPURENT_HAS_PROBE
#include <gpurent/probe/probe.hpp>
#endif

using namespace gpurent;
using namespace std::chrono_literals;

int main() {
  // One HGX server with 8 H100s on one NVSwitch (fields by name: new ones keep defaults).
  inventory inv;
  gpu_model_info h100;
  h100.name = "H100-SXM5-80GB";
  node_spec hgx;
  hgx.name = "hgx-0";
  hgx.cpu_milli = milli_cpu(192'000);
  hgx.memory_mib = mebibytes(2'048 * 1024);
  hgx.gpu_count = 8;
  hgx.model = inv.add_model(h100);
  inv.add_node(hgx);
  matcher<policy_best_fit> m(inv);
  placement_request job;  // 4 whole GPUs in one NVLink domain
  job.num_gpu = 4;
  job.gpu_milli = whole_gpu;
  job.cpu_milli = milli_cpu(32'000);
  job.locality = gpu_locality::same_nvlink_domain;
  const auto where = m.place(job);
  if (!where) return fmt::print("no fit: {}\n", m.explain(job).summary()), 1;

  // One GPU of it for 1.5 h + 3 s, rated per second at 2.49 USD per GPU-hour: 3.7371 -> 3.74.
  const auto tariff = io::parse_tariff_json(R"({"currency": "USD", "timezone": "America/New_York",
    "rounding": "half_even", "rates": [{"resource": "gpu/H100-80GB", "mode": "on_demand",
    "unit_price": "2.49", "per": "1h"}]})");
  if (!tariff) return fmt::print("{}\n", tariff.error().describe()), 2;
  auto biller = meter::for_month(*tariff, "2026-11");
  if (!biller) return 3;
  usage_record r;
  r.id = "job-1";
  r.account = "acme";
  r.resource = "gpu/H100-80GB";
  r.mode = "on_demand";
  r.start = *parse_instant("2026-11-02T10:00:00Z");
  r.end = r.start + 5'403s;
  if (!biller->add(r)) return 4;
  const auto bill = biller->finish();
  if (!bill || bill->accounts.size() != 1) return 5;
  const std::string total = bill->accounts[0].total.to_string();
  fmt::print("{} GPUs on {}; {} for job-1: {} USD\n", where->count, inv.spec(where->node).name, r.account, total);
#ifdef GPURENT_HAS_PROBE
  const auto here = probe::probe_machine();
  fmt::print("probe: {}\n", here ? fmt::format("{} GPUs", here->gpus.size()) : here.error().message);
#endif
  return where->count == 4 && total == "3.74" ? 0 : 6;
}
