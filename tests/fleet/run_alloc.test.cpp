// SPDX-License-Identifier: MIT
// "No allocation per event on the hot path" (issue 17): the heap allocations of a whole
// `run_fleet` grow with the logarithm of its size (the run's vectors doubling), not with its
// events; a `fleet pack` makes one per job (the job's placements in the result) and its
// decisions none. Counted by replacing the global operator new in this test binary; a sanitizer
// build keeps its own allocator, and there the case only says so.
// (Until 2026-12-05 both victim policies sorted their candidates with std::stable_sort,
// which takes a heap buffer on each call: 1.2 million allocations for 4,000 pods under kube.)

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/fleet/generate.hpp>
#include <gpurent/matching/node/policy_gpurent.hpp>

#include "support/fleet_random.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPURENT_TEST_NO_COUNT 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GPURENT_TEST_NO_COUNT 1
#endif

namespace test_fleet_run_alloc {
// Counted only while `counting` is set (one thread: the run's).
std::int64_t allocations = 0;
bool counting = false;
}  // namespace test_fleet_run_alloc

#ifndef GPURENT_TEST_NO_COUNT
void* operator new(std::size_t n) {
  if (test_fleet_run_alloc::counting) ++test_fleet_run_alloc::allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace test_fleet_run_alloc {

using namespace gpurent;

// False, saying so, in a sanitizer build: there operator new is not replaced and nothing is counted.
bool can_count() {
#ifdef GPURENT_TEST_NO_COUNT
  MESSAGE("AddressSanitizer build: its allocator is not replaced, nothing is counted");
  return false;
#else
  return true;
#endif
}

// The heap allocations f() makes.
template <class F>
std::int64_t allocations_of(F&& f) {
  allocations = 0;
  counting = true;
  f();
  counting = false;
  return allocations;
}

struct counted {
  std::int64_t allocations = 0;
  std::size_t jobs = 0, segments = 0, preemptions = 0;
};

template <class Backend, VictimPolicy VP>
counted count_run(Backend& b, const std::vector<fleet_job>& jobs) {
  run_result r;
  const std::int64_t n = allocations_of([&] { r = run_fleet<VP, true>(b, jobs, run_options{}); });
  return {n, jobs.size(), r.segments.size(), r.preemptions};
}

template <VictimPolicy VP>
counted pods(int count) {
  std::mt19937_64 rng(7);
  fleet_cluster c = test::random_cluster(rng, 30);
  const std::vector<fleet_job> jobs = test::random_pods(rng, count);
  const shape_distribution shapes = shapes_of(jobs);
  matcher<policy_gpurent> b(c.inv, policy_context{&shapes, 0});
  return count_run<matcher<policy_gpurent>, VP>(b, jobs);
}

template <VictimPolicy VP>
counted gangs(std::int64_t days) {
  generate_options o;
  o.blocks = 16;
  o.load_pct = 120;
  o.horizon = seconds(days * 86400);
  o.seed = 3;
  auto f = generate_fleet(o);
  REQUIRE(f);
  gang_placer<gang_policy_gpurent> b(f->cluster.inv, f->cluster.topology, context_of(f->jobs, f->cluster));
  return count_run<gang_placer<gang_policy_gpurent>, VP>(b, f->jobs);
}

// The larger run may allocate a little more (its vectors double a few more times), nowhere
// near once per job, segment or preemption.
void grows_by_doubling(const counted& small, const counted& large) {
  INFO("jobs " << small.jobs << " -> " << large.jobs << ", segments " << small.segments << " -> " << large.segments << ", preemptions "
               << small.preemptions << " -> " << large.preemptions << ", allocations " << small.allocations << " -> " << large.allocations);
  REQUIRE(large.preemptions > 8 * small.preemptions / 2);  // both contended, the larger far more
  CHECK(large.allocations - small.allocations <= 200 + static_cast<std::int64_t>(large.jobs - small.jobs) / 100);
}

TEST_CASE("fleet run: allocations grow with the log of the run, not per event (pods, both victim policies)") {
  if (!can_count()) return;
  grows_by_doubling(pods<victim_policy_kube>(2000), pods<victim_policy_kube>(16000));
  grows_by_doubling(pods<victim_policy_gpurent>(2000), pods<victim_policy_gpurent>(16000));
}

TEST_CASE("fleet run: allocations grow with the log of the run, not per event (gangs on a generated NVL72 fleet)") {
  if (!can_count()) return;
  grows_by_doubling(gangs<victim_policy_kube>(7), gangs<victim_policy_kube>(56));
  grows_by_doubling(gangs<victim_policy_gpurent>(7), gangs<victim_policy_gpurent>(56));
}

TEST_CASE("fleet pack: one allocation per job (its placements), none per decision") {
  if (!can_count()) return;
  const auto packed = [](std::int32_t blocks) {
    generate_options o;
    o.blocks = blocks;
    o.seed = 3;
    auto f = generate_fleet(o);
    REQUIRE(f);
    const gang_context ctx = context_of(f->jobs, f->cluster);
    pack_result r;
    const std::int64_t n = allocations_of([&] { r = pack<gang_policy_gpurent>(f->cluster, f->jobs, pack_options{}, ctx); });
    return counted{n, r.jobs, 0, 0};
  };
  const counted small = packed(25), large = packed(200);
  INFO("jobs " << small.jobs << " -> " << large.jobs << ", allocations " << small.allocations << " -> " << large.allocations);
  REQUIRE(large.jobs > 8 * small.jobs);
  CHECK(large.allocations - small.allocations <= static_cast<std::int64_t>(large.jobs - small.jobs) + 200);
}

}  // namespace test_fleet_run_alloc
