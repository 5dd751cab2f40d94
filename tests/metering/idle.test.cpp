// SPDX-License-Identifier: MIT
// Idle time from utilization samples (metering/waste.hpp): what a sample holds, gaps longer
// than max_gap (unobserved, never idle), the last sample's hold, and the cost of the idle
// parts of usage through the meter, each computed by hand for a small case.
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/waste.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_idle {

using namespace gpurent;

namespace {
const instant t0 = *parse_instant("2026-11-03T00:00:00Z");
instant at_min(int m) { return t0 + seconds(60 * m); }
interval span(int from_min, int to_min) { return *interval::make(at_min(from_min), at_min(to_min)); }

// One sample a minute: `busy[i]` percent at minute i.
std::vector<utilization_sample> per_minute(const std::vector<int>& busy, int first_min = 0) {
  std::vector<utilization_sample> s;
  for (std::size_t i = 0; i < busy.size(); ++i) s.push_back({at_min(first_min + static_cast<int>(i)), busy[i]});
  return s;
}

idle_rules rules(int threshold, int min_idle_min, int max_gap_min) {
  idle_rules r;
  r.threshold = percent(threshold);
  r.min_idle = seconds(60 * min_idle_min);
  r.max_gap = seconds(60 * max_gap_min);
  return r;
}
const interval whole_day = span(0, 24 * 60);
}  // namespace

TEST_CASE("each sample holds until the next; the last holds one scrape interval") {
  // 0..9 min busy, 10..49 idle (2%), 50..59 busy: 60 samples a minute apart.
  std::vector<int> busy(60, 80);
  for (int m = 10; m < 50; ++m) busy[static_cast<std::size_t>(m)] = 2;
  const auto r = analyze_utilization(per_minute(busy), rules(5, 30, 5), whole_day);
  REQUIRE(r);
  CHECK(r->scrape_interval == seconds(60));
  REQUIRE(r->observed.size() == 1);
  CHECK(r->observed[0] == span(0, 60));  // the last sample (minute 59) holds to minute 60
  REQUIRE(r->idle.size() == 1);
  CHECK(r->idle[0] == span(10, 50));
  CHECK(r->idle_seconds() == seconds(2400));
  CHECK(share_basis_points(r->idle_seconds(), r->observed_seconds()) == 6667);  // 40/60, rounded half up
}

TEST_CASE("a gap longer than max_gap is unobserved, never idle, and splits an idle run") {
  // Idle samples at minutes 0..19, then nothing until minute 40, idle again 40..59.
  std::vector<utilization_sample> s = per_minute(std::vector<int>(20, 1));
  for (const auto& x : per_minute(std::vector<int>(20, 1), 40)) s.push_back(x);
  const auto r = analyze_utilization(s, rules(5, 10, 5), whole_day);
  REQUIRE(r);
  // Minute 19 holds 5 min (max_gap), to minute 24; 24..40 is not observed.
  REQUIRE(r->observed.size() == 2);
  CHECK(r->observed[0] == span(0, 24));
  CHECK(r->observed[1] == span(40, 60));
  REQUIRE(r->idle.size() == 2);
  CHECK(r->idle[0] == span(0, 24));
  CHECK(r->idle[1] == span(40, 60));
  // Each stretch alone must pass min_idle: with 21 minutes the second (20 min) is dropped.
  const auto longer = analyze_utilization(s, rules(5, 21, 5), whole_day);
  REQUIRE(longer);
  REQUIRE(longer->idle.size() == 1);
  CHECK(longer->idle[0] == span(0, 24));
  // With max_gap 30 min the gap is bridged: one idle run of an hour.
  const auto bridged = analyze_utilization(s, rules(5, 21, 30), whole_day);
  REQUIRE(bridged);
  REQUIRE(bridged->idle.size() == 1);
  CHECK(bridged->idle[0] == span(0, 60));
}

TEST_CASE("the threshold is strict, min_idle keeps only longer stretches, the window clips") {
  // 5% is not idle under threshold 5; 4.999% is.
  std::vector<utilization_sample> s = per_minute({5, 5, 5, 5});
  CHECK(analyze_utilization(s, rules(5, 0, 5), whole_day)->idle.empty());
  for (auto& x : s) x.busy = milli_percent(4'999);
  REQUIRE(analyze_utilization(s, rules(5, 0, 5), whole_day)->idle.size() == 1);
  // A 4-minute idle stretch is dropped under min_idle 4 min (it must be longer), kept under 3.
  CHECK(analyze_utilization(s, rules(5, 4, 5), whole_day)->idle.empty());
  CHECK(analyze_utilization(s, rules(5, 3, 5), whole_day)->idle.size() == 1);
  // Clipped to [1 min, 3 min): 2 minutes observed, 2 idle.
  const auto clipped = analyze_utilization(s, rules(5, 0, 5), span(1, 3));
  REQUIRE(clipped);
  CHECK(clipped->observed_seconds() == seconds(120));
  CHECK(clipped->idle == std::vector<interval>{span(1, 3)});
}

TEST_CASE("irregular series: the median gap is the last sample's hold; one sample observes nothing") {
  // Gaps 60, 60, 120, 60 s: median 60 s.
  const std::vector<utilization_sample> s{{at_min(0), 90}, {at_min(1), 90}, {at_min(2), 90}, {at_min(4), 90}, {at_min(5), 90}};
  const auto r = analyze_utilization(s, rules(5, 0, 5), whole_day);
  REQUIRE(r);
  CHECK(r->scrape_interval == seconds(60));
  CHECK(r->observed == std::vector<interval>{span(0, 6)});
  const auto lone = analyze_utilization({{at_min(3), 0}}, rules(5, 0, 5), whole_day);
  REQUIRE(lone);
  CHECK(lone->observed.empty());
  CHECK(lone->idle.empty());
  idle_rules held = rules(5, 0, 5);
  held.last_hold = seconds(120);
  CHECK(analyze_utilization({{at_min(3), 0}}, held, whole_day)->idle == std::vector<interval>{span(3, 5)});
}

TEST_CASE("bad rules and samples are errors naming the field") {
  idle_rules bad = rules(5, 0, 5);
  bad.max_gap = seconds(0);
  const auto r = analyze_utilization({}, bad, whole_day);
  REQUIRE_FALSE(r);
  CHECK(r.error().field == "max_gap");
  const auto over = analyze_utilization({{t0, milli_percent(100'001)}}, rules(5, 0, 5), whole_day);
  REQUIRE_FALSE(over);
  CHECK(over.error().field == "samples[0].busy");
}

TEST_CASE("interval sets: intersection, the parts of a record inside idle periods") {
  const std::vector<interval> a{span(0, 10), span(20, 30)}, b{span(5, 25)};
  CHECK(intersect_sets(a, b) == std::vector<interval>{span(5, 10), span(20, 25)});
  usage_record r{"r1", "acme", "gpu/H100", "on_demand", nano_quantity(detail::nano_one), at_min(8), at_min(28), {{"gpu", "GPU-a"}}};
  const auto parts = usage_within(r, a);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].id == "r1#idle1");
  CHECK(parts[0].span() == span(8, 10));
  CHECK(parts[1].id == "r1#idle2");
  CHECK(parts[1].span() == span(20, 28));
  CHECK(parts[1].labels == r.labels);
  r.labels = {{"job", "x"}, {"gpu", "GPU-a;GPU-b;"}};
  CHECK(record_gpus(r) == std::vector<std::string_view>{"GPU-a", "GPU-b"});
}

TEST_CASE("the cost of idle time, through the meter, by hand") {
  // GPU-a idle 01:00-02:30, GPU-b idle 03:20-04:00, both observed 00:00-04:00; GPU-c has no samples.
  std::vector<int> a(240, 80), b(240, 80);
  for (std::size_t m = 60; m < 150; ++m) a[m] = 2;
  for (std::size_t m = 200; m < 240; ++m) b[m] = 0;
  gpu_reports reports;
  reports["GPU-a"] = *analyze_utilization(per_minute(a), rules(5, 30, 5), whole_day);
  reports["GPU-b"] = *analyze_utilization(per_minute(b), rules(5, 30, 5), whole_day);
  REQUIRE(reports["GPU-a"].idle == std::vector<interval>{span(60, 150)});
  REQUIRE(reports["GPU-b"].idle == std::vector<interval>{span(200, 240)});
  // 2.40 an hour per GPU, by the second; spot 1.20 an hour, by the minute, at least 10 minutes.
  const auto t = io::parse_tariff_json(R"({"currency": "USD", "timezone": "UTC", "rates": [
      {"resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.40", "per": "1h"},
      {"resource": "gpu/H100", "mode": "spot", "unit_price": "1.20", "per": "1h", "increment": "60s", "minimum": "600s"}]})",
                                       "t.json");
  REQUIRE(t);
  const auto rec = [](const char* id, const char* account, const char* mode, int gpus, int from, int to, const char* gpu) {
    return usage_record{id, account, "gpu/H100", mode, nano_quantity(gpus * detail::nano_one), at_min(from), at_min(to), {{"gpu", gpu}}};
  };
  const std::vector<usage_record> records{rec("r1", "acme", "on_demand", 1, 30, 120, "GPU-a"),       // idle 01:00-02:00: 3600 s, 2.40
                                          rec("r2", "acme", "on_demand", 2, 120, 180, "GPU-a"),      // idle 02:00-02:30 on 2 GPUs: 1800 s, 2.40
                                          rec("r3", "acme", "on_demand", 1, 60, 90, "GPU-a;GPU-b"),  // GPU-b busy: not idle
                                          rec("r4", "beta", "spot", 1, 230, 300, "GPU-b"),   // idle 03:50-04:00: 600 s, 0.20; 04:00-05:00 unobserved
                                          rec("r5", "beta", "spot", 1, 180, 185, "GPU-c")};  // no samples: 300 s unobserved
  const std::vector<std::size_t> lines{2, 3, 4, 5, 6};
  const auto bill = bill_idle(*t, "2026-11", records, lines, "u.csv", reports);
  REQUIRE(bill);
  const invoice_line* all = find_line(bill->billed, "acme", "gpu/H100", "on_demand");
  const invoice_line* idle = find_line(bill->idle, "acme", "gpu/H100", "on_demand");
  REQUIRE(all != nullptr);
  REQUIRE(idle != nullptr);
  CHECK(all->amount.to_string() == "9.60");  // 1.5 h + 2 x 1 h + 0.5 h at 2.40
  CHECK(idle->records == 2);
  CHECK(idle->used_seconds == 5400);
  // Without its idle time r1 is 0.5 h (1.20), r2 2 x 0.5 h (2.40), r3 as it was: 4.80 of 9.60.
  const idle_cost cost = idle_cost_of(*bill, "acme", *all);
  CHECK(cost.amount.to_string() == "4.80");
  CHECK(format_exact(cost.exact) == "4.8");
  CHECK(cost.billed_seconds == 5400);
  const invoice_line* spot_idle = find_line(bill->idle, "beta", "gpu/H100", "spot");
  REQUIRE(spot_idle != nullptr);
  CHECK(spot_idle->used_seconds == 600);
  const invoice_line* spot = find_line(bill->billed, "beta", "gpu/H100", "spot");
  CHECK(spot->amount.to_string() == "1.60");  // 70 min + the 10-min minimum
  // Without its idle 10 minutes r4 is 60 min (1.20): 1.40 - 1.20; r5 has no idle time.
  CHECK(idle_cost_of(*bill, "beta", *spot).amount.to_string() == "0.20");
  REQUIRE(bill->unobserved.size() == 1);
  CHECK(bill->unobserved[0] == unobserved_line{"beta", "gpu/H100", "spot", 3900});
  // A record whose resource has no rate is the meter's error, naming the line.
  std::vector<usage_record> bad = records;
  bad[1].mode = "reserved";
  const auto err = bill_idle(*t, "2026-11", bad, lines, "u.csv", reports);
  REQUIRE_FALSE(err);
  CHECK(err.error().where == "u.csv:3");
}

namespace {
// GPU-x busy but for the given [from, to) minutes, over a day; rules 5%, 30 min, 5 min.
gpu_reports idle_between(const std::vector<std::pair<int, int>>& idle) {
  std::vector<int> busy(24 * 60, 90);
  for (const auto& [from, to] : idle)
    for (int m = from; m < to; ++m) busy[static_cast<std::size_t>(m)] = 0;
  gpu_reports reports;
  reports["GPU-x"] = *analyze_utilization(per_minute(busy), rules(5, 30, 5), whole_day);
  return reports;
}
usage_record on_x(const char* id, int from, int to) {
  return usage_record{id, "acme", "gpu/H100", "on_demand", nano_quantity(detail::nano_one), at_min(from), at_min(to), {{"gpu", "GPU-x"}}};
}
}  // namespace

TEST_CASE("idle cost under a minimum: what the record would not have cost, never above its amount") {
  // 1.00 an hour in whole hours, at least 2 h. r1 00:00-03:00 holds two 40-minute idle periods.
  const auto t = io::parse_tariff_json(R"({"currency": "USD", "timezone": "UTC", "rates": [
      {"resource": "gpu/H100", "mode": "on_demand", "unit_price": "1.00", "per": "1h", "minimum": "2h", "increment": "1h"}]})",
                                       "t.json");
  REQUIRE(t);
  const gpu_reports reports = idle_between({{10, 50}, {100, 140}});
  REQUIRE(reports.at("GPU-x").idle == std::vector<interval>{span(10, 50), span(100, 140)});
  const std::vector<usage_record> one{on_x("r1", 0, 180)};
  const auto bill = bill_idle(*t, "2026-11", one, std::vector<std::size_t>{2}, "u.csv", reports);
  REQUIRE(bill);
  const invoice_line& all = *find_line(bill->billed, "acme", "gpu/H100", "on_demand");
  CHECK(all.amount.to_string() == "3.00");
  CHECK(find_line(bill->idle, "acme", "gpu/H100", "on_demand")->used_seconds == 4800);
  // Without its 80 idle minutes r1 is 100 min, billed 2 h (the increment, the minimum): 2.00.
  // Rated on its own each idle piece would be 2 h, 4.00 in all: more than r1 cost.
  const idle_cost cost = idle_cost_of(*bill, "acme", all);
  CHECK(cost.amount.to_string() == "1.00");
  CHECK(format_exact(cost.exact) == "1");
  CHECK(cost.billed_seconds == 3600);
  // A record idle all through costs nothing without it: its whole amount (2 h, 2.00) is idle.
  const std::vector<usage_record> all_idle{on_x("r2", 10, 50)};
  const auto whole = bill_idle(*t, "2026-11", all_idle, std::vector<std::size_t>{2}, "u.csv", reports);
  REQUIRE(whole);
  const invoice_line& line = *find_line(whole->billed, "acme", "gpu/H100", "on_demand");
  CHECK(line.amount.to_string() == "2.00");
  CHECK(idle_cost_of(*whole, "acme", line).amount.to_string() == "2.00");
  CHECK(idle_cost_of(*whole, "acme", line).billed_seconds == 7200);
}

