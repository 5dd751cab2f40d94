// SPDX-License-Identifier: MIT
#pragma once
// A seeded scenario for the simulation: a cluster with a network topology, jobs arriving over
// time, nodes failing, draining and coming back, and the run's checkpoint and notice model.
// One step is one job arrival (gaps sized to the cluster, sometimes hours; make_scenario),
// with a small chance of a node failure and of a drain at that instant; `steps` is the
// number of jobs. Everything comes from one std::mt19937_64(seed) drawn by rejection
// (sim_rng), so a seed gives the same scenario on every standard library.
//
// The cluster: 3-6 blocks of 3-8 nodes, two blocks per spine ("spine" and "block" levels),
// each block of one shape (8 x H100, 4 x GB200 or 4 x L40S), labelled zone=a or zone=b by
// spine, plus up to two nodes outside the topology (CPU-only or 2 x L40S); a few nodes start
// down or drained and come back later. The jobs (draw_shape): one-member jobs of whole
// GPUs, GPU shares or CPU only; gangs of 2-4 members anywhere; gangs required inside one
// block; gangs in segments of 2-3 members, some preferring one spine, some exclusive. Some
// are pinned to a model or a zone; 40% are preemptible (priority 0 or 20, checkpoints every
// 10-60 min or never), the others priority 50 or 100; four tenants and the anonymous one; a
// few one-member jobs ask for no isolation (shares) or for a node of their own.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <date/date.h>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/fleet/fleet.hpp>

namespace gpurent::sim {

// Uniform draws by rejection from one mt19937_64: the same numbers on every platform.
class sim_rng {
 public:
  explicit sim_rng(std::uint64_t seed) : g_(seed) {}
  // Uniform in [0, n), n > 0.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t x = g_();
    while (x >= limit) x = g_();
    return x % n;
  }
  // Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) { return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo + 1))); }
  bool chance(std::uint64_t per_mille) { return below(1000) < per_mille; }

 private:
  std::mt19937_64 g_;
};

// The shape of a node and the GPU model it carries (empty: CPU only).
struct node_shape {
  std::string_view model;
  std::int32_t gpus;
  std::int64_t cpu_milli;
  std::int64_t memory_mib;
};
inline constexpr std::array<node_shape, 3> block_shapes = {{{"H100", 8, 192000, 2097152}, {"GB200", 4, 144000, 983040}, {"L40S", 4, 64000, 524288}}};
inline constexpr std::array<node_shape, 2> outside_shapes = {{{"", 0, 96000, 393216}, {"L40S", 2, 32000, 262144}}};
inline constexpr std::array<std::string_view, 3> gpu_models = {"H100", "GB200", "L40S"};
inline constexpr level_index block_level = 1;  // levels {"spine", "block"}
inline constexpr level_index spine_level = 0;

struct scenario {
  std::uint64_t seed = 0;
  fleet_cluster cluster;           // as every run starts from it
  std::vector<fleet_job> jobs;     // in arrival order
  std::vector<node_event> events;  // in time order
  checkpoint_model checkpoints;
  std::int64_t min_runtime = 0;
  instant epoch{};                        // the instant the run's second 0 is (its usage records' clock)
  std::vector<std::int32_t> block_nodes;  // nodes per block

  [[nodiscard]] run_options options() const {
    run_options o;
    o.checkpoints = checkpoints;
    o.min_runtime = seconds(min_runtime);
    o.node_events = events;
    return o;
  }
};

namespace detail {

[[nodiscard]] inline fleet_node node_of(const node_shape& s, std::string name, std::string zone) {
  fleet_node n;
  n.name = std::move(name);
  n.cpu_milli = milli_cpu(s.cpu_milli);
  n.memory_mib = mebibytes(s.memory_mib);
  n.gpus = s.gpus;
  n.model = std::string(s.model);
  n.labels = {"zone=" + std::move(zone)};
  return n;
}

// The nodes, block by block, then those outside the topology; paths[i] for the first ones.
inline void draw_nodes(sim_rng& rng, scenario& s, std::vector<fleet_node>& nodes, std::vector<std::array<std::string, 2>>& paths) {
  const auto blocks = static_cast<std::size_t>(rng.between(3, 6));
  for (std::size_t b = 0; b < blocks; ++b) {
    const node_shape& shape = block_shapes[rng.below(block_shapes.size())];
    const auto count = static_cast<std::int32_t>(rng.between(3, 8));
    s.block_nodes.push_back(count);
    const std::string spine = "spine-" + std::to_string(b / 2), block = "block-" + std::to_string(b);
    for (std::int32_t i = 0; i < count; ++i) {
      nodes.push_back(node_of(shape, block + "-n" + std::to_string(i), b / 2 % 2 == 0 ? "a" : "b"));
      paths.push_back({spine, block});
    }
  }
  const auto outside = rng.below(3);
  for (std::size_t i = 0; i < outside; ++i)
    nodes.push_back(node_of(outside_shapes[rng.below(outside_shapes.size())], "edge-" + std::to_string(i), "a"));
  for (fleet_node& n : nodes) {
    if (rng.chance(30)) n.condition = rng.chance(500) ? node_condition::down : node_condition::drain;
  }
}

[[nodiscard]] inline fleet_cluster draw_cluster(sim_rng& rng, scenario& s) {
  std::vector<fleet_node> nodes;
  std::vector<std::array<std::string, 2>> paths;
  draw_nodes(rng, s, nodes, paths);
  auto c = fleet_cluster::make(nodes, {"spine", "block"});
  GPURENT_ASSERT(c.has_value());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::array<std::string_view, 2> path = {paths[i][0], paths[i][1]};
    const auto ok = c->topology.assign(i, path);
    GPURENT_ASSERT(ok.has_value());
  }
  for (node_index n = 0; n < nodes.size(); ++n) {  // the nodes that start down or drained come back
    if (nodes[n].condition != node_condition::up)
      s.events.push_back(node_event{fleet_time::at_second(rng.between(600, 6 * 3600)), n, node_condition::up});
  }
  return std::move(*c);
}

