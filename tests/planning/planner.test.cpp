// SPDX-License-Identifier: MIT
// The planner and its exact rating, on hand-checked numbers and on the built-in example.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/plan_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/planning.hpp>

#include "support/files.hpp"
#include "support/plan.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_planning_planner {

using namespace gpurent;

namespace {
using gpurent::test::find_job;
using gpurent::test::slurp;
instant at(const char* s) { return *parse_instant(s); }

std::string example(const char* name) { return slurp(std::string(GPURENT_SOURCE_DIR) + "/examples/plan/" + name); }

// One H100 offer whose billing fields are `billing` (offers JSON members).
offer_catalog one_offer(const std::string& billing) {
  auto cat = read_offers_json(R"({"offers": [{"id": "gpu/H100", "gpu": "H100-SXM5-80GB", )" + billing + "}]}");
  REQUIRE_MESSAGE(cat, cat.error().describe());
  return *cat;
}

struct rec {
  const char* id;
  const char* start;
  std::int64_t secs;
  const char* qty = "1";
};

// The records rated twice: by the meter under the tariff the offers make (the path
// `gpurent meter` runs), and by the planner's pricer as one line; both must agree.
std::string rate(const offer_catalog& cat, const std::vector<rec>& recs) {
  auto t = offers_tariff(cat, "UTC");
  REQUIRE(t);
  auto m = meter::for_month(*t, "2026-11");
  REQUIRE(m);
  const plan_pricer pricer(cat, m->period());
  std::vector<priced_record> priced;
  for (const rec& r : recs) {
    usage_record u;
    u.id = r.id;
    u.account = "acme";
    u.resource = "gpu/H100";
    u.mode = "on_demand";
    u.quantity = nano_quantity(unit_quantity::parse(r.qty)->raw().convert_to<std::int64_t>() * 1'000'000);
    u.start = at(r.start);
    u.end = u.start + seconds(r.secs);
    REQUIRE(m->add(u));
    priced.push_back({*unit_quantity::parse(r.qty), u.start, seconds(r.secs)});
  }
  auto inv = m->finish();
  REQUIRE(inv);
  const std::string total = inv->accounts.front().total.to_string();
  CHECK(pricer.round(pricer.line(0, priced)).to_string() == total);
  return total;
}

}  // namespace

TEST_CASE("offers price through the tariff: increments and minimums (rating rules 3, 4, 7)") {
  const auto cat = one_offer(R"("price": "2.49", "increment": "60s", "minimum": "60s")");
  CHECK(cat[0].pricing.time.billed(seconds(61)) == seconds(120));
  CHECK(cat[0].pricing.time.billed(seconds(1)) == seconds(60));
  // 120 s x 2.49 / 3600 = 0.083 -> 0.08; two GPUs 0.166 -> 0.17.
  CHECK(rate(cat, {{"a", "2026-11-03T10:00:00Z", 61}}) == "0.08");
  CHECK(rate(cat, {{"a", "2026-11-03T10:00:00Z", 61, "2"}}) == "0.17");
  // One rounding per line: three records of 0.083 are 0.249 -> 0.25, not 3 x 0.08.
  CHECK(rate(cat, {{"a", "2026-11-03T10:00:00Z", 61}, {"b", "2026-11-03T11:00:00Z", 61}, {"c", "2026-11-03T12:00:00Z", 61}}) == "0.25");
}

TEST_CASE("offers price through the tariff: spot price changes (rule 5)") {
  const auto cat = one_offer(R"("price": "1.10", "increment": "60s", "price_changes": [{"from": "2026-11-10T06:30:00Z", "price": "0.87"}])");
  // 1800 s at 1.10 = 0.55; 1810 s at 0.87 = 0.437416...; 50 extra billed seconds at 0.87 =
  // 0.012083...: 0.9995 -> 1.00 (half even: 0.99|95 rounds up).
  CHECK(rate(cat, {{"a", "2026-11-10T06:00:00Z", 3610}}) == "1.00");
  // Entirely before the change: 3600 s at 1.10.
  CHECK(rate(cat, {{"a", "2026-11-10T05:00:00Z", 3600}}) == "1.10");
}

