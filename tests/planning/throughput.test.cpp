// SPDX-License-Identifier: MIT
// Storage and network in a training plan (planning/throughput.hpp), on a 70B-parameter run
// worked by hand: checkpoint write time from size and bandwidth and the Daly interval that
// follows, the data-loading cap, and the all-reduce cost at 2, 4 and 8 servers.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <gpurent/io/plan/offers_json.hpp>
#include <gpurent/io/plan/workload_json.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/format.hpp>
#include <gpurent/planning/planner.hpp>
#include <gpurent/planning/throughput.hpp>

namespace test_planning_throughput {
using namespace gpurent;

namespace {
// 8 x H100 servers: 2,000 MB/s of storage writes and 4,000 MB/s of reads per server,
// 400 Gbit/s between servers (5e10 bytes/s), 16,000 GiB of disk each.
const char* offers = R"({"offers": [
  {"id": "c/8xh100", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "multi_node": true, "max_units": 16, "price": "24.00",
   "disk_gib": 16000, "storage_read_mb_per_s": 4000, "storage_write_mb_per_s": 2000, "internode_gbit_per_s": 400},
  {"id": "c/8xh100", "gpu": "H100-SXM5-80GB", "gpu_count": 8, "unit": "server", "mode": "spot", "multi_node": true, "max_units": 16, "price": "9.00",
   "disk_gib": 16000, "storage_read_mb_per_s": 4000, "storage_write_mb_per_s": 2000, "internode_gbit_per_s": 400,
   "spot": {"notice": "30s", "interruptions_per_hour": "0.02"}}]})";

// 70e9 parameters x 16 bytes of state = 1.12e12 bytes per checkpoint; 2 bytes of gradient
// each = 1.4e11 bytes per all-reduce; 600 MB/s of data per reference GPU; a 6 s step at the
// reference with half of it able to hide communication; 20,000 GiB of data.
const char* model = R"("model": {"parameters_b": "70", "state_bytes_per_parameter": 16, "gradient_bytes_per_parameter": 2,
                                 "dataset_gib": 20000, "read_mb_per_s_per_gpu": "600", "step_seconds": "6", "overlap": "0.5"})";

job the_job(const std::string& extra = {}) {
  auto w = read_workload_json(std::string(R"({"jobs": [{"name": "llm70b", "kind": "training", "reference_gpu": "H100-SXM5-80GB", "gpu_hours": "20000",
                                                       "memory_gib": 1200, "max_gpus": 64, "restart": "10min", )") +
                              model + extra + "}]}");
  REQUIRE_MESSAGE(w, w.error().describe());
  return w->jobs[0];
}
offer_catalog catalog() {
  auto c = read_offers_json(offers);
  REQUIRE_MESSAGE(c, c.error().describe());
  return *c;
}
}  // namespace

TEST_CASE("checkpoint write and restore times from size and bandwidth, and the Daly interval that follows") {
  const job j = the_job();
  const offer_catalog cat = catalog();
  const offer& spot = cat[1];
  CHECK(checkpoint_size(j) == bytes(1'120'000'000'000));
  // 1.12e12 B over 2 servers writing 2e9 B/s each: 280 s; 4 servers: 140 s; 8: 70 s.
  CHECK(checkpoint_write(j, spot, 2) == seconds(280));
  CHECK(checkpoint_write(j, spot, 4) == seconds(140));
  CHECK(checkpoint_write(j, spot, 8) == seconds(70));
  // Restart: 10 min of provisioning plus reading it back at 4e9 B/s per server: 2 servers
  // 140 s, so 740 s.
  CHECK(restart_time(j, spot, 2) == seconds(740));
  // Daly with delta = 280 s and 2 servers at 0.02/h each (M = 90,000 s):
  // sqrt(2 x 280 x 90000) = 7099.30 (Young); x = 280/180000, sqrt(x) = 0.039441:
  // 7099.30 x (1 + 0.013147 + 0.000173) - 280 = 6913.9 s.
  CHECK(young_interval(280, 90000) == doctest::Approx(7099.30).epsilon(1e-5));
  CHECK(daly_interval(280, 90000) == doctest::Approx(6913.9).epsilon(1e-4));
  // A typed-in checkpoint time still wins over the computed one.
  CHECK(checkpoint_write(the_job(R"(, "checkpoint": "5min")"), spot, 2) == seconds(300));
}

