// SPDX-License-Identifier: MIT
// `gpurent fleet run` refuses bad input as docs/formats/README.md says: exit 2, a message on stderr
// naming the file, line and field (or the option), nothing on stdout and no output file.
// One case per input the contract review found accepted or misreported: the trace's times
// and qos (fleet/run/pods.hpp's check_pod) and its columns, a jobs file without durations,
// option values (each parsed before anything is read or run), output files made whole before
// any is written, --compress with --pods only, and --format by name only (tools/tool.hpp's
// helper, shared by every command).

#include <doctest/doctest.h>

#include <filesystem>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include <gpurent/fleet/run/pods.hpp>

#include "support/tool.hpp"

namespace test_tool_fleet_run_inputs {

using gpurent::test::run_tool;
using gpurent::test::write_file;
std::filesystem::path scratch() { return gpurent::test::scratch_dir("fleet_run_inputs"); }

const std::string pod_header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
// Two pods that ran (lines 2 and 3) and one never scheduled (line 4).
const std::string good_pods =
    "p0,1000,1024,1,1000,,LS,Running,100,500,110\n"
    "p1,1000,1024,1,500,,BE,Running,120,900,130\n"
    "p2,1000,1024,1,1000,,Burstable,Pending,140,,\n";

std::string nodes() { return write_file(scratch() / "nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,A100\n"); }

// `fleet run ARGS` with --placements and --emit-usage asked for: exit 2, every `want` in the
// message, nothing on stdout, neither file written.
void refused(const std::string& args, std::initializer_list<std::string> want) {
  const auto placements = scratch() / "placements.csv", usage = scratch() / "usage.csv";
  std::filesystem::remove(placements);
  std::filesystem::remove(usage);
  const auto r = run_tool("fleet run --nodes " + nodes() + " " + args + " --placements " + placements.string() + " --emit-usage " + usage.string());
  INFO("fleet run " << args << "\nstderr: " << r.err);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  for (const std::string& w : want) CHECK(r.err.find(w) != std::string::npos);
  CHECK(!std::filesystem::exists(placements));
  CHECK(!std::filesystem::exists(usage));
}

// A pod file of the good pods with `row` in place of line 3 (p1).
std::string pods_with(const std::string& name, const std::string& row) {
  return write_file(scratch() / name,
                    pod_header + "p0,1000,1024,1,1000,,LS,Running,100,500,110\n" + row + "\n" + "p2,1000,1024,1,1000,,Burstable,Pending,140,,\n");
}

TEST_CASE("check_pod: the qos classes, and the times of a pod that ran") {
  using gpurent::pod_times;
  const auto field = [](const pod_times& p) { return gpurent::check_pod(p).error().field; };
  CHECK(gpurent::class_of_qos("LS")->priority == 100);
  CHECK(gpurent::class_of_qos("Guaranteed")->priority == 100);
  CHECK(gpurent::class_of_qos("Burstable")->priority == 50);
  CHECK(gpurent::class_of_qos("BE")->preemptible);
  CHECK(!gpurent::class_of_qos("be"));
  CHECK(gpurent::check_pod(pod_times{"p", {}, "BE", 100, 110, 500}));
  CHECK(gpurent::check_pod(pod_times{"p", {}, "LS", 100, 110, 110}));  // zero work
  CHECK(gpurent::check_pod(pod_times{"p", {}, "LS", 100, -1, -1}));    // never scheduled
  CHECK(field(pod_times{"p", {}, "XX", 100, -1, -1}) == "qos");
  CHECK(field(pod_times{"p", {}, "", 100, 110, 500}) == "qos");
  CHECK(field(pod_times{"p", {}, "LS", -1, 110, 500}) == "creation_time");
  CHECK(field(pod_times{"p", {}, "LS", 100, 110, -1}) == "deletion_time");
  CHECK(field(pod_times{"p", {}, "LS", 100, 110, 109}) == "deletion_time");
}

TEST_CASE("fleet run --pods: the good pods run; the pod never scheduled is counted") {
  const auto r = run_tool("fleet run --nodes " + nodes() + " --pods " + write_file(scratch() / "good.csv", pod_header + good_pods) + " --compress 1");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["jobs"] == 2);
  CHECK(j["never_scheduled"] == 1);
  CHECK(j["compress"] == 1);
  CHECK(j["classes"]["spot"]["arrived"] == 1);
}