TEST_CASE("idle cost is floored at 0 when the record without its idle time would cost more") {
  // 10.00 an hour until 01:40, then 1.00; at least 2 h. r1 00:00-03:00 is idle 01:40-03:00.
  // As billed: 100 min at 10.00 + 80 min at 1.00 = 16.666... + 1.333... = 18.00. Without its
  // idle time: 100 min padded to 2 h at the price of its last second (10.00) = 20.00.
  const auto t = io::parse_tariff_json(R"({"currency": "USD", "timezone": "UTC", "rates": [
      {"resource": "gpu/H100", "mode": "on_demand", "unit_price": "10.00", "per": "1h", "minimum": "2h",
       "price_changes": [{"from": "2026-11-03T01:40:00Z", "unit_price": "1.00"}]}]})",
                                       "t.json");
  REQUIRE(t);
  const std::vector<usage_record> one{on_x("r1", 0, 180)};
  const auto bill = bill_idle(*t, "2026-11", one, std::vector<std::size_t>{2}, "u.csv", idle_between({{100, 180}}));
  REQUIRE(bill);
  const invoice_line& all = *find_line(bill->billed, "acme", "gpu/H100", "on_demand");
  CHECK(all.amount.to_string() == "18.00");
  CHECK(find_line(bill->active, "acme", "gpu/H100", "on_demand")->amount.to_string() == "20.00");
  const idle_cost cost = idle_cost_of(*bill, "acme", all);
  CHECK(cost.amount.to_string() == "0.00");
  CHECK(format_exact(cost.exact) == "0");
  CHECK(cost.billed_seconds == 3600);  // 3 h billed, 2 h without the idle time
}

