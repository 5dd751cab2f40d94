// SPDX-License-Identifier: MIT
// MIG layouts, validity, enumeration, fit and repartition. Golden vectors: facts derived from
// the 8-slice placement table (722 placed layouts, 77 profile multisets) and the NVIDIA MIG
// user guide.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include <doctest/doctest.h>

#include <gpurent/spec/mig.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_spec_mig {

namespace {
using namespace gpurent;

constexpr const mig_geometry& h100 = *find_mig_geometry("H100-SXM5-80GB");
constexpr const mig_geometry& a100 = *find_mig_geometry("A100-SXM4-40GB");
constexpr const mig_geometry& a30 = *find_mig_geometry("A30");

constexpr mig_profile_index idx(const mig_geometry& g, std::string_view name) { return *g.find_profile(name); }

// H100-SXM5-80GB profile indices.
constexpr mig_profile_index g1 = idx(h100, "1g.10gb");
constexpr mig_profile_index g1me = idx(h100, "1g.10gb+me");
constexpr mig_profile_index g1d = idx(h100, "1g.20gb");
constexpr mig_profile_index g2 = idx(h100, "2g.20gb");
constexpr mig_profile_index g3 = idx(h100, "3g.40gb");
constexpr mig_profile_index g4 = idx(h100, "4g.40gb");
constexpr mig_profile_index g7 = idx(h100, "7g.80gb");

// ---- the geometry tables ----------------------------------------------------------------
static_assert(find_mig_geometry("L40S") == nullptr);
static_assert(find_mig_geometry("h100") == nullptr);  // canonical names only; aliases go through the catalog
static_assert(find_mig_geometry("A100-PCIE-40GB")->profiles.data() == a100.profiles.data());
static_assert(h100.profiles[g7].memory_mib() == 81152);                    // 79.25 GiB
static_assert(a100.profiles[idx(a100, "3g.20gb")].memory_mib() == 20091);  // 19.62 GiB, to the nearest MiB
static_assert(!a100.profiles[idx(a100, "1g.10gb")].memory_mib());          // no capture: unknown, not zero
static_assert(h100.profiles[g3].occupancy(4) == 0xF0);
static_assert(h100.profiles[g1d].occupancy(6) == 0xC0);

// Every 8-slice geometry shares the placement table, so the shared option table is exact for each.
static_assert(detail::mig_make_options(detail::mig_a100_sxm4_40gb, 8) == detail::mig_options_8);
static_assert(detail::mig_make_options(detail::mig_a100_sxm4_80gb, 8) == detail::mig_options_8);
static_assert(detail::mig_make_options(detail::mig_h100_pcie_80gb, 8) == detail::mig_options_8);
static_assert(detail::mig_make_options(detail::mig_h100_nvl_94gb, 8) == detail::mig_options_8);
static_assert(detail::mig_make_options(detail::mig_gh200_96gb, 8) == detail::mig_options_8);
static_assert(detail::mig_make_options(detail::mig_h200_sxm_141gb, 8) == detail::mig_options_8);
static_assert(detail::mig_make_options(detail::mig_b200_180gb, 8) == detail::mig_options_8);
static_assert(detail::mig_make_reach(detail::mig_a100_sxm4_40gb, 8) == detail::mig_reach_8);
static_assert(detail::mig_make_reach(detail::mig_b200_180gb, 8) == detail::mig_reach_8);
static_assert(detail::mig_make_reach(detail::mig_h100_nvl_94gb, 8) == detail::mig_reach_8);
static_assert(detail::mig_reach_8[0] == 1 + 1 + 2 + 2 + 4 + 4 + 8 - 1);  // every plain profile placeable ("+me" folded)

// ---- layouts and validity ---------------------------------------------------------------
static_assert(mig_layout{{g3, 4}, {g4, 0}} == mig_layout{{g4, 0}, {g3, 4}});  // canonical order
static_assert(mig_layout{{g4, 0}, {g3, 4}}[0] == mig_instance{g4, 0});
static_assert(mig_valid(h100, {}));
static_assert(mig_valid(h100, {{g4, 0}, {g3, 4}}));
static_assert(mig_validate(h100, {{g3, 0}, {g4, 0}}).kind == mig_violation_kind::overlap);
static_assert(mig_validate(h100, {{g3, 2}}).kind == mig_violation_kind::bad_start);
static_assert(mig_validate(h100, {{g1, 7}}).kind == mig_violation_kind::bad_start);  // slice 7: only 7g, 3g@4, 1g.20gb@6
static_assert(mig_validate(h100, {{g1me, 0}, {g1me, 1}}).kind == mig_violation_kind::too_many_media);
static_assert(mig_validate(h100, {{static_cast<mig_profile_index>(9), 0}}).kind == mig_violation_kind::unknown_profile);
static_assert(mig_valid(h100, {{g1d, 0}, {g1d, 2}, {g1d, 4}, {g1d, 6}}));
static_assert(mig_valid(h100, {{g1, 0}, {g1, 1}, {g1, 2}, {g1, 3}, {g1, 4}, {g1, 5}, {g1me, 6}}));

TEST_CASE("mig: why a layout is invalid, in words") {
  auto e = mig_check(h100, {{g3, 0}, {g4, 0}});
  REQUIRE_FALSE(e);
  CHECK(e.error().field == "layout");
  CHECK(e.error().message == "4g.40gb@0 overlaps 3g.40gb@0 on memory slice(s) 0,1,2,3");
  CHECK(mig_describe(h100, mig_validate(h100, {{g3, 2}})) == "3g.40gb@2: 3g.40gb can start only at memory slice(s) 0,4");
  CHECK(mig_check(h100, {{g4, 0}, {g3, 4}}));
}

// ---- enumeration ------------------------------------------------------------------------
// Derived facts of the 8-slice table: 722 distinct placed layouts and 77 distinct profile multisets,
// counting +me as a plain 1g. Both counts leave out the empty layout (723 and 78 with it).
static_assert(mig_count_layouts(h100) == 723);
static_assert(mig_count_layouts(a100) == 723);
static_assert((*h100.options)[0] == 723);

TEST_CASE("mig: the 8-slice geometry has 722 placed layouts and 77 profile multisets (empty excluded)") {
  for (const mig_geometry& g : mig_geometries) {
    if (g.memory_slices != 8) continue;
    CAPTURE(g.model);
    const auto layouts = mig_enumerate_layouts(g);
    CHECK(layouts.size() == 723);
    CHECK(layouts.front().empty());
    std::set<mig_layout> distinct(layouts.begin(), layouts.end());
    CHECK(distinct.size() == layouts.size());
    std::set<std::uint64_t> multisets;  // packed profile counts
    for (const mig_layout& l : layouts) {
      CHECK(mig_valid(g, l));
      if (l.empty()) continue;
      std::uint64_t m = 0;
      for (const mig_instance& x : l) m += std::uint64_t{1} << (4U * x.profile);
      multisets.insert(m);
    }
    CHECK(layouts.size() - 1 == 722);
    CHECK(multisets.size() == 77);
  }
}

TEST_CASE("mig: enumeration is exactly the valid subsets of all placements (brute force)") {
  // Every (profile, start) the geometry allows; every subset of them checked by mig_validate.
  for (const mig_geometry* g : {&h100, &a30}) {
    for (mig_media media : {mig_media::fold, mig_media::distinct}) {
      std::vector<mig_instance> all;
      for (std::size_t p = 0; p < g->profiles.size(); ++p) {
        if (media == mig_media::fold && g->profiles[p].media_extensions) continue;
        for (int s = 0; s < g->memory_slices; ++s)
          if (g->profiles[p].can_start_at(s)) all.push_back({static_cast<mig_profile_index>(p), static_cast<std::uint8_t>(s)});
      }
      std::set<mig_layout> brute;
      for (std::uint32_t subset = 0; subset < (1U << all.size()); ++subset) {
        if (std::popcount(subset) > 8) continue;
        mig_layout l;
        for (std::size_t i = 0; i < all.size(); ++i)
          if (((subset >> i) & 1U) != 0) (void)l.add(all[i]);
        if (mig_valid(*g, l)) brute.insert(l);
      }
      const auto layouts = mig_enumerate_layouts(*g, media);
      CHECK(std::set<mig_layout>(layouts.begin(), layouts.end()) == brute);
      CHECK(layouts.size() == brute.size());
    }
  }
}

TEST_CASE("mig: A30 has 4 memory slices and its own layouts") {
  // 1g at 0..3, 2g at 0 and 2, 4g at 0 (nvidia-smi mig -lgipp on an A30). Layouts: empty;
  // 1g subsets of 4 slices mixed with 2g halves: each half is empty, one 1g, the other, both,
  // or a 2g (5 ways), so 5 x 5 = 25, plus the 4g: 26 (+me folded).
  CHECK(mig_count_layouts(a30) == 26);
  const mig_profile_index a1 = idx(a30, "1g.6gb");
  const mig_profile_index a2me = idx(a30, "2g.12gb+me");
  const mig_profile_index a1me = idx(a30, "1g.6gb+me");
  const mig_profile_index a4 = idx(a30, "4g.24gb");
  const std::array four1{a1, a1, a1, a1};
  CHECK(mig_fit(a30, {}, four1).fits());
  const std::array two_me{a2me, a1me};
  CHECK(mig_fit(a30, {}, two_me).status == mig_fit_status::too_many_media);
  const auto r = mig_fit(a30, {{a1, 1}}, {a4});
  CHECK(r.status == mig_fit_status::not_enough_memory);
}
}  // namespace

