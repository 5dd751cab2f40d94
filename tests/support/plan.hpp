// SPDX-License-Identifier: MIT
// Planning tests look jobs up by name in a plan; one lookup for every planning test file.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include <gpurent/planning/planner.hpp>

namespace gpurent::test {

// The plan of the job named `name`; fails the test when the plan has none.
inline const job_plan& find_job(const plan_result& p, const std::string& name) {
  for (const job_plan& j : p.jobs)
    if (j.name == name) return j;
  FAIL("no job " << name);
  return p.jobs.front();
}

}  // namespace gpurent::test
