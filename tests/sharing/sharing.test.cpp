// SPDX-License-Identifier: MIT
// Sharing modes: validity at the boundary, text round trip, formatting.
#include <chrono>
#include <string>
#include <type_traits>
#include <variant>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <gpurent/sharing/format.hpp>
#include <gpurent/sharing/sharing.hpp>

namespace test_sharing_sharing {
using namespace gpurent;
using namespace std::chrono_literals;

// Modes with a number are made through `make` only; raw numbers do not convert.
static_assert(!std::is_constructible_v<fractional_share, milli_gpu>);
static_assert(!std::is_constructible_v<fractional_share, int>);
static_assert(!std::is_constructible_v<mps, int>);
static_assert(!std::is_constructible_v<preemptible, std::chrono::seconds>);
static_assert(!std::is_constructible_v<mig_slice, std::string>);
static_assert(std::is_nothrow_default_constructible_v<exclusive>);
static_assert(std::variant_size_v<sharing_mode> == 5);

static_assert(mig_slice::well_formed("3g.40gb"));
static_assert(mig_slice::well_formed("1g.10gb+me"));
static_assert(mig_slice::well_formed("7g.141gb"));
static_assert(!mig_slice::well_formed("3g40gb"));
static_assert(!mig_slice::well_formed("g.40gb"));
static_assert(!mig_slice::well_formed("3g.40gb+"));
static_assert(!mig_slice::well_formed(""));

// A mode's kind is its place in the variant, named as in the text form.
static_assert(kind_of(sharing_mode(exclusive{})) == sharing_kind::exclusive);
static_assert(SharingModeValue<mig_slice> && SharingModeValue<preemptible> && !SharingModeValue<sharing_mode> && !SharingModeValue<int>);

// What each mode isolates (NVIDIA's comparison, sharing/isolation.hpp).
static_assert(isolation_of(sharing_kind::mig).complete() && isolation_of(sharing_kind::exclusive).complete());
static_assert(isolation_of(sharing_kind::share) == isolation{});
static_assert(isolation_of(sharing_kind::mps).compute && !isolation_of(sharing_kind::mps).errors);
}  // namespace test_sharing_sharing

using namespace test_sharing_sharing;

TEST_CASE("fractional share: 1..1000 milli-GPU") {
  CHECK(fractional_share::make(milli_gpu(1)));
  CHECK(fractional_share::make(milli_gpu(470))->share() == milli_gpu(470));
  CHECK(fractional_share::make(whole_gpu));
  for (int bad : {0, -1, 1001, 5000}) {
    CAPTURE(bad);
    auto r = fractional_share::make(milli_gpu(bad));
    REQUIRE_FALSE(r);
    CHECK(r.error().field == "share");
    CHECK(r.error().code == error_code::invalid_argument);
  }
}

TEST_CASE("MPS: active thread percentage 1..100") {
  CHECK(mps::make(1));
  CHECK(mps::make(100)->active_thread_percentage() == 100);
  for (int bad : {0, -5, 101}) {
    CAPTURE(bad);
    auto r = mps::make(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == "active_thread_percentage");
  }
}

TEST_CASE("preemptible: the notice window is positive") {
  CHECK(preemptible::make(30s)->notice() == 30s);
  CHECK(preemptible::make(2min)->notice() == 120s);
  for (auto bad : {0s, -1s}) {
    auto r = preemptible::make(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == "notice");
  }
}

TEST_CASE("MIG slice: an NVIDIA profile name") {
  CHECK(mig_slice::make("3g.40gb")->profile() == "3g.40gb");
  auto r = mig_slice::make("three-g");
  REQUIRE_FALSE(r);
  CHECK(r.error().field == "profile");
}

TEST_CASE("sharing_mode: regular values, text round trip") {
  const sharing_mode modes[] = {exclusive{}, *fractional_share::make(milli_gpu(300)), *mig_slice::make("1g.10gb+me"), *mps::make(50),
                                *preemptible::make(30s)};
  const char* texts[] = {"exclusive", "share:300", "mig:1g.10gb+me", "mps:50", "preemptible:30s"};
  const char* names[] = {"exclusive", "share", "mig", "mps", "preemptible"};
  for (std::size_t i = 0; i < std::size(modes); ++i) {
    CAPTURE(i);
    CHECK(to_string(modes[i]) == texts[i]);
    CHECK(to_string(kind_of(modes[i])) == names[i]);
    CHECK(fmt::format("{}", kind_of(modes[i])) == names[i]);
    CHECK(fmt::format("{}", modes[i]) == texts[i]);
    auto parsed = parse_sharing_mode(texts[i]);
    REQUIRE(parsed);
    CHECK(*parsed == modes[i]);
    sharing_mode copy = modes[i];
    CHECK(copy == modes[i]);
  }
  CHECK(modes[1] != sharing_mode(*fractional_share::make(milli_gpu(301))));
  CHECK(*parse_sharing_mode("spot:120") == sharing_mode(*preemptible::make(120s)));
  CHECK(fmt::format("{:>12}", *mps::make(25)) == "      mps:25");
}

TEST_CASE("sharing_mode: bad text is an error naming the field") {
  struct bad_case {
    const char* text;
    const char* field;
  };
  const bad_case cases[] = {{"share:0", "share"},
                            {"share:1001", "share"},
                            {"share:abc", "share"},
                            {"share", "share"},
                            {"mps:0", "active_thread_percentage"},
                            {"mps:101", "active_thread_percentage"},
                            {"preemptible:0s", "notice"},
                            {"spot:-3", "notice"},
                            {"mig:3g", "profile"},
                            {"exclusive:1", "sharing_mode"},
                            {"timeslice", "sharing_mode"},
                            {"share:99999999999999999999", "share"}};
  for (const auto& c : cases) {
    CAPTURE(c.text);
    auto r = parse_sharing_mode(c.text);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == c.field);
  }
}

TEST_CASE("sharing_mode: each single mode formats as its variant does") {
  CHECK(fmt::format("{}", exclusive{}) == "exclusive");
  CHECK(fmt::format("{}", *fractional_share::make(milli_gpu(250))) == "share:250");
  CHECK(fmt::format("{}", *mig_slice::make("3g.40gb")) == "mig:3g.40gb");
  CHECK(fmt::format("{}", *preemptible::make(30s)) == "preemptible:30s");
}
