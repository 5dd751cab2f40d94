// SPDX-License-Identifier: MIT
// A placement request in the sharing vocabulary: described as a sharing mode, made from one,
// and the spot acceptance the matcher checks.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <type_traits>

#include <gpurent/matching/matching.hpp>
#include <gpurent/sharing/sharing.hpp>

namespace test_matching_request {
using namespace gpurent;

// The request stays a small regular value.
static_assert(std::is_trivially_copyable_v<placement_request>);
static_assert(!placement_request{}.accepts_spot);  // spot capacity only when asked for

constexpr placement_request shaped(std::int32_t n, std::int32_t milli, std::string_view mig = {}) {
  placement_request r;
  r.num_gpu = n;
  r.gpu_milli = milli_gpu(milli);
  r.mig_profile = mig;
  return r;
}
static_assert(shaped(1, 300).sharing() == sharing_kind::share);
static_assert(shaped(2, 1000).sharing() == sharing_kind::exclusive);
static_assert(shaped(1, 0, "3g.40gb").sharing() == sharing_kind::mig);
static_assert(shaped(0, 0).sharing() == sharing_kind::exclusive);
}  // namespace test_matching_request

TEST_CASE("request: described as a sharing mode") {
  using namespace test_matching_request;
  CHECK(*sharing_mode_of(shaped(1, 300)) == sharing_mode(*fractional_share::make(milli_gpu(300))));
  CHECK(*sharing_mode_of(shaped(4, 1000)) == sharing_mode(exclusive{}));
  CHECK(*sharing_mode_of(shaped(1, 0, "1g.10gb")) == sharing_mode(*mig_slice::make("1g.10gb")));
  const auto bad = sharing_mode_of(shaped(2, 500));  // a share spans one GPU only
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "request");
}

TEST_CASE("request: made from a sharing mode, and back") {
  using namespace test_matching_request;
  using namespace std::chrono_literals;
  const mig_slice slice = *mig_slice::make("3g.40gb");  // outlives the request that views it
  const sharing_mode modes[] = {exclusive{}, *fractional_share::make(milli_gpu(250)), slice};
  for (const sharing_mode& m : modes) {
    CAPTURE(to_string(m));
    const auto r = gpu_request(m);
    REQUIRE(r);
    CHECK(r->ok());
    CHECK(r->sharing() == kind_of(m));
    CHECK(*sharing_mode_of(*r) == m);
  }
  const auto four = gpu_request(exclusive{}, 4);
  REQUIRE(four);
  CHECK(four->gpu_request_milli() == 4000);
  // Preemptible capacity: whole GPUs, and the request accepts spot nodes.
  const auto spot = gpu_request(*preemptible::make(30s), 2);
  REQUIRE(spot);
  CHECK(spot->accepts_spot);
  CHECK(spot->num_gpu == 2);
  CHECK(gpu_request(*fractional_share::make(milli_gpu(250)), 2).error().field == "gpus");
  CHECK(gpu_request(exclusive{}, 17).error().field == "gpus");
  CHECK(gpu_request(*mps::make(50)).error().code == error_code::unsupported);
}

TEST_CASE("request: a spot node takes only requests that accept spot") {
  using namespace test_matching_request;
  inventory inv;
  const model_index t4 = inv.add_model({"T4", gib(16), {}});
  node_spec spot_node{"spot-0", milli_cpu(8000), mebibytes(65536), 1, t4, {}, {}, 0, no_tenant, true};
  inv.add_node(spot_node);
  matcher<policy_first_fit> m(inv);
  placement_request r = shaped(1, 1000);
  CHECK_FALSE(m.find(r));
  CHECK(m.explain(r).count("spot") == 1);
  r.accepts_spot = true;
  CHECK(m.find(r));
  const auto from_mode = gpu_request(*preemptible::make(std::chrono::seconds(120)));
  REQUIRE(from_mode);
  CHECK(m.find(*from_mode));
}