TEST_CASE("offers price through the tariff: graduated and volume tiers (rule 6)") {
  // 60 unit-hours (2 x 30 h) at 1.20 = 72.00; then 60 more: 40 at 1.20 + 20 at 0.95 = 67.00.
  const std::vector<rec> two = {{"a", "2026-11-01T00:00:00Z", 30 * 3600, "2"}, {"b", "2026-11-05T00:00:00Z", 60 * 3600}};
  const char* steps = R"("steps": [{"up_to": "100", "price": "1.20"}, {"price": "0.95"}])";
  CHECK(rate(one_offer(std::string(R"("tiers": {"mode": "graduated", )") + steps + "}"), two) == "139.00");
  CHECK(rate(one_offer(std::string(R"("tiers": {"mode": "volume", )") + steps + "}"), two) == "114.00");  // 120 unit-hours, all at 0.95
}

TEST_CASE("an offer's price obeys the tariff's rules, with the tariff's messages") {
  const auto field_of = [](const auto& r) { return r ? std::string("(ok)") : r.error().field; };
  const auto offers = [](const std::string& member) { return read_offers_json(R"({"offers": [{"id": "a", "gpu": "H100", )" + member + "}]}"); };
  CHECK(field_of(offers(R"("price": "1", "increment": "0s")")) == "offers[0].increment");
  CHECK(field_of(offers(R"("price": "-1")")) == "offers[0].price");
  CHECK(field_of(offers(R"("price": "1", "tiers": {"mode": "volume", "steps": [{"price": "1"}]})")) == "offers[0].price");
  CHECK(field_of(offers(R"("tiers": {"mode": "volume", "steps": [{"price": "1"}, {"up_to": "5", "price": "1"}]})")) ==
        "offers[0].tiers.steps[0].up_to");
  // Changes may come in any order (as in a tariff file), but not two at one instant.
  CHECK(field_of(offers(
            R"("price": "1", "price_changes": [{"from": "2026-11-02T00:00:00Z", "price": "2"}, {"from": "2026-11-01T00:00:00Z", "price": "3"}])")) ==
        "(ok)");
  CHECK(field_of(offers(
            R"("price": "1", "price_changes": [{"from": "2026-11-02T00:00:00Z", "price": "2"}, {"from": "2026-11-02T00:00:00Z", "price": "3"}])")) ==
        "offers[0].price_changes");
  // Past what a price can hold (a probe: plan then failed with Boost's "Overflow in conversion
  // to narrower type", naming nothing): refused where it is written, with the tariff's limit.
  const auto message_of = [](const auto& r) { return r ? std::string("(ok)") : r.error().field + ": " + r.error().message; };
  CHECK(message_of(offers(R"("price": "9223372036.854775807")")) == "(ok)");
  CHECK(message_of(offers(R"("price": "9223372036.854775808")")) ==
        "offers[0].price: \"9223372036.854775808\" is too large (at most 9223372036.854775807)");
  CHECK(field_of(offers(R"("price": "1", "price_changes": [{"from": "2026-11-02T00:00:00Z", "price": "99999999999"}])")) ==
        "offers[0].price_changes[0].price");
  CHECK(field_of(offers(R"("tiers": {"mode": "volume", "steps": [{"up_to": "99999999999", "price": "1"}, {"price": "1"}]})")) ==
        "offers[0].tiers.steps[0].up_to");
  CHECK(field_of(offers(R"("price": "1", "tflops": "99999999999999999")")) == "offers[0].tflops");
  CHECK(field_of(offers(R"("price": "1", "mode": "spot", "spot": {"notice": "30s", "interruptions_per_hour": "99999999999999"})")) ==
        "offers[0].spot.interruptions_per_hour");
}

