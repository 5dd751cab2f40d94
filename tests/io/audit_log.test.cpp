// SPDX-License-Identifier: MIT
// The audit log's hash chain: lines are canonical and reproducible, and every kind of
// tampering (a changed byte, a dropped line, two lines swapped, a cut-off end) is detected
// at the line where it happened; `gpurent audit verify` reports it.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <gpurent/io/audit/audit_log.hpp>

#include "support/tool.hpp"

namespace test_io_audit_log {
using namespace gpurent;
using io::ordered_json;

std::vector<std::string> sample_lines(std::size_t n = 5) {
  io::audit_chain c({"2026-12-03T17:00:00Z", "ops"});
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    ordered_json r = ordered_json::object();
    r["request"] = {{"num_gpu", 1}, {"gpu_milli", 500}};
    r["placement"] = {{"node", "n000" + std::to_string(i)}, {"gpus", "0:500"}};
    out.push_back(c.line("match", r));
  }
  return out;
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l;
  return s;
}

// "log:3: ..." -> where it is reported.
std::string where_of(const std::string& text) {
  auto r = io::verify_audit_log(text, "log");
  REQUIRE_FALSE(r);
  return r.error().where;
}

TEST_CASE("audit log: canonical lines, chained from 64 zeros") {
  const auto lines = sample_lines();
  CHECK(
      lines[0].rfind(
          R"({"seq":1,"prev":"0000000000000000000000000000000000000000000000000000000000000000","time":"2026-12-03T17:00:00Z","actor":"ops","kind":"match",)",
          0) == 0);
  CHECK(lines[0].find(' ') == std::string::npos);
  // Reading a line and dumping it again gives its bytes; its hash is that of the line without it.
  for (std::size_t i = 0; i < lines.size(); ++i) {
    ordered_json j = ordered_json::parse(lines[i]);
    CHECK(j.dump() + "\n" == lines[i]);
    const std::string hash = j["hash"];
    j.erase("hash");
    CHECK(io::sha256_hex(j.dump()) == hash);
    if (i > 0) CHECK(j["prev"] == ordered_json::parse(lines[i - 1])["hash"]);
  }
  const auto head = io::verify_audit_log(join(lines), "log");
  REQUIRE(head);
  CHECK(head->lines == 5);
  CHECK(head->hash == std::string(ordered_json::parse(lines[4])["hash"]));
  CHECK(sample_lines() == lines);  // same records, same bytes
}

TEST_CASE("audit log: an empty log is valid; an actor is written only when given") {
  const auto head = io::verify_audit_log("", "log");
  REQUIRE(head);
  CHECK(*head == io::audit_head{});
  io::audit_chain c({"2026-12-03T17:00:00Z", ""});
  CHECK(c.line("meter", ordered_json::object()).find("actor") == std::string::npos);
}

TEST_CASE("audit log: a changed byte is detected at its line, the last line included") {
  for (const std::size_t k : {0U, 2U, 4U}) {
    auto lines = sample_lines();
    const auto at = lines[k].find("n000");
    lines[k][at + 4] = '9';  // still valid, canonical JSON
    CHECK(where_of(join(lines)) == "log:" + std::to_string(k + 1));
  }
  auto lines = sample_lines();
  lines[1][lines[1].find("\"hash\":\"") + 8] ^= 1;  // inside the hash itself
  CHECK(where_of(join(lines)) == "log:2");
  lines = sample_lines();
  lines[3].insert(lines[3].find(",\"kind\""), " ");  // a space: no longer canonical
  CHECK(where_of(join(lines)) == "log:4");
  lines = sample_lines();
  lines[2][0] = '[';  // not JSON at all
  CHECK(where_of(join(lines)) == "log:3");
}

TEST_CASE("audit log: a line edited with its own hash recomputed breaks the next line's prev") {
  auto lines = sample_lines();
  ordered_json j = ordered_json::parse(lines[2]);
  j.erase("hash");
  j["placement"]["node"] = "elsewhere";
  const std::string body = j.dump();
  j["hash"] = io::sha256_hex(body);
  lines[2] = j.dump() + "\n";
  auto r = io::verify_audit_log(join(lines), "log");
  REQUIRE_FALSE(r);
  CHECK(r.error().where == "log:4");
  CHECK(r.error().message.find("prev does not match the hash of line 3") != std::string::npos);
}

TEST_CASE("audit log: a dropped line and two swapped lines are detected where they happened") {
  auto lines = sample_lines();
  lines.erase(lines.begin() + 2);
  CHECK(where_of(join(lines)) == "log:3");
  lines = sample_lines();
  lines.erase(lines.begin());
  CHECK(where_of(join(lines)) == "log:1");
  lines = sample_lines();
  std::swap(lines[1], lines[2]);
  auto r = io::verify_audit_log(join(lines), "log");
  REQUIRE_FALSE(r);
  CHECK(r.error().where == "log:2");
  CHECK(r.error().message.find("seq is 3, expected 2") != std::string::npos);
}

