// SPDX-License-Identifier: MIT
// The round protocol (metering/scale/rounds.hpp, what gpurent-mpi runs) against its slow
// twin: N ranks as N threads of this process, talking through an in-process fake transport,
// meter hostile but valid usage files (quoted ids and accounts, CRLF, a BOM, blank lines,
// fields of thousands of bytes, repeats across files and ranks) in rounds of a few hundred
// bytes to one round, with totals-only and full partials; rank 0's invoice is byte for byte
// that of one meter reading the whole text in order, and a conflict, a bad record or a
// missing file is the error one thread reports, told once by rank 0.
#include <doctest/doctest.h>

#include <algorithm>
#include <barrier>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>
#include <gpurent/metering/scale/ranks.hpp>
#include <gpurent/metering/scale/rounds.hpp>

#include "metering/hostile_usage.hpp"
#include "support/files.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_rounds {

using namespace gpurent;
namespace fs = std::filesystem;

namespace {

// What the ranks share: a barrier for the collectives, a slot per rank for what it gives, and
// a mailbox per rank for what it sends to rank 0.
struct fake_world {
  explicit fake_world(std::size_t n) : ranks(n), sync(static_cast<std::ptrdiff_t>(n)), boxes(n * n), values(n), counts(n), mail(n) {}
  std::size_t ranks;
  std::barrier<> sync;
  std::vector<std::string> boxes;  // [from * ranks + to]
  std::vector<std::uint64_t> values;
  std::vector<std::vector<std::uint64_t>> counts;
  std::vector<std::int64_t> broadcast;
  std::mutex lock;
  std::condition_variable posted;
  std::vector<std::deque<std::string>> mail;  // by sender
};

// The rank_transport of one rank of a fake_world (each collective: give, meet, take, meet).
class fake_transport {
 public:
  fake_transport(fake_world& w, std::size_t rank) : w_(&w), rank_(rank) {}
  [[nodiscard]] std::size_t rank() const noexcept { return rank_; }
  [[nodiscard]] std::size_t size() const noexcept { return w_->ranks; }
  void all_to_all(std::span<const std::string> outboxes, std::string& in) {
    for (std::size_t k = 0; k < size(); ++k) w_->boxes[rank_ * size() + k] = outboxes[k];
    w_->sync.arrive_and_wait();
    in.clear();
    for (std::size_t k = 0; k < size(); ++k) in += w_->boxes[k * size() + rank_];
    w_->sync.arrive_and_wait();
  }
  [[nodiscard]] std::uint64_t min(std::uint64_t v) {
    w_->values[rank_] = v;
    w_->sync.arrive_and_wait();
    const std::uint64_t least = *std::ranges::min_element(w_->values);
    w_->sync.arrive_and_wait();
    return least;
  }
  void exclusive_sum(std::span<const std::uint64_t> counts, std::span<std::uint64_t> sums) {
    w_->counts[rank_].assign(counts.begin(), counts.end());
    w_->sync.arrive_and_wait();
    for (std::size_t i = 0; i < sums.size(); ++i) {
      std::uint64_t s = 0;
      for (std::size_t r = 0; r < rank_; ++r) s += w_->counts[r][i];
      sums[i] = rank_ == 0 ? 12345 : s;  // MPI leaves rank 0's undefined: the protocol must not read it
    }
    w_->sync.arrive_and_wait();
  }
  void broadcast(std::span<std::int64_t> values) {
    if (rank_ == 0) w_->broadcast.assign(values.begin(), values.end());
    w_->sync.arrive_and_wait();
    if (rank_ != 0) std::ranges::copy(w_->broadcast, values.begin());
    w_->sync.arrive_and_wait();
  }
  void send_to_root(std::string_view bytes) {
    const std::lock_guard<std::mutex> hold(w_->lock);
    w_->mail[rank_].emplace_back(bytes);
    w_->posted.notify_all();
  }
  [[nodiscard]] std::string receive_at_root(std::size_t from) {
    std::unique_lock<std::mutex> hold(w_->lock);
    w_->posted.wait(hold, [&] { return !w_->mail[from].empty(); });
    std::string bytes = std::move(w_->mail[from].front());
    w_->mail[from].pop_front();
    return bytes;
  }

