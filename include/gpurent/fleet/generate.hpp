// SPDX-License-Identifier: MIT
#pragma once
// A generated fleet and job mix, so that anyone can reproduce the gang benchmarks
// (`gpurent fleet generate`): `blocks` base blocks of `nodes_per_block` nodes (GB200 NVL72:
// 18 nodes of 4 GPUs in one NVLink domain), `blocks_per_spine` blocks per spine, a fraction
// `down` of the nodes down (chosen uniformly), and jobs after NVIDIA's segment guidance for
// NVL72 until their GPU demand reaches `demand` x the GPUs of the nodes that are up:
//
//   small (74% of jobs)   1-2 whole nodes (70%), or 1-2 GPUs of one node (30%); no rules
//   medium (22%)          4-16 whole nodes, required inside one block
//   large (4%)            32-128 whole nodes in segments of 16 (each inside one block;
//                         no more segments than blocks, so a fleet of fewer than 8 blocks
//                         gets smaller ones); half prefer one spine, a share `exclusive`
//                         (10%) exclusive (topo)
//
// (by GPU demand about 14% small, 35% medium, 51% large). With fewer than 16 nodes per block
// the segment and the medium size are the block's size. Members ask 32 CPU cores and
// 192 GiB per GPU. Durations (for fleet run): small 10 min-4 h, medium 1-24 h, large
// 4 h-3 days. Everything is drawn from std::mt19937_64(seed) with detail::uniform_below,
// so a seed gives the same files on every platform.
//
// Over time (`load_pct` > 0, for fleet run): the same mix is drawn until its work (GPUs x
// duration) reaches load_pct % of the GPUs up x `horizon` seconds, instead of `demand`.
// Each job is spot (preemptible, priority 0, a checkpoint every `checkpoint_every` seconds)
// with probability `spot`, else high-priority (priority 100, not preemptible). The arrivals
// are a Poisson process over [0, horizon) given the number of jobs: that many uniform
// instants, sorted, in job order (the file is in arrival order).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/matching/node/policy.hpp>

