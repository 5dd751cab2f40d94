// SPDX-License-Identifier: MIT
// A cluster and its jobs read from the text of a nodes file and a jobs file, the test failing
// when either does not read: one pair for every test that starts from those files.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>

namespace gpurent::test {

// Four nodes of 4 H100s: n0, n1 in network segment pkey-a (EU, n0 in Germany), n2, n3 in
// pkey-b (US): the isolation and residency cases' cluster.
inline const std::string segmented_nodes_csv =
    "sn,cpu_milli,memory_mib,gpu,model,segment,labels\n"
    "n0,64000,262144,4,H100,pkey-a,region=eu-west-1|jurisdiction=DE\n"
    "n1,64000,262144,4,H100,pkey-a,region=eu-west-1\n"
    "n2,64000,262144,4,H100,pkey-b,region=us-east-1\n"
    "n3,64000,262144,4,H100,pkey-b,region=us-east-1\n";

inline fleet_cluster read_cluster(const std::string& nodes_csv) {
  auto n = io::read_fleet_nodes_csv(nodes_csv, "nodes.csv");
  REQUIRE(n);
  auto c = fleet_cluster::make(*n);
  REQUIRE(c);
  return std::move(*c);
}

inline std::vector<fleet_job> read_jobs(const fleet_cluster& c, const std::string& jobs_csv) {
  auto j = io::read_fleet_jobs_csv(jobs_csv, "jobs.csv", c);
  REQUIRE_MESSAGE(j, (j ? "" : j.error().describe()));
  return std::move(*j);
}

}  // namespace gpurent::test
