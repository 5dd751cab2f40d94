// SPDX-License-Identifier: MIT
// Random clusters and pod workloads for `fleet run` tests (the naive-loop comparison, the
// allocation count): nodes of 1-8 GPUs of two models; pods that are CPU-only, a share of
// one GPU or 1-4 whole GPUs, hp (priority 50 or 100) or spot, arriving 0-40 s apart, so
// that a dozen nodes are contended and spot pods get preempted.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>

namespace gpurent::test {

inline fleet_cluster random_cluster(std::mt19937_64& rng, int nodes) {
  std::vector<fleet_node> ns;
  for (int i = 0; i < nodes; ++i) {
    const std::int32_t gpus = std::uniform_int_distribution<std::int32_t>(1, 8)(rng);
    fleet_node n;
    n.name = "n" + std::to_string(i);
    n.cpu_milli = milli_cpu(32000 + 8000 * gpus);
    n.memory_mib = mebibytes(65536 * gpus);
    n.gpus = gpus;
    n.model = i % 3 == 0 ? "V100" : "A100";
    ns.push_back(n);
  }
  auto c = fleet_cluster::make(ns);
  REQUIRE(c.has_value());
  return std::move(*c);
}

inline std::vector<fleet_job> random_pods(std::mt19937_64& rng, int count) {
  std::vector<fleet_job> jobs;
  std::int64_t t = 0;
  for (int i = 0; i < count; ++i) {
    fleet_job j;
    j.name = "j" + std::to_string(i);
    placement_request& r = j.gang.member;
    const int shape = std::uniform_int_distribution<int>(0, 9)(rng);
    r.num_gpu = shape == 0 ? 0 : shape < 5 ? 1 : std::uniform_int_distribution<std::int32_t>(1, 4)(rng);
    r.gpu_milli = milli_gpu{r.num_gpu == 1 && shape < 5 ? std::uniform_int_distribution<std::int32_t>(1, 9)(rng) * 100 : r.num_gpu > 0 ? 1000 : 0};
    r.cpu_milli = milli_cpu(std::uniform_int_distribution<std::int64_t>(1, 16)(rng) * 1000);
    r.memory_mib = mebibytes(std::uniform_int_distribution<std::int64_t>(1, 64)(rng) * 1024);
    j.preemptible = std::uniform_int_distribution<int>(0, 2)(rng) == 0;
    j.priority = j.preemptible ? 0 : std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? 50 : 100;
    t += std::uniform_int_distribution<std::int64_t>(0, 40)(rng);
    j.arrival = fleet_time::at_second(t);
    j.duration = seconds(std::uniform_int_distribution<std::int64_t>(1, 4000)(rng));
    j.checkpoint_every = seconds(600);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

}  // namespace gpurent::test
