// SPDX-License-Identifier: MIT
// Bad configuration is the caller's error, never a stopped program or a silent downgrade: a
// node the inventory cannot take (MIG mode on a model without MIG geometry, too many GPUs,
// an unknown model or segment) is an error naming the node (try_add_node; add_node throws
// it), and a matcher of a policy that plans for the workload (fgd, gpurent) cannot be built
// without the context that names the workload.

#include <doctest/doctest.h>

#include <concepts>
#include <string>

#include <gpurent/matching/matching.hpp>

// Named, not anonymous: the layer's tests are also built as one unity translation unit.
namespace test_matching_configuration {
using namespace gpurent;

node_spec node(std::string name, std::uint8_t gpus, model_index model) {
  node_spec s;
  s.name = std::move(name);
  s.cpu_milli = milli_cpu(64000);
  s.memory_mib = mebibytes(262144);
  s.gpu_count = gpus;
  s.model = model;
  return s;
}

TEST_CASE("a MIG-mode node on a model without MIG geometry is an error naming the node and the model") {
  inventory inv;
  const model_index t4 = inv.add_model({"T4", gib(16), {}});  // no MIG geometry
  node_spec s = node("edge-7", 2, t4);
  s.mig_gpus = 0b01;
  const auto r = inv.try_add_node(s);
  REQUIRE_FALSE(r);
  CHECK(r.error().field == "mig_gpus");
  CHECK(r.error().describe().find("edge-7") != std::string::npos);
  CHECK(r.error().describe().find("\"T4\"") != std::string::npos);
  CHECK(inv.size() == 0);  // nothing half added
  // add_node reports the same error as an exception, never an abort of the host.
  try {
    (void)inv.add_node(s);
    FAIL("add_node accepted a MIG-mode GPU without MIG geometry");
  } catch (const gpurent::exception& e) {
    CHECK(e.err() == r.error());
  }
  CHECK(inv.size() == 0);
  // The same node on a model with MIG geometry is fine.
  const model_index a100 = inv.add_model({"A100-SXM4-80GB", gib(80), {}, find_mig_geometry("A100-SXM4-80GB")});
  s.model = a100;
  const auto ok = inv.try_add_node(s);
  REQUIRE(ok);
  CHECK(*ok == 0);
}

TEST_CASE("the other node errors: too many GPUs, MIG bits past the GPUs, an unknown model or segment") {
  inventory inv;
  inv.add_model({"H100", gib(80), {}});
  CHECK(inv.try_add_node(node("big", 17, 0)).error().field == "gpu_count");
  CHECK(inv.try_add_node(node("nomodel", 2, 3)).error().field == "model");
  node_spec mig = node("ghost", 2, 0);
  mig.mig_gpus = 0b100;  // GPU 2 of a 2-GPU node
  CHECK(inv.try_add_node(mig).error().field == "mig_gpus");
  node_spec seg = node("stray", 2, 0);
  seg.segment = 5;  // never interned
  CHECK(inv.try_add_node(seg).error().field == "segment");
  CHECK_THROWS_AS(inv.add_node(seg), gpurent::exception);
  CHECK(inv.size() == 0);
  CHECK(inv.try_add_node(node("fine", 8, 0)).has_value());
  CHECK(inv.try_add_node(node("cpu-only", 0, 9)).has_value());  // no GPUs: the model is not read
}

// Compile-time: a policy that plans for the workload has no matcher without a context.
template <class P>
constexpr bool builds_without_context = std::constructible_from<matcher<P>, inventory&>;

TEST_CASE("matcher<policy_gpurent> (and fgd) needs a policy_context: without one it does not compile") {
  CHECK_FALSE(builds_without_context<policy_gpurent>);
  CHECK_FALSE(builds_without_context<policy_fgd>);
  CHECK(std::constructible_from<matcher<policy_gpurent>, inventory&, const policy_context&>);
  CHECK(builds_without_context<policy_best_fit>);
  CHECK(builds_without_context<policy_first_fit>);
  static_assert(WorkloadAware<policy_gpurent> && WorkloadAware<policy_fgd> && !WorkloadAware<policy_best_fit> && !WorkloadAware<policy_random>);
}

}  // namespace test_matching_configuration
