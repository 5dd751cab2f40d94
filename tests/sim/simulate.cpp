// SPDX-License-Identifier: MIT
// gpurent_simulate --seed N --steps K [--audit-every A]: the deterministic simulation
// (simulation.hpp): the scenario of seed N with K job arrivals, run through `run_fleet` six
// times (node matcher and gang placer, victims none, kube and gpurent), each run checked by
// the run oracle and billed; A delivery batches between billing audits (default 10). Prints
// what happened and the digest (the same seed and steps always print the same digest); a
// violated invariant prints the run and what broke, and exits 1.

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "simulation.hpp"

namespace {

bool parse_u64(std::string_view s, std::uint64_t& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

int usage() {
  std::fprintf(stderr, "usage: gpurent_simulate --seed N --steps K [--audit-every A]\n");
  return 2;
}

using ull = unsigned long long;

void print(const gpurent::sim::options& o, const gpurent::sim::report& r, double secs) {
  std::printf(
      "seed %llu steps %llu: %llu jobs on %llu nodes, %llu node events; %llu runs: %llu segments, %llu preemptions, %llu failures, "
      "%llu never started; %llu usage records (%llu deliveries), %llu months billed, %llu audits; last run ends %s; %.1f s\n",
      static_cast<ull>(o.seed), static_cast<ull>(o.steps), static_cast<ull>(r.jobs), static_cast<ull>(r.nodes), static_cast<ull>(r.node_events),
      static_cast<ull>(r.runs), static_cast<ull>(r.segments), static_cast<ull>(r.preemptions), static_cast<ull>(r.failures),
      static_cast<ull>(r.never_started), static_cast<ull>(r.usage_records), static_cast<ull>(r.deliveries), static_cast<ull>(r.months_billed),
      static_cast<ull>(r.audits), gpurent::format_instant(r.epoch + gpurent::seconds(r.last_end)).c_str(), secs);
  std::printf("digest %016llx\n", static_cast<ull>(r.digest));
}

}  // namespace

int main(int argc, char** argv) {
  gpurent::sim::options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string_view v = argv[++i];
    bool ok = false;
    if (a == "--seed")
      ok = parse_u64(v, o.seed);
    else if (a == "--steps")
      ok = parse_u64(v, o.steps);
    else if (a == "--audit-every")
      ok = parse_u64(v, o.audit_every);
    if (!ok) return usage();
  }
  const auto t0 = std::chrono::steady_clock::now();
  const gpurent::sim::report r = gpurent::sim::simulate(o);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.violation.empty()) {
    std::printf("seed %llu: VIOLATION in the run of the %s: %s\n", static_cast<ull>(o.seed), r.where.c_str(), r.violation.c_str());
    std::printf("replay: scripts/simulate --seed %llu --steps %llu\n", static_cast<ull>(o.seed), static_cast<ull>(o.steps));
    return 1;
  }
  print(o, r, secs);
  return 0;
}
