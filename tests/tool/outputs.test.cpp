// SPDX-License-Identifier: MIT
// The tool never reports success for output it did not write, and never takes an option
// value it would read wrongly (issue 32): stdout on a full device, output files on a full
// device or past the file size limit (exit 4, no partial file left, and a command that writes
// several files writes all or none), integer options past 64 bits or in another base,
// numbers that are not finite, and a plan whose numbers overflow (exit 2 naming the file,
// line and field); no output file may name an input or another output; a closed pipe is
// exit 4, and an --audit line is written only once the result is out.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gpurent/version.hpp>

#include "support/tool.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_tool_outputs {

namespace fs = std::filesystem;
using gpurent::test::run_tool;
using gpurent::test::write_file;

namespace {
fs::path dir() { return gpurent::test::scratch_dir("outputs"); }

struct shell_result {
  int status = -1;
  std::string err;
};

// `gpurent ARGS` with stdout sent to `out`, under `limits` when given (such as "ulimit -f 0":
// no byte may be written to a regular file, as on a full disk; SIGXFSZ ignored, so the write
// fails with EFBIG instead of killing the tool). stderr goes through a pipe, which no file
// size limit touches, to a file read back.
shell_result run_to(const std::string& args, const std::string& out, const std::string& limits = {}) {
  const std::string err = (dir() / "err.txt").string(), script = (dir() / "run.sh").string();
  gpurent::test::write_file(script, "trap '' XFSZ\n( " + (limits.empty() ? std::string("true") : limits) + "; exec '" + gpurent::test::tool_path() +
                                        "' " + args + " >" + out + " ) 2>&1 | cat >'" + err + "'\nexit ${PIPESTATUS[0]}\n");
  const int raw = std::system(("bash '" + script + "'").c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, gpurent::test::slurp(err)};
}

// `gpurent ARGS` with stdout a pipe nobody reads (its read end closed before the tool starts)
// and SIGPIPE at its default, as under a shell: the exit status, -1 when a signal ended it.
int to_closed_pipe(const std::string& args) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);
  const std::string cmd = "exec '" + gpurent::test::tool_path() + "' " + args + " 2>/dev/null";
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGPIPE, SIG_DFL);
    ::dup2(fds[1], 1);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

const std::string tariff =
    R"({"currency": "USD", "timezone": "UTC", "rates": [{"resource": "gpu/x", "mode": "on_demand", "unit_price": "1", "per": "1h"}]})";

std::string usage_rows(int n) {
  std::string u = "id,account,resource,mode,quantity,start,end\n";
  for (int i = 0; i < n; ++i)
    u += "r" + std::to_string(i) + ",acct-" + std::to_string(i % 7) + ",gpu/x,on_demand,1,2026-11-03T10:00:00Z,2026-11-03T11:00:00Z\n";
  return u;
}

const std::string pack_nodes = "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,4,GB200\nn1,64000,262144,4,GB200\n";
const std::string pack_jobs = "name,workers,num_gpu\nj0,1,2\nj1,1,2\nj2,1,4\n";
const std::string run_jobs =
    "name,workers,num_gpu,gpu_milli,priority,preemptible,arrival,duration,checkpoint_every\n"
    "a,1,4,1000,0,true,0,1000,1800\nb,1,2,1000,0,false,10,100,1800\n";
}  // namespace

TEST_CASE("stdout that cannot be written is exit 4 with a message, for every command that prints") {
  const std::string t = write_file(dir() / "t.json", tariff), u = write_file(dir() / "u.csv", usage_rows(40));
  const std::string nodes = write_file(dir() / "nodes.csv", pack_nodes), jobs = write_file(dir() / "pack.csv", pack_jobs),
                    runs = write_file(dir() / "runs.csv", run_jobs);
  const std::string src = GPURENT_SOURCE_DIR;
  for (const std::string& args : {"meter --tariff " + t + " --usage " + u + " --period 2026-11", "fleet pack --nodes " + nodes + " --jobs " + jobs,
                                  "fleet run --nodes " + nodes + " --jobs " + runs,
                                  "replay --nodes " + src + "/tests/golden/inputs/nodes.csv --pods " + src + "/tests/golden/inputs/pods.csv",
                                  std::string("mig profiles --gpu H100"), std::string("catalog"),
                                  std::string("calendar --timezone UTC --period 2026-11"), std::string("plan")}) {
    CAPTURE(args);
    const shell_result r = run_to(args, "/dev/full");
    CHECK(r.status == 4);
    CHECK(r.err.find("stdout") != std::string::npos);
    CHECK(to_closed_pipe(args) == 4);  // `| head` that has stopped reading: said, not killed by SIGPIPE
    if (!args.starts_with("mig") && !args.starts_with("catalog") && !args.starts_with("calendar")) {
      const fs::path log = dir() / "audit.log";  // an audit line records what was printed: none when nothing was
      fs::remove(log);
      CHECK(run_to(args + " --audit " + log.string(), "/dev/full").status == 4);
      CHECK_FALSE(fs::exists(log));
    }
    CHECK(run_to(args, "/dev/null").status == 0);  // the same command, written: success
  }
  // meter --partial-out is kept only with the invoice it goes with.
  const fs::path partial = dir() / "kept.partial";
  fs::remove(partial);
  CHECK(run_to("meter --tariff " + t + " --usage " + u + " --period 2026-11 --partial-out " + partial.string(), "/dev/full").status == 4);
  CHECK_FALSE(fs::exists(partial));
}

