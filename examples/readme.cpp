// SPDX-License-Identifier: MIT
// The README's example, built and run by the test suite so it never rots.
#include <gpurent/gpurent.hpp>
using namespace gpurent;
using namespace std::chrono_literals;

int main() {
  inventory inv;  // a tiny cluster: one HGX server with 8 H100s on one NVSwitch
  const auto h100 = inv.add_model({"H100-SXM5-80GB", gib(80), gflops(989'400)});
  inv.add_node({"hgx-0", milli_cpu(192'000), mebibytes(2'048 * 1024), 8, h100, {}, {}, 0, no_tenant, false});
  matcher<policy_best_fit> m(inv);  // the policy is a compile-time choice

  placement_request job;  // 4 whole GPUs in one NVLink domain, 32 cores
  job.num_gpu = 4;
  job.gpu_milli = whole_gpu;
  job.cpu_milli = milli_cpu(32'000);
  job.locality = gpu_locality::same_nvlink_domain;
  const auto where = m.place(job);
  if (!where) return fmt::print("no fit: {}\n", m.explain(job).summary()), 1;

  const auto rate = *price<currencies::USD>::parse("2.49", 1h);    // per GPU-hour, per second
  const auto cost = (rate * 5'403s * 4).round<round_half_even>();  // 1.5 h + 3 s on 4 GPUs
  fmt::print("{} GPUs on {}: {}\n", where->count, inv.spec(where->node).name, cost);
  return cost.to_string() == "14.95" ? 0 : 1;
}