// A member of whole GPUs: 16 cores and 64 GiB per GPU (every shape holds that many per GPU).
[[nodiscard]] inline placement_request whole_gpus(std::int32_t gpus) {
  placement_request r;
  r.num_gpu = gpus;
  r.gpu_milli = whole_gpu;
  r.cpu_milli = milli_cpu(16000 * std::int64_t{gpus});
  r.memory_mib = mebibytes(65536 * std::int64_t{gpus});
  return r;
}

// The job's members and topology rules (the mix of the header comment), sized to the
// cluster so that most jobs can run at all: no member wider than the widest node, no gang
// needing more nodes in a block than the largest block has.
inline void draw_shape(sim_rng& rng, const scenario& s, fleet_job& j) {
  gang_request& g = j.gang;
  const std::uint64_t k = rng.below(100);
  std::int32_t widest = 0;
  for (node_index n = 0; n < s.cluster.inv.size(); ++n) widest = std::max<std::int32_t>(widest, s.cluster.inv.spec(n).gpu_count);
  const std::int32_t largest = *std::max_element(s.block_nodes.begin(), s.block_nodes.end());
  static constexpr std::array<std::int32_t, 6> counts = {1, 1, 2, 2, 4, 8};
  const auto gpus = [&](std::size_t kinds) { return std::min(widest, counts[rng.below(kinds)]); };
  if (k < 30) {
    g.member = whole_gpus(gpus(counts.size()));
  } else if (k < 50) {
    g.member.num_gpu = 1;
    g.member.gpu_milli = milli_gpu(static_cast<std::int32_t>(125 * rng.between(1, 7)));
    g.member.cpu_milli = milli_cpu(4000);
    g.member.memory_mib = mebibytes(16384);
  } else if (k < 60) {
    g.member.cpu_milli = milli_cpu(1000 * rng.between(1, 16));
    g.member.memory_mib = mebibytes(4096 * rng.between(1, 16));
  } else if (k < 75) {
    g.member = whole_gpus(gpus(5));
    g.workers = static_cast<std::int32_t>(rng.between(2, 4));
    g.per_node = rng.chance(500) ? 1 : 0;
  } else if (k < 92) {
    g.member = whole_gpus(static_cast<std::int32_t>(rng.between(1, 4)));
    g.workers = static_cast<std::int32_t>(rng.between(2, std::min(6, largest)));
    g.per_node = 1;
    g.required = block_level;
  } else {
    g.member = whole_gpus(4);
    g.segment = static_cast<std::int32_t>(rng.between(2, std::min(3, largest)));
    g.workers = g.segment * static_cast<std::int32_t>(rng.between(2, 3));
    g.per_node = 1;
    if (rng.chance(500)) g.preferred = spine_level;
    g.exclusive = rng.chance(250);
  }
}

// Class, tenant, pins, work and checkpoints of job j.
inline void draw_terms(sim_rng& rng, const fleet_cluster& c, fleet_job& j) {
  placement_request& r = j.gang.member;
  const auto tenant = static_cast<tenant_id>(rng.below(5));  // 0: the anonymous tenant (no tenant named)
  r.tenant = tenant;
  if (tenant != no_tenant) j.tenant = "tenant-" + std::to_string(tenant);
  if (j.gang.size() == 1 && rng.chance(60)) r.isolation = r.is_share() ? isolation_level::none : isolation_level::node;
  if (r.num_gpu > 0 && rng.chance(150)) {
    if (const auto m = c.inv.find_model(gpu_models[rng.below(gpu_models.size())])) r.allowed_models = model_mask{1} << *m;
  }
  if (rng.chance(100)) {
    if (const auto it = c.labels.find(rng.chance(500) ? "zone=a" : "zone=b"); it != c.labels.end()) r.required_labels = it->second;
  }
  j.preemptible = rng.chance(400);
  j.priority = j.preemptible ? (rng.chance(500) ? 0 : 20) : (rng.chance(500) ? 50 : 100);
  j.checkpoint_every = seconds(rng.chance(100) ? 0 : rng.between(600, 3600));
  const std::uint64_t d = rng.below(100);
  j.duration = seconds(d < 85 ? rng.between(60, 7200) : d < 97 ? rng.between(7200, 28800) : rng.between(28800, 172800));
}

