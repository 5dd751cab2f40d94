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