TEST_CASE("cheapest offer for whole GPUs") {
  auto cat = read_offers_json(example("offers.json"));
  REQUIRE(cat);
  const plan_pricer pricer(*cat, *interval::make(at("2026-11-01T00:00:00Z"), at("2026-12-01T00:00:00Z")));
  // One GPU for 12 minutes: per-second H100 PCIe 720 x 2.49 / 3600 = 0.498 beats the
  // hourly A100 (1.29) and the A100 reservation (30 days minimum).
  auto c = cheapest_offer(pricer, gpu_demand{1, 40 * 1024, seconds(720), false, true});
  REQUIRE(c);
  CHECK((*cat)[c->offer].id == "gpucloud/us-central/1xH100-PCIe");
  CHECK(pricer.round(c->amount).to_string() == "0.50");
  // 16 GPUs need two servers of a multi-node offer.
  auto big = cheapest_offer(pricer, gpu_demand{16, 80 * 1024, seconds(3600), false, true});
  REQUIRE(big);
  CHECK(big->units == 2);
  CHECK((*cat)[big->offer].id == "gpucloud/us-central/8xH100");
}

TEST_CASE("the built-in example: each job's choice, checked by hand") {
  auto cat = read_offers_json(example("offers.json"));
  auto w = read_workload_json(example("workload.json"));
  REQUIRE(cat);
  REQUIRE(w);
  auto p = plan(*w, *cat);
  REQUIRE(p);
  REQUIRE(p->jobs.size() == 8);

  // 6144 GPU-h under a 5-day deadline: 64 GPUs for 96 h = 8 servers, multi-node, at 23.92/h
  // (billed by the hour), and a long run: 64 GPUs x 96 h expect 0.12 failures, so it
  // checkpoints every Daly interval and takes 4d1h expected (98 billed hours).
  const job_plan& pre = find_job(*p, "llm-pretrain");
  CHECK(pre.offer == "gpucloud/us-central/8xH100");
  CHECK(pre.count == 8);
  CHECK(pre.gpus == 64);
  REQUIRE(pre.why.failures);
  CHECK(pre.why.failures->solve == seconds(96 * 3600));
  CHECK(pre.expected_cost.to_string() == "18753.28");  // 8 x 98 x 23.92

  // Checkpointable, spot allowed: 48 h of solve time on spot with Daly checkpoints.
  const job_plan& ft = find_job(*p, "finetune-ckpt");
  CHECK(ft.mode == offer_mode::spot);
  REQUIRE(ft.spot);
  CHECK_FALSE(ft.spot->notice_fits_checkpoint);  // 2 min notice, 5 min checkpoint
  CHECK(ft.wall > seconds(48 * 3600));
  CHECK(ft.expected_cost.minor_units() < ft.naive_cost->minor_units());  // spot beats on demand

  // 0.05 of an H100 and 8 GiB: one 1g.10gb slice for 720 h at 0.42.
  const job_plan& chat = find_job(*p, "chat-small");
  CHECK(to_string(chat.sharing) == "mig:1g.10gb");
  CHECK(chat.expected_cost.to_string() == "302.40");

  // 48 runs of 12 min (H100 SXM) take 942 s each on an H100 PCIe (720 x 989.4 / 756.5, up);
  // per-second billing: 48 x 942 x 2.49 / 3600 = 31.2744 -> 31.27. Hourly A100: 48 x 1.29.
  const job_plan& sweep = find_job(*p, "sweep");
  CHECK(sweep.offer == "gpucloud/us-central/1xH100-PCIe");
  CHECK(sweep.expected_cost.to_string() == "31.27");
  CHECK(sweep.naive_cost->to_string() == "61.92");

  // A whole A100 all month: reserved 720 x 0.79 = 568.80 against 720 x 1.29 on demand.
  const job_plan& api = find_job(*p, "api-steady");
  CHECK(api.mode == offer_mode::reserved);
  CHECK(api.expected_cost.to_string() == "568.80");

  // Two services of 3 MIG compute slices each share one reserved A100 (3g.40gb twice),
  // 568.80 split evenly.
  const job_plan& tag = find_job(*p, "tagger");
  const job_plan& mod = find_job(*p, "moderation");
  CHECK(to_string(tag.sharing) == "shared-gpu:mig:3g.40gb");
  CHECK(tag.sharing == job_sharing{offer_unit::gpu, *mig_slice::make("3g.40gb"), true});
  CHECK(tag.shares_with == std::vector<std::string>{"moderation"});
  CHECK(tag.expected_cost.to_string() == "284.40");
  CHECK(mod.expected_cost.to_string() == "284.40");
  CHECK(p->packing.exact);
  CHECK(p->packing.bins == 1);

  // A quarter of an L4 for 10 days at 0.96 per GPU-hour: 0.25 x 240 x 0.96 = 57.60.
  const job_plan& emb = find_job(*p, "batch-embed");
  CHECK(to_string(emb.sharing) == "fraction:0.25");
  CHECK(emb.sharing == job_sharing{offer_unit::fraction, *fractional_share::make(milli_gpu(250)), false});
  CHECK(emb.expected_cost.to_string() == "57.60");

  // Totals: the meter's rating of the emitted usage equals the sum of its rounded lines.
  money_value lines(p->ccy, 0);
  for (const invoice_account& a : p->billed->accounts)
    for (const invoice_line& l : a.lines) lines += l.amount;
  CHECK(lines == p->billed_total);
  money_value jobs(p->ccy, 0);
  for (const job_plan& j : p->jobs) jobs += j.expected_cost;
  CHECK(jobs == p->total_cost);
  CHECK(p->total_cost.minor_units() < p->naive.total->minor_units());
  CHECK(p->packing.lower_bound == p->packing.cost);  // exact: the optimum

  // Deterministic: the same plan twice.
  CHECK(plan_to_json(*p) == plan_to_json(*plan(*w, *cat)));
}