 private:
  fake_world* w_;
  std::size_t rank_;
};
static_assert(rank_transport<fake_transport>);

tariff make_tariff(const std::string& point) {
  std::string text = gpurent::test::hostile_tariff;
  text.insert(text.find("\"rates\""), "\"rounding_point\": \"" + point + "\", ");
  auto t = io::parse_tariff_json(text, "hostile.json");
  REQUIRE(t);
  return *t;
}

meter blank_meter(const tariff& t) {
  auto m = meter::for_month(t, "2026-11");
  REQUIRE(m);
  return *m;
}

// The slow twin: every file's whole text through the plain reader into one meter.
std::string one_pass(const tariff& t, const std::vector<std::string>& paths) {
  meter m = blank_meter(t);
  for (const std::string& p : paths) {
    auto text = io::read_file(p);
    if (!text) return "error: " + text.error().describe();
    auto r = io::meter_usage_csv(m, *text, p);
    if (!r) return "error: " + r.error().describe();
  }
  auto inv = m.finish();
  REQUIRE(inv);
  return io::write_invoice_json(*inv, {true});
}

struct ranks_run {
  std::string out;  // rank 0's invoice, or "error: " and its message
  std::uint64_t records = 0, rounds = 0;
  bool others_quiet = true;  // the other ranks have neither an invoice nor a message
  bool all_agree = true;     // every rank knows whether the run failed
};

// The protocol on `n` ranks (threads) over the files, in rounds of `round_bytes`.
ranks_run on_ranks(const tariff& t, const std::vector<std::string>& paths, std::size_t n, std::size_t round_bytes) {
  fake_world w(n);
  std::vector<meter> meters(n, blank_meter(t));
  std::vector<round_outcome> outs(n);
  {
    std::vector<std::jthread> ranks;
    for (std::size_t r = 0; r < n; ++r)
      ranks.emplace_back([&, r] {
        fake_transport tr(w, r);
        outs[r] = io::meter_usage_ranks(tr, meters[r], paths, round_bytes);
      });
  }
  ranks_run run;
  for (std::size_t r = 0; r < n; ++r) {
    run.records += outs[r].counters.records;
    run.rounds = std::max(run.rounds, outs[r].counters.rounds);
    run.all_agree = run.all_agree && outs[r].verdict.failed == outs[0].verdict.failed;
    if (r > 0) run.others_quiet = run.others_quiet && !outs[r].result && outs[r].verdict.message.empty();
  }
  if (outs[0].verdict.failed) {
    run.out = "error: " + outs[0].verdict.message;
  } else if (!outs[0].result || !*outs[0].result) {
    run.out = "error: " + (outs[0].result ? outs[0].result->error().describe() : std::string("no result at rank 0"));
  } else {
    run.out = io::write_invoice_json(**outs[0].result, {true});
  }
  return run;
}

// A few hostile files for one seed; `records`: their record lines (repeats included).
std::vector<std::string> hostile_files(std::uint64_t seed, std::size_t& records) {
  std::mt19937_64 rng(seed);
  const fs::path d = gpurent::test::scratch_dir("rounds");
  std::vector<std::string> paths;
  records = 0;
  for (std::size_t f = 0; f < 1 + seed % 3; ++f) {
    gpurent::test::hostile_file h =
        gpurent::test::hostile_usage(rng, 120 + static_cast<int>(rng() % 120), "s" + std::to_string(seed) + "f" + std::to_string(f));
    records += h.records;
    paths.push_back((d / ("r" + std::to_string(seed) + "-" + std::to_string(f) + ".csv")).string());
    gpurent::test::write_file(paths.back(), h.text);
  }
  return paths;
}
}  // namespace

