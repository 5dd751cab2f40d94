// SPDX-License-Identifier: MIT
// fmt output of the MIG types.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <gpurent/spec/format.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_spec_mig_format {

TEST_CASE("mig: fmt formatters") {
  using namespace gpurent;
  const mig_geometry& g = *find_mig_geometry("H100-SXM5-80GB");
  const mig_profile_index p3 = *g.find_profile("3g.40gb");
  const mig_profile_index p4 = *g.find_profile("4g.40gb");
  CHECK(fmt::format("{}", g) == "H100-SXM5-80GB");
  CHECK(fmt::format("{:>9}", g.profiles[p3]) == "  3g.40gb");
  CHECK(fmt::format("{}", mig_show(g, mig_layout{{p3, 4}, {p4, 0}})) == "4g.40gb@0 3g.40gb@4");
  CHECK(fmt::format("{}", mig_show(g, mig_layout{})) == "empty");
  CHECK(fmt::format("{}", mig_show(g, mig_instance{p3, 4})) == "3g.40gb@4");
  CHECK(fmt::format("{}", mig_show(g, mig_operation{mig_op_kind::destroy, {p3, 0}})) == "destroy 3g.40gb@0");
  CHECK(fmt::format("{}", mig_fit(g, {{p3, 0}}, {p4}).status) == "no_arrangement");
}

}  // namespace test_spec_mig_format
