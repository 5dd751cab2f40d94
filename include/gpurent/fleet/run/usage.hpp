// SPDX-License-Identifier: MIT
#pragma once
// `fleet run --emit-usage` (docs/formats/fleet.md): the run's segments as metering
// usage records, one per member per segment, so that the run's revenue and each renter's
// bill come out of the one meter (spot billed only for the time it ran). Id
// `<job>-<run>-<member>`, account `hp` or `spot`, resource `gpu/<model>` of the member's
// node, mode `on_demand` or `spot`, quantity the member's GPUs, from epoch + start to
// epoch + end. Segments of zero length, and members holding no GPU, are left out. A record
// the meter would refuse (validate: an instant past 9999-12-31, which the jobs file's
// arrivals and durations of up to 2^40 s reach) is an error naming it, never written out.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/run.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/metering/usage.hpp>

namespace gpurent {

[[nodiscard]] inline expected<std::vector<usage_record>> usage_of_run(std::span<const fleet_job> jobs, const run_result& r, const inventory& inv,
                                                                      instant epoch) {
  std::vector<usage_record> out;
  for (const run_segment& s : r.segments) {
    if (s.end <= s.start) continue;
    const fleet_job& j = jobs[s.job];
    for (std::uint32_t m = 0; m < s.count; ++m) {
      const placement& p = r.members[s.first + m];
      const std::int64_t milli = p.gpu_milli_total();
      if (milli <= 0) continue;
      usage_record u;
      u.id = j.name + "-" + std::to_string(s.run) + "-" + std::to_string(m);
      u.account = j.preemptible ? "spot" : "hp";
      u.resource = "gpu/" + inv.model(inv.spec(p.node).model).name;
      u.mode = j.preemptible ? "spot" : "on_demand";
      u.quantity = nano_quantity(milli * 1'000'000);
      u.start = epoch + s.start.since_zero();
      u.end = epoch + s.end.since_zero();
      if (auto v = validate(u); !v) return make_error(v.error().code, v.error().field, "usage record " + u.id + ": " + v.error().message);
      out.push_back(std::move(u));
    }
  }
  return out;
}

}  // namespace gpurent