TEST_CASE("fleet run --pods: deletion_time before scheduled_time is an error at its line") {
  const std::string f = pods_with("del_before.csv", "p1,1000,1024,1,500,,BE,Running,120,125,130");
  refused("--pods " + f + " --compress 1", {f + ":3:", "field 'deletion_time'", "125 is before scheduled_time 130"});
}

TEST_CASE("fleet run --pods: a pod that ran without a deletion_time is an error") {
  const std::string f = pods_with("del_empty.csv", "p1,1000,1024,1,500,,BE,Running,120,,130");
  refused("--pods " + f + " --compress 1", {f + ":3:", "field 'deletion_time'", "missing value"});
}

TEST_CASE("fleet run --pods: a pod that ran without a creation_time is an error") {
  const std::string f = pods_with("cre_empty.csv", "p1,1000,1024,1,500,,BE,Running,,900,130");
  refused("--pods " + f + " --compress 1", {f + ":3:", "field 'creation_time'", "missing value"});
}

TEST_CASE("fleet run --pods: an unknown qos is an error listing the accepted ones") {
  const std::string f = pods_with("qos.csv", "p1,1000,1024,1,500,,XX,Running,120,900,130");
  refused("--pods " + f + " --compress 1", {f + ":3:", "field 'qos'", "LS, Guaranteed, Burstable or BE", "\"XX\""});
}

TEST_CASE("fleet run --pods: a file without the time columns or qos is an error at its header; replay still reads it") {
  // The openb multigpu* files' header: no qos, no times.
  const std::string bare = write_file(scratch() / "bare.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,1,1000\n");
  refused("--pods " + bare + " --compress 1",
          {bare + ":1:", "field 'creation_time'", "missing columns in header: creation_time, scheduled_time, deletion_time, qos"});
  const std::string no_qos =
      write_file(scratch() / "no_qos.csv",
                 "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\np0,1000,1024,1,1000,100,500,110\n");
  refused("--pods " + no_qos + " --compress 1", {no_qos + ":1:", "field 'qos'", "missing column in header"});
  // The FGD replay needs none of them.
  const auto replay = run_tool("replay --nodes " + nodes() + " --pods " + bare + " --policy best-fit --seed 7");
  CHECK(replay.status == 0);
  CHECK(replay.err.empty());
}

TEST_CASE("fleet run --jobs: a job without a duration is an error at its line; a file without the column at its header") {
  const std::string no_value = write_file(scratch() / "nodur.csv", "name,workers,num_gpu,duration\na,1,1,100\nb,1,1,\n");
  refused("--jobs " + no_value, {no_value + ":3:", "field 'duration'", "missing value"});
  const std::string no_column = write_file(scratch() / "nodur_col.csv", "name,workers,num_gpu\na,1,1\n");
  refused("--jobs " + no_column, {no_column + ":1:", "field 'duration'", "missing column"});
}

TEST_CASE("fleet run: a bad option value names the option, before anything is read or run") {
  const std::string jobs = write_file(scratch() / "jobs.csv", "name,workers,num_gpu,duration\na,1,1,100\n");
  refused("--jobs " + jobs + " --notice -5s", {"'--notice'", "not a duration: \"-5s\""});
  refused("--jobs " + jobs + " --notice 30", {"'--notice'", "not a duration: \"30\""});
  refused("--jobs " + jobs + " --restart 2x", {"'--restart'", "not a duration: \"2x\""});
  refused("--jobs " + jobs + " --checkpoint-write soon", {"'--checkpoint-write'", "not a duration: \"soon\""});
  refused("--jobs " + jobs + " --min-runtime 1y", {"'--min-runtime'", "not a duration"});
  refused("--jobs " + jobs + " --timeline-step 0s", {"'--timeline-step'", "at least 1s"});
  refused("--jobs " + jobs + " --epoch yesterday", {"'--epoch'", "not an RFC 3339 instant: \"yesterday\""});
  // An option is checked before the files: a bad one wins over a missing file.
  refused("--jobs " + (scratch() / "absent.csv").string() + " --epoch yesterday", {"'--epoch'"});
  // --epoch without --emit-usage is checked too.
  const auto placements = scratch() / "epoch_placements.csv";
  std::filesystem::remove(placements);
  const auto r = run_tool("fleet run --nodes " + nodes() + " --jobs " + jobs + " --epoch yesterday --placements " + placements.string());
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("'--epoch'") != std::string::npos);
  CHECK(!std::filesystem::exists(placements));
}