namespace gpurent {

struct generate_options {
  std::int32_t blocks = 0;
  std::int32_t nodes_per_block = 18;
  std::int32_t gpus_per_node = 4;
  std::int32_t blocks_per_spine = 8;
  double down = 0;  // fraction of the nodes down
  std::uint64_t seed = 1;
  double demand = 1.3;     // GPU demand over the GPUs of the nodes up
  double exclusive = 0.1;  // fraction of the large jobs that are exclusive (topo)
  // Over time (fleet run): offered load in percent; 0: no arrivals, the mix up to `demand`.
  double load_pct = 0;
  seconds horizon{7 * 86400};      // over which the jobs arrive
  double spot = 0.5;               // fraction of the jobs that are spot
  seconds checkpoint_every{1800};  // work between a spot job's checkpoints
};

struct generated_fleet {
  fleet_cluster cluster;
  std::vector<fleet_job> jobs;
};

namespace detail {

[[nodiscard]] inline std::string numbered(std::string_view prefix, std::size_t i, int width) {
  std::string n = std::to_string(i);
  if (static_cast<int>(n.size()) < width) n.insert(0, static_cast<std::size_t>(width) - n.size(), '0');
  return std::string(prefix) + n;
}

// A number in [lo, hi].
[[nodiscard]] inline std::int64_t draw(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(uniform_below(rng, static_cast<std::uint64_t>(hi - lo + 1)));
}

[[nodiscard]] inline expected<void> check_generate(const generate_options& o) {
  if (o.blocks < 1 || o.blocks > 100000) return make_error(error_code::invalid_argument, "--blocks", "must be in [1, 100000]");
  if (o.nodes_per_block < 1 || o.nodes_per_block > 1024) return make_error(error_code::invalid_argument, "--nodes-per-block", "must be in [1, 1024]");
  if (o.gpus_per_node < 1 || o.gpus_per_node > 16) return make_error(error_code::invalid_argument, "--gpus-per-node", "must be in [1, 16]");
  if (o.blocks_per_spine < 1) return make_error(error_code::invalid_argument, "--blocks-per-spine", "must be at least 1");
  if (!(o.down >= 0 && o.down < 1)) return make_error(error_code::invalid_argument, "--down", "must be in [0, 1)");
  if (!(o.demand > 0 && o.demand <= 100)) return make_error(error_code::invalid_argument, "--demand", "must be in (0, 100]");
  if (!(o.exclusive >= 0 && o.exclusive <= 1)) return make_error(error_code::invalid_argument, "--exclusive", "must be in [0, 1]");
  if (!(o.load_pct >= 0 && o.load_pct <= 10000))
    return make_error(error_code::invalid_argument, "--load", "must be in [0, 10000] (percent; 0: no arrivals)");
  if (o.horizon < seconds{1} || o.horizon > seconds{366 * 86400})
    return make_error(error_code::invalid_argument, "--horizon", "must be in [1s, 366d]");
  if (!(o.spot >= 0 && o.spot <= 1)) return make_error(error_code::invalid_argument, "--spot", "must be in [0, 1]");
  if (o.checkpoint_every < seconds{1} || o.checkpoint_every > seconds{366 * 86400})
    return make_error(error_code::invalid_argument, "--checkpoint-every", "must be in [1s, 366d]");
  return {};
}

// The cluster: nodes, spines and blocks, and the down nodes (a partial Fisher-Yates draw).
[[nodiscard]] inline expected<fleet_cluster> generate_cluster(const generate_options& o, std::mt19937_64& rng) {
  const auto count = static_cast<std::size_t>(o.blocks) * static_cast<std::size_t>(o.nodes_per_block);
  std::vector<fleet_node> nodes(count);
  for (std::size_t i = 0; i < count; ++i) {
    nodes[i] = fleet_node{numbered("n", i, 5), milli_cpu(144000), mebibytes(983040), o.gpus_per_node, "GB200", node_condition::up, {}, {}};
  }
  std::vector<std::size_t> pick(count);
  for (std::size_t i = 0; i < count; ++i) pick[i] = i;
  const auto down = static_cast<std::size_t>(o.down * static_cast<double>(count) + 0.5);
  for (std::size_t i = 0; i < down; ++i) {
    std::swap(pick[i], pick[i + uniform_below(rng, count - i)]);
    nodes[pick[i]].condition = node_condition::down;
  }
  GPURENT_TRY(c, fleet_cluster::make(nodes, {"spine", "block"}));
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t block = i / static_cast<std::size_t>(o.nodes_per_block);
    const std::string spine = numbered("spine-", block / static_cast<std::size_t>(o.blocks_per_spine), 3);
    const std::string name = numbered("block-", block, 4);
    const std::string_view path[] = {spine, name};
    GPURENT_TRY(c->topology.assign(i, path));
  }
  return std::move(*c);
}

// One job of the mix (see the header comment).
[[nodiscard]] inline fleet_job generate_job(const generate_options& o, std::mt19937_64& rng, std::size_t i) {
  fleet_job j;
  j.name = numbered("job-", i, 5);
  const std::int32_t segment = std::min(16, o.nodes_per_block);
  std::int32_t gpus = o.gpus_per_node;
  const std::uint64_t kind = uniform_below(rng, 100);
  if (kind < 74) {  // small
    const bool partial = uniform_below(rng, 10) < 3 && o.gpus_per_node > 1;
    j.gang.workers = partial ? 1 : static_cast<std::int32_t>(draw(rng, 1, 2));
    if (partial) gpus = static_cast<std::int32_t>(draw(rng, 1, std::min(2, o.gpus_per_node - 1)));
    j.duration = seconds(draw(rng, 600, 14400));
  } else if (kind < 96) {  // medium
    j.gang.workers = static_cast<std::int32_t>(draw(rng, std::min(4, segment), segment));
    j.gang.required = 1;
    j.duration = seconds(draw(rng, 3600, 86400));
  } else {                                                          // large
    const std::int64_t most = std::min<std::int64_t>(8, o.blocks);  // one segment per block: no more segments than blocks
    j.gang.workers = segment * static_cast<std::int32_t>(draw(rng, std::min<std::int64_t>(2, most), most));
    j.gang.segment = segment;
    if (uniform_below(rng, 2) == 0) j.gang.preferred = 0;
    j.gang.exclusive = static_cast<double>(uniform_below(rng, 1000)) < o.exclusive * 1000.0;
    j.duration = seconds(draw(rng, 14400, 259200));
  }
  j.gang.member.num_gpu = gpus;
  j.gang.member.gpu_milli = whole_gpu;
  j.gang.member.cpu_milli = milli_cpu(32000 * static_cast<std::int64_t>(gpus));
  j.gang.member.memory_mib = mebibytes(196608 * static_cast<std::int64_t>(gpus));
  if (j.gang.workers > 1) j.gang.per_node = 1;
  return j;
}

// Over time: the mix until its work reaches the offered load, each job spot or
// high-priority, arrivals uniform over the horizon in job order (see the header comment).
inline void generate_over_time(const generate_options& o, std::mt19937_64& rng, generated_fleet& f) {
  const double target = o.load_pct / 100.0 * 1000.0 * static_cast<double>(f.cluster.gpus_up()) * static_cast<double>(o.horizon.count());
  double work = 0;  // milli-GPU-seconds
  while (work < target) {
    fleet_job j = generate_job(o, rng, f.jobs.size());
    work += static_cast<double>(j.gpu_milli_demand()) * static_cast<double>(j.duration.count());
    j.preemptible = static_cast<double>(uniform_below(rng, 1000)) < o.spot * 1000.0;
    j.priority = j.preemptible ? 0 : 100;
    j.checkpoint_every = o.checkpoint_every;
    f.jobs.push_back(std::move(j));
  }
  std::vector<fleet_time> arrivals(f.jobs.size());
  for (fleet_time& a : arrivals)
    a = fleet_time::at_second(static_cast<std::int64_t>(uniform_below(rng, static_cast<std::uint64_t>(o.horizon.count()))));
  std::sort(arrivals.begin(), arrivals.end());
  for (std::size_t i = 0; i < f.jobs.size(); ++i) f.jobs[i].arrival = arrivals[i];
}

}  // namespace detail

// The fleet and its jobs for options o (an error names the option that is out of range).
[[nodiscard]] inline expected<generated_fleet> generate_fleet(const generate_options& o) {
  GPURENT_TRY(detail::check_generate(o));
  std::mt19937_64 rng(o.seed);
  GPURENT_TRY(c, detail::generate_cluster(o, rng));
  generated_fleet f{std::move(*c), {}};
  if (o.load_pct > 0) {
    detail::generate_over_time(o, rng, f);
    return f;
  }
  const auto target = static_cast<std::int64_t>(o.demand * 1000.0 * static_cast<double>(f.cluster.gpus_up()));
  std::int64_t demand = 0;
  while (demand < target) {
    f.jobs.push_back(detail::generate_job(o, rng, f.jobs.size()));
    demand += f.jobs.back().gpu_milli_demand();
  }
  return f;
}

}  // namespace gpurent
