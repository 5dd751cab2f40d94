// SPDX-License-Identifier: MIT
// A spot-versus-on-demand quote for a checkpointable training run: Young's and Daly's
// checkpoint intervals, the expected wall time and interruptions on spot, and both prices
// computed exactly from the expected billed seconds (rounded up to whole seconds first).
#include <cstdio>

#include <gpurent/core/format.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/planning/checkpoint.hpp>

using namespace gpurent;
using namespace std::chrono_literals;

int main() {
  const seconds work = 36h;                        // 36 hours of computation on 8 GPUs
  const seconds write = 5min;                      // writing a checkpoint
  const seconds restart = 10min;                   // getting a new node and reloading
  const seconds notice = 2min;                     // the provider's preemption notice: too short to checkpoint
  const double interruptions_per_hour = 1.0 / 12;  // one every 12 hours on average

  const spot_estimate e = estimate_spot(work, write, restart, notice, interruptions_per_hour);
  if (!e.feasible) return 1;
  std::printf("checkpoint every %.0f s (Young %.0f s), rework per interruption %.0f s\n", e.daly_s, e.young_s, e.rework_per_interruption_s);
  std::printf("expected wall time on spot %lld s, %.2f interruptions\n", static_cast<long long>(e.wall.count()), e.expected_interruptions);

  using USD = currencies::USD;
  const auto on_demand = *price<USD>::parse("2.49", 1h);  // per GPU-hour
  const auto spot = *price<USD>::parse("0.99", 1h);
  const auto od_cost = (on_demand * work * 8).round<round_half_even>();
  const auto spot_cost = (spot * e.wall * 8).round<round_half_even>();
  fmt::print("on demand: {} in {} s; spot: {} in {} s; spot saves {}\n", od_cost, work.count(), spot_cost, e.wall.count(), od_cost - spot_cost);
  return spot_cost < od_cost && e.wall > work ? 0 : 1;
}