TEST_CASE("fleet run: a usage record the meter would refuse is found before any output file is written") {
  // Known only after the run: the job ends 100000 s after an epoch one hour before 10000-01-01.
  const std::string jobs = write_file(scratch() / "long.csv", "name,workers,num_gpu,duration\na,1,1,100000\n");
  refused("--jobs " + jobs + " --epoch 9999-12-31T23:00:00Z",
          {"'--emit-usage'", "usage record a-0-0", "outside the years 0000-9999", "from --epoch 9999-12-31T23:00:00Z"});
}

TEST_CASE("fleet run: an output that names an input or another output exits 2 before anything is written") {
  const std::string jobs = write_file(scratch() / "same_jobs.csv", "name,workers,num_gpu,duration\na,1,1,100\n");
  const std::string before = gpurent::test::slurp(jobs);
  const auto same = scratch() / "same.csv";
  std::filesystem::remove(same);
  refused("--jobs " + jobs + " --timeline " + jobs, {"'--timeline'", "same file as --jobs", "would overwrite the input"});
  CHECK(gpurent::test::slurp(jobs) == before);
  refused("--jobs " + jobs + " --timeline " + same.string() + " --jobs-out " + same.string(),
          {"'--jobs-out'", "same file as --timeline", "one output would overwrite the other"});
  CHECK_FALSE(std::filesystem::exists(same));
  // The same file by another path: through a link, or with a "." in it.
  const auto link = scratch() / "same_link.csv";
  std::filesystem::remove(link);
  std::filesystem::create_symlink(jobs, link);
  refused("--jobs " + jobs + " --preemptions " + link.string(), {"'--preemptions'", "same file as --jobs"});
  refused("--jobs " + jobs + " --jobs-out " + (scratch() / "." / "same_jobs.csv").string(), {"'--jobs-out'", "same file as --jobs"});
  CHECK(gpurent::test::slurp(jobs) == before);
  // A device may take two outputs.
  const auto r = run_tool("fleet run --nodes " + nodes() + " --jobs " + jobs + " --placements /dev/null --jobs-out /dev/null");
  CHECK(r.status == 0);
}

TEST_CASE("fleet run: --compress is required with --pods and refused with --jobs") {
  const std::string pods = write_file(scratch() / "pods.csv", pod_header + good_pods);
  const std::string jobs = write_file(scratch() / "jobs.csv", "name,workers,num_gpu,duration\na,1,1,100\n");
  refused("--pods " + pods, {"'--compress'", "required with --pods"});
  refused("--pods " + pods + " --compress 0", {"'--compress'", "must be >= 1"});
  refused("--jobs " + jobs + " --compress 10", {"'--compress'", "applies to --pods only"});
  const auto r = run_tool("fleet run --nodes " + nodes() + " --jobs " + jobs);
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["compress"].is_null());
}

TEST_CASE("--format takes the names only, in every command (one helper)") {
  const std::string jobs = write_file(scratch() / "jobs.csv", "name,workers,num_gpu,duration\na,1,1,100\n");
  refused("--jobs " + jobs + " --format 1", {"--format", "json,table", "\"1\""});
  refused("--jobs " + jobs + " --format 0", {"--format"});
  const auto table = run_tool("fleet run --nodes " + nodes() + " --jobs " + jobs + " --format table");
  CHECK(table.status == 0);
  CHECK(table.out.starts_with("policy "));
  CHECK(run_tool("fleet run --nodes " + nodes() + " --jobs " + jobs + " --format JSON").status == 0);
  for (const char* cmd : {"catalog", "mig profiles --gpu A100-SXM4-40GB"}) {
    INFO(cmd);
    const auto bad = run_tool(std::string(cmd) + " --format 1");
    CHECK(bad.status == 2);
    CHECK(bad.out.empty());
    CHECK(run_tool(std::string(cmd) + " --format table").status == 0);
  }
}

}  // namespace test_tool_fleet_run_inputs
