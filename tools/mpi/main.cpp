// SPDX-License-Identifier: MIT
// gpurent-mpi meter: `gpurent meter` on MPI ranks (issue 19), byte-identical to it.
//
//   mpirun -np N gpurent-mpi meter --tariff T --period M --usage U1.csv U2.csv ... [--format F]
//
// The files, taken as one stream, are cut into N byte ranges; each rank reads the lines that
// start in its range (io/line_blocks.hpp), numbers them after the lines of the ranks before it
// (MPI_Exscan), parses and checks every row, and sends each record to the rank of its id's
// hash (FNV-1a 64 mod N, metering/shard.hpp). It does so in rounds: a rank reads blocks until
// it holds --round-bytes of packed records (64 MiB), one MPI_Alltoallv moves them, and an
// MPI_Allreduce tells when every rank is done. Records of an earlier (file, line) can arrive
// in a later round, so a rank adds them with meter::add_out_of_order, which keeps each id's
// earliest record: repeats and conflicts resolve as in one run. Ids are then disjoint between
// ranks, so rank 0 needs only the others' line totals and counts (totals-only partials,
// io/meter_partial.hpp), adds them to its own meter and prints the invoice; only record-point
// rounding of a tiered line needs every record at rank 0 (full partials). Errors: every rank
// keeps its earliest (file, line); all agree on the earliest of all, rank 0 prints it, and
// every rank exits 2.
#include <mpi.h>

#include <sys/resource.h>
#include <algorithm>

#include <array>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/invoice_json.hpp>
#include <gpurent/io/line_blocks.hpp>
#include <gpurent/io/meter_files.hpp>
#include <gpurent/io/meter_partial.hpp>
#include <gpurent/io/tariff_json.hpp>
#include <gpurent/io/usage_csv.hpp>
#include <gpurent/metering/format.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/shard.hpp>

#include "../meter_common.hpp"
#include "../tool.hpp"