TEST_CASE("audit log: truncation mid-line is detected; at a line boundary only the head shows it") {
  const std::string full = join(sample_lines());
  const auto full_head = io::verify_audit_log(full, "log");
  REQUIRE(full_head);
  const std::string cut = full.substr(0, full.size() - 10);
  auto r = io::verify_audit_log(cut, "log");
  REQUIRE_FALSE(r);
  CHECK(r.error().where == "log:5");
  CHECK(r.error().message.find("cut off") != std::string::npos);
  // Cut just before the last '\n': the line is complete JSON but has no end of line.
  CHECK(where_of(full.substr(0, full.size() - 1)) == "log:5");
  // At a boundary the shorter log is a valid log: its head (line count, last hash) differs
  // from the head a holder kept, which is how the cut is found.
  const std::string shorter = full.substr(0, full.rfind('\n', full.size() - 2) + 1);
  const auto head = io::verify_audit_log(shorter, "log");
  REQUIRE(head);
  CHECK(head->lines == 4);
  CHECK(*head != *full_head);
}

TEST_CASE("audit log: audit_file continues the chain of what the file holds, and refuses a broken one") {
  const auto dir = gpurent::test::scratch_dir("audit");
  const auto path = (dir / "a.log").string();
  std::filesystem::remove(path);
  for (int run = 0; run < 2; ++run) {
    auto f = io::audit_file::open(path, {"2026-12-03T17:00:00Z", ""});
    REQUIRE(f);
    f->record("meter", ordered_json{{"run", run}});
    f->record("meter", ordered_json{{"run", run}});
    REQUIRE(f->commit());
  }
  const auto head = io::verify_audit_log(gpurent::test::slurp(path), path);
  REQUIRE(head);
  CHECK(head->lines == 4);
  gpurent::test::write_file(path, gpurent::test::slurp(path) + "{}\n");
  auto broken = io::audit_file::open(path, {"2026-12-03T17:00:00Z", ""});
  REQUIRE_FALSE(broken);
  CHECK(broken.error().where == path + ":5");
}

TEST_CASE("audit log: a pipe or a device is refused by name, before anything runs (it hung or read forever)") {
  const auto dir = gpurent::test::scratch_dir("audit");
  const auto fifo = (dir / "fifo").string();
  std::filesystem::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& path : {fifo, std::string("/dev/zero"), std::string("/dev/full")}) {
    CAPTURE(path);
    auto f = io::audit_file::open(path, {"2026-12-03T17:00:00Z", ""});
    REQUIRE_FALSE(f);
    CHECK(f.error().describe() == path + ": the audit log \"" + path + "\" is not a regular file (a pipe or a device cannot hold its chain)");
    CHECK_FALSE(io::read_audit_log(path));
  }
  std::filesystem::remove(fifo);
  // A link to a regular log is followed; a log not there yet is a new one.
  const auto log = dir / "linked.log";
  gpurent::test::write_file(log, join(sample_lines(2)));
  const auto link = dir / "link.log";
  std::filesystem::remove(link);
  std::filesystem::create_symlink(log, link);
  auto linked = io::audit_file::open(link.string(), {"2026-12-03T17:00:00Z", ""});
  REQUIRE(linked);
  CHECK(linked->head().lines == 2);
  std::filesystem::remove(dir / "new.log");
  CHECK(io::audit_file::open((dir / "new.log").string(), {"2026-12-03T17:00:00Z", ""}));
}

TEST_CASE("gpurent audit verify: exit 0 with a summary, 2 naming the first bad line") {
  const auto dir = gpurent::test::scratch_dir("audit");
  const auto good = dir / "good.log";
  const auto lines = sample_lines();
  gpurent::test::write_file(good, join(lines));
  auto r = gpurent::test::run_tool("audit verify '" + good.string() + "' --format table");
  CHECK(r.status == 0);
  const std::string last = ordered_json::parse(lines[4])["hash"];
  CHECK(r.out == good.string() + ": 5 lines, chain intact, last hash " + last + "\n");
  CHECK(r.err.empty());
  auto j = gpurent::test::run_tool("audit verify '" + good.string() + "'");  // JSON, the default
  CHECK(j.status == 0);
  CHECK(ordered_json::parse(j.out) == ordered_json{{"log", good.string()}, {"lines", 5}, {"chain", "intact"}, {"last_hash", last}});
  auto swapped = lines;
  std::swap(swapped[3], swapped[4]);
  const auto bad = dir / "bad.log";
  gpurent::test::write_file(bad, join(swapped));
  r = gpurent::test::run_tool("audit verify '" + bad.string() + "'");
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(bad.string() + ":4: seq is 5, expected 4") != std::string::npos);
  r = gpurent::test::run_tool("audit verify '" + (dir / "missing.log").string() + "'");
  CHECK(r.status == 2);
}

