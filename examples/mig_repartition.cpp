// SPDX-License-Identifier: MIT
// MIG repartitioning for a queue of requests on one H100: each request is fitted into the
// GPU's current layout when it can be (at the start slot that keeps the most options open);
// when it cannot, gpurent plans the repartition that destroys the fewest running instances,
// as ordered destroy/create operations with start slots.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/spec/mig.hpp>

using namespace gpurent;

int main() {
  const mig_geometry* g = find_mig_geometry("H100-SXM5-80GB");
  if (g == nullptr) return 1;
  auto profile = [&](std::string_view name) { return *g->find_profile(name); };

  mig_layout gpu;  // empty GPU with MIG enabled
  const std::vector<std::vector<std::string_view>> queue = {{"3g.40gb"}, {"1g.10gb"}, {"1g.10gb"}, {"4g.40gb"}, {"2g.20gb", "1g.10gb"}};
  int repartitions = 0;
  for (const auto& request : queue) {
    std::vector<mig_profile_index> want;
    for (auto name : request) want.push_back(profile(name));
    std::printf("want");
    for (auto name : request) std::printf(" %.*s", static_cast<int>(name.size()), name.data());
    const mig_fit_result fit = mig_fit(*g, gpu, want);
    if (fit.fits()) {
      gpu = mig_apply(gpu, want, fit);
      std::printf(": fits as is\n");
    } else {
      auto plan = mig_plan_repartition(*g, gpu, want, mig_repartition_mode::drop);
      if (!plan) {
        std::printf(": cannot fit even after repartitioning (%s)\n", plan.error().message.c_str());
        continue;
      }
      ++repartitions;
      std::printf(": repartition, %zu instance(s) destroyed\n", plan->destroyed);
      for (const mig_operation& op : plan->operations) {
        std::printf("  %-7s %s\n", std::string(to_string(op.kind)).c_str(), mig_name(*g, op.instance).c_str());
      }
      gpu = plan->target;
    }
    std::printf("  layout:");
    for (const mig_instance& x : gpu) std::printf(" %s", mig_name(*g, x).c_str());
    std::printf("\n");
  }
  // Every layout along the way was valid; the 4g.40gb needed one repartition.
  return mig_valid(*g, gpu) && repartitions >= 1 ? 0 : 1;
}
