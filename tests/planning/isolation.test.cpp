// SPDX-License-Identifier: MIT
// Isolation and residency in the planner (docs/isolation.md): what each offer unit keeps
// from strangers, the filters on offers, packing that never time-slices an isolated job, and
// the per-reason counts of rejected offers.
#include <doctest/doctest.h>

#include <string>

#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/planning.hpp>

namespace test_planning_isolation {
using namespace gpurent;

offer_catalog offers(const std::string& list) {
  auto cat = read_offers_json(R"({"offers": [)" + list + "]}");
  REQUIRE_MESSAGE(cat, cat.error().describe());
  return *cat;
}

workload jobs(const std::string& list) {
  auto w = read_workload_json(R"({"jobs": [)" + list + "]}");
  REQUIRE_MESSAGE(w, w.error().describe());
  return *w;
}

const job_plan& job_named(const plan_result& p, const std::string& name) {
  for (const job_plan& j : p.jobs)
    if (j.name == name) return j;
  FAIL("no job " << name);
  return p.jobs.front();
}

const std::string l4_share = R"({"id": "share", "gpu": "L4", "unit": "fraction", "fraction_step": "0.25", "price": "0.96"})";
const std::string l4_whole = R"({"id": "whole", "gpu": "L4", "unit": "gpu", "price": "0.80"})";
const std::string l4_server = R"({"id": "server", "gpu": "L4", "gpu_count": 4, "unit": "server", "price": "4.00"})";

std::string service(const std::string& name, const std::string& extra) {
  return R"({"name": ")" + name + R"(", "kind": "service", "reference_gpu": "L4", "duration": "10h", "gpu_share": "0.1", "memory_gib": 2)" + extra +
         "}";
}

// A small A100 service of an account at an isolation level.
std::string a100_service(const std::string& name, const std::string& account, const std::string& level) {
  return R"({"name": ")" + name +
         R"(", "kind": "service", "reference_gpu": "A100-SXM4-80GB", "duration": "10h", "gpu_share": "0.1", "memory_gib": 8, "isolation": ")" +
         level + R"(", "account": ")" + account + R"("})";
}

TEST_CASE("offer isolation: by unit unless the offer states it; a fraction promises nothing") {
  const offer_catalog cat = offers(l4_share + "," + l4_whole + "," + l4_server + R"(,
    {"id": "slice", "gpu": "A100-SXM4-80GB", "unit": "mig_slice", "mig_profile": "1g.10gb", "price": "0.40"},
    {"id": "pkey", "gpu": "L4", "gpu_count": 4, "unit": "server", "price": "5.00", "isolation": "network"})");
  CHECK(offer_isolation(cat[0]) == isolation_level::none);
  CHECK(offer_isolation(cat[1]) == isolation_level::gpu);
  CHECK(offer_isolation(cat[2]) == isolation_level::node);
  CHECK(offer_isolation(cat[3]) == isolation_level::gpu);  // MIG: isolated memory
  CHECK(offer_isolation(cat[4]) == isolation_level::network);
  auto bad =
      read_offers_json(R"({"offers": [{"id": "s", "gpu": "L4", "unit": "fraction", "fraction_step": "0.25", "price": "1", "isolation": "gpu"}]})");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "offers[0].isolation");
  auto typo = read_workload_json(R"({"jobs": [)" + service("s", R"(, "isolation": "rack")") + "]}");
  REQUIRE_FALSE(typo);
  CHECK(typo.error().field == "jobs[0].isolation");
}

TEST_CASE("isolation gpu: never a time-sliced fraction sold to strangers") {
  const offer_catalog cat = offers(l4_share + "," + l4_whole);
  auto open = plan(jobs(service("s", "")), cat);
  REQUIRE(open);
  CHECK(to_string(open->jobs[0].sharing) == "fraction:0.25");  // a quarter: 0.24/h, the cheapest
  const workload w = jobs(service("s", R"(, "isolation": "gpu")"));
  auto sealed = plan(w, cat);
  REQUIRE(sealed);
  CHECK(sealed->jobs[0].offer == "whole");
  const auto n = offer_rejections(w.jobs[0], cat);
  CHECK(n[static_cast<std::size_t>(offer_rejection::isolation)] == 1);
  CHECK(n[static_cast<std::size_t>(offer_rejection::none)] == 1);
}