TEST_CASE("data loading caps the speed; all-reduce across 2, 4 and 8 servers") {
  const job j = the_job();
  const offer_catalog cat = catalog();
  const offer& o = cat[0];
  // 8 GPUs x 600 MB/s = 4,800 MB/s wanted from 4,000: each GPU runs at 4000/4800 = 0.8333 of
  // the reference (an H100, so compute alone would give 1).
  const training_speed one = speed_of(j, o, 1, 8);
  REQUIRE(one.storage_cap);
  CHECK(one.speed == doctest::Approx(0.833333).epsilon(1e-5));
  CHECK_FALSE(one.allreduce_s);  // one server: no all-reduce between servers
  // The step: 6 s / 0.8333 = 7.2 s, half of it (3.6 s) hides communication. A ring moves
  // 2 (k-1)/k x 1.4e11 B at 5e10 B/s: 2.8 s at k = 2 (hidden), 4.2 s at k = 4 (0.6 s
  // exposed: 7.8/7.2 = 1.0833), 4.9 s at k = 8 (1.3 s exposed: 8.5/7.2 = 1.1806).
  const training_speed two = speed_of(j, o, 2, 16), four = speed_of(j, o, 4, 32), eight = speed_of(j, o, 8, 64);
  CHECK(two.step_s == doctest::Approx(7.2));
  CHECK(*two.allreduce_s == doctest::Approx(2.8));
  CHECK(*two.exposed_s == doctest::Approx(0.0));
  CHECK(two.factor == doctest::Approx(1.0));
  CHECK(*four.allreduce_s == doctest::Approx(4.2));
  CHECK(*four.exposed_s == doctest::Approx(0.6));
  CHECK(four.factor == doctest::Approx(7.8 / 7.2));
  CHECK(*eight.allreduce_s == doctest::Approx(4.9));
  CHECK(eight.factor == doctest::Approx(8.5 / 7.2));
}

TEST_CASE("disks must hold the data set and two checkpoints") {
  const job j = the_job();
  const offer_catalog cat = catalog();
  const offer& o = cat[0];
  // 20,000 GiB + 2 x 1.12e12 B (2,086 GiB) = 22,086 GiB: one 16,000 GiB server is short, two hold it.
  CHECK_FALSE(disk_holds(j, o, 1));
  CHECK(disk_holds(j, o, 2));
}

TEST_CASE("the plan: 20,000 H100-hours on spot with computed checkpoints, slowed by storage and all-reduce") {
  auto w = read_workload_json(std::string(R"({"jobs": [{"name": "llm70b", "kind": "training", "reference_gpu": "H100-SXM5-80GB", "gpu_hours": "20000",
                                                       "memory_gib": 1200, "max_gpus": 64, "restart": "10min", "deadline": "25d", )") +
                              model + "}]}");
  REQUIRE(w);
  const offer_catalog cat = catalog();
  auto p = plan(*w, cat);
  REQUIRE_MESSAGE(p, p.error().describe());
  const job_plan& j = p->jobs[0];
  CHECK(j.mode == offer_mode::spot);  // spot allowed: the checkpoint time follows from the model size
  REQUIRE(j.spot);
  const std::string why = to_string(j.why);
  CHECK(why.find("storage reads hold each GPU to 0.83x the reference GPU's speed") != std::string::npos);
  // 64 GPUs on 8 servers: 20,000 GPU-hours / (64 x 0.8333) x 1.1806 = 442.7 h of solve time
  // before interruptions (the cheapest of the GPU counts tried on spot).
  // 15 GPUs of memory at least: 2, 4 then 8 servers; only 8 finish in 25 days:
  // 20,000 GPU-hours / (64 x 0.8333) x 8.5/7.2 = 442.7 h of solve time, then interruptions.
  CHECK(j.gpus == 64);
  CHECK(why.find("all-reduce across 8 servers takes 4.90 s per 7.20 s step, 1.30 s of it exposed (18.06% longer)") != std::string::npos);
  CHECK(j.wall > seconds(static_cast<std::int64_t>(20000.0 * 3600 / (64 * (4000.0 / 4800)) * (8.5 / 7.2))));
  CHECK(j.wall <= seconds(25 * 86400));
  CHECK(p->billed_total == p->total_cost);
}

}  // namespace test_planning_throughput
