// SPDX-License-Identifier: MIT
// gpurent-mpi meter: `gpurent meter` on MPI ranks (issue 19), byte-identical to it.
//
//   mpirun -np N gpurent-mpi meter --tariff T --period M --usage U1.csv U2.csv ... [--format F]
//
// The files, taken as one stream, are cut into N byte ranges; each rank reads the lines that
// start in its range (io/line_blocks.hpp), numbers them after the lines of the ranks before it
// (MPI_Exscan), parses and checks every row, and sends each record to the rank of its id's
// hash (FNV-1a 64 mod N, metering/shard.hpp) in one MPI_Alltoallv. A rank adds what it got in
// rank order, which is file order, so repeats meet their first occurrence as in one run. The
// ranks' partial results (io/meter_partial.hpp) are gathered to rank 0, which reads them
// back, adds their line totals and prints the invoice. Errors: every rank keeps its earliest
// (file, line); all agree on the earliest of all, rank 0 prints it, and every rank exits 2.
#include <mpi.h>

#include <algorithm>
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

// This rank's earliest error.
struct failure {
  std::uint64_t at = nowhere;
  std::optional<error> err;
  void note(std::uint64_t where, const error& e) {
    if (where < at) {
      at = where;
      err = e;
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

// Pass 2: this rank's rows of one file, checked, packed for the rank of each id.
expected<void> parse_range(const std::string& path, std::size_t file, range r, std::uint64_t lines_before, const meter& m,
                           std::vector<std::string>& outbox) {
  GPURENT_TRY(head, io::detail::open_usage(path, std::size_t{1} << 16));
  if (r.begin >= r.end) return {};
  GPURENT_TRY(blocks, io::line_blocks::open(path, io::default_block_bytes, r.begin, r.end));
  io::usage_row_parser parser(*head->header, path);
  io::row_rate rates;
  const auto n = static_cast<std::uint32_t>(outbox.size());
  const auto add = [&](const io::usage_row& row) -> expected<void> {
    GPURENT_TRY(ri, rates.of(m, row, path));
    pack(outbox[shard_of(row.id, n)], file, row, *ri);
    return {};
  };
  std::string block;
  for (bool first = true;; first = false) {
    GPURENT_TRY(more, blocks->take(block));
    if (!*more) break;
    std::string_view piece = block;
    std::size_t before = lines_before + blocks->lines_before();
    if (first && r.begin == 0) {  // the header is not a record
      const std::size_t nl = piece.find('\n');
      piece = nl == std::string_view::npos ? std::string_view() : piece.substr(nl + 1);
      before = 1;
    }
    GPURENT_TRY(parser.rows(piece, before, add));
  }
  return {};
}

// The line of an error in `path` ("path:line"), 0 when it names none.
std::size_t line_in(const error& e, const std::string& path) {
  if (!e.where.starts_with(path + ":")) return 0;
  return static_cast<std::size_t>(std::strtoull(e.where.c_str() + path.size() + 1, nullptr, 10));
}

// Every rank's outbox to its rank, in one exchange; what this rank got, in rank order.
expected<std::string> exchange_records(const std::vector<std::string>& outbox, const world& w) {
  std::vector<int> send(static_cast<std::size_t>(w.size)), recv(send.size()), sdisp(send.size()), rdisp(send.size());
  std::string all;
  for (std::size_t k = 0; k < outbox.size(); ++k) {
    if (outbox[k].size() > INT_MAX || all.size() > INT_MAX - outbox[k].size())
      return make_error(error_code::invalid_argument, "--usage", "more than 2 GiB of records for one exchange: use more ranks");
    sdisp[k] = static_cast<int>(all.size());
    send[k] = static_cast<int>(outbox[k].size());
    all += outbox[k];
  }
  MPI_Alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::int64_t total = 0;
  for (std::size_t k = 0; k < recv.size(); ++k) {
    rdisp[k] = static_cast<int>(total);
    total += recv[k];
  }
  std::string in(static_cast<std::size_t>(total), '\0');
  MPI_Alltoallv(all.data(), send.data(), sdisp.data(), MPI_CHAR, in.data(), recv.data(), rdisp.data(), MPI_CHAR, MPI_COMM_WORLD);
  return in;
}

// The records this rank got, in file order, into its meter.
void add_records(std::string_view in, const std::vector<std::string>& files, meter& m, failure& f) {
  io::detail::partial_cursor c{in, 0};
  std::size_t source = files.size();
  while (c.at < in.size()) {
    std::uint32_t file = 0, rate = 0;
    std::uint64_t line = 0;
    std::string_view id, account;
    std::int64_t q = 0, start = 0, end = 0;
    if (!(c.u32(file) && c.u64(line) && c.text(id) && c.text(account) && c.u32(rate) && c.i64(q) && c.i64(start) && c.i64(end))) {
      f.note(0, error{error_code::io_error, {}, "a record exchanged between ranks is cut short", {}});
      return;
    }
    if (file != source) m.set_source(files[source = file]);
    auto r = m.add(id, account, rate, nano_quantity(q), instant{seconds{start}}, instant{seconds{end}}, line);
    if (!r) {
      f.note(at_line(file, line), r.error());
      return;
    }
  }
}

// Setup on every rank: the tariff and the meter (their errors come before any file's).
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
  return std::move(*m);
}

// Reading: line numbers (pass 1, MPI_Exscan), then every row checked and packed by id.
std::vector<std::string> read_my_rows(const options& o, const meter& m, const world& w, failure& f) {
  const std::vector<std::int64_t> sizes = file_sizes(o.usage_paths, w);
  const std::vector<range> ranges = my_ranges(sizes, w);
  const std::size_t nf = ranges.size();
  std::vector<std::uint64_t> mine(nf, 0), before(nf, 0);
  for (std::size_t k = 0; k < nf; ++k) {
    auto n = count_lines(o.usage_paths[k], ranges[k]);
    if (n) mine[k] = *n;
  }
  MPI_Exscan(mine.data(), before.data(), static_cast<int>(nf), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (w.rank == 0) std::fill(before.begin(), before.end(), 0);
  std::vector<std::string> outbox(static_cast<std::size_t>(w.size));
  for (std::size_t k = 0; k < nf && f.at == nowhere; ++k) {
    const std::string& path = o.usage_paths[k];
    if (auto r = parse_range(path, k, ranges[k], before[k], m, outbox); !r) f.note(at_line(k, line_in(r.error(), path)), r.error());
  }
  return outbox;
}

// Rank 0 reads the ranks' partials back and prints their invoice; every rank gets its status.
int reduce_and_print(const options& o, const meter& m, const meter& blank, const world& w) {
  int status = tool::exit_ok;
  auto bytes = io::write_partial(std::span<const meter>(&m, 1));
  const std::string mine = bytes ? *bytes : std::string();
  int n = static_cast<int>(std::min<std::size_t>(mine.size(), INT_MAX));
  std::vector<int> counts(static_cast<std::size_t>(w.size)), disp(counts.size());
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::int64_t total = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    disp[k] = static_cast<int>(std::min<std::int64_t>(total, INT_MAX));
    total += counts[k];
  }
  std::string all(w.rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), disp.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (w.rank == 0) {
    std::vector<meter> parts;
    for (std::size_t k = 0; k < counts.size() && status == tool::exit_ok; ++k) {
      auto p = io::read_partial(blank, std::string_view(all).substr(static_cast<std::size_t>(disp[k]), static_cast<std::size_t>(counts[k])),
                                "rank " + std::to_string(k));
      if (!p)
        status = tool::fail(p.error());
      else
        parts.push_back(std::move(*p));
    }
    auto inv = status == tool::exit_ok ? meter::finish_shards(parts) : expected<invoice>(unexpected(error{}));
    if (status == tool::exit_ok && !inv) status = tool::fail(inv.error());
    if (status == tool::exit_ok) status = tool::print_invoice(*inv, o.format, o.detail);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

int run(const options& o, const world& w) {
  failure f;
  std::optional<meter> m = setup(o, f);
  if (agree(w, f)) return tool::exit_invalid;
  const meter blank = *m;
  std::vector<std::string> outbox = read_my_rows(o, *m, w, f);
  auto in = exchange_records(outbox, w);
  outbox = {};
  if (!in)
    f.note(0, in.error());
  else
    add_records(*in, o.usage_paths, *m, f);
  if (agree(w, f)) return tool::exit_invalid;
  return reduce_and_print(o, *m, blank, w);
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