namespace {
using namespace gpurent;

struct options {
  std::string tariff_path;
  std::vector<std::string> usage_paths;
  std::string period;
  std::string rounding_point;
  bool detail = false;
  tool::output_format format{};
  std::size_t round_bytes = std::size_t{64} << 20;
  bool stats = false;
};

// What a rank did, for --stats.
struct counters {
  std::uint64_t rounds = 0, records = 0, sent = 0, received = 0, reduced = 0;
};

struct world {
  int rank = 0;
  int size = 1;
};

// Where an error was found, as one number: 0 before any file; (file + 1) << 40 | line.
constexpr std::uint64_t nowhere = UINT64_MAX;
[[nodiscard]] constexpr std::uint64_t at_line(std::size_t file, std::size_t line) noexcept {
  return (static_cast<std::uint64_t>(file + 1) << 40) | static_cast<std::uint64_t>(line);
}

// A record to add again once every record is in: a conflict found out of file order may
// name a first occurrence that an earlier one replaced later; added again, it names that one.
struct record_copy {
  std::uint32_t file = 0;
  std::size_t line = 0;
  std::string id, account;
  std::size_t rate = 0;
  nano_quantity quantity{};
  instant start{}, end{};
};

// This rank's earliest error.
struct failure {
  std::uint64_t at = nowhere;
  std::optional<error> err;
  std::optional<record_copy> again;
  void note(std::uint64_t where, const error& e, std::optional<record_copy> conflicting = std::nullopt) {
    if (where < at) {
      at = where;
      err = e;
      again = std::move(conflicting);
    }
  }
};

// Every rank learns whether any failed; the earliest error (lowest rank on a tie) is printed
// once, by rank 0. True when one did.
bool agree(const world& w, const failure& f) {
  std::uint64_t first = nowhere;
  MPI_Allreduce(&f.at, &first, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (first == nowhere) return false;
  const int mine = f.at == first ? w.rank : w.size;
  int holder = 0;
  MPI_Allreduce(&mine, &holder, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (holder == 0 && w.rank == 0) {
    (void)tool::fail(*f.err);
  } else if (w.rank == holder) {
    const std::string text = f.err->describe();
    MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
  } else if (w.rank == 0) {
    MPI_Status st;
    MPI_Probe(holder, 0, MPI_COMM_WORLD, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string text(static_cast<std::size_t>(n), '\0');
    MPI_Recv(text.data(), n, MPI_CHAR, holder, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::fprintf(stderr, "gpurent: %s\n", text.c_str());
  }
  return true;
}

// The files' sizes as rank 0 sees them (-1: cannot be read), so every rank cuts the same ranges.
std::vector<std::int64_t> file_sizes(const std::vector<std::string>& files, const world& w) {
  std::vector<std::int64_t> sizes(files.size(), -1);
  if (w.rank == 0) {
    for (std::size_t f = 0; f < files.size(); ++f) {
      std::error_code ec;
      const auto n = std::filesystem::file_size(files[f], ec);
      if (!ec) sizes[f] = static_cast<std::int64_t>(n);
    }
  }
  MPI_Bcast(sizes.data(), static_cast<int>(sizes.size()), MPI_INT64_T, 0, MPI_COMM_WORLD);
  return sizes;
}

// This rank's byte range of each file: the files as one stream, cut in `size` equal parts.
struct range {
  std::uint64_t begin = 0, end = 0;
};
std::vector<range> my_ranges(const std::vector<std::int64_t>& sizes, const world& w) {
  std::uint64_t total = 0;
  for (const std::int64_t s : sizes) total += static_cast<std::uint64_t>(std::max<std::int64_t>(s, 0));
  const std::uint64_t lo = total * static_cast<std::uint64_t>(w.rank) / static_cast<std::uint64_t>(w.size);
  const std::uint64_t hi = total * static_cast<std::uint64_t>(w.rank + 1) / static_cast<std::uint64_t>(w.size);
  std::vector<range> out(sizes.size());
  std::uint64_t offset = 0;
  for (std::size_t f = 0; f < sizes.size(); ++f) {
    const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(sizes[f], 0));
    const std::uint64_t b = std::clamp(lo, offset, offset + n), e = std::clamp(hi, offset, offset + n);
    out[f] = {b - offset, e - offset};
    offset += n;
  }
  return out;
}

// The lines that start in a range of a file (pass 1, for the line numbers of later ranks).
expected<std::uint64_t> count_lines(const std::string& path, range r) {
  if (r.begin >= r.end) return std::uint64_t{0};
  GPURENT_TRY(blocks, io::line_blocks::open(path, io::default_block_bytes, r.begin, r.end));
  std::uint64_t lines = 0;
  std::string block;
  while (true) {
    GPURENT_TRY(more, blocks->take(block));
    if (!*more) break;
    lines += static_cast<std::uint64_t>(std::count(block.begin(), block.end(), '\n'));
    if (block.back() != '\n') ++lines;
  }
  return lines;
}

// One record on its way to the rank of its id.
void pack(std::string& out, std::size_t file, const io::usage_row& row, std::size_t rate) {
  io::detail::put_u32(out, static_cast<std::uint32_t>(file));
  io::detail::put_u64(out, row.line);
  io::detail::put_text(out, row.id);
  io::detail::put_text(out, row.account);
  io::detail::put_u32(out, static_cast<std::uint32_t>(rate));
  io::detail::put_i64(out, row.quantity.raw());
  io::detail::put_i64(out, row.start.time_since_epoch().count());
  io::detail::put_i64(out, row.end.time_since_epoch().count());
}

// The line of an error in `path` ("path:line"), 0 when it names none.
std::size_t line_in(const error& e, const std::string& path) {
  if (!e.where.starts_with(path + ":")) return 0;
  return static_cast<std::size_t>(std::strtoull(e.where.c_str() + path.size() + 1, nullptr, 10));
}

// This rank's lines of every file, read block by block over the rounds: each row parsed,
// checked and packed for the rank of its id. Stops at its first error (later lines cannot
// hold an earlier one).
class range_reader {
 public:
  range_reader(const options& o, const meter& m, std::vector<range> ranges, std::vector<std::uint64_t> before, std::size_t block)
      : o_(&o), m_(&m), ranges_(std::move(ranges)), before_(std::move(before)), block_(block) {}
  [[nodiscard]] bool done() const noexcept { return k_ >= ranges_.size(); }
  // Reads blocks while the outboxes stay within `budget` bytes (at least one block).
  void fill(std::vector<std::string>& outbox, std::size_t budget, failure& f, counters& c) {
    std::size_t held = 0;
    for (const std::string& b : outbox) held += b.size();
    while (!done()) {
      const std::string& path = o_->usage_paths[k_];
      if (auto r = step(outbox, held, budget, c); !r) {
        f.note(at_line(k_, line_in(r.error(), path)), r.error());
        k_ = ranges_.size();
      } else if (!*r) {
        return;
      }
    }
  }

 private:
  // One block (or the opening or end of a file); false when the budget is reached.
  expected<bool> step(std::vector<std::string>& outbox, std::size_t& held, std::size_t budget, counters& c) {
    const std::string& path = o_->usage_paths[k_];
    const range r = ranges_[k_];
    if (!blocks_) {
      GPURENT_TRY(head, io::detail::open_usage(path, std::size_t{1} << 16));  // the header; a missing file fails on every rank
      if (r.begin >= r.end) {
        ++k_;
        return true;
      }
      header_ = std::move(head->header);
      GPURENT_TRY(b, io::line_blocks::open(path, block_, r.begin, r.end));
      blocks_.emplace(std::move(*b));
      parser_.emplace(*header_, path);
      first_ = true;
    }
    if (held > 0 && held + block_ > budget) return false;
    GPURENT_TRY(more, blocks_->take(block_text_));
    if (!*more) {
      blocks_.reset();
      ++k_;
      return true;
    }
    std::string_view piece = block_text_;
    std::size_t before = before_[k_] + blocks_->lines_before();
    if (std::exchange(first_, false) && r.begin == 0) {  // the header is not a record
      const std::size_t nl = piece.find('\n');
      piece = nl == std::string_view::npos ? std::string_view() : piece.substr(nl + 1);
      before = 1;
    }
    const auto n = static_cast<std::uint32_t>(outbox.size());
    GPURENT_TRY(parser_->rows(piece, before, [&](const io::usage_row& row) -> expected<void> {
      GPURENT_TRY(ri, rates_.of(*m_, row, path));
      std::string& box = outbox[shard_of(row.id, n)];
      const std::size_t was = box.size();
      pack(box, k_, row, *ri);
      held += box.size() - was;
      ++c.records;
      return {};
    }));
    return true;
  }

  const options* o_;
  const meter* m_;
  std::vector<range> ranges_;
  std::vector<std::uint64_t> before_;
  std::size_t block_;
  std::size_t k_ = 0;
  std::unique_ptr<io::detail::usage_header> header_;
  std::optional<io::line_blocks> blocks_;
  std::optional<io::usage_row_parser> parser_;
  io::row_rate rates_;
  std::string block_text_;
  bool first_ = true;
};

// One round: every rank's outboxes to their ranks; what this rank got, in rank order.
void exchange_records(std::vector<std::string>& outbox, std::string& all, std::string& in, const world& w, counters& c) {
  std::vector<int> send(static_cast<std::size_t>(w.size)), recv(send.size()), sdisp(send.size()), rdisp(send.size());
  all.clear();
  for (std::size_t k = 0; k < outbox.size(); ++k) {
    sdisp[k] = static_cast<int>(all.size());
    send[k] = static_cast<int>(outbox[k].size());
    if (k != static_cast<std::size_t>(w.rank)) c.sent += outbox[k].size();
    all += outbox[k];
    outbox[k].clear();
  }
  MPI_Alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::int64_t total = 0;
  for (std::size_t k = 0; k < recv.size(); ++k) {
    rdisp[k] = static_cast<int>(total);
    total += recv[k];
    if (k != static_cast<std::size_t>(w.rank)) c.received += static_cast<std::uint64_t>(recv[k]);
  }
  in.resize(static_cast<std::size_t>(total));
  MPI_Alltoallv(all.data(), send.data(), sdisp.data(), MPI_CHAR, in.data(), recv.data(), rdisp.data(), MPI_CHAR, MPI_COMM_WORLD);
  ++c.rounds;
}

// The file index of a name the meter holds (the files were set in order, so the first match).
std::uint32_t file_of(std::string_view source, const std::vector<std::string>& files) {
  return static_cast<std::uint32_t>(std::ranges::find(files, source) - files.begin());
}

// A failed add: a conflict is kept with the record at its line, to add again at the end.
void note_failed_add(const error& e, const record_copy& rec, const meter::record_view& displaced, const std::vector<std::string>& files, failure& f) {
  if (e.code != error_code::duplicate) return f.note(at_line(rec.file, rec.line), e);
  if (displaced.id.empty()) return f.note(at_line(rec.file, rec.line), e, rec);
  const std::uint32_t file = file_of(displaced.source, files);
  f.note(at_line(file, displaced.line), e,
         record_copy{file, displaced.line, std::string(displaced.id), std::string(displaced.account), displaced.rate, displaced.quantity,
                     displaced.start, displaced.end});
}

// A record into the meter, wherever it comes in file order.
expected<void> add_record(meter& m, const record_copy& r, std::string_view id, std::string_view account, meter::record_view* displaced) {
  return m.add_out_of_order(id, account, r.rate, r.quantity, r.start, r.end, r.line, displaced);
}

// The records this rank got in a round into its meter. After an error it goes on: a conflict
// at an earlier line may still be in what comes.
void add_records(std::string_view in, const std::vector<std::string>& files, meter& m, failure& f) {
  io::detail::partial_cursor c{in, 0};
  std::uint32_t source = UINT32_MAX;
  while (c.at < in.size()) {
    record_copy r;
    std::uint32_t rate = 0;
    std::uint64_t line = 0;
    std::string_view id, account;
    std::int64_t q = 0, start = 0, end = 0;
    if (!(c.u32(r.file) && c.u64(line) && c.text(id) && c.text(account) && c.u32(rate) && c.i64(q) && c.i64(start) && c.i64(end))) {
      f.note(0, error{error_code::io_error, {}, "a record exchanged between ranks is cut short", {}});
      return;
    }
    r = record_copy{r.file, static_cast<std::size_t>(line), {}, {}, rate, nano_quantity(q), instant{seconds{start}}, instant{seconds{end}}};
    if (r.file != source) m.set_source(files[source = r.file]);
    meter::record_view displaced{};
    if (auto added = add_record(m, r, id, account, &displaced); !added) {
      r.id = id;
      r.account = account;
      note_failed_add(added.error(), r, displaced, files, f);
    }
  }
}

// This rank's earliest conflict added again, now that every record is in: it then names the
// first occurrence of its id, as one run does.
void settle_conflict(meter& m, const std::vector<std::string>& files, failure& f) {
  if (!f.again) return;
  m.set_source(files[f.again->file]);
  if (auto r = add_record(m, *f.again, f.again->id, f.again->account, nullptr); !r) f.err = r.error();
}

// Setup on every rank: the tariff and the meter (their errors come before any file's), the
// files set in order so that the meter orders records by (file, line).
std::optional<meter> setup(const options& o, failure& f) {
  auto t = tool::load_tariff(o.tariff_path, o.rounding_point);
  if (!t) {
    f.note(0, t.error());
    return std::nullopt;
  }
  static std::optional<tariff> kept;  // the meter points at its tariff: keep it for the whole run
  kept = std::move(*t);
  auto m = meter::for_month(*kept, o.period);
  if (!m) {
    f.note(0, m.error().in_field("--period"));
    return std::nullopt;
  }
  for (const std::string& path : o.usage_paths) m->set_source(path);
  return std::move(*m);
}

// The reader of this rank's lines: line numbers first (pass 1, MPI_Exscan).
range_reader open_my_rows(const options& o, const meter& m, const world& w, std::size_t block) {
  const std::vector<std::int64_t> sizes = file_sizes(o.usage_paths, w);
  std::vector<range> ranges = my_ranges(sizes, w);
  const std::size_t nf = ranges.size();
  std::vector<std::uint64_t> mine(nf, 0), before(nf, 0);
  for (std::size_t k = 0; k < nf; ++k) {
    auto n = count_lines(o.usage_paths[k], ranges[k]);
    if (n) mine[k] = *n;
  }
  MPI_Exscan(mine.data(), before.data(), static_cast<int>(nf), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (w.rank == 0) std::fill(before.begin(), before.end(), 0);
  return range_reader(o, m, std::move(ranges), std::move(before), block);
}

// Reading and exchanging in rounds until every rank has read all its lines.
void read_and_exchange(const options& o, meter& m, const world& w, failure& f, counters& c) {
  // A round's receipts (at most `size` x budget) must fit MPI's int counts.
  const std::size_t budget = std::clamp<std::size_t>(o.round_bytes, 1, INT_MAX / static_cast<std::size_t>(w.size));
  range_reader reader = open_my_rows(o, m, w, std::min(io::default_block_bytes, budget));
  m.reserve(io::detail::estimated_records(o.usage_paths) / static_cast<std::size_t>(w.size));  // no table grown by doubling
  std::vector<std::string> outbox(static_cast<std::size_t>(w.size));
  std::string all, in;
  while (true) {
    reader.fill(outbox, budget, f, c);
    const int mine = reader.done() ? 1 : 0;
    exchange_records(outbox, all, in, w, c);
    add_records(in, o.usage_paths, m, f);
    int every = 0;
    MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (every == 1) break;
  }
  settle_conflict(m, o.usage_paths, f);
}

// Bytes to rank 0 in pieces of at most 1 GiB (MPI counts are ints).
constexpr std::size_t piece_bytes = std::size_t{1} << 30;
void send_to_root(const std::string& bytes) {
  const std::uint64_t n = bytes.size();
  MPI_Send(&n, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD);
  for (std::size_t at = 0; at < bytes.size(); at += piece_bytes)
    MPI_Send(bytes.data() + at, static_cast<int>(std::min(piece_bytes, bytes.size() - at)), MPI_CHAR, 0, 2, MPI_COMM_WORLD);
}
std::string receive_at_root(int from) {
  std::uint64_t n = 0;
  MPI_Recv(&n, 1, MPI_UINT64_T, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string bytes(static_cast<std::size_t>(n), '\0');
  for (std::size_t at = 0; at < bytes.size(); at += piece_bytes)
    MPI_Recv(bytes.data() + at, static_cast<int>(std::min(piece_bytes, bytes.size() - at)), MPI_CHAR, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return bytes;
}

// Rank 0's invoice: its own meter and every other rank's partial, read as it arrives.
expected<invoice> reduce_at_root(meter& m, const meter& blank, const world& w, counters& c) {
  std::vector<meter> parts;
  parts.push_back(std::move(m));  // not copied: rank 0's own records may be many
  std::optional<error> failed;
  for (int k = 1; k < w.size; ++k) {
    const std::string bytes = receive_at_root(k);  // every rank's, even after a failure
    c.reduced += bytes.size();
    if (failed) continue;
    const std::string name = "rank " + std::to_string(k);
    auto p = blank.finish_needs_records() ? io::read_partial(blank, bytes, name) : io::read_totals_partial(blank, bytes, name);
    if (!p)
      failed = p.error();
    else
      parts.push_back(std::move(*p));
  }
  if (failed) return unexpected(*failed);
  return meter::finish_shards(parts);
}

// Every other rank sends its partial to rank 0 (totals only, unless the invoice needs the
// records), which prints the invoice; every rank gets its status.
int reduce_and_print(const options& o, meter& m, const meter& blank, const world& w, counters& c) {
  int status = tool::exit_ok;
  if (w.rank != 0) {
    auto bytes = m.finish_needs_records() ? io::write_partial(std::span<const meter>(&m, 1)) : io::write_totals_partial(m);
    send_to_root(bytes ? *bytes : std::string());  // rank 0 rejects an empty one
    c.reduced += bytes ? bytes->size() : 0;
  } else {
    auto inv = reduce_at_root(m, blank, w, c);
    status = tool::finish_stdout(inv ? tool::print_invoice(*inv, o.format, o.detail) : tool::fail(inv.error()));
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

// --stats: each rank's rounds, records, bytes to and from other ranks, CPU and peak memory,
// printed by rank 0 in rank order.
void print_stats(const counters& c, const world& w) {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const std::array<double, 8> mine{static_cast<double>(c.rounds),
                                   static_cast<double>(c.records),
                                   static_cast<double>(c.sent),
                                   static_cast<double>(c.received),
                                   static_cast<double>(c.reduced),
                                   static_cast<double>(u.ru_utime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec) / 1e6,
                                   static_cast<double>(u.ru_stime.tv_sec) + static_cast<double>(u.ru_stime.tv_usec) / 1e6,
                                   static_cast<double>(u.ru_maxrss)};
  std::vector<double> all(w.rank == 0 ? mine.size() * static_cast<std::size_t>(w.size) : 0);
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (std::size_t k = 0; k < all.size(); k += mine.size()) {
    std::fprintf(stderr,
                 "gpurent-mpi: rank %zu: %.0f rounds, %.0f records read, %.0f bytes sent to other ranks, %.0f received, %.0f in the "
                 "reduction, %.2f s user, %.2f s sys, peak RSS %.0f KB\n",
                 k / mine.size(), all[k], all[k + 1], all[k + 2], all[k + 3], all[k + 4], all[k + 5], all[k + 6], all[k + 7]);
  }
}

int run(const options& o, const world& w) {
  failure f;
  counters c;
  std::optional<meter> m = setup(o, f);
  if (agree(w, f)) return tool::exit_invalid;
  const meter blank = *m;
  read_and_exchange(o, *m, w, f, c);
  if (agree(w, f)) return tool::exit_invalid;
  const int status = reduce_and_print(o, *m, blank, w, c);
  if (o.stats) print_stats(c, w);
  return status;
}

// The command line, as `gpurent meter` reads it; 0 when it holds a command to run.
int parse_args(int argc, char** argv, options& o, const world& w) {
  CLI::App app{"gpurent-mpi: gpurent meter on MPI ranks (mpirun -np N gpurent-mpi meter ...)"};
  app.name("gpurent-mpi");
  app.require_subcommand(1);
  auto* cmd = app.add_subcommand("meter", "rate usage CSVs under a tariff for one calendar month, on every rank");
  cmd->add_option("--tariff", o.tariff_path, "tariff JSON file")->required();
  cmd->add_option("--usage", o.usage_paths, "usage CSV files, rated as one stream")->required();
  cmd->add_option("--period", o.period, "calendar month in the tariff's time zone, YYYY-MM")->required();
  cmd->add_option("--rounding-point", o.rounding_point, "override the tariff's rounding point: record, line (default) or invoice");
  cmd->add_flag("--detail", o.detail, "add exact amounts, every rounding and waste to the output");
  cmd->add_option("--round-bytes", o.round_bytes, "packed records a rank sends per exchange round, at most (default 64 MiB)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--stats", o.stats, "print each rank's rounds, bytes exchanged, CPU time and peak memory to stderr");
  tool::add_format_option(*cmd, o.format,
                          {{"json", tool::output_format::json}, {"csv", tool::output_format::csv}, {"table", tool::output_format::table}});
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (w.rank != 0) return e.get_exit_code() == 0 ? -1 : tool::exit_invalid;
    if (e.get_exit_code() == 0) return app.exit(e), -1;  // --help
    std::fprintf(stderr, "gpurent: %s\nrun 'gpurent-mpi --help' for usage\n", e.what());
    return tool::exit_invalid;
  }
  if (auto bad = tool::bad_number_option(app)) return w.rank == 0 ? tool::fail(*bad) : tool::exit_invalid;
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  world w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  options o;
  int status = parse_args(argc, argv, o, w);
  if (status == -1) {
    status = 0;
  } else if (status == 0) {
    try {
      status = run(o, w);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpurent: rank %d: %s\n", w.rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, tool::exit_invalid);
    }
  }
  MPI_Finalize();
  return status;
}
