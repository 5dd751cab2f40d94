// SPDX-License-Identifier: MIT
// The simulation is deterministic: the same seed gives the same digest, another seed
// another run; and a short run keeps every invariant.

#include <doctest/doctest.h>

#include "simulation.hpp"

namespace {

std::uint64_t digest_of(std::uint64_t seed, std::uint64_t steps) {
  gpurent::sim::simulation s(gpurent::sim::options{seed, 100});
  const auto v = gpurent::sim::run(s, steps);
  INFO("seed " << seed << ": " << (v ? v->what : std::string("ok")));
  CHECK_FALSE(v.has_value());
  return s.digest_value();
}

}  // namespace

TEST_CASE("simulation: same seed, same digest") {
  CHECK(digest_of(1, 600) == digest_of(1, 600));
  CHECK(digest_of(7, 600) == digest_of(7, 600));
}

TEST_CASE("simulation: seeds differ") { CHECK(digest_of(1, 600) != digest_of(2, 600)); }
