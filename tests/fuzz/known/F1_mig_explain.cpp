// SPDX-License-Identifier: MIT
// Known finding F1 (found by fuzz_mig_fit; see docs/reliability.md). Exits non-zero while the
// bug is there: built with -fsanitize=address,undefined, UBSan reports
//   spec/mig.hpp: load of value N, which is not a valid value for type 'bool'
// because mig_explain's too_many_media branch reads g.profiles[w] for every wanted w, and
// mig_fit reports too_many_media before it has checked the later wanted profiles, so an
// unknown one (an index past the geometry's table) is read out of bounds.

#include <cstdio>
#include <vector>

#include <gpurent/spec/mig.hpp>

int main() {
  using namespace gpurent;
  const mig_geometry& g = *find_mig_geometry("A30");
  const mig_profile_index me = *g.find_profile("1g.6gb+me");
  const std::vector<mig_profile_index> want{me, me, 200};  // 200: no such profile
  const mig_fit_result r = mig_fit(g, {}, want);
  std::printf("status %d: %s\n", static_cast<int>(r.status), mig_explain(g, {}, want, r).c_str());
  return 0;
}
