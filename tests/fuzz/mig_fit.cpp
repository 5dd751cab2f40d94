// SPDX-License-Identifier: MIT
// Fuzz target: MIG fit and repartition (what `gpurent mig fit --want ... --have ...` runs):
// a fuzz-chosen geometry, existing instances (profile, start; unknown profiles and bad
// starts included) and wanted profiles. The tool's --want/--have text parsing lives in
// tools/cmd_mig.cpp, not in a header, so the target drives the library API it calls.
// Checked against a brute-force search over every placement:
//   - fit says "fits" exactly when some placement of the wanted instances next to `have` is
//     a valid layout, and then its layout is valid, keeps `have`, and leaves the most options;
//   - a repartition plan (move and drop) ends in a valid layout holding the wanted instances,
//     every intermediate layout is valid, move keeps every existing profile, and a plan
//     exists in move mode exactly when all the instances fit together on an empty GPU.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpurent/spec/mig.hpp>

#include "fuzz.hpp"

namespace {

using namespace gpurent;

// Brute force: the best options count over every valid way to add `want[i..]` (sorted) to
// `l`, or -1. Every start slice is tried and the whole layout validated; equal profiles
// take increasing starts (they are interchangeable).
int search(const mig_geometry& g, mig_layout& l, std::span<const mig_profile_index> want, std::size_t i, int min_start) {
  if (i == want.size()) {
    mig_slice_mask used = 0;
    for (const mig_instance& x : l) used = static_cast<mig_slice_mask>(used | g.profiles[x.profile].occupancy(x.start));
    return (*g.options)[used];
  }
  int best = -1;
  for (int s = min_start; s < g.memory_slices; ++s) {
    const mig_instance x{want[i], static_cast<std::uint8_t>(s)};
    if (!l.add(x)) return -1;
    if (mig_valid(g, l)) {
      const bool same_next = i + 1 < want.size() && want[i + 1] == want[i];
      best = std::max(best, search(g, l, want, i + 1, same_next ? s + 1 : 0));
    }
    (void)l.remove(x);
  }
  return best;
}

int best_options(const mig_geometry& g, const mig_layout& have, std::span<const mig_profile_index> want) {
  std::vector<mig_profile_index> sorted(want.begin(), want.end());
  std::sort(sorted.begin(), sorted.end());
  mig_layout l = have;
  return search(g, l, sorted, 0, 0);
}

std::vector<mig_profile_index> profiles_of(const mig_layout& l) {
  std::vector<mig_profile_index> v;
  for (const mig_instance& x : l) v.push_back(x.profile);
  std::sort(v.begin(), v.end());
  return v;
}

void check_plan(const mig_geometry& g, const mig_layout& have, std::span<const mig_profile_index> want, const mig_plan& plan,
                mig_repartition_mode mode) {
  FUZZ_CHECK(mig_valid(g, plan.target), "a repartition target is invalid");
  mig_layout l = have;
  bool creating = false;
  for (const mig_operation& op : plan.operations) {
    if (op.kind == mig_op_kind::destroy) {
      FUZZ_CHECK(!creating, "a destroy after a create");
      FUZZ_CHECK(l.remove(op.instance), "a plan destroys an instance that is not there");
    } else {
      creating = true;
      FUZZ_CHECK(l.add(op.instance), "a plan creates a ninth instance");
    }
    FUZZ_CHECK(mig_valid(g, l), "an intermediate layout of a plan is invalid");
  }
  FUZZ_CHECK(l == plan.target, "the operations do not lead to the target");
  for (std::size_t i = 0; i < want.size(); ++i) FUZZ_CHECK(plan.target.contains({want[i], plan.starts[i]}), "a wanted instance is missing");
  std::size_t in_target = 0, destroys = 0;
  for (const mig_instance& x : have) in_target += plan.target.contains(x) ? 1U : 0U;
  for (const mig_operation& op : plan.operations) {
    if (op.kind != mig_op_kind::destroy) continue;
    ++destroys;
    FUZZ_CHECK(have.contains(op.instance), "a plan destroys an instance that was not there");
  }
  FUZZ_CHECK(plan.destroyed == destroys, "destroyed count differs from the destroy operations");
  // Move destroys only what it must re-create elsewhere; drop may destroy an instance and
  // create a new one (for the wanted profile) in the same place.
  if (mode == mig_repartition_mode::move) FUZZ_CHECK(plan.destroyed == have.size() - in_target, "move destroyed an instance it kept in place");
  FUZZ_CHECK(plan.destroyed >= have.size() - in_target, "destroyed count is too small");
  if (mode == mig_repartition_mode::move) {
    std::vector<mig_profile_index> all = profiles_of(have);
    all.insert(all.end(), want.begin(), want.end());
    std::sort(all.begin(), all.end());
    FUZZ_CHECK(profiles_of(plan.target) == all, "move lost or added an instance");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpurent_fuzz::bytes_reader in(data, size);
  const mig_geometry& g = mig_geometries[in.below(mig_geometries.size())];
  const auto nprof = static_cast<std::uint32_t>(g.profiles.size());
  mig_layout have;
  const std::uint32_t nhave = in.below(mig_max_slices + 1);
  for (std::uint32_t i = 0; i < nhave; ++i) {
    const auto p = static_cast<mig_profile_index>(in.below(nprof + 1));  // one past the table: unknown
    const auto s = static_cast<std::uint8_t>(in.below(mig_max_slices));
    (void)have.add({p, s});
  }
  std::vector<mig_profile_index> want;
  const std::uint32_t nwant = in.below(mig_max_slices + 2);
  for (std::uint32_t i = 0; i < nwant; ++i) want.push_back(static_cast<mig_profile_index>(in.below(nprof + 1)));

  const mig_fit_result r = mig_fit(g, have, want);
  const bool have_ok = mig_valid(g, have);
  const bool want_known = std::all_of(want.begin(), want.end(), [&](mig_profile_index p) { return p < nprof; });
  // Finding F1 (docs/reliability.md), fixed: an unknown wanted profile is reported before
  // any other rule, so mig_explain never reads past the profile table.
  FUZZ_CHECK(want_known || have_ok == false || r.status == mig_fit_status::unknown_profile, "an unknown wanted profile must be reported as such");
  const std::string why = mig_explain(g, have, want, r);
  FUZZ_CHECK(!why.empty());
  if (!have_ok) {
    FUZZ_CHECK(r.status == mig_fit_status::invalid_layout, "fit accepted an invalid layout");
    FUZZ_CHECK(!mig_plan_repartition(g, have, want).has_value(), "repartition accepted an invalid layout");
    return 0;
  }
  if (!want_known) {
    // The first problem in asking order is reported: an unknown profile, or a count rule
    // an earlier wanted profile already breaks.
    FUZZ_CHECK(!r.fits() && r.status != mig_fit_status::invalid_layout, "fit accepted an unknown profile");
    FUZZ_CHECK(!mig_plan_repartition(g, have, want).has_value(), "repartition accepted an unknown profile");
    return 0;
  }
  const int best = want.size() <= mig_max_slices ? best_options(g, have, want) : -1;
  FUZZ_CHECK(r.fits() == (best >= 0), "fit disagrees with brute force: " + why);
  if (r.fits()) {
    FUZZ_CHECK(r.count == want.size());
    const mig_layout after = mig_apply(have, want, r);
    FUZZ_CHECK(mig_valid(g, after), "fit's layout is invalid: " + why);
    for (const mig_instance& x : have) FUZZ_CHECK(after.contains(x), "fit moved an existing instance");
    FUZZ_CHECK(r.options == best, "fit did not leave the most options");
  }

  for (const auto mode : {mig_repartition_mode::move, mig_repartition_mode::drop}) {
    const auto plan = mig_plan_repartition(g, have, want, mode);
    if (plan) {
      check_plan(g, have, want, *plan, mode);
      if (r.fits()) FUZZ_CHECK(plan->destroyed == 0, "a repartition destroyed instances though the wanted ones fit");
    } else {
      FUZZ_CHECK(plan.error().code == error_code::not_found, plan.error().describe());
      if (r.fits()) FUZZ_CHECK(false, "no repartition plan though the wanted instances fit as they are");
    }
    // Existence oracle: move needs every instance to fit together on an empty GPU; drop needs
    // only the wanted ones to.
    std::vector<mig_profile_index> all(want.begin(), want.end());
    if (mode == mig_repartition_mode::move) {
      const auto hp = profiles_of(have);
      all.insert(all.end(), hp.begin(), hp.end());
    }
    const bool possible = all.size() <= mig_max_slices && best_options(g, mig_layout{}, all) >= 0;
    FUZZ_CHECK(plan.has_value() == possible, "repartition disagrees with brute force on whether a plan exists");
  }
  return 0;
}