TEST_CASE("packing: exact against the heuristic and the lower bound") {
  // Four small services; a whole A100 at 1.00/h or a 1g.10gb slice at 0.40/h each.
  auto cat = read_offers_json(R"({"offers": [
    {"id": "a100", "gpu": "A100-SXM4-80GB", "unit": "gpu", "price": "1.00"},
    {"id": "slice", "gpu": "A100-SXM4-80GB", "unit": "mig_slice", "mig_profile": "1g.10gb", "price": "0.40"}]})");
  REQUIRE(cat);
  auto w = read_workload_json(R"({"jobs": [
    {"name": "s1", "kind": "service", "reference_gpu": "A100-SXM4-80GB", "duration": "10h", "gpu_share": "0.1", "memory_gib": 8, "latency_sensitive": true},
    {"name": "s2", "kind": "service", "reference_gpu": "A100-SXM4-80GB", "duration": "10h", "gpu_share": "0.1", "memory_gib": 8, "latency_sensitive": true},
    {"name": "s3", "kind": "service", "reference_gpu": "A100-SXM4-80GB", "duration": "10h", "gpu_share": "0.1", "memory_gib": 8, "latency_sensitive": true},
    {"name": "s4", "kind": "service", "reference_gpu": "A100-SXM4-80GB", "duration": "4h", "gpu_share": "0.1", "memory_gib": 8, "start": "20h", "latency_sensitive": true}]})");
  REQUIRE(w);
  auto exact = plan(*w, *cat);
  REQUIRE(exact);
  // s1..s3 share one A100 for 10 h (10.00 instead of 3 x 4.00); s4, later, is alone on a
  // slice (1.60): by hand the optimum is 11.60.
  CHECK(exact->packing.exact);
  CHECK(exact->packing.cost.to_string() == "11.60");
  CHECK(exact->total_cost.to_string() == "11.60");
  CHECK(to_string(find_job(*exact, "s4").sharing) == "mig:1g.10gb");
  CHECK(to_string(find_job(*exact, "s1").sharing) == "shared-gpu:mig:1g.10gb");
  plan_options heuristic;
  heuristic.exact_packing_limit = 0;
  auto h = plan(*w, *cat, heuristic);
  REQUIRE(h);
  CHECK_FALSE(h->packing.exact);
  CHECK(h->packing.cost.minor_units() >= exact->packing.cost.minor_units());
  CHECK(h->packing.lower_bound.minor_units() <= exact->packing.cost.minor_units());
  CHECK(exact->packing.lower_bound == exact->packing.cost);  // the exact packing is the optimum
  CHECK(exact->packing.gap == 0.0);
}