TEST_CASE("an output file that cannot be written in full is exit 4 naming it, and leaves no partial file") {
  const std::string t = write_file(dir() / "t2.json", tariff), u = write_file(dir() / "u2.csv", usage_rows(400));
  const std::string nodes = write_file(dir() / "nodes2.csv", pack_nodes), jobs = write_file(dir() / "pack2.csv", pack_jobs),
                    runs = write_file(dir() / "runs2.csv", run_jobs);
  const std::string src = GPURENT_SOURCE_DIR;
  struct writer {
    std::string args, option;
  };
  const fs::path target = dir() / "out.bin";
  for (const writer& w :
       {writer{"meter --tariff " + t + " --usage " + u + " --period 2026-11 --partial-out ", "--partial-out"},
        writer{"fleet pack --nodes " + nodes + " --jobs " + jobs + " --placements ", "--placements"},
        writer{"fleet run --nodes " + nodes + " --jobs " + runs + " --emit-usage ", "--emit-usage"},
        writer{"replay --nodes " + src + "/tests/golden/inputs/nodes.csv --pods " + src + "/tests/golden/inputs/pods.csv --placements ",
               "--placements"}}) {
    CAPTURE(w.args);
    const shell_result full = run_to(w.args + "/dev/full", "/dev/null");
    CHECK(full.status == 4);
    CHECK(full.err.find(w.option) != std::string::npos);
    CHECK(full.err.find("/dev/full") != std::string::npos);
    // No byte may reach a regular file (a disk that is full): no output and no partial copy
    // of it is left; an earlier file of that name is kept whole.
    gpurent::test::write_file(target, "earlier");
    const shell_result limited = run_to(w.args + target.string(), "/dev/null", "ulimit -f 0");
    CHECK(limited.status == 4);
    CHECK(limited.err.find(target.string()) != std::string::npos);
    CHECK(gpurent::test::slurp(target) == "earlier");
    for (const auto& e : fs::directory_iterator(dir()))
      CHECK_FALSE(e.path().filename().string().starts_with("out.bin.gpurent-"));  // no temporary left
    fs::remove(target);
    CHECK(run_to(w.args + target.string(), "/dev/null").status == 0);
    CHECK(fs::file_size(target) > 0);
    fs::remove(target);
  }
}

TEST_CASE("a scratch folder starts empty: what an earlier process with the same id left there is gone") {
  // Process ids are reused and /tmp outlives a test run: the folder of this name and id may
  // hold an earlier run's files, which the cases below, counting what is in it, would see.
  const fs::path stale = gpurent::test::scratch_path("stale");
  fs::create_directories(stale);
  gpurent::test::write_file(stale / "left.csv.gpurent-partial", "an earlier run's");
  const fs::path d = gpurent::test::scratch_dir("stale");
  CHECK(d == stale);
  CHECK(fs::is_empty(d));
  gpurent::test::write_file(d / "mine.csv", "this run's");
  CHECK(fs::exists(gpurent::test::scratch_dir("stale") / "mine.csv"));  // emptied once, on first use only
  fs::remove_all(d);
}