// The run's checkpoint and notice model and the minimum runtime.
inline void draw_model(sim_rng& rng, scenario& s) {
  s.checkpoints.notice = seconds(rng.chance(250) ? 0 : rng.between(10, 120));
  s.checkpoints.checkpoint_write = seconds(rng.between(30, 90));
  s.checkpoints.restart = seconds(rng.between(0, 300));
  s.min_runtime = rng.chance(300) ? rng.between(300, 1800) : 0;
}

// The mean gap between arrivals that offers `load_pct` % of the cluster's GPUs over the
// jobs' work (GPUs x duration), at least 2 s.
[[nodiscard]] inline std::int64_t mean_gap(const scenario& s, std::int64_t load_pct) {
  std::int64_t gpus = 0, work = 0;  // GPU-seconds (milli-GPU-seconds / 1000)
  for (node_index n = 0; n < s.cluster.inv.size(); ++n) gpus += s.cluster.inv.spec(n).gpu_count;
  for (const fleet_job& j : s.jobs) work += j.gpu_milli_demand() * j.duration.count() / 1000;
  const auto n = static_cast<std::int64_t>(s.jobs.size());
  return std::max<std::int64_t>(2, work * 100 / std::max<std::int64_t>(1, gpus * load_pct * n));
}

// At instant t, maybe a node fails or is drained, and comes back up later.
inline void draw_node_events(sim_rng& rng, scenario& s, std::int64_t t) {
  const auto nodes = static_cast<std::uint64_t>(s.cluster.inv.size());
  if (rng.chance(3)) {
    const auto n = static_cast<node_index>(rng.below(nodes));
    s.events.push_back(node_event{fleet_time::at_second(t), n, node_condition::down});
    s.events.push_back(node_event{fleet_time::at_second(t + rng.between(600, 4 * 3600)), n, node_condition::up});
  }
  if (rng.chance(3)) {
    const auto n = static_cast<node_index>(rng.below(nodes));
    s.events.push_back(node_event{fleet_time::at_second(t), n, node_condition::drain});
    s.events.push_back(node_event{fleet_time::at_second(t + rng.between(1800, 6 * 3600)), n, node_condition::up});
  }
}

}  // namespace detail

// The scenario of `seed` with `steps` jobs. The jobs are drawn first, then their arrivals:
// gaps uniform around the mean that offers 60-110% of the cluster's GPUs (sometimes a quiet
// gap of hours), so that queues form and preemptions happen on clusters of every size; the
// epoch puts the end of October in New York (and of its DST, 2026-11-01) 20-80% into them.
[[nodiscard]] inline scenario make_scenario(std::uint64_t seed, std::uint64_t steps) {
  sim_rng rng(seed);
  scenario s;
  s.seed = seed;
  s.cluster = detail::draw_cluster(rng, s);
  detail::draw_model(rng, s);
  s.jobs.resize(steps);
  for (std::uint64_t i = 0; i < steps; ++i) {
    fleet_job& j = s.jobs[i];
    j.name = "job" + std::to_string(i);
    detail::draw_shape(rng, s, j);
    detail::draw_terms(rng, s.cluster, j);
  }
  const std::int64_t gap = detail::mean_gap(s, rng.between(60, 110));
  std::int64_t t = 0;
  for (fleet_job& j : s.jobs) {
    t += rng.chance(4) ? rng.between(3600, 6 * 3600) : rng.between(1, 2 * gap - 1);
    j.arrival = fleet_time::at_second(t);
    detail::draw_node_events(rng, s, t);
  }
  std::stable_sort(s.events.begin(), s.events.end(), [](const node_event& a, const node_event& b) { return a.time < b.time; });
  const instant november = instant(date::sys_days(date::year(2026) / 11 / 1)) + seconds(4 * 3600);  // midnight in New York
  s.epoch = november - seconds(t * rng.between(20, 80) / 100);
  return s;
}

// The jobs the node matcher can take: one member, no topology rule (the others are the gang
// placer's; a node matcher run gets only these).
[[nodiscard]] inline std::vector<fleet_job> one_member_jobs(std::span<const fleet_job> jobs) {
  std::vector<fleet_job> out;
  for (const fleet_job& j : jobs)
    if (j.gang.size() == 1 && !j.gang.topology_bound()) out.push_back(j);
  return out;
}

}  // namespace gpurent::sim