// Separate file-level static checks keep the count test above honest for A30.
static_assert(gpurent::mig_count_layouts(*gpurent::find_mig_geometry("A30")) == 26);

namespace {
using namespace gpurent;

// ---- fit: the vectors -----------------------------------------------------------
constexpr mig_fit_result fit_4g_3g = mig_fit(h100, {}, {g4, g3});
static_assert(fit_4g_3g.fits() && fit_4g_3g.starts[0] == 0 && fit_4g_3g.starts[1] == 4);
static_assert(mig_fit(h100, {}, {g3, g4}).starts[0] == 4);  // answers come in the order asked
static_assert(mig_fit(h100, {}, {g3, g3, g1}).status == mig_fit_status::not_enough_memory);
static_assert(mig_fit(h100, {{g3, 0}}, {g4}).status == mig_fit_status::no_arrangement);
static_assert(mig_fit(h100, {{g3, 4}}, {g4}).fits() && mig_fit(h100, {{g3, 4}}, {g4}).starts[0] == 0);
static_assert(mig_fit(h100, {}, {g1, g1, g1, g1, g1, g1, g1}).fits());
static_assert(mig_fit(h100, {}, {g1, g1, g1, g1, g1, g1, g1, g1}).status == mig_fit_status::too_many_of_profile);
static_assert(mig_fit(h100, {}, {g1d, g1d, g1d, g1d}).fits() && mig_fit(h100, {}, {g1d, g1d, g1d, g1d}).options == 1);
static_assert(mig_fit(h100, {}, {g1me, g1me}).status == mig_fit_status::too_many_media);
static_assert(mig_fit(h100, {{g1me, 3}}, {g1me}).status == mig_fit_status::too_many_media);
static_assert(mig_fit(h100, {{g3, 0}, {g4, 0}}, {g1}).status == mig_fit_status::invalid_layout);
static_assert(mig_fit(h100, {}, {g7}).fits() && mig_fit(h100, {{g1, 3}}, {g7}).status == mig_fit_status::not_enough_memory);
// 3g + 3g fits (@0, @4), then nothing else does.
static_assert(mig_fit(h100, {}, {g3, g3}).fits() && mig_fit(h100, {}, {g3, g3}).options == 1);
// The choice matters: a lone 3g goes to slice 4, which keeps 4g possible (38 layouts left
// against 19 after 3g@0).
static_assert(mig_fit(h100, {}, {g3}).starts[0] == 4 && mig_fit(h100, {}, {g3}).options == 38);
// A lone 1g leaves 228 layouts wherever it goes; at slices 4..6 both 4g and 3g (at 0) stay
// placeable (reach 13 against 9), and the lowest of those wins.
static_assert(mig_fit(h100, {}, {g1}).starts[0] == 4 && mig_fit(h100, {}, {g1}).options == 228);
static_assert((*h100.reach)[1U << 6] == 13 && (*h100.reach)[1U << 0] == 9);
static_assert(mig_fit(h100, mig_apply(mig_layout{}, std::array{g3}, mig_fit(h100, {}, {g3})), {g4}).fits());

TEST_CASE("mig: 4g + 3g fit only as 4g@0 + 3g@4") {
  int n = 0;
  for (const mig_layout& l : mig_enumerate_layouts(h100, mig_media::distinct))
    if (l.size() == 2 && l.contains({g4, 0}) && l[1].profile == g3) ++n;
  int any = 0;
  for (const mig_layout& l : mig_enumerate_layouts(h100, mig_media::distinct)) {
    const bool has4 = std::any_of(l.begin(), l.end(), [](mig_instance x) { return x.profile == g4; });
    const bool has3 = std::any_of(l.begin(), l.end(), [](mig_instance x) { return x.profile == g3; });
    if (has4 && has3) {
      ++any;
      CHECK(l.contains({g4, 0}));
      CHECK(l.contains({g3, 4}));
    }
  }
  CHECK(n == 1);
  CHECK(any == 1);
}

TEST_CASE("mig: reasons a fit fails, in words") {
  const auto explain = [](const mig_layout& have, std::vector<mig_profile_index> want) {
    return mig_explain(h100, have, want, mig_fit(h100, have, want));
  };
  CHECK(explain({{g3, 0}}, {g4}) == "4g.40gb can start only at memory slice(s) 0; 0 is blocked by 3g.40gb@0");
  CHECK(explain({}, {g3, g3, g1}) == "needs 9 memory slices; 8 of 8 memory slices free (0,1,2,3,4,5,6,7)");
  CHECK(explain({}, {g1me, g1me}) == "at most one +me instance per GPU; 0 present, 2 wanted");
  CHECK(explain({{g3, 0}}, {g3, g3}) == "at most 2 x 3g.40gb per GPU; 1 present, 2 wanted");
  CHECK(explain({{g1, 1}, {g1, 5}}, {g2, g2}) == "no arrangement of 2g.20gb + 2g.20gb fits the 6 of 8 memory slices free (0,2,3,4,6,7)");
  CHECK(explain({{g4, 0}}, {g3}) == "fits: 3g.40gb@4");
}

// ---- fit against brute force ------------------------------------------------------------
// For every valid layout (with +me as profiles of their own) and every want of one or two
// instances: fit succeeds exactly when some valid layout extends it by those instances, and
// then it picks a placement with the most options any such extension leaves.
TEST_CASE("mig: fit is exact and ranks by options left (brute force over all layouts)") {
  for (const mig_geometry* g : {&h100, &a30}) {
    const auto layouts = mig_enumerate_layouts(*g, mig_media::distinct);
    const auto mask_of = [&](const mig_layout& l) {
      unsigned m = 0;
      for (const mig_instance& x : l) m |= g->profiles[x.profile].occupancy(x.start);
      return m;
    };
    std::size_t checked = 0;
    for (const mig_layout& have : layouts) {
      // best[packed counts of the added profiles] = best (options, reach) over extensions of `have`
      std::map<std::uint64_t, int> best;
      for (const mig_layout& t : layouts) {
        if (t.size() < have.size() || t.size() > have.size() + 2) continue;
        if (!std::all_of(have.begin(), have.end(), [&](mig_instance x) { return t.contains(x); })) continue;
        std::uint64_t added = 0;
        for (const mig_instance& x : t)
          if (!have.contains(x)) added += std::uint64_t{1} << (4U * x.profile);
        int& b = best.try_emplace(added, -1).first->second;
        b = std::max(b, (*g->options)[mask_of(t)] * 256 + (*g->reach)[mask_of(t)]);
      }
      for (std::size_t p = 0; p < g->profiles.size(); ++p) {
        for (std::size_t q = p; q <= g->profiles.size(); ++q) {
          std::vector<mig_profile_index> want{static_cast<mig_profile_index>(p)};
          if (q < g->profiles.size()) want.push_back(static_cast<mig_profile_index>(q));
          const mig_fit_result r = mig_fit(*g, have, want);
          std::uint64_t key = 0;
          for (mig_profile_index w : want) key += std::uint64_t{1} << (4U * w);
          const auto it = best.find(key);
          CAPTURE(g->model);
          CAPTURE(mig_explain(*g, have, want, r));
          REQUIRE(r.fits() == (it != best.end()));
          ++checked;
          if (!r.fits()) continue;
          const mig_layout after = mig_apply(have, want, r);
          REQUIRE(mig_valid(*g, after));
          CHECK(r.options == (*g->options)[mask_of(after)]);
          CHECK(r.options * 256 + (*g->reach)[mask_of(after)] == it->second);
        }
      }
    }
    CHECK(checked > 0);
  }
}

// ---- repartition against brute force ----------------------------------------------------
using profile_counts = std::array<int, mig_max_slices>;

// The fewest existing instances any valid target destroys, over all valid layouts.
int brute_min_destroyed(const std::vector<mig_layout>& all, const mig_layout& have, std::span<const mig_profile_index> want,
                        mig_repartition_mode mode) {
  profile_counts w{};
  for (auto x : want) ++w[x];
  profile_counts need = w;  // move: the target holds have's profiles plus the wanted ones
  for (const mig_instance& x : have) ++need[x.profile];
  int best = -1;
  for (const mig_layout& t : all) {
    profile_counts in_t{};
    profile_counts kept_t{};
    for (const mig_instance& x : t) {
      ++in_t[x.profile];
      if (have.contains(x)) ++kept_t[x.profile];
    }
    bool ok = true;
    int kept = 0;
    for (std::size_t p = 0; p < mig_max_slices; ++p) {
      if (mode == mig_repartition_mode::move) {
        ok = ok && in_t[p] == need[p];
        kept += kept_t[p];  // instances left in place
      } else {
        // t = a kept subset of have + the wanted instances anywhere free
        ok = ok && in_t[p] >= w[p] && kept_t[p] >= in_t[p] - w[p];
        kept += in_t[p] - w[p];
      }
    }
    if (ok) best = std::max(best, kept);
  }
  return best < 0 ? -1 : static_cast<int>(have.size()) - best;
}

TEST_CASE("mig: repartition destroys as few instances as brute force finds, with a valid ordered plan") {
  const auto all = mig_enumerate_layouts(h100, mig_media::distinct);
  const std::vector<std::vector<mig_profile_index>> wants{{g4}, {g7}, {g3}, {g2, g2}, {g1d}, {g3, g1}, {g1me}, {g4, g3}, {g2, g1, g1}};
  std::size_t planned = 0;
  for (std::size_t k = 0; k < all.size(); k += 7) {
    const mig_layout& have = all[k];
    for (const auto& want : wants) {
      for (auto mode : {mig_repartition_mode::move, mig_repartition_mode::drop}) {
        CAPTURE(k);
        CAPTURE(static_cast<int>(mode));
        const int expect = brute_min_destroyed(all, have, want, mode);
        const auto plan = mig_plan_repartition(h100, have, want, mode);
        REQUIRE(plan.has_value() == (expect >= 0));
        if (!plan) {
          CHECK(plan.error().code == error_code::not_found);
          continue;
        }
        ++planned;
        CHECK(static_cast<int>(plan->destroyed) == expect);
        // Replay the plan: destroys first, every step valid, ending at the target.
        mig_layout cur = have;
        bool creating = false;
        std::size_t destroys = 0;
        for (const mig_operation& op : plan->operations) {
          if (op.kind == mig_op_kind::destroy) {
            CHECK_FALSE(creating);
            CHECK(cur.remove(op.instance));
            ++destroys;
          } else {
            creating = true;
            REQUIRE(cur.add(op.instance));
            REQUIRE(mig_valid(h100, cur));
          }
        }
        CHECK(destroys == plan->destroyed);
        CHECK(cur == plan->target);
        // The wanted instances sit where the plan says, on newly created instances.
        for (std::size_t i = 0; i < want.size(); ++i) CHECK(plan->target.contains({want[i], plan->starts[i]}));
        if (mode == mig_repartition_mode::move)
          CHECK(plan->target.size() == have.size() + want.size());
        else
          CHECK(plan->operations.size() == plan->destroyed + want.size());
        // When it fits as is, nothing is destroyed.
        if (mig_fit(h100, have, want).fits()) CHECK(plan->destroyed == 0);
      }
    }
  }
  CHECK(planned > 100);
}

TEST_CASE("mig: repartition examples: a 3g@0 in the way of a 4g") {
  // move: the 3g is destroyed and re-created at slice 4; then the 4g goes to 0.
  const auto moved = mig_plan_repartition(h100, {{g3, 0}}, std::array{g4});
  REQUIRE(moved);
  CHECK(moved->destroyed == 1);
  CHECK(moved->target == mig_layout{{g4, 0}, {g3, 4}});
  CHECK(moved->operations ==
        std::vector<mig_operation>{{mig_op_kind::destroy, {g3, 0}}, {mig_op_kind::create, {g4, 0}}, {mig_op_kind::create, {g3, 4}}});
  CHECK(moved->starts[0] == 0);
  // With a 1g at 4 as well, 4g + 3g + 1g need 9 slices: only dropping works.
  const mig_layout have{{g3, 0}, {g1, 4}};
  CHECK(mig_plan_repartition(h100, have, std::array{g4}).error().code == error_code::not_found);
  const auto dropped = mig_plan_repartition(h100, have, std::array{g4}, mig_repartition_mode::drop);
  REQUIRE(dropped);
  CHECK(dropped->operations == std::vector<mig_operation>{{mig_op_kind::destroy, {g3, 0}}, {mig_op_kind::create, {g4, 0}}});
  CHECK(dropped->starts[0] == 0);
  // Fits as is: no destroys, only the creates fit would make.
  const auto asis = mig_plan_repartition(h100, {{g3, 4}}, std::array{g4});
  REQUIRE(asis);
  CHECK(asis->operations == std::vector<mig_operation>{{mig_op_kind::create, {g4, 0}}});
  CHECK(mig_plan_repartition(h100, {{g7, 0}}, std::array{g1}, mig_repartition_mode::drop)->destroyed == 1);
  CHECK(mig_plan_repartition(h100, {{g3, 0}, {g4, 0}}, std::array{g1}).error().code == error_code::invalid_argument);
}
}  // namespace

// Regression for fuzz finding F1 (docs/reliability.md): two +me and an unknown profile on an
// A30. fit used to stop at too_many_media, and mig_explain then read profile #200 past the
// table. An unknown profile is now reported first.
TEST_CASE("mig: an unknown wanted profile is reported before any other rule (fuzz F1)") {
  const mig_geometry& g = *find_mig_geometry("A30");
  const mig_profile_index me = *g.find_profile("1g.6gb+me");
  const std::vector<mig_profile_index> want{me, me, 200};
  const mig_fit_result r = mig_fit(g, {}, want);
  CHECK(r.status == mig_fit_status::unknown_profile);
  CHECK(r.culprit == 200);
  CHECK(mig_explain(g, {}, want, r).find("does not exist") != std::string::npos);
}

}  // namespace test_spec_mig