TEST_CASE("a record given twice counts once in billed, idle and unobserved time") {
  // r1 00:00-00:40 on GPU-x, idle 00:00-00:35 (observed until 00:35: samples stop there).
  std::vector<int> busy(35, 0);
  gpu_reports reports;
  reports["GPU-x"] = *analyze_utilization(per_minute(busy), rules(5, 30, 5), whole_day);
  REQUIRE(reports["GPU-x"].observed == std::vector<interval>{span(0, 35)});
  const auto t = io::parse_tariff_json(R"({"currency": "USD", "timezone": "UTC", "rates": [
      {"resource": "gpu/H100", "mode": "on_demand", "unit_price": "3.60", "per": "1h"}]})",
                                       "t.json");
  REQUIRE(t);
  const std::vector<usage_record> twice{on_x("r1", 0, 40), on_x("r1", 0, 40)};
  const auto bill = bill_idle(*t, "2026-11", twice, std::vector<std::size_t>{2, 3}, "u.csv", reports);
  REQUIRE(bill);
  const invoice_line& all = *find_line(bill->billed, "acme", "gpu/H100", "on_demand");
  CHECK(all.billed_seconds == 2400);
  CHECK(find_line(bill->idle, "acme", "gpu/H100", "on_demand")->used_seconds == 2100);
  CHECK(idle_cost_of(*bill, "acme", all).amount.to_string() == "2.10");
  REQUIRE(bill->unobserved.size() == 1);
  CHECK(bill->unobserved[0].seconds == 300);  // 00:35-00:40, once
}

}  // namespace test_metering_idle
