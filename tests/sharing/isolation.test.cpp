// SPDX-License-Identifier: MIT
// Isolation levels: their names, their order, and which sharing modes keep a GPU apart from
// strangers (MIG does, time slicing and MPS do not).
#include <doctest/doctest.h>

#include <gpurent/sharing/isolation.hpp>

namespace test_sharing_isolation {
using namespace gpurent;

static_assert(isolation_level::none < isolation_level::gpu && isolation_level::gpu < isolation_level::node &&
              isolation_level::node < isolation_level::network);

TEST_CASE("isolation levels: names both ways, each level includes the ones before") {
  CHECK(to_string(isolation_level::network) == "network");
  CHECK(parse_enum<isolation_level>("node") == isolation_level::node);
  CHECK_FALSE(parse_enum<isolation_level>("rack"));
  CHECK(enum_choices<isolation_level>() == "none, gpu, node or network");
}

TEST_CASE("level_of: MIG and a whole GPU isolate from strangers; a time-sliced share and MPS do not") {
  CHECK(level_of(sharing_kind::exclusive) == isolation_level::gpu);
  CHECK(level_of(sharing_kind::preemptible) == isolation_level::gpu);
  CHECK(level_of(sharing_kind::mig) == isolation_level::gpu);
  CHECK(level_of(sharing_kind::share) == isolation_level::none);
  CHECK(level_of(sharing_kind::mps) == isolation_level::none);
  // MPS keeps memory apart but not bandwidth or faults: not enough for a stranger next door.
  CHECK(isolation_of(sharing_kind::mps).memory_protection);
  CHECK_FALSE(isolation_of(sharing_kind::mps).errors);
}

}  // namespace test_sharing_isolation