// Line k (1-based) of a log, parsed.
ordered_json line_of(const std::string& text, std::uint64_t k) {
  std::size_t at = 0;
  for (std::uint64_t i = 1; i < k; ++i) at = text.find('\n', at) + 1;
  return ordered_json::parse(text.substr(at, text.find('\n', at) - at));
}

// --audit on the commands that decide: the output is the same with and without it, the log
// verifies, and a second run continues the chain.
TEST_CASE("--audit on meter, plan and replay: same output, a chain that verifies") {
  const auto dir = gpurent::test::scratch_dir("audit");
  const std::string in = std::string(GPURENT_SOURCE_DIR) + "/tests/golden/inputs/";
  const std::string log = (dir / "run.log").string();
  std::filesystem::remove(log);
  const std::string audit = " --audit '" + log + "' --audit-actor ops --audit-time 2026-12-03T17:00:00Z";
  const std::string plan = "plan --workload '" + in + "workload-packing.json'";
  auto plain = gpurent::test::run_tool(plan);
  auto logged = gpurent::test::run_tool(plan + audit);
  REQUIRE(plain.status == 0);
  CHECK(logged.status == 0);
  CHECK(logged.out == plain.out);
  auto head = io::verify_audit_log(gpurent::test::slurp(log), log);
  REQUIRE(head);
  const std::uint64_t plan_lines = head->lines;
  CHECK(plan_lines >= 2);
  const auto last = line_of(gpurent::test::slurp(log), plan_lines);
  CHECK(last["kind"] == "plan-output");
  CHECK(last["actor"] == "ops");
  CHECK(last["output_sha256"] == io::sha256_hex(plain.out));

  const std::string replay = "replay --nodes '" + in + "nodes.csv' --pods '" + in + "pods.csv' --policy best-fit --seed 7 --format table";
  auto r = gpurent::test::run_tool(replay + audit);
  CHECK(r.status == 0);
  head = io::verify_audit_log(gpurent::test::slurp(log), log);
  REQUIRE(head);
  CHECK(head->lines > plan_lines);
  const std::string text = gpurent::test::slurp(log);
  const auto first_match = line_of(text, plan_lines + 1);
  CHECK(first_match["kind"] == "match");
  CHECK(first_match["policy"] == "best-fit");
  CHECK(first_match["explain"]["nodes"].is_number());

  // meter: one line with the inputs' digests and the invoice's, as printed.
  const std::string usage = (dir / "plan.usage.csv").string();
  const std::string tariff = (dir / "plan.tariff.json").string();
  REQUIRE(gpurent::test::run_tool(plan + " --emit-usage '" + usage + "' --emit-tariff '" + tariff + "'").status == 0);
  const std::string meter = "meter --tariff '" + tariff + "' --usage '" + usage + "' --period 2026-11 --format csv";
  auto invoice = gpurent::test::run_tool(meter);
  auto metered = gpurent::test::run_tool(meter + audit);
  REQUIRE(invoice.status == 0);
  CHECK(metered.out == invoice.out);
  head = io::verify_audit_log(gpurent::test::slurp(log), log);
  REQUIRE(head);
  const auto m = line_of(gpurent::test::slurp(log), head->lines);
  CHECK(m["kind"] == "meter");
  CHECK(m["invoice_sha256"] == io::sha256_hex(invoice.out));
  CHECK(m["usage"][0]["sha256"] == io::sha256_hex(gpurent::test::slurp(usage)));
  CHECK_FALSE(m.contains("previous"));
  // The inputs that change the amounts are in the line too: the previous invoice's digest,
  // the rounding point (they were left out).
  const std::string october = (dir / "october.json").string();
  auto oct = gpurent::test::run_tool("meter --tariff '" + tariff + "' --usage '" + usage + "' --period 2026-10");
  REQUIRE(oct.status == 0);
  gpurent::test::write_file(october, oct.out);
  REQUIRE(gpurent::test::run_tool(meter + " --previous '" + october + "' --rounding-point record" + audit).status == 0);
  head = io::verify_audit_log(gpurent::test::slurp(log), log);
  REQUIRE(head);
  const auto p = line_of(gpurent::test::slurp(log), head->lines);
  CHECK(p["previous"]["file"] == october);
  CHECK(p["previous"]["sha256"] == io::sha256_hex(oct.out));
  CHECK(p["rounding_point"] == "record");

  // A bad --audit-time is a usage error naming the option; nothing is written.
  auto bad = gpurent::test::run_tool(plan + " --audit '" + log + "' --audit-time yesterday");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--audit-time") != std::string::npos);
  CHECK(io::verify_audit_log(gpurent::test::slurp(log), log)->lines == head->lines);
}

}  // namespace test_io_audit_log
