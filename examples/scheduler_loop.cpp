// SPDX-License-Identifier: MIT
// Embedding the matcher in a scheduler's event loop: jobs arrive and leave, each arrival is
// placed by a policy (here best-fit, a compile-time choice), and when nothing fits the
// matcher says why, per constraint. Run: build/examples/example_scheduler_loop
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <gpurent/matching/format.hpp>
#include <gpurent/matching/node/matcher.hpp>

using namespace gpurent;

int main() {
  inventory inv;
  const model_index h100 = inv.add_model({"H100-SXM5-80GB", gib(80), gflops(989'400)});
  const model_index l4 = inv.add_model({"L4", gib(24), gflops(121'000)});
  // One HGX H100 server (one NVSwitch domain of 8 GPUs) and four 2x L4 boxes.
  for (int i = 0; i < 1; ++i) {
    node_spec s{"hgx-" + std::to_string(i), milli_cpu(192'000), mebibytes(2'048 * 1024), 8, h100, {}, {}, 0, no_tenant, false};
    inv.add_node(s);
  }
  for (int i = 0; i < 4; ++i) {
    node_spec s{"l4-" + std::to_string(i), milli_cpu(32'000), mebibytes(128 * 1024), 2, l4, {}, {}, 0, no_tenant, false};
    s.nvlink_domain = {0, 1};  // no NVLink between the two L4s
    inv.add_node(s);
  }
  matcher<policy_best_fit> m(inv);

  struct event {
    bool arrive;
    std::string job;
    placement_request req;
  };
  auto gpus = [](int n, int milli, std::int64_t cpu, gpu_locality loc = gpu_locality::same_node) {
    placement_request r;
    r.num_gpu = n;
    r.gpu_milli = milli_gpu(milli);
    r.cpu_milli = milli_cpu(cpu);
    r.memory_mib = mebibytes(16 * 1024);
    r.locality = loc;
    return r;
  };
  const std::vector<event> events = {
      {true, "train-a", gpus(8, 1000, 96'000, gpu_locality::same_nvlink_domain)},
      {true, "infer-1", gpus(1, 300, 4'000)},
      {true, "infer-2", gpus(1, 500, 4'000)},
      {true, "train-b", gpus(8, 1000, 96'000, gpu_locality::same_nvlink_domain)},
      {true, "pair-on-l4", gpus(2, 1000, 8'000, gpu_locality::same_nvlink_domain)},
      {false, "train-a", {}},
      {true, "train-b", gpus(8, 1000, 96'000, gpu_locality::same_nvlink_domain)},
  };
  std::vector<std::pair<std::string, placement>> running;
  int failures = 0;
  for (const event& e : events) {
    if (!e.arrive) {
      for (auto it = running.begin(); it != running.end(); ++it) {
        if (it->first == e.job) {
          m.release(it->second);
          std::printf("%-10s left %s\n", e.job.c_str(), inv.spec(it->second.node).name.c_str());
          running.erase(it);
          break;
        }
      }
      continue;
    }
    if (auto p = m.place(e.req)) {
      std::printf("%-10s -> %-6s GPUs:", e.job.c_str(), inv.spec(p->node).name.c_str());
      for (std::size_t i = 0; i < p->count; ++i) std::printf(" %u:%d", static_cast<unsigned>(p->gpus[i].gpu), p->gpus[i].milli);
      std::printf("\n");
      running.emplace_back(e.job, *p);
    } else {
      ++failures;
      std::printf("%-10s does not fit: %s\n", e.job.c_str(), m.explain(e.req).summary().c_str());
    }
  }
  std::printf("allocated %lld of %lld milli-GPU\n", static_cast<long long>(inv.gpu_allocated_milli()),
              static_cast<long long>(inv.gpu_capacity_milli()));
  // The story this example tells: the second 8-GPU job waits until the first leaves, and
  // two L4s without NVLink never form a pair.
  return failures == 2 ? 0 : 1;
}