TEST_CASE("a command that writes several files writes all or none: one that fails leaves the others as they were") {
  const std::string nodes = write_file(dir() / "nodes3.csv", pack_nodes), runs = write_file(dir() / "runs3.csv", run_jobs);
  const fs::path kept = dir() / "kept.csv", fresh = dir() / "fresh.csv";
  struct writer {
    std::string args;  // fresh first, then kept, then one that fails
    std::string failing;
  };
  for (const writer& w : {writer{"fleet run --nodes " + nodes + " --jobs " + runs + " --placements " + fresh.string() + " --timeline " +
                                     kept.string() + " --emit-usage /dev/full",
                                 "--emit-usage"},
                          writer{"plan --emit-usage " + fresh.string() + " --emit-tariff /dev/full", "--emit-tariff"}}) {
    CAPTURE(w.args);
    fs::remove(fresh);
    gpurent::test::write_file(kept, "earlier");
    const shell_result r = run_to(w.args, "/dev/null");
    CHECK(r.status == 4);
    CHECK(r.err.find(w.failing) != std::string::npos);
    CHECK_FALSE(fs::exists(fresh));
    CHECK(gpurent::test::slurp(kept) == "earlier");
    for (const auto& e : fs::directory_iterator(dir()))
      CHECK(e.path().filename().string().find(".gpurent-") == std::string::npos);  // no temporary left
  }
}

TEST_CASE("every command that writes a file refuses an output that names an input or another output: exit 2, nothing touched") {
  const std::string t = write_file(dir() / "same_t.json", tariff), u = write_file(dir() / "same_u.csv", usage_rows(3)),
                    u2 = write_file(dir() / "same_u2.csv", usage_rows(2));
  const std::string nodes = write_file(dir() / "same_nodes.csv", pack_nodes), jobs = write_file(dir() / "same_jobs.csv", pack_jobs);
  const std::string src = GPURENT_SOURCE_DIR;
  const std::string pods = write_file(dir() / "same_pods.csv", gpurent::test::slurp(src + "/tests/golden/inputs/pods.csv"));
  const std::string catalog = write_file(dir() / "same_aws.csv", "not read: refused first\n");
  const fs::path fresh = dir() / "same_fresh.out";
  fs::remove(fresh);
  struct refusal {
    std::string args, input, option, clash;
  };
  for (const refusal& r : {
           refusal{"meter --tariff " + t + " --usage " + u + " --period 2026-11 --partial-out " + u, u, "'--partial-out'", "same file as --usage"},
           refusal{"meter --tariff " + t + " --usage " + u2 + " --usage " + u + " --period 2026-11 --audit " + u, u, "'--audit'",
                   "same file as --usage"},
           refusal{"meter --tariff " + t + " --usage " + u + " --period 2026-11 --partial-out " + t, t, "'--partial-out'", "same file as --tariff"},
           refusal{"fleet pack --nodes " + nodes + " --jobs " + jobs + " --placements " + jobs, jobs, "'--placements'", "same file as --jobs"},
           refusal{"fleet pack --nodes " + nodes + " --jobs " + jobs + " --audit " + nodes, nodes, "'--audit'", "same file as --nodes"},
           refusal{"replay --nodes " + src + "/tests/golden/inputs/nodes.csv --pods " + pods + " --placements " + pods, pods, "'--placements'",
                   "same file as --pods"},
           refusal{"offers import --from gpuhunt " + catalog + " --out " + catalog, catalog, "'--out'", "same file as a catalog file"},
           refusal{"plan --emit-usage " + fresh.string() + " --emit-tariff " + fresh.string(), {}, "'--emit-tariff'", "same file as --emit-usage"},
       }) {
    CAPTURE(r.args);
    const std::string before = r.input.empty() ? std::string() : gpurent::test::slurp(r.input);
    const auto res = run_tool(r.args);
    CHECK(res.status == 2);
    CHECK(res.out.empty());
    CHECK(res.err.find(r.option) != std::string::npos);
    CHECK(res.err.find(r.clash) != std::string::npos);
    if (!r.input.empty()) CHECK(gpurent::test::slurp(r.input) == before);
    CHECK_FALSE(fs::exists(fresh));
  }
  // One new file by two spellings, relative to the working folder (a probe: until 2026-12-07
  // "twice.csv" and "./twice.csv" passed as two files when neither existed yet).
  for (const std::string other : {"./twice.csv", "no-such-dir/../twice.csv"}) {
    CAPTURE(other);
    fs::remove(dir() / "twice.csv");
    const auto r = run_tool("fleet pack --nodes " + nodes + " --jobs " + jobs + " --placements twice.csv --audit " + other, {}, dir());
    CHECK(r.status == 2);
    CHECK(r.err.find("'--audit'") != std::string::npos);
    CHECK(r.err.find("same file as --placements") != std::string::npos);
    CHECK_FALSE(fs::exists(dir() / "twice.csv"));
  }
}

