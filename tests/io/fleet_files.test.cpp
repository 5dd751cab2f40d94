// SPDX-License-Identifier: MIT
// The fleet's files (io/fleet/fleet_nodes_csv.hpp, io/fleet/jobs_csv.hpp, io/fleet/topology_json.hpp): what is
// written reads back as it was, segment, labels and the isolation columns included; the
// readers' errors name the file, line and field (the ones fuzz_fleet_inputs found among them).

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gpurent/fleet/fleet.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/fleet/topology_json.hpp>

#include "support/fleet_files.hpp"

namespace test_io_fleet_files {
using namespace gpurent;

const std::string& nodes_csv = gpurent::test::segmented_nodes_csv;

fleet_cluster cluster() { return gpurent::test::read_cluster(nodes_csv); }
std::vector<fleet_job> jobs(const fleet_cluster& c, const std::string& csv) { return gpurent::test::read_jobs(c, csv); }

TEST_CASE("fleet files: nodes, topology and jobs read back as written") {
  generate_options o;
  o.blocks = 9;
  o.down = 0.02;
  o.seed = 11;
  const auto f = generate_fleet(o);
  REQUIRE(f);
  const std::string nodes = io::write_fleet_nodes_csv(f->cluster);
  const std::string topo = io::write_topology_json(f->cluster);
  const std::string jobs = io::write_fleet_jobs_csv(f->jobs, f->cluster);
  auto ns = io::read_fleet_nodes_csv(nodes, "nodes.csv");
  REQUIRE(ns);
  auto c = fleet_cluster::make(*ns);
  REQUIRE(c);
  REQUIRE(io::read_topology_json(topo, "topology.json", *c));
  CHECK(c->topology == f->cluster.topology);
  auto js = io::read_fleet_jobs_csv(jobs, "jobs.csv", *c);
  REQUIRE(js);
  CHECK(io::write_fleet_jobs_csv(*js, *c) == jobs);
  CHECK(io::write_fleet_nodes_csv(*c) == nodes);
}

// Found by tests/fuzz/fleet_inputs.cpp (docs/reliability.md, F6-F10): each an error at the
// file and line that causes it, naming the field, never a silent choice.
TEST_CASE("nodes file: a model with '|', a 65th label and a header column without a name are errors at their line (fuzz F8-F10)") {
  const auto bad = [](const std::string& text) {
    auto n = io::read_fleet_nodes_csv(text, "nodes.csv");
    REQUIRE_FALSE(n);
    return n.error().describe();
  };
  const std::string h = "sn,cpu_milli,memory_mib,gpu,model,labels\n";
  CHECK(bad(h + "n0,1,1,4,H100,\nn1,1,1,4,H100|A100,\n") ==
        "nodes.csv:3: field 'model': \"H100|A100\" has a '|', which separates models in a gpu_spec");
  std::string labels;
  for (int i = 0; i < 64; ++i) labels += (i == 0 ? "l" : "|l") + std::to_string(i);
  const std::string rows = h + "n0,1,1,4,H100," + labels + "\nn1,1,1,4,H100,l0|l63\n";
  REQUIRE(io::read_fleet_nodes_csv(rows, "nodes.csv"));  // 64 labels: the cluster holds them
  CHECK(bad(rows + "n2,1,1,4,H100,l5|extra\n") == "nodes.csv:4: field 'labels': more than 64 node labels");
  CHECK(bad("sn,cpu_milli,memory_mib,gpu,model,\nn0,1,1,4,H100,\n").starts_with("nodes.csv:1: field 'column 6': empty column name in the header"));
}

TEST_CASE("topology file: a node listed twice is an error, also as a repeated JSON key (fuzz F6)") {
  auto ns = io::read_fleet_nodes_csv("sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,4,H\nn1,1,1,4,H\n", "nodes.csv");
  REQUIRE(ns);
  auto c = fleet_cluster::make(*ns);
  REQUIRE(c);
  auto r =
      io::read_topology_json("{\"levels\": [\"block\"], \"nodes\": {\"n0\": [\"A\"], \"n1\": [\"A\"],\n  \"n1\": [\"B\"]}}", "topology.json", *c);
  REQUIRE_FALSE(r);
  CHECK(r.error().describe() == "topology.json:2: field 'nodes.n1': given twice in one object (only one value can be kept)");
  CHECK(c->topology.level_count() == 0);  // the cluster as it was
}

TEST_CASE("nodes file: segment and labels columns; jobs file: isolation, tenant, network_segment, residency") {
  const fleet_cluster c = cluster();
  CHECK(c.inv.segment_name(c.inv.spec(0).segment) == "pkey-a");
  CHECK(c.inv.spec(2).segment == c.inv.spec(3).segment);
  CHECK(c.inv.spec(0).segment != c.inv.spec(2).segment);
  CHECK((c.inv.spec(0).labels & c.labels.at("jurisdiction=DE")) != 0);
  CHECK((c.inv.spec(1).labels & c.labels.at("jurisdiction=DE")) == 0);
  const auto js = jobs(c,
                       "name,workers,num_gpu,isolation,tenant,network_segment,residency\n"
                       "a,2,4,network,acme,pkey-b,\n"
                       "b,1,1,node,zeta,,region=eu-west-1|jurisdiction=DE\n"
                       "c,1,1,,acme,,\n"
                       "d,1,1,,,,\n");
  CHECK(js[0].gang.member.isolation == isolation_level::network);
  CHECK(js[0].gang.member.segment == c.inv.spec(2).segment);
  CHECK(js[0].gang.member.tenant == js[2].gang.member.tenant);
  CHECK(js[1].gang.member.tenant != js[0].gang.member.tenant);
  CHECK(js[1].gang.member.residency == (c.labels.at("region=eu-west-1") | c.labels.at("jurisdiction=DE")));
  CHECK(js[2].gang.member.isolation == isolation_level::gpu);
  CHECK(js[3].gang.member.tenant == no_tenant);
  CHECK(js[1].tenant == "zeta");
  // The same cluster written back keeps its segments and labels.
  const std::string written = io::write_fleet_nodes_csv(c);
  CHECK(written.starts_with("sn,cpu_milli,memory_mib,gpu,model,state,segment,labels\n"));
  CHECK(written.find("\nn0,64000,262144,4,H100,up,pkey-a,jurisdiction=DE|region=eu-west-1\n") != std::string::npos);
  CHECK(written.find("\nn3,64000,262144,4,H100,up,pkey-b,region=us-east-1\n") != std::string::npos);
}

TEST_CASE("jobs file: written back with isolation, tenant, network segment, residency and checkpoint_every (fuzz F7)") {
  // write_fleet_jobs_csv wrote only the columns fleet generate fills (and checkpoint_every only
  // with jobs over time): these read back as defaults (fuzz_fleet_inputs).
  const fleet_cluster c = cluster();
  const std::string csv =
      "name,workers,num_gpu,isolation,tenant,network_segment,residency,checkpoint_every,duration\n"
      "a,2,4,network,acme,pkey-b,,600,100\n"
      "b,1,1,node,zeta,,region=eu-west-1|jurisdiction=DE,,100\n"
      "c,1,1,none,,,,,\n";
  const auto js = jobs(c, csv);
  const std::string written = io::write_fleet_jobs_csv(js, c);
  CHECK(written ==
        "name,workers,num_gpu,gpu_milli,cpu_milli,memory_mib,gpu_spec,per_node,required,preferred,segment,exclusive,duration,"
        "priority,preemptible,arrival,checkpoint_every,isolation,tenant,network_segment,residency\n"
        "a,2,4,1000,0,0,,0,,,0,,100,0,false,0,600,network,acme,pkey-b,\n"
        "b,1,1,1000,0,0,,0,,,0,,100,0,false,0,1800,node,zeta,,jurisdiction=DE|region=eu-west-1\n"
        "c,1,1,1000,0,0,,0,,,0,,,0,false,0,1800,none,,,\n");
  const auto back = jobs(c, written);
  REQUIRE(back.size() == js.size());
  for (std::size_t i = 0; i < js.size(); ++i) {
    CHECK(back[i].gang.member == js[i].gang.member);
    CHECK(back[i].tenant == js[i].tenant);
    CHECK(back[i].checkpoint_every == js[i].checkpoint_every);
  }
  // Jobs with every one of those columns at its default: the file fleet generate writes.
  CHECK(io::write_fleet_jobs_csv(jobs(c, "name,workers,num_gpu\nd,1,1\n"), c) ==
        "name,workers,num_gpu,gpu_milli,cpu_milli,memory_mib,gpu_spec,per_node,required,preferred,segment,exclusive,duration\n"
        "d,1,1,1000,0,0,,0,,,0,,\n");
}

TEST_CASE("jobs file: bad isolation values name the field") {
  const fleet_cluster c = cluster();
  const auto bad = [&](const std::string& row) {
    auto j = io::read_fleet_jobs_csv("name,workers,num_gpu,isolation,network_segment,residency\n" + row + "\n", "jobs.csv", c);
    REQUIRE_FALSE(j);
    return j.error().describe();
  };
  CHECK(bad("a,1,1,vlan,,") == "jobs.csv:2: field 'isolation': expected none, gpu, node or network, got \"vlan\"");
  CHECK(bad("a,1,1,network,pkey-z,").find("no node is in network segment \"pkey-z\"") != std::string::npos);
  CHECK(bad("a,1,1,node,pkey-a,").find("only with isolation network") != std::string::npos);
  CHECK(bad("a,1,1,gpu,,region=mars").find("field 'residency'") != std::string::npos);
}

}  // namespace test_io_fleet_files