TEST_CASE("bad workloads and offers name the field") {
  const auto field_of = [](const auto& r) { return r ? std::string("(ok)") : r.error().field; };
  CHECK(field_of(read_workload_json(R"({"jobs": [{"name": "x", "kind": "training", "gpu_hours": 12}]})")) == "jobs[0].gpu_hours");
  CHECK(field_of(read_workload_json(R"({"jobs": [{"name": "x", "kind": "trainig"}]})")) == "jobs[0].kind");
  CHECK(field_of(read_workload_json(R"({"jobs": [{"name": "x", "kind": "service", "duration": "1h", "gpu_share": "0.1", "replica": 2}]})")) ==
        "jobs[0].replica");
  CHECK(field_of(read_workload_json(R"({"period": "2026-13", "jobs": []})")) == "period");
  CHECK(
      field_of(read_workload_json(R"({"jobs": [{"name": "x", "kind": "service", "duration": "1h", "gpu_share": "0.1", "reference_gpu": "Z80"}]})")) ==
      "jobs[0].reference_gpu");
  CHECK(field_of(read_offers_json(R"({"offers": [{"id": "a", "gpu": "H100", "price": "abc"}]})")) == "offers[0].price");
  CHECK(field_of(read_offers_json(R"({"offers": [{"id": "a", "gpu": "H100", "price": "1", "unit": "mig_slice", "mig_profile": "9g.1gb"}]})")) ==
        "offers[0].mig_profile");
  CHECK(field_of(read_offers_json(R"({"offers": [{"id": "a", "gpu": "H100", "price": "1", "mode": "spot"}]})")) == "offers[0].spot");
  CHECK(field_of(read_offers_json(R"({"offers": [{"id": "a", "gpu": "H100", "price": "1"}, {"id": "a", "gpu": "L4", "price": "2"}]})")) ==
        "offers[1].id");
  CHECK(field_of(read_offers_json(R"({"currency": "XAU", "offers": []})")) == "currency");
  // Not JSON at all, or a number no double holds (fuzz F3): a parse error naming the line.
  const auto bad_json = read_offers_json("{\n  \"offers\": [\n    {\"id\": \"a\", \"gpu\": \"H100\", \"price\": 1e999}]}", "o.json");
  REQUIRE_FALSE(bad_json);
  CHECK(bad_json.error().code == error_code::parse_error);
  CHECK(bad_json.error().where == "o.json:3");
  const auto unclosed = read_workload_json("{\"jobs\": [\n", "w.json");
  REQUIRE_FALSE(unclosed);
  CHECK(unclosed.error().code == error_code::parse_error);
  CHECK(unclosed.error().where == "w.json:2");
  // A job nothing can run is "not found", naming the job.
  auto cat = read_offers_json(example("offers.json"));
  auto w = read_workload_json(R"({"jobs": [{"name": "huge", "kind": "training", "gpu_hours": "1", "memory_gib": 100000, "max_gpus": 8}]})");
  REQUIRE(w);
  auto p = plan(*w, *cat);
  REQUIRE_FALSE(p);
  CHECK(p.error().code == error_code::not_found);
  CHECK(p.error().field == "jobs[0]");
}

}  // namespace test_planning_planner
