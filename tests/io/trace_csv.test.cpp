// SPDX-License-Identifier: MIT
// Trace CSV reading: every bad row is an error naming file, line and field.

#include <doctest/doctest.h>

#include <sstream>

#include <gpurent/io/fleet/trace_csv.hpp>

// Named, not anonymous, and around the test cases too: the layer's tests are also built as
// one unity translation unit, where every file's helpers would meet.
namespace test_io_trace_csv {

using namespace gpurent;

expected<std::vector<trace_pod>> pods(const std::string& text) {
  std::istringstream in(text);
  return read_trace_pods(in, "pods.csv");
}
expected<std::vector<trace_node>> nodes(const std::string& text) {
  std::istringstream in(text);
  return read_trace_nodes(in, "nodes.csv");
}
const std::string pod_header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n";

TEST_CASE("pods: good rows, any column order, optional gpu_spec, CRLF") {
  auto p = pods(pod_header + "p0,1000,2048,1,470,,LS\r\np1,2000,0,2,1000,T4|P100,BE\n\n");
  REQUIRE(p);
  REQUIRE(p->size() == 2);
  CHECK((*p)[0].gpu_milli == 470);
  CHECK((*p)[1].gpu_spec == "T4|P100");
  CHECK((*p)[1].line == 3);
  auto q = pods("gpu_milli,num_gpu,memory_mib,cpu_milli,name\n1000,8,0,64000,big\n");
  REQUIRE(q);
  CHECK((*q)[0].num_gpu == 8);
  CHECK((*q)[0].gpu_spec.empty());
}

TEST_CASE("pods: errors name the line and the field") {
  auto neg = pods(pod_header + "p0,1000,2048,1,470,,LS\np1,-5,0,1,100,,LS\n");
  REQUIRE_FALSE(neg);
  CHECK(neg.error().where == "pods.csv:3");
  CHECK(neg.error().field == "cpu_milli");
  CHECK(neg.error().describe() == "pods.csv:3: field 'cpu_milli': -5 is outside 0..1099511627776");
  // A number too large for its type is out of range, not "not an integer".
  auto huge = pods(pod_header + "p0,99999999999999999999999,2048,1,470,,LS\n");
  REQUIRE_FALSE(huge);
  CHECK(huge.error().describe() == "pods.csv:2: field 'cpu_milli': \"99999999999999999999999\" is outside 0..1099511627776");
  auto huge_negative = pods(pod_header + "p0,1000,-99999999999999999999999,1,470,,LS\n");
  REQUIRE_FALSE(huge_negative);
  CHECK(huge_negative.error().message.find("is outside") != std::string::npos);
  auto text = pods(pod_header + "p0,abc,2048,1,470,,LS\n");
  REQUIRE_FALSE(text);
  CHECK(text.error().code == error_code::parse_error);
  CHECK(text.error().field == "cpu_milli");
  auto fields = pods(pod_header + "p0,1000,2048,1\n");
  REQUIRE_FALSE(fields);
  CHECK(fields.error().where == "pods.csv:2");
  CHECK(fields.error().describe() == "pods.csv:2: field 'gpu_milli': expected 7 fields, found 4");
  auto extra = pods(pod_header + "p0,1000,2048,1,470,,LS,x,y\n");
  REQUIRE_FALSE(extra);
  CHECK(extra.error().describe() ==
        "pods.csv:2: field 'qos': expected 7 fields, found 9 (2 after the last column; quote a field that holds a comma)");
  auto share2 = pods(pod_header + "p0,1000,2048,2,500,,LS\n");
  REQUIRE_FALSE(share2);
  CHECK(share2.error().field == "gpu_milli");
  auto over = pods(pod_header + "p0,1000,2048,1,1001,,LS\n");
  REQUIRE_FALSE(over);
  CHECK(over.error().field == "gpu_milli");
  auto dup = pods(pod_header + "p0,1000,2048,1,100,,LS\np0,1000,2048,1,100,,LS\n");
  REQUIRE_FALSE(dup);
  CHECK(dup.error().code == error_code::duplicate);
  auto missing = pods("name,cpu_milli,memory_mib,num_gpu\n");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().field == "gpu_milli");
  CHECK(missing.error().where == "pods.csv:1");
  auto quoted = pods(pod_header + "\"p0\",1000,2048,1,100,,LS\n");
  REQUIRE_FALSE(quoted);
  CHECK_FALSE(pods(""));
  // A pod name that is not UTF-8 (fuzz F4's rule, core/utf8.hpp).
  auto not_utf8 = pods(pod_header + "p0,1000,2048,1,100,,LS\np\xC3,1000,2048,1,100,,LS\n");
  REQUIRE_FALSE(not_utf8);
  CHECK(not_utf8.error().describe() == "pods.csv:3: field 'name': not UTF-8: byte 0xC3 at offset 1");
}

TEST_CASE("nodes: good rows and errors") {
  auto n = nodes("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,32000,1000,0,\n");
  REQUIRE(n);
  CHECK(n->size() == 2);
  auto nomodel = nodes("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,\n");
  REQUIRE_FALSE(nomodel);
  CHECK(nomodel.error().field == "model");
  auto many = nodes("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,17,A100\n");
  REQUIRE_FALSE(many);
  CHECK(many.error().field == "gpu");
  auto dup = nodes("sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,1,A\nn0,1,1,1,A\n");
  REQUIRE_FALSE(dup);
  CHECK(dup.error().where == "nodes.csv:3");
  // A '|' in a model: no gpu_spec could name it ("A|B" asks for A or B), on a CPU-only node too.
  for (const char* gpus : {"2", "0"}) {
    auto bar = nodes(std::string("sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,1,A\nn1,1,1,") + gpus + ",A|B\n");
    REQUIRE_FALSE(bar);
    CHECK(bar.error().describe() == "nodes.csv:3: field 'model': \"A|B\" has a '|', which separates models in a gpu_spec");
  }
}

TEST_CASE("workload: an unknown model in gpu_spec is an error at its line") {
  auto n = nodes("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\n");
  auto p = pods(pod_header + "p0,1000,2048,1,470,P100,LS\np1,1000,2048,1,470,H100,LS\n");
  REQUIRE(n);
  REQUIRE(p);
  auto w = make_replay_workload(*n, "nodes.csv", *p, "pods.csv");
  REQUIRE_FALSE(w);
  CHECK(w.error().code == error_code::unknown_name);
  CHECK(w.error().describe() == "pods.csv:3: field 'gpu_spec': unknown GPU model \"H100\"");
}

}  // namespace test_io_trace_csv