TEST_CASE("isolation gpu: packed only as MIG, never time-sliced") {
  const offer_catalog cat = offers(l4_whole);  // L4: no MIG
  auto open = plan(jobs(service("a", "") + "," + service("b", "")), cat);
  REQUIRE(open);
  CHECK(job_named(*open, "a").shares_with == std::vector<std::string>{"b"});
  auto sealed = plan(jobs(service("a", R"(, "isolation": "gpu")") + "," + service("b", "")), cat);
  REQUIRE(sealed);
  CHECK(job_named(*sealed, "a").shares_with.empty());
  CHECK(job_named(*sealed, "b").shares_with.empty());
}

TEST_CASE("isolation node: whole servers only; a GPU offer cannot run it") {
  const offer_catalog cat = offers(l4_whole + "," + l4_server);
  auto p = plan(jobs(service("s", R"(, "isolation": "node")")), cat);
  REQUIRE(p);
  CHECK(p->jobs[0].offer == "server");
  const offer_catalog a100 = offers(R"({"id": "a100", "gpu": "A100-SXM4-80GB", "unit": "gpu", "price": "1.00"})");
  // Isolation gpu: two jobs of one account share an A100 as MIG slices.
  auto mig = plan(jobs(a100_service("x", "acme", "gpu") + "," + a100_service("y", "acme", "gpu")), a100);
  REQUIRE(mig);
  CHECK(to_string(job_named(*mig, "x").sharing).rfind("shared-gpu:mig:", 0) == 0);
  // With one of them isolated by node, an A100 GPU offer gives gpu isolation only: it cannot run it at all.
  auto none = plan(jobs(a100_service("x", "acme", "node")), a100);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == error_code::not_found);
}

TEST_CASE("isolation node: a server is shared with the account's own jobs, never a stranger's") {
  const offer_catalog cat = offers(R"({"id": "box", "gpu": "A100-SXM4-80GB", "gpu_count": 8, "unit": "server", "price": "8.00"})");
  const auto svc = [](const std::string& name, const std::string& account) { return a100_service(name, account, "node"); };
  auto same = plan(jobs(svc("x", "acme") + "," + svc("y", "acme")), cat);
  REQUIRE(same);
  CHECK(job_named(*same, "x").shares_with == std::vector<std::string>{"y"});
  auto strangers = plan(jobs(svc("x", "acme") + "," + svc("y", "globex")), cat);
  REQUIRE(strangers);
  CHECK(job_named(*strangers, "x").shares_with.empty());
  CHECK(job_named(*strangers, "y").shares_with.empty());
}

TEST_CASE("residency: regions, zones and jurisdictions filter offers; unstated is outside") {
  const offer_catalog cat = offers(R"(
    {"id": "us", "gpu": "L4", "unit": "gpu", "price": "0.50", "region": "us-east", "zone": "us-east-1a", "jurisdiction": "US"},
    {"id": "eu", "gpu": "L4", "unit": "gpu", "price": "0.90", "region": "eu-west", "zone": "eu-west-1b", "jurisdiction": "EU"},
    {"id": "anon", "gpu": "L4", "unit": "gpu", "price": "0.40"})");
  // Latency-sensitive: each alone on its GPU, so each choice is the filter's alone.
  const std::string alone = R"(, "latency_sensitive": true)";
  const workload w = jobs(service("a", alone + R"(, "constraints": {"jurisdictions": ["EU", "CH"]})") + "," +
                          service("b", alone + R"(, "constraints": {"zones": ["us-east-1a"]})") + "," + service("c", alone));
  auto p = plan(w, cat);
  REQUIRE(p);
  CHECK(job_named(*p, "a").offer == "eu");
  CHECK(job_named(*p, "b").offer == "us");
  CHECK(job_named(*p, "c").offer == "anon");
  const auto n = offer_rejections(w.jobs[0], cat);
  CHECK(n[static_cast<std::size_t>(offer_rejection::residency)] == 2);
  CHECK(n[static_cast<std::size_t>(offer_rejection::none)] == 1);
  const workload nowhere = jobs(service("z", R"(, "constraints": {"regions": ["ap-south"]})"));
  CHECK(offer_rejections(nowhere.jobs[0], cat)[static_cast<std::size_t>(offer_rejection::residency)] == 3);
  auto stuck = plan(nowhere, cat);
  REQUIRE_FALSE(stuck);
  CHECK(stuck.error().code == error_code::not_found);
}

}  // namespace test_planning_isolation
