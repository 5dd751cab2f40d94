// SPDX-License-Identifier: MIT
// gpurent_simulate --seed N --steps K [--audit-every A]: runs the deterministic cluster and
// billing simulation (simulation.hpp). Prints the seed, what happened and a digest of the
// run; the same seed and steps always print the same digest. A violated invariant prints
// the step and what broke, and exits 1.

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

}  // namespace

int main(int argc, char** argv) {
  gpurent::sim::options o;
  std::uint64_t steps = 3000;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string_view v = argv[++i];
    bool ok = false;
    if (a == "--seed")
      ok = parse_u64(v, o.seed);
    else if (a == "--steps")
      ok = parse_u64(v, steps);
    else if (a == "--audit-every")
      ok = parse_u64(v, o.audit_every);
    if (!ok) return usage();
  }
  const auto t0 = std::chrono::steady_clock::now();
  gpurent::sim::simulation s(o);
  const auto v = gpurent::sim::run(s, steps);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (v) {
    std::printf("seed %llu: VIOLATION at step %llu: %s\n", static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(v->step),
                v->what.c_str());
    std::printf("replay: scripts/simulate --seed %llu --steps %llu\n", static_cast<unsigned long long>(o.seed),
                static_cast<unsigned long long>(v->step));
    return 1;
  }
  std::printf(
      "seed %llu steps %llu: %llu placements, %llu usage records (%llu deliveries), %llu months billed, %llu audits, "
      "%llu preemptions, %llu node failures, %llu jobs gave up waiting, simulated until %s, %.1f s\n",
      static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(s.steps()), static_cast<unsigned long long>(s.placements()),
      static_cast<unsigned long long>(s.records_emitted()), static_cast<unsigned long long>(s.deliveries()),
      static_cast<unsigned long long>(s.months_billed()), static_cast<unsigned long long>(s.audits()),
      static_cast<unsigned long long>(s.preemptions()), static_cast<unsigned long long>(s.failures()), static_cast<unsigned long long>(s.abandoned()),
      gpurent::format_instant(s.now()).c_str(), secs);
  std::printf("digest %016llx\n", static_cast<unsigned long long>(s.digest_value()));
  return 0;
}
