// SPDX-License-Identifier: MIT
// An independent checker of `gpurent fleet run`'s placements CSV (docs/formats/fleet.md), in the
// tests and sharing no code with the tool's bookkeeping: it replays the CSV's rows and
// checks capacity at every instant, no start before arrival, one run of a job at a time,
// preemption only of preemptible jobs, every segment with all its members starting and
// ending together (gangs stopped whole), completed work covering the duration, and the
// GPU-seconds and completed jobs equal to what the run reports.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace gpurent::test {

// The rows of a CSV without quoted fields, the header left out.
inline std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string x;
    while (std::getline(ls, x, ',')) f.push_back(x);
    if (!line.empty() && line.back() == ',') f.emplace_back();
    out.push_back(f);
  }
  return out;
}

struct run_job_row {
  std::string name;
  int workers = 1, gpus = 0, milli = 1000, priority = 0;
  bool preemptible = false;
  std::int64_t arrival = 0, duration = 0;
};

// The jobs of a jobs CSV by its header's column names (docs/formats/fleet.md's defaults for absent ones).
inline std::vector<run_job_row> run_job_rows(const std::string& text) {
  std::map<std::string, std::size_t> col;
  {
    std::stringstream header(text.substr(0, text.find('\n')));
    std::string name;
    while (std::getline(header, name, ',')) col.emplace(name, col.size());
  }
  const auto field = [&](const std::vector<std::string>& f, const std::string& name) {
    const auto at = col.find(name);
    return at == col.end() || at->second >= f.size() ? std::string() : f[at->second];
  };
  const auto num = [&](const std::vector<std::string>& f, const std::string& name, std::int64_t dflt) {
    const std::string v = field(f, name);
    return v.empty() ? dflt : std::stoll(v);
  };
  std::vector<run_job_row> out;
  for (const auto& f : csv_rows(text)) {
    run_job_row j;
    j.name = field(f, "name");
    j.workers = static_cast<int>(num(f, "workers", 1));
    j.gpus = static_cast<int>(num(f, "num_gpu", 0));
    j.milli = static_cast<int>(num(f, "gpu_milli", 1000));
    j.priority = static_cast<int>(num(f, "priority", 0));
    j.preemptible = field(f, "preemptible") == "true";
    j.arrival = num(f, "arrival", 0);
    j.duration = num(f, "duration", 0);
    out.push_back(j);
  }
  return out;
}

// Every rule docs/formats/fleet.md states for the placements CSV (see the file comment).
inline void check_run_placements(const std::vector<run_job_row>& jobs, const std::string& csv, double reported_gpu_s,
                                 std::size_t reported_completed) {
  std::map<std::string, run_job_row> by_name;
  for (const run_job_row& j : jobs) by_name[j.name] = j;
  struct seg {
    std::int64_t start, end;
    bool preempted;
    int members = 0;
  };
  std::map<std::pair<std::string, int>, seg> segs;                   // (job, run)
  std::vector<std::tuple<std::int64_t, int, std::string, int>> use;  // (instant, +/- milli, node, gpu)
  double gpu_s = 0;
  for (const auto& f : csv_rows(csv)) {
    REQUIRE(f.size() == 8);
    const run_job_row& j = by_name.at(f[0]);
    const std::int64_t start = std::stoll(f[5]), end = std::stoll(f[6]);
    CHECK(start >= j.arrival);  // no start before arrival
    CHECK(end >= start);
    if (f[7] == "preempted") CHECK(j.preemptible);  // only preemptible jobs are stopped
    seg& s = segs[{f[0], std::stoi(f[1])}];
    if (s.members > 0) CHECK((s.start == start && s.end == end && s.preempted == (f[7] == "preempted")));  // members together
    s = seg{start, end, f[7] == "preempted", s.members + 1};
    std::stringstream gs(f[4]);
    std::string take;
    while (std::getline(gs, take, ';')) {
      const auto colon = take.find(':');
      const int gpu = std::stoi(take.substr(0, colon)), milli = std::stoi(take.substr(colon + 1));
      use.emplace_back(start, milli, f[3], gpu);
      use.emplace_back(end, -milli, f[3], gpu);
      gpu_s += milli / 1000.0 * static_cast<double>(end - start);
    }
  }
  // Capacity at every instant: releases before takes at the same instant.
  std::sort(use.begin(), use.end(),
            [](const auto& a, const auto& b) { return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b)); });
  std::map<std::pair<std::string, int>, int> held;
  for (const auto& [t, d, node, gpu] : use) {
    const int h = held[{node, gpu}] += d;
    CHECK(h <= 1000);
    CHECK(h >= 0);
  }
  // One run at a time, runs numbered in order, work covering the duration when done.
  std::size_t completed = 0;
  for (const run_job_row& j : jobs) {
    std::int64_t prev_end = -1, ran = 0;
    bool done = false;
    for (int r = 0; segs.count({j.name, r}) != 0; ++r) {
      const seg& s = segs.at({j.name, r});
      CHECK(s.members == j.workers);  // all members or none
      CHECK(s.start >= prev_end);
      CHECK_FALSE(done);  // nothing runs after the run that completed
      prev_end = s.end;
      ran += s.end - s.start;
      done = !s.preempted;
      if (r == 0 && done) CHECK(s.end - s.start == j.duration);
    }
    if (done) {
      CHECK(ran >= j.duration);
      ++completed;
    }
  }
  CHECK(completed == reported_completed);
  CHECK(gpu_s == doctest::Approx(reported_gpu_s).epsilon(1e-9));
}

}  // namespace gpurent::test
