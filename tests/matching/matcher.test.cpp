// SPDX-License-Identifier: MIT
// The matcher on small hand-made clusters: policies, gangs, NVLink domains, tenant
// isolation, labels, drain and release, and why-not explanations.

#include <doctest/doctest.h>

#include <array>
#include <vector>

#include <gpurent/matching/format.hpp>
#include <gpurent/matching/matching.hpp>

using namespace gpurent;

// Named, not anonymous, and around the test cases too: the layer's tests are also built as
// one unity translation unit, where every file's helpers would meet.
namespace matcher_test {

// A policy archetype: models exactly PlacementPolicy and nothing more.
struct archetype_policy {
  static constexpr std::string_view name = "archetype";
  struct state {
    state(const inventory&, const policy_context&) {}
  };
  static void prepare(state&, const inventory&, const placement_request&) {}
  static std::int64_t score(state&, const inventory&, node_index, const placement_request&) noexcept { return 0; }
  static void choose_gpus(state&, const inventory& inv, node_index n, const placement_request& r, gpu_pick& p) noexcept {
    (void)pick_first_gpus(inv, n, r, p);
  }
};
static_assert(PlacementPolicy<archetype_policy>);
static_assert(PlacementPolicy<policy_best_fit> && PlacementPolicy<policy_fgd> && PlacementPolicy<policy_gpurent>);
static_assert(PlacementPolicy<policy_random> && PlacementPolicy<policy_dot_product> && PlacementPolicy<policy_first_fit>);
static_assert(!PlacementPolicy<int>);

// A constraint archetype, and a user constraint composed into the default set.
struct archetype_constraint {
  static constexpr std::string_view name = "archetype";
  static bool admits(const inventory&, node_index, const placement_request&) noexcept { return true; }
  static std::string describe(const placement_request&) { return "never"; }
};
static_assert(Constraint<archetype_constraint>);
struct not_node_zero {
  static constexpr std::string_view name = "not-zero";
  static bool admits(const inventory&, node_index n, const placement_request&) noexcept { return n != 0; }
  static std::string describe(const placement_request&) { return "are node zero"; }
};
static_assert(ConstraintSet<default_constraints::with<not_node_zero>>);

node_spec node(std::string name, std::uint8_t gpus, model_index model = 0, std::int64_t cpu = 64000) {
  node_spec s;
  s.name = std::move(name);
  s.cpu_milli = milli_cpu(cpu);
  s.memory_mib = mebibytes(262144);
  s.gpu_count = gpus;
  s.model = model;
  return s;
}

placement_request whole(std::int32_t k, std::int64_t cpu = 1000) {
  placement_request r;
  r.num_gpu = k;
  r.gpu_milli = milli_gpu(1000);
  r.cpu_milli = milli_cpu(cpu);
  return r;
}

placement_request share(std::int32_t milli, std::int64_t cpu = 1000) {
  placement_request r;
  r.num_gpu = 1;
  r.gpu_milli = milli_gpu(milli);
  r.cpu_milli = milli_cpu(cpu);
  return r;
}

TEST_CASE("best-fit packs a share onto the tightest GPU and node") {
  inventory inv;
  inv.add_model({"A100", gib(80), tflops_milli(312000)});
  inv.add_node(node("a", 2));
  inv.add_node(node("b", 2));
  matcher<policy_best_fit> m(inv);
  auto p1 = m.place(share(600));
  REQUIRE(p1);
  CHECK(p1->node == 0);
  auto p2 = m.place(share(300));
  REQUIRE(p2);
  CHECK(p2->node == 0);
  CHECK(p2->gpus[0].gpu == p1->gpus[0].gpu);  // 400 idle beats 1000 idle
  CHECK(inv.gpu_allocated_milli() == 900);
  m.release(*p1);
  m.release(*p2);
  CHECK(inv.gpu_allocated_milli() == 0);
  CHECK(inv.state(0).full_idle == 2);
}

TEST_CASE("whole GPUs need fully idle GPUs on one node") {
  inventory inv;
  inv.add_model({"T4", gib(16), {}});
  inv.add_node(node("a", 2));
  inv.add_node(node("b", 2));
  matcher<policy_first_fit> m(inv);
  REQUIRE(m.place(share(100)));  // node a, GPU 0
  auto p = m.place(whole(2));
  REQUIRE(p);
  CHECK(p->node == 1);
  CHECK_FALSE(m.find(whole(2)));
  const constraint_counts w = m.explain(whole(2));
  CHECK(w.feasible == 0);
  CHECK(w.count("gpus") == 2);
  CHECK(w.summary() == "0 of 2 nodes fit: 2 lack 2 idle GPUs");
}

TEST_CASE("NVLink domains: all GPUs of a request in one domain") {
  inventory inv;
  inv.add_model({"H100", gib(80), {}});
  node_spec s = node("dgx", 8);
  for (std::size_t g = 0; g < 8; ++g) s.nvlink_domain[g] = static_cast<std::uint8_t>(g / 4);  // two domains of 4
  inv.add_node(s);
  matcher<policy_first_fit> m(inv);
  REQUIRE(m.place(whole(1)));  // GPU 0 (domain 0)
  placement_request r = whole(4);
  r.locality = gpu_locality::same_nvlink_domain;
  auto p = m.place(r);
  REQUIRE(p);
  REQUIRE(p->count == 4);
  for (std::size_t i = 0; i < 4; ++i) CHECK(p->gpus[i].gpu >= 4);  // domain 1
  // 3 GPUs left in domain 0: a second 4-GPU request does not fit, 3 do not span domains.
  CHECK_FALSE(m.find(r));
  const constraint_counts w = m.explain(r);
  CHECK(w.summary() == "0 of 1 nodes fit: 1 lack 4 idle GPUs in one NVLink domain");
  placement_request any3 = whole(3);
  any3.locality = gpu_locality::same_nvlink_domain;
  CHECK(m.find(any3));
}

TEST_CASE("tenant isolation: no two tenants on one physical GPU; reserved nodes") {
  inventory inv;
  inv.add_model({"L4", gib(24), {}});
  inv.add_node(node("a", 1));
  node_spec b = node("b", 1);
  b.reserved_for = 7;
  inv.add_node(b);
  matcher<policy_first_fit> m(inv);
  placement_request x = share(300);
  x.tenant = 1;
  auto p = m.place(x);
  REQUIRE(p);
  CHECK(p->node == 0);
  placement_request y = share(300);
  y.tenant = 2;
  CHECK_FALSE(m.find(y));  // a's GPU is tenant 1's, b is reserved for 7
  const constraint_counts w = m.explain(y);
  CHECK(w.count("reserved") == 1);
  CHECK(w.count("gpus") == 1);
  CHECK(w.summary() == "0 of 2 nodes fit: 1 are reserved for another tenant, 1 lack a GPU with 300 milli idle (for this tenant)");
  x.tenant = 1;
  CHECK(m.find(x));  // the same tenant may share its GPU
  y.tenant = 7;
  auto q = m.place(y);
  REQUIRE(q);
  CHECK(q->node == 1);
  m.release(*p);
  y.tenant = 2;
  CHECK(m.find(y));  // the GPU is free again, so no longer tenant 1's
}

TEST_CASE("labels, models, VRAM minimums, spot and drain are constraints with counts") {
  inventory inv;
  const model_index t4 = inv.add_model({"T4", gib(16), tflops_milli(65000)});
  const model_index a100 = inv.add_model({"A100", gib(80), tflops_milli(312000)});
  const label_mask eu = inv.label("region=eu");
  node_spec n0 = node("t4-eu", 1, t4);
  n0.labels = eu;
  inv.add_node(n0);
  inv.add_node(node("a100-us", 1, a100));
  node_spec n2 = node("a100-eu-spot", 1, a100);
  n2.labels = eu;
  n2.spot = true;
  inv.add_node(n2);
  node_spec n3 = node("a100-eu", 1, a100);
  n3.labels = eu;
  inv.add_node(n3);
  matcher<policy_first_fit> m(inv);
  placement_request r = whole(1);
  r.required_labels = eu;
  r.min_vram = gib(40);
  auto p = m.find(r);
  REQUIRE(p);
  CHECK(p->node == 3);
  inv.set_condition(3, node_condition::drain);
  CHECK_FALSE(m.find(r));
  const constraint_counts w = m.explain(r);
  CHECK(w.count("drained") == 1);
  CHECK(w.count("labels") == 1);
  CHECK(w.count("spot") == 1);
  CHECK(w.count("gpu-spec") == 1);
  r.accepts_spot = true;
  auto q = m.find(r);
  REQUIRE(q);
  CHECK(q->node == 2);
  inv.set_condition(3, node_condition::up);
  r.allowed_models = model_mask{1} << t4;
  r.min_vram = bytes(0);
  auto t = m.find(r);
  REQUIRE(t);
  CHECK(t->node == 0);
  // A user constraint composes with the defaults and is counted like them.
  matcher<policy_first_fit, default_constraints::with<not_node_zero>> mz(inv);
  CHECK_FALSE(mz.find(r));
  CHECK(mz.explain(r).count("not-zero") == 1);
}

TEST_CASE("gangs are all or nothing") {
  inventory inv;
  inv.add_model({"H100", gib(80), {}});
  inv.add_node(node("a", 4));
  inv.add_node(node("b", 4));
  // Gangs are the gang placer's (gang.hpp); with no topology it places them on the nodes.
  cluster_topology flat = *cluster_topology::make({}, inv.size());
  gang_placer<gang_policy_best_fit> gp(inv, flat);
  const std::array<placement_request, 3> too_big{whole(4), whole(4), whole(1)};
  gang_request g;
  g.members = too_big;
  std::vector<placement> out;
  REQUIRE_FALSE(gp.place(g, 1, out));
  CHECK(out.empty());
  CHECK(inv.gpu_allocated_milli() == 0);
  CHECK(gp.explain(g).summary().find("no arrangement of the 3 members fits") == 0);
  const std::array<placement_request, 3> fits{whole(4), whole(2), share(500)};
  g.members = fits;
  REQUIRE(gp.place(g, 2, out));
  CHECK(out.size() == 3);
  CHECK(inv.gpu_allocated_milli() == 6500);
  // The node matcher refuses a job of several members, and says whose it is.
  matcher<policy_best_fit> m(inv);
  CHECK_FALSE(m.place(g, 3, out));
  CHECK(m.explain(g).summary().find("is the gang placer's") != std::string::npos);
}

TEST_CASE("batches go by priority, then arrival") {
  inventory inv;
  inv.add_model({"H100", gib(80), {}});
  inv.add_node(node("a", 1));
  matcher<policy_first_fit> m(inv);
  placement_request lo = whole(1);
  placement_request hi = whole(1);
  hi.priority = 5;
  const std::array<placement_request, 2> rs{lo, hi};
  auto out = m.place_batch(rs);
  CHECK_FALSE(out[0]);
  CHECK(out[1]);
}

TEST_CASE("invalid requests never place") {
  inventory inv;
  inv.add_model({"H100", gib(80), {}});
  inv.add_node(node("a", 8));
  const std::array<placement_request, 1> workload{whole(1)};
  const shape_distribution shapes = shape_distribution::of(workload);
  matcher<policy_gpurent> m(inv, policy_context{&shapes, 0});
  placement_request neg = whole(1);
  neg.cpu_milli = milli_cpu(-1);
  CHECK_FALSE(neg.ok());
  CHECK_FALSE(m.find(neg));
  placement_request half2;
  half2.num_gpu = 2;
  half2.gpu_milli = milli_gpu(500);
  CHECK_FALSE(half2.ok());
  CHECK_FALSE(m.find(half2));
}

TEST_CASE("every policy places on a small cluster and respects capacity") {
  inventory base;
  base.add_model({"G2", {}, {}});
  for (int i = 0; i < 6; ++i) base.add_node(node("n" + std::to_string(i), static_cast<std::uint8_t>(i % 2 == 0 ? 8 : 2), 0, 96000));
  std::vector<placement_request> tasks;
  for (int i = 0; i < 60; ++i) tasks.push_back(i % 3 == 0 ? whole(1 + i % 2, 8000) : share(100 + 70 * (i % 12), 2000));
  shape_distribution d = shape_distribution::of(tasks);
  builtin_policies::visit("fgd", [&]<class P>() { CHECK(P::name == "fgd"); });
  for (std::string_view name : builtin_policies::names) {
    CAPTURE(name);
    inventory inv = base;
    const bool known = builtin_policies::visit(name, [&]<class P>() {
      matcher<P> m(inv, policy_context{&d, 42});
      for (const auto& t : tasks) (void)m.place(t);
    });
    CHECK(known);
    for (node_index n = 0; n < inv.size(); ++n) {
      CHECK(inv.state(n).cpu_free.count() >= 0);
      for (std::size_t g = 0; g < inv.spec(n).gpu_count; ++g) CHECK(inv.state(n).idle[g] >= 0);
    }
    CHECK(inv.gpu_allocated_milli() > 0);
  }
  CHECK_FALSE(builtin_policies::visit("nope", []<class P>() {}));
}

TEST_CASE("formatters") {
  placement p;
  p.node = 3;
  p.count = 2;
  p.gpus[0] = {0, 1000};
  p.gpus[1] = {1, 1000};
  CHECK(fmt::format("{}", p) == "node 3 gpus 0:1000;1:1000");
  CHECK(fmt::format("{}", placement{}) == "unplaced");
  placement_request r;
  r.num_gpu = 4;
  r.gpu_milli = milli_gpu(1000);
  r.cpu_milli = milli_cpu(8000);
  r.locality = gpu_locality::same_nvlink_domain;
  CHECK(fmt::format("{}", r) == "4x1000m cpu=8000 mem=0MiB same-nvlink");
  constraint_counts w;
  w.nodes = 2;
  CHECK(fmt::format("{}", w) == "0 of 2 nodes fit");
}

TEST_CASE("MIG slot placement uses the MIG geometry's fit") {
  inventory inv;
  const mig_geometry* geo = find_mig_geometry("A100-SXM4-80GB");
  REQUIRE(geo != nullptr);
  const model_index a100 = inv.add_model({"A100-SXM4-80GB", gib(80), {}, geo});
  node_spec s = node("mig-node", 2, a100);
  s.mig_gpus = 0b01;  // GPU 0 in MIG mode, GPU 1 plain
  inv.add_node(s);
  CHECK(inv.gpu_capacity_milli() == 1000);  // the MIG GPU's capacity is slices
  const std::array<placement_request, 1> workload{whole(1)};
  const shape_distribution shapes = shape_distribution::of(workload);
  matcher<policy_gpurent> m(inv, policy_context{&shapes, 0});
  placement_request r;
  r.num_gpu = 1;
  r.mig_profile = "3g.40gb";
  r.cpu_milli = milli_cpu(1000);
  REQUIRE(r.ok());
  auto a = m.place(r);
  REQUIRE(a);
  CHECK(a->gpus[0].gpu == 0);
  CHECK(a->gpus[0].mig_start >= 0);
  auto b = m.place(r);
  REQUIRE(b);
  CHECK(b->gpus[0].mig_start != a->gpus[0].mig_start);
  CHECK(mig_valid(*geo, inv.mig(0, 0)));
  CHECK(inv.mig(0, 0).size() == 2);
  // Full now: a third 3g.40gb does not fit, and says so per constraint.
  CHECK_FALSE(m.find(r));
  const constraint_counts w = m.explain(r);
  CHECK(w.count("mig") == 1);
  CHECK(w.summary() == "0 of 1 nodes fit: 1 have no MIG-mode GPU with room for a 3g.40gb instance");
  // Whole and shared requests never land on the MIG-mode GPU.
  auto wgpu = m.place(whole(1));
  REQUIRE(wgpu);
  CHECK(wgpu->gpus[0].gpu == 1);
  CHECK_FALSE(m.find(share(100)));
  // Release frees the slices.
  m.release(*a);
  CHECK(inv.mig(0, 0).size() == 1);
  CHECK(m.find(r));
  placement_request unknown = r;
  unknown.mig_profile = "9g.99gb";
  CHECK_FALSE(m.find(unknown));
}

}  // namespace matcher_test
