// SPDX-License-Identifier: MIT
// Fuzz target: the matcher under a fuzz-chosen cluster, policy (every built-in one) and
// sequence of place / release / drain / undrain / gang / batch / add-node operations. After
// every operation the inventory is checked against an independent model
// (tests/sim/oracle.hpp): no CPU, memory or GPU share over capacity, shares on a GPU sum to
// at most 1000, whole-GPU tasks only on idle GPUs, tenants never share a GPU, summaries
// fresh, and release restores exactly what place took. A request the matcher refuses must
// fit nowhere; a failed gang leaves nothing behind.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gpurent/matching/matching.hpp>

#include "../sim/oracle.hpp"
#include "fuzz.hpp"

namespace {

using namespace gpurent;
using gpurent_fuzz::bytes_reader;

constexpr std::size_t max_nodes = 10;

void add_random_node(inventory& inv, bytes_reader& in) {
  node_spec s;
  s.name = "n" + std::to_string(inv.size());
  constexpr std::uint8_t gpu_counts[] = {0, 1, 2, 4, 8, 8, 16, 3};
  s.gpu_count = gpu_counts[in.below(8)];
  s.model = static_cast<model_index>(in.below(2));
  const std::uint32_t domain_size = 1U << in.below(4);  // 1, 2, 4, 8 GPUs per NVLink domain
  for (std::size_t g = 0; g < max_gpus_per_node; ++g) {
    s.nvlink_domain[g] = static_cast<std::uint8_t>(g / domain_size);
    s.pcie_switch[g] = static_cast<std::uint8_t>(g / 2);
  }
  s.cpu_milli = milli_cpu(std::int64_t{8000} * (1 + in.below(16)));
  s.memory_mib = mebibytes(std::int64_t{16384} * (1 + in.below(32)));
  s.labels = in.below(4);
  const std::uint8_t flags = in.byte();
  s.spot = (flags & 3U) == 0;
  s.reserved_for = (flags & 12U) == 0 ? tenant_id{1} : no_tenant;
  (void)inv.add_node(std::move(s));
}

placement_request random_request(bytes_reader& in) {
  placement_request r;
  const std::uint8_t kind = in.byte();
  switch (kind % 8) {
    case 0: break;  // CPU-only
    case 1:
    case 2:
      r.num_gpu = 1;
      r.gpu_milli = milli_gpu(static_cast<std::int32_t>(1 + in.below(999)));
      break;
    case 3:
      r.num_gpu = 1;
      r.gpu_milli = whole_gpu;
      break;
    case 4:
    case 5:
      r.num_gpu = static_cast<std::int32_t>(2 + in.below(7));
      r.gpu_milli = whole_gpu;
      break;
    case 6:
      r.num_gpu = static_cast<std::int32_t>(in.below(18));
      r.gpu_milli = milli_gpu(static_cast<std::int32_t>(in.below(1002)));
      break;
    default:
      r.num_gpu = 1;
      r.gpu_milli = milli_gpu(static_cast<std::int32_t>(in.below(4) * 250 + 250));
      break;
  }
  r.cpu_milli = milli_cpu(std::int64_t{1000} * in.below(33));
  r.memory_mib = mebibytes(std::int64_t{4096} * in.below(65));
  const std::uint8_t f = in.byte();
  r.allowed_models = (f & 3U) == 0 ? model_mask{1} << (f >> 2 & 1U) : any_model;
  r.min_vram = (f & 8U) != 0 ? gib(40) : bytes(0);
  r.locality = static_cast<gpu_locality>(f >> 4 & 3U) == gpu_locality::same_nvlink_domain ? gpu_locality::same_nvlink_domain
               : (f >> 4 & 3U) == 1                                                       ? gpu_locality::same_pcie_switch
                                                                                          : gpu_locality::same_node;
  r.tenant = static_cast<tenant_id>(in.below(3));
  r.required_labels = (kind & 0x30U) == 0x30U ? label_mask{1} : 0;
  r.accepts_spot = (f & 0x40U) != 0;
  r.priority = static_cast<std::int32_t>(f >> 7);
  return r;
}

bool same_live_state(const inventory& a, const std::vector<node_state>& b) {
  for (node_index n = 0; n < a.size(); ++n) {
    node_state x = a.state(n), y = b[n];
    x.version = y.version = 0;
    if (x.cpu_free != y.cpu_free || x.memory_free != y.memory_free || x.idle != y.idle || x.users != y.users || x.idle_total != y.idle_total ||
        x.max_idle != y.max_idle || x.full_idle != y.full_idle || x.condition != y.condition) {
      return false;
    }
    for (std::size_t g = 0; g < max_gpus_per_node; ++g) {
      if (x.users[g] > 0 && x.owner[g] != y.owner[g]) return false;
    }
  }
  return true;
}

template <class P>
void run(bytes_reader& in) {
  inventory inv;
  (void)inv.add_model({"A100-80GB", gib(80), gflops(19500)});
  (void)inv.add_model({"T4", gib(16), gflops(8100)});
  const std::uint32_t nodes = 1 + in.below(6);
  for (std::uint32_t i = 0; i < nodes; ++i) add_random_node(inv, in);
  std::vector<placement_request> typical(4);
  typical[1].num_gpu = 1;
  typical[1].gpu_milli = milli_gpu(500);
  typical[1].cpu_milli = milli_cpu(4000);
  typical[2].num_gpu = 1;
  typical[2].gpu_milli = whole_gpu;
  typical[2].cpu_milli = milli_cpu(8000);
  typical[3].num_gpu = 4;
  typical[3].gpu_milli = whole_gpu;
  typical[3].cpu_milli = milli_cpu(32000);
  const shape_distribution shapes = shape_distribution::of(typical);
  matcher<P> m(inv, policy_context{&shapes, in.byte()});
  cluster_topology flat = *cluster_topology::make({}, inv.size());  // gangs without topology rules
  gang_placer<gang_policy_best_fit> gangs(inv, flat);
  std::vector<sim::live_placement> live;
  std::uint64_t next_id = 1;

  const auto placed = [&](const placement_request& r, const std::vector<node_state>& before, const std::optional<placement>& p) {
    if (!p) {
      FUZZ_CHECK(!sim::oracle_fits_somewhere(inv, before, r), std::string("the matcher refused a request that fits: policy ") + std::string(P::name));
      return;
    }
    const std::string bad = sim::check_placement(inv, before, r, *p);
    FUZZ_CHECK(bad.empty(), bad + " (policy " + std::string(P::name) + ")");
    live.push_back({next_id++, r, *p});
  };

  for (int step = 0; step < 256 && !in.empty(); ++step) {
    const std::uint8_t op = in.byte();
    switch (op % 10) {
      case 0:
      case 1:
      case 2:
      case 3: {  // place
        const placement_request r = random_request(in);
        const auto before = sim::snapshot(inv);
        const auto p = m.place(r);
        if (!r.ok()) FUZZ_CHECK(!p, "an invalid request was placed");
        placed(r, before, p);
        break;
      }
      case 4:
      case 5: {  // release
        if (live.empty()) break;
        const std::size_t k = in.below(static_cast<std::uint32_t>(live.size()));
        m.release(live[k].where);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
      case 6: {  // drain or undrain a node
        const auto n = static_cast<node_index>(in.below(static_cast<std::uint32_t>(inv.size())));
        inv.set_condition(n, (op & 0x10U) == 0 ? node_condition::drain : node_condition::up);
        break;
      }
      case 7: {  // a gang: all or nothing
        std::vector<placement_request> members(1 + in.below(4));
        for (auto& r : members) r = random_request(in);
        const auto before = sim::snapshot(inv);
        gang_request g;
        g.members = members;
        std::vector<placement> out;
        if (!gangs.place(g, static_cast<gang_id>(next_id), out)) {
          FUZZ_CHECK(same_live_state(inv, before), "a failed gang left something placed");
          break;
        }
        FUZZ_CHECK(out.size() == members.size());
        for (std::size_t i = 0; i < members.size(); ++i) live.push_back({next_id++, members[i], out[i]});
        break;
      }
      case 8: {  // a batch by priority
        std::vector<placement_request> rs(1 + in.below(4));
        for (auto& r : rs) r = random_request(in);
        const auto out = m.place_batch(rs);
        FUZZ_CHECK(out.size() == rs.size());
        for (std::size_t i = 0; i < rs.size(); ++i) {
          if (out[i]) live.push_back({next_id++, rs[i], *out[i]});
        }
        break;
      }
      default: {  // place then release at once: the state returns exactly
        if (inv.size() < max_nodes && (op & 0x80U) != 0) {
          add_random_node(inv, in);
          flat = *cluster_topology::make({}, inv.size());  // the gang placer follows the topology it holds
          break;
        }
        const placement_request r = random_request(in);
        const auto before = sim::snapshot(inv);
        const auto p = m.place(r);
        if (p) {
          m.release(*p);
          FUZZ_CHECK(same_live_state(inv, before), "release did not restore what place took");
        }
        break;
      }
    }
    const std::string bad = sim::check_inventory(inv, live);
    FUZZ_CHECK(bad.empty(), bad + " (policy " + std::string(P::name) + ", step " + std::to_string(step) + ")");
  }
  // Releasing everything leaves a cluster as new.
  for (const auto& lp : live) m.release(lp.where);
  live.clear();
  const std::string bad = sim::check_inventory(inv, live);
  FUZZ_CHECK(bad.empty(), bad);
  FUZZ_CHECK(inv.gpu_allocated_milli() == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bytes_reader in(data, size);
  const auto& names = builtin_policies::names;
  const std::string_view policy = names[in.below(static_cast<std::uint32_t>(names.size()))];
  const bool known = builtin_policies::visit(policy, [&]<class P>() { run<P>(in); });
  FUZZ_CHECK(known);
  return 0;
}