TEST_CASE("an output path that is a symlink is written through it; a file keeps its mode; nothing else is touched") {
  const std::string nodes = write_file(dir() / "nodes4.csv", pack_nodes), jobs = write_file(dir() / "pack4.csv", pack_jobs);
  const std::string args = "fleet pack --nodes " + nodes + " --jobs " + jobs + " --placements ";
  const fs::path target = dir() / "target.csv", link = dir() / "link.csv", kept = dir() / "private.csv", precious = dir() / "precious";
  for (const fs::path& p : {target, link, kept, precious}) fs::remove(p);
  gpurent::test::write_file(target, "old");
  fs::create_symlink(target, link);
  REQUIRE(run_to(args + link.string(), "/dev/null").status == 0);
  CHECK(fs::is_symlink(link));  // still the link, not a file put in its place
  CHECK(gpurent::test::slurp(target).starts_with("job,member,node,gpus"));
  // A file's mode is kept (a private placements file stays private).
  gpurent::test::write_file(kept, "old");
  fs::permissions(kept, fs::perms::owner_read | fs::perms::owner_write);
  REQUIRE(run_to(args + kept.string(), "/dev/null").status == 0);
  CHECK(fs::status(kept).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
  // A link someone left where a fixed temporary name would be is not written through.
  gpurent::test::write_file(precious, "precious");
  fs::remove(kept.string() + ".gpurent-partial");
  fs::create_symlink(precious, kept.string() + ".gpurent-partial");
  REQUIRE(run_to(args + kept.string(), "/dev/null").status == 0);
  CHECK(gpurent::test::slurp(precious) == "precious");
  CHECK(fs::is_symlink(kept.string() + ".gpurent-partial"));
  fs::remove(kept.string() + ".gpurent-partial");  // the other cases count what is in the folder
  // A device is written in place (and stays a device).
  CHECK(run_to(args + "/dev/null", "/dev/null").status == 0);
  CHECK(fs::is_character_file("/dev/null"));
}

TEST_CASE("integer and number options: past 64 bits, in another base or not finite is exit 2 naming the option") {
  const std::string src = GPURENT_SOURCE_DIR;
  const std::string trace = "--nodes " + src + "/tests/golden/inputs/nodes.csv --pods " + src + "/tests/golden/inputs/pods.csv";
  const std::string t = write_file(dir() / "t3.json", tariff), u = write_file(dir() / "u3.csv", usage_rows(3));
  const std::string meter = "meter --tariff " + t + " --usage " + u + " --period 2026-11";
  struct bad {
    std::string args, option;
  };
  for (const bad& b : {bad{"fleet run " + trace + " --compress 9223372036854775808", "--compress"},
                       bad{"fleet run " + trace + " --compress 18446744073709551616", "--compress"}, bad{meter + " --jobs 0x2", "--jobs"},
                       bad{meter + " --jobs 010", "--jobs"}, bad{meter + " --jobs ' 2'", "--jobs"}, bad{"replay " + trace + " --seed -1", "--seed"},
                       bad{"replay " + trace + " --seed 18446744073709551616", "--seed"}, bad{"replay " + trace + " --tune 1e400", "--tune"},
                       bad{"replay " + trace + " --tune nan", "--tune"}, bad{meter + " --jobs 1e1", "--jobs"}, bad{meter + " --jobs two", "--jobs"},
                       bad{"advise checkpoint --solve 48h --params 7e10 --write-mb-per-s 1000 --interruptions-per-hour 0.1", "--params"}}) {
    CAPTURE(b.args);
    const auto r = run_tool(b.args);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(b.option) != std::string::npos);
    CHECK(r.err.find("Could not convert") == std::string::npos);  // CLI11's words, without what was expected
  }
  CHECK(run_tool(meter + " --jobs 2").status == 0);
  CHECK(run_tool(meter + " --jobs +2").status == 0);  // CLI11's own reading takes a plus sign
  CHECK(run_tool("replay " + trace + " --seed 18446744073709551615 --tune 1.25").status == 0);
}

