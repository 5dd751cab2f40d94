// SPDX-License-Identifier: MIT
#pragma once
// The built-in example that `gpurent plan` plans when given no files: a month of work for one
// renter (a multi-node pretraining run under a deadline, a checkpointable fine-tune that goes
// to spot, a small latency-sensitive chat service on a MIG slice, a burst of 48 twelve-minute
// experiments where per-second billing matters, a steady API where a reservation pays, two
// services that share one reserved GPU as MIG slices, and a batch job on a GPU fraction) on a
// catalog of nine offers from four made-up providers with plausible 2026 list prices.
// The same documents are examples/plan/workload.json and examples/plan/offers.json (a test
// checks they stay equal); read them with io/plan_json.hpp.

#include <string_view>

namespace gpurent {

inline constexpr std::string_view example_workload_json = R"json({
  "period": "2026-11",
  "timezone": "UTC",
  "account": "acme",
  "jobs": [
    { "name": "llm-pretrain", "kind": "training", "reference_gpu": "H100-SXM5-80GB",
      "gpu_hours": "6144", "memory_gib": 2000, "max_gpus": 64, "deadline": "4d" },
    { "name": "finetune-ckpt", "kind": "training", "reference_gpu": "H100-SXM5-80GB",
      "gpu_hours": "384", "memory_gib": 300, "max_gpus": 8, "checkpoint": "5min", "restart": "10min",
      "deadline": "5d", "start": "1d" },
    { "name": "chat-small", "kind": "service", "reference_gpu": "H100-SXM5-80GB",
      "duration": "720h", "gpu_share": "0.05", "memory_gib": 8, "latency_sensitive": true },
    { "name": "sweep", "kind": "experiments", "reference_gpu": "H100-SXM5-80GB",
      "runs": 48, "run_duration": "12min", "memory_gib": 40, "deadline": "2h", "start": "2d" },
    { "name": "api-steady", "kind": "service", "reference_gpu": "A100-SXM4-80GB",
      "duration": "720h", "gpu_share": "0.8", "memory_gib": 60, "latency_sensitive": true },
    { "name": "tagger", "kind": "service", "reference_gpu": "H100-SXM5-80GB",
      "duration": "720h", "gpu_share": "0.1", "memory_gib": 16, "latency_sensitive": true },
    { "name": "moderation", "kind": "service", "reference_gpu": "H100-SXM5-80GB",
      "duration": "720h", "gpu_share": "0.1", "memory_gib": 16, "latency_sensitive": true },
    { "name": "batch-embed", "kind": "service", "reference_gpu": "L4",
      "duration": "10d", "gpu_share": "0.2", "memory_gib": 4, "start": "10d" }
  ]
}
)json";

inline constexpr std::string_view example_offers_json = R"json({
  "currency": "USD",
  "rounding": "half_even",
  "offers": [
    { "id": "hyperscale/us-east/p5.48xlarge", "provider": "hyperscale", "region": "us-east", "instance": "p5.48xlarge",
      "gpu": "H100-SXM5-80GB", "gpu_count": 8, "vcpus": 192, "memory_gib": 2048, "disk_gib": 30000,
      "unit": "server", "mode": "on_demand", "multi_node": true, "max_units": 16,
      "price": "31.46", "per": "1h", "increment": "1s", "minimum": "60s" },
    { "id": "hyperscale/us-east/p5.48xlarge", "provider": "hyperscale", "region": "us-east", "instance": "p5.48xlarge",
      "gpu": "H100-SXM5-80GB", "gpu_count": 8, "vcpus": 192, "memory_gib": 2048, "disk_gib": 30000,
      "unit": "server", "mode": "spot", "multi_node": true, "max_units": 4,
      "price": "12.40", "per": "1h", "increment": "1s", "minimum": "60s",
      "spot": { "notice": "2min", "interruptions_per_hour": "0.05" },
      "price_changes": [ { "from": "2026-11-03T00:00:00Z", "price": "11.20" },
                         { "from": "2026-11-05T12:00:00Z", "price": "13.90" } ] },
    { "id": "gpucloud/us-central/8xH100", "provider": "gpucloud", "region": "us-central", "instance": "gpu_8x_h100_sxm5",
      "gpu": "H100-SXM5-80GB", "gpu_count": 8, "vcpus": 208, "memory_gib": 1800, "disk_gib": 24000,
      "unit": "server", "mode": "on_demand", "multi_node": true, "max_units": 8,
      "price": "23.92", "per": "1h", "increment": "1h", "minimum": "1h" },
    { "id": "gpucloud/us-central/1xH100-PCIe", "provider": "gpucloud", "region": "us-central", "instance": "gpu_1x_h100_pcie",
      "gpu": "H100-PCIE-80GB", "gpu_count": 1, "vcpus": 26, "memory_gib": 200, "disk_gib": 1000,
      "unit": "gpu", "mode": "on_demand", "max_units": 64,
      "price": "2.49", "per": "1h", "increment": "1s", "minimum": "60s" },
    { "id": "budget/eu-west/1xA100-80GB", "provider": "budget", "region": "eu-west", "instance": "a100.1x",
      "gpu": "A100-SXM4-80GB", "gpu_count": 1, "vcpus": 16, "memory_gib": 120, "disk_gib": 500,
      "unit": "gpu", "mode": "on_demand", "max_units": 64,
      "price": "1.29", "per": "1h", "increment": "1h", "minimum": "1h" },
    { "id": "budget/eu-west/1xA100-80GB", "provider": "budget", "region": "eu-west", "instance": "a100.1x",
      "gpu": "A100-SXM4-80GB", "gpu_count": 1, "vcpus": 16, "memory_gib": 120, "disk_gib": 500,
      "unit": "gpu", "mode": "reserved", "max_units": 16,
      "price": "0.79", "per": "1h", "increment": "1h", "minimum": "720h" },
    { "id": "gpucloud/us-central/mig-1g.10gb", "provider": "gpucloud", "region": "us-central", "instance": "h100-mig-1g.10gb",
      "gpu": "H100-SXM5-80GB", "gpu_count": 1, "vcpus": 4, "memory_gib": 30, "disk_gib": 100,
      "unit": "mig_slice", "mig_profile": "1g.10gb", "mode": "on_demand", "max_units": 56,
      "price": "0.42", "per": "1h", "increment": "1s", "minimum": "60s" },
    { "id": "edge/us-west/L4-share", "provider": "edge", "region": "us-west", "instance": "l4-timeslice",
      "gpu": "L4", "gpu_count": 1, "vcpus": 4, "memory_gib": 16, "disk_gib": 100,
      "unit": "fraction", "fraction_step": "0.25", "mode": "on_demand", "max_units": 64,
      "price": "0.96", "per": "1h", "increment": "1min", "minimum": "1min" },
    { "id": "edge/us-west/1xL4", "provider": "edge", "region": "us-west", "instance": "l4.1x",
      "gpu": "L4", "gpu_count": 1, "vcpus": 8, "memory_gib": 32, "disk_gib": 200,
      "unit": "gpu", "mode": "on_demand", "max_units": 64,
      "price": "0.80", "per": "1h", "increment": "1s", "minimum": "60s" }
  ]
}
)json";

}  // namespace gpurent
