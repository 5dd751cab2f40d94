// SPDX-License-Identifier: MIT
// `fleet generate` on fleets of fewer than 8 blocks (found by an outside probe: 6 blocks got a
// 128-node job that could never start): a large job has no more 16-node segments than the
// fleet has blocks, so every job fits the empty fleet and a run starts them all.

#include <doctest/doctest.h>

#include <cstdint>

#include <gpurent/fleet/fleet.hpp>

namespace test_fleet_generate_small {

using namespace gpurent;

TEST_CASE("fleet generate: on fewer than 8 blocks every large job has at most one segment per block, and every job starts") {
  for (std::int32_t blocks = 1; blocks <= 7; ++blocks) {
    generate_options o;
    o.blocks = blocks;
    o.down = 0.02;
    o.seed = static_cast<std::uint64_t>(blocks);
    o.load_pct = 110;
    o.horizon = seconds(2 * 86400);
    const auto f = generate_fleet(o);
    REQUIRE(f);
    std::size_t large = 0;
    for (const fleet_job& j : f->jobs) {
      if (j.gang.segment == 0) continue;
      ++large;
      CHECK(j.gang.workers / j.gang.segment <= blocks);
    }
    INFO(blocks << " blocks");
    fleet_cluster c = f->cluster;
    gang_placer<gang_policy_gpurent> b(c.inv, c.topology, context_of(f->jobs, c));
    run_result r = run_fleet<victim_policy_gpurent, true>(b, f->jobs, run_options{});
    explain_never_started(b, f->jobs, r);
    CHECK(r.never_started.empty());
    if (blocks >= 4) CHECK(large > 0);  // the large kind is still drawn
  }
}

}  // namespace test_fleet_generate_small