TEST_CASE("plan: a gpu_hours or price near 2^63 is exit 2 naming the file, line and field, not a bare Boost message") {
  const std::string workload = write_file(dir() / "w.json", R"({
  "period": "2026-11", "timezone": "UTC", "account": "lab",
  "jobs": [
    { "name": "small", "kind": "training", "reference_gpu": "H100-SXM5-80GB", "gpu_hours": "10", "memory_gib": 70, "max_gpus": 8 },
    { "name": "huge", "kind": "training", "reference_gpu": "H100-SXM5-80GB",
      "gpu_hours": "9223372036854775808", "memory_gib": 70, "max_gpus": 8 }
  ]
})");
  const auto r = run_tool("plan --workload " + workload);
  CAPTURE(r.err);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("w.json:5") != std::string::npos);
  CHECK(r.err.find("jobs[1]") != std::string::npos);
  CHECK(r.err.find("Overflow in conversion") == std::string::npos);
}

TEST_CASE("meter: a line whose rounding needs more than 128 bits gives the exact invoice, not 'overflow: ratio round'") {
  // 1000000.000000007 USD per 7 s x 40000000.000000123 units x 2505599 s: the line's exact
  // amount times 100 passes 2^127, its rounded value (1.4e19 USD) does not. Python's
  // fractions.Fraction gives 14317708571428715679.49 (half even); before the fix the meter
  // refused it.
  const std::string t = write_file(
      dir() / "big.json",
      R"({"currency": "USD", "timezone": "UTC", "rates": [{"resource": "gpu/x", "mode": "on_demand", "unit_price": "1000000.000000007", "per": "7s"}]})");
  const std::string u =
      write_file(dir() / "big.csv",
                 "id,account,resource,mode,quantity,start,end\nr1,a,gpu/x,on_demand,40000000.000000123,2026-11-01T00:00:00Z,2026-11-29T23:59:59Z\n");
  const auto r = run_tool("meter --tariff " + t + " --usage " + u + " --period 2026-11");
  CAPTURE(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("\"total\": \"14317708571428715679.49\"") != std::string::npos);
}

TEST_CASE("gpurent --version prints the library's version (the one CMake's project() names) and exits 0") {
  const auto v = run_tool("--version");
  CHECK(v.status == 0);
  CHECK(v.out == "gpurent " + std::string(gpurent::version) + "\n");
  CHECK(std::string(gpurent::version) ==
        std::to_string(GPURENT_VERSION_MAJOR) + "." + std::to_string(GPURENT_VERSION_MINOR) + "." + std::to_string(GPURENT_VERSION_PATCH));
  const auto none = run_tool("");
  CHECK(none.status == 2);  // a subcommand is still required
}

TEST_CASE("a misspelled command or option is exit 2 naming the nearest one; a word far from every name gets no guess") {
  const auto cmd = run_tool("metr --tariff t.json");
  CHECK(cmd.status == 2);
  CHECK(cmd.err.find("unknown command \"metr\": did you mean \"meter\"?") != std::string::npos);
  const auto sub = run_tool("fleet rnu --nodes n.csv");
  CHECK(sub.status == 2);
  CHECK(sub.err.find("did you mean \"run\"?") != std::string::npos);
  const auto opt = run_tool("meter --tarif t.json --usage u.csv --period 2026-11");
  CHECK(opt.status == 2);
  CHECK(opt.err.find("unknown option --tarif: did you mean --tariff?") != std::string::npos);
  CHECK(opt.out.empty());
  const auto far = run_tool("zzzzzzzz");
  CHECK(far.status == 2);
  CHECK(far.err.find("did you mean") == std::string::npos);
  // An option's value is never taken for a misspelled command.
  const auto value = run_tool("calendar --period 2026-11 --timezone UTC --format tabel");
  CHECK(value.status == 2);
  CHECK(value.err.find("did you mean \"") == std::string::npos);
}

TEST_CASE("every duration option reads the one grammar, and a wrong one shows it with examples") {
  const std::string flags = " --checkpoint-write 1min --interruptions-per-hour 0.1";
  const auto compound = run_tool("advise checkpoint --solve 1d12h" + flags);
  const auto hours = run_tool("advise checkpoint --solve 36h" + flags);
  CHECK(compound.status == 0);
  CHECK(compound.out == hours.out);
  CHECK(run_tool("advise checkpoint --solve 2160m" + flags).out == hours.out);
  for (const char* bad : {"36", "1.5d", "12h1d", "36 h"}) {
    CAPTURE(bad);
    const auto r = run_tool("advise checkpoint --solve '" + std::string(bad) + "'" + flags);
    CHECK(r.status == 2);
    CHECK(r.err.find("'--solve'") != std::string::npos);
    CHECK(r.err.find("1h30min, 2d12h") != std::string::npos);
  }
}

}  // namespace test_tool_outputs
