// SPDX-License-Identifier: MIT
// The advisors' file readers (io/plan/load_csv.hpp, io/fleet/nodes_csv.hpp): hourly load profiles and
// node status, strict, every error at file:line with its field.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gpurent/io/fleet/nodes_csv.hpp>
#include <gpurent/io/plan/load_csv.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_io_load_nodes_csv {

using namespace gpurent;

namespace {
// The error of reading `text` as "where field: message"-like parts.
error load_error(const std::string& text) {
  auto p = io::read_load_csv(text, "load.csv");
  REQUIRE_FALSE(p);
  return p.error();
}
error nodes_error(const std::string& text) {
  auto p = io::read_nodes_csv(text, "nodes.csv");
  REQUIRE_FALSE(p);
  return p.error();
}
}  // namespace

TEST_CASE("load profile: hour numbers or instants, one row per hour") {
  auto p = io::read_load_csv("hour,gpus\n0,4\n1,6\r\n\n2,0\n", "load.csv");
  REQUIRE(p);
  CHECK(p->hourly == std::vector<std::int64_t>{4, 6, 0});
  CHECK_FALSE(p->start);
  auto q = io::read_load_csv("\xEF\xBB\xBFunits,start\n2,2026-11-02T00:00:00Z\n3,2026-11-02T01:00:00Z\n5,2026-11-02T03:00:00+01:00\n", "l.csv");
  REQUIRE(q);
  CHECK(q->hourly == std::vector<std::int64_t>{2, 3, 5});
  REQUIRE(q->start);
  CHECK(format_instant(*q->start) == "2026-11-02T00:00:00Z");
  auto r = io::read_load_csv("hour,gpus\n24,1\n25,2\n", "load.csv");
  REQUIRE(r);
  CHECK(r->first_hour == 24);
}

TEST_CASE("load profile: every bad row names file, line and field") {
  const auto where = [](const error& e) { return e.where + " " + e.field; };
  CHECK(where(load_error("hour,gpus\n0,2\n1,x\n")) == "load.csv:3 gpus");
  CHECK(where(load_error("hour,gpus\n0,2\n2,3\n")) == "load.csv:3 hour");
  CHECK(where(load_error("hour,gpus\n1,2\n0,3\n")) == "load.csv:3 hour");
  CHECK(where(load_error("hour,gpus\n0,-2\n")) == "load.csv:2 gpus");
  CHECK(load_error("hour,gpus\n0,-2\n").message.find("negative") != std::string::npos);
  CHECK(where(load_error("hour,gpus\n0,2.5\n")) == "load.csv:2 gpus");
  CHECK(where(load_error("hour,gpus\n0,\n")) == "load.csv:2 gpus");
  CHECK(where(load_error("hour,gpus\n0\n")) == "load.csv:2 gpus");
  // A row with more fields than the header names the last column, after which they begin.
  CHECK(where(load_error("hour,gpus\n0,1,2\n")) == "load.csv:2 gpus");
  CHECK(load_error("hour,gpus\n0,1,2\n").message == "expected 2 fields, found 3 (1 after the last column; quote a field that holds a comma)");
  CHECK(where(load_error("hour,gpus\n0,1073741825\n")) == "load.csv:2 gpus");
  CHECK(where(load_error("hour,gpu\n0,1\n")) == "load.csv:1 gpu");
  CHECK(where(load_error("hour,gpus,gpus\n0,1,1\n")) == "load.csv:1 gpus");
  CHECK(where(load_error("gpus\n1\n")) == "load.csv:1 hour");
  CHECK(where(load_error("hour,gpus\n")) == "load.csv:1 gpus");
  CHECK(where(load_error("")) == "load.csv:1 hour");
  CHECK(where(load_error("start,gpus\n2026-11-01T00:00:00Z,1\n2026-11-01T02:00:00Z,1\n")) == "load.csv:3 start");
  CHECK(where(load_error("start,gpus\n2026-11-01T00:00Z,1\n")) == "load.csv:2 start");
  CHECK(where(load_error("hour,gpus\n0,\"1\n")) == "load.csv:2 ");
}

TEST_CASE("node status: busy nodes carry their checkpoint and progress") {
  auto n = io::read_nodes_csv(
      "node,utilization,busy,last_checkpoint,last_progress\n"
      "a,0.10,true,2026-11-03T10:00:00Z,2026-11-03T09:50:00Z\n"
      "b,1,true,2026-11-03T09:00:00Z,2026-11-03T09:40:00Z\n"
      "c,0,false,,\n",
      "nodes.csv");
  REQUIRE(n);
  REQUIRE(n->size() == 3);
  CHECK((*n)[0].id == "a");
  CHECK((*n)[0].utilization == doctest::Approx(0.1));
  CHECK((*n)[0].safe_to_release());
  CHECK_FALSE((*n)[1].safe_to_release());
  CHECK((*n)[2].safe_to_release());
  // Without the time columns: only idle nodes.
  auto idle = io::read_nodes_csv("busy,node,utilization\nfalse,x,0.05\n", "nodes.csv");
  REQUIRE(idle);
  CHECK((*idle)[0].id == "x");
}

TEST_CASE("node status: every bad row names file, line and field") {
  const auto where = [](const error& e) { return e.where + " " + e.field; };
  const std::string h = "node,utilization,busy,last_checkpoint,last_progress\n";
  CHECK(where(nodes_error(h + "a,0.5,maybe,,\n")) == "nodes.csv:2 busy");
  CHECK(where(nodes_error(h + "a,1.5,false,,\n")) == "nodes.csv:2 utilization");
  CHECK(where(nodes_error(h + "a,-0.1,false,,\n")) == "nodes.csv:2 utilization");
  CHECK(where(nodes_error(h + "a,x,false,,\n")) == "nodes.csv:2 utilization");
  CHECK(where(nodes_error(h + "a,0.5,true,,2026-11-03T09:40:00Z\n")) == "nodes.csv:2 last_checkpoint");
  CHECK(where(nodes_error(h + "a,0.5,true,2026-11-03T09:40:00Z,\n")) == "nodes.csv:2 last_progress");
  CHECK(where(nodes_error(h + "a,0.5,false,yesterday,\n")) == "nodes.csv:2 last_checkpoint");
  CHECK(where(nodes_error(h + ",0.5,false,,\n")) == "nodes.csv:2 node");
  CHECK(where(nodes_error(h + "a,0.5,false,,\na,0.1,false,,\n")) == "nodes.csv:3 node");
  CHECK(where(nodes_error("node,utilization,busy\na,0.5,true\n")) == "nodes.csv:2 last_checkpoint");
  CHECK(where(nodes_error("node,utilization\n")) == "nodes.csv:1 busy");
  CHECK(where(nodes_error("node,utilization,busy,gpu\n")) == "nodes.csv:1 gpu");
  // A name that is not UTF-8 (the advice's JSON names the nodes it releases; every reader of
  // io::read_csv_table applies the rule, fuzz F4).
  const error not_utf8 = nodes_error(h +
                                     "ok,0.01,false,,\nnode-\x9a"
                                     "a,0.01,false,,\n");
  CHECK(where(not_utf8) == "nodes.csv:3 node");
  CHECK(not_utf8.message == "not UTF-8: byte 0x9A at offset 5");
}

}  // namespace test_io_load_nodes_csv