TEST_CASE("rounds on N fake ranks = one meter in order: hostile files, any round size, totals-only and full partials") {
  for (const std::string point : {"line", "record"}) {  // record: a tiered line needs every record at rank 0
    const tariff t = make_tariff(point);
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      CAPTURE(point);
      CAPTURE(seed);
      std::size_t records = 0;
      const std::vector<std::string> paths = hostile_files(seed, records);
      const std::string want = one_pass(t, paths);
      REQUIRE(want.starts_with("{"));
      for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{5}}) {
        for (std::size_t round : {std::size_t{300}, std::size_t{4096}, std::size_t{64} << 20}) {
          CAPTURE(n);
          CAPTURE(round);
          const ranks_run run = on_ranks(t, paths, n, round);
          CHECK(run.out == want);
          CHECK(run.records == records);  // every line read once, by one rank
          CHECK(run.others_quiet);
          CHECK(run.all_agree);
          if (round == 300 && n > 1) CHECK(run.rounds > 3);
          if (round == (std::size_t{64} << 20)) CHECK(run.rounds == 1);
        }
      }
    }
  }
}

TEST_CASE("rounds on N fake ranks: a conflict, a bad record, a missing file are the one-thread error, told once") {
  const tariff t = make_tariff("line");
  std::size_t records = 0;
  const std::vector<std::string> clean = hostile_files(7, records);
  REQUIRE(clean.size() == 2);
  const std::string second = *io::read_file(clean[1]);
  // The first file's first record again at the end of the second file, with another quantity:
  // the earlier line is read by rank 0, the later by the last rank, in any round order.
  auto recs = io::parse_usage_csv(*io::read_file(clean[0]), clean[0]);
  REQUIRE(recs);
  REQUIRE(!recs->empty());
  usage_record again = recs->front().record;
  again.quantity = nano_quantity(99 * detail::nano_one);
  const std::string written = io::write_usage_csv(std::span<const usage_record>(&again, 1));
  struct damaged {
    std::string name, second_text;
  };
  const std::vector<damaged> cases{{"conflict across files and ranks", second + written.substr(written.find('\n') + 1)},
                                   {"bad record", second + "bad-1,acme,gpu/H100,on_demand,x,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,p\n"}};
  const fs::path d = gpurent::test::scratch_dir("rounds");
  for (const damaged& c : cases) {
    CAPTURE(c.name);
    const std::string p = (d / "damaged.csv").string();
    gpurent::test::write_file(p, c.second_text);
    const std::vector<std::string> paths{clean[0], p};
    const std::string want = one_pass(t, paths);
    REQUIRE(want.starts_with("error: "));
    for (std::size_t n : {std::size_t{2}, std::size_t{4}}) {
      for (std::size_t round : {std::size_t{300}, std::size_t{1} << 20}) {
        CAPTURE(n);
        CAPTURE(round);
        const ranks_run run = on_ranks(t, paths, n, round);
        CHECK(run.out == want);
        CHECK(run.others_quiet);
        CHECK(run.all_agree);
      }
    }
  }
  const std::vector<std::string> missing{clean[0], (d / "none.csv").string()};
  auto one = io::meter_usage_files(blank_meter(t), missing, {.shard = {}, .jobs = 1, .block_bytes = io::default_block_bytes});
  REQUIRE(!one);
  CHECK(on_ranks(t, missing, 3, 4096).out == "error: " + one.error().describe());
}

TEST_CASE("rank byte ranges tile the files: each byte in one rank's range, in order") {
  const std::vector<std::int64_t> sizes{0, 17, -1, 1000, 3};
  for (std::size_t ranks = 1; ranks <= 7; ++ranks) {
    std::vector<std::uint64_t> next(sizes.size(), 0);
    for (std::size_t r = 0; r < ranks; ++r) {
      const std::vector<byte_range> mine = rank_ranges(sizes, r, ranks);
      REQUIRE(mine.size() == sizes.size());
      for (std::size_t f = 0; f < sizes.size(); ++f) {
        if (mine[f].begin == mine[f].end) continue;
        CHECK(mine[f].begin == next[f]);  // where the rank before left off
        next[f] = mine[f].end;
      }
    }
    for (std::size_t f = 0; f < sizes.size(); ++f) CHECK(next[f] == static_cast<std::uint64_t>(std::max<std::int64_t>(sizes[f], 0)));
  }
}

}  // namespace test_metering_rounds
