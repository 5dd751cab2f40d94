// SPDX-License-Identifier: MIT
// gpurent-mpi meter: `gpurent meter` on MPI ranks (issue 19), byte-identical to it.
//
//   mpirun -np N gpurent-mpi meter --tariff T --period M --usage U1.csv U2.csv ... [--format F]
//
// The protocol (what each rank reads, what it sends in which round, how the partials merge at
// rank 0) is the library's: metering/scale/rounds.hpp, over the files as io/billing/meter_files.hpp
// reads them. This file binds its transport to MPI calls, parses the command line, and
// prints what rank 0 gets: the invoice, or the earliest error of all ranks, once; every rank
// exits with the same status.
#include <mpi.h>

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/metering/meter.hpp>
#include <gpurent/metering/scale/ranks.hpp>
#include <gpurent/metering/scale/rounds.hpp>
#include <gpurent/version.hpp>

#include "../meter_common.hpp"
#include "../tool.hpp"

namespace {
using namespace gpurent;

struct options {
  std::string tariff_path;
  std::vector<std::string> usage_paths;
  std::string period;
  std::string rounding_point;
  std::string previous;
  bool detail = false;
  tool::output_format format{};
  std::size_t round_bytes = std::size_t{64} << 20;
  bool stats = false;
};

// The rank_transport of metering/scale/ranks.hpp on MPI_COMM_WORLD.
class mpi_transport {
 public:
  mpi_transport() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  [[nodiscard]] std::size_t rank() const noexcept { return static_cast<std::size_t>(rank_); }
  [[nodiscard]] std::size_t size() const noexcept { return static_cast<std::size_t>(size_); }

  // MPI_Alltoall of the sizes, then MPI_Alltoallv of the bytes (the protocol keeps what a
  // rank receives in a round within an int count).
  void all_to_all(std::span<const std::string> outboxes, std::string& in) {
    std::vector<int> send(size()), recv(size()), sdisp(size()), rdisp(size());
    all_.clear();
    for (std::size_t k = 0; k < outboxes.size(); ++k) {
      sdisp[k] = static_cast<int>(all_.size());
      send[k] = static_cast<int>(outboxes[k].size());
      all_ += outboxes[k];
    }
    MPI_Alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::int64_t total = 0;
    for (std::size_t k = 0; k < recv.size(); ++k) {
      rdisp[k] = static_cast<int>(total);
      total += recv[k];
    }
    in.resize(static_cast<std::size_t>(total));
    MPI_Alltoallv(all_.data(), send.data(), sdisp.data(), MPI_CHAR, in.data(), recv.data(), rdisp.data(), MPI_CHAR, MPI_COMM_WORLD);
  }
  [[nodiscard]] std::uint64_t min(std::uint64_t v) {
    std::uint64_t least = 0;
    MPI_Allreduce(&v, &least, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    return least;
  }
  void exclusive_sum(std::span<const std::uint64_t> counts, std::span<std::uint64_t> sums) {
    MPI_Exscan(counts.data(), sums.data(), static_cast<int>(counts.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
  void broadcast(std::span<std::int64_t> values) { MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_INT64_T, 0, MPI_COMM_WORLD); }
  // Bytes to rank 0: their size, then pieces of at most 1 GiB (MPI counts are ints).
  void send_to_root(std::string_view bytes) {
    const std::uint64_t n = bytes.size();
    MPI_Send(&n, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD);
    for (std::size_t at = 0; at < bytes.size(); at += piece_bytes)
      MPI_Send(bytes.data() + at, static_cast<int>(std::min(piece_bytes, bytes.size() - at)), MPI_CHAR, 0, 2, MPI_COMM_WORLD);
  }
  [[nodiscard]] std::string receive_at_root(std::size_t from) {
    const int src = static_cast<int>(from);
    std::uint64_t n = 0;
    MPI_Recv(&n, 1, MPI_UINT64_T, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::string bytes(static_cast<std::size_t>(n), '\0');
    for (std::size_t at = 0; at < bytes.size(); at += piece_bytes)
      MPI_Recv(bytes.data() + at, static_cast<int>(std::min(piece_bytes, bytes.size() - at)), MPI_CHAR, src, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return bytes;
  }

 private:
  static constexpr std::size_t piece_bytes = std::size_t{1} << 30;
  int rank_ = 0;
  int size_ = 1;
  std::string all_;  // the send buffer of a round
};
static_assert(rank_transport<mpi_transport>);

// A failed run's message, printed once, by rank 0; true when a rank failed.
bool report(const mpi_transport& t, const rank_verdict& v) {
  if (v.failed && t.rank() == 0) fmt::print(stderr, "gpurent: {}\n", v.message);
  return v.failed;
}

// The tariff and the meter on every rank (their errors come before any file's).
std::optional<meter> setup(const options& o, rank_failure& f) {
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

// --stats: each rank's rounds, records, bytes to and from other ranks, CPU and peak memory,
// printed by rank 0 in rank order.
void print_stats(const round_counters& c, const mpi_transport& t) {
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
  std::vector<double> all(t.rank() == 0 ? mine.size() * t.size() : 0);
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (std::size_t k = 0; k < all.size(); k += mine.size()) {
    std::fprintf(stderr,
                 "gpurent-mpi: rank %zu: %.0f rounds, %.0f records read, %.0f bytes sent to other ranks, %.0f received, %.0f in the "
                 "reduction, %.2f s user, %.2f s sys, peak RSS %.0f KB\n",
                 k / mine.size(), all[k], all[k + 1], all[k + 2], all[k + 3], all[k + 4], all[k + 5], all[k + 6], all[k + 7]);
  }
}

int run(const options& o, mpi_transport& t) {
  rank_failure f;
  std::optional<meter> m = setup(o, f);
  io::previous_month previous;
  if (m) {
    auto p = tool::load_previous(o.previous, m->tariff_value(), o.period);
    if (p)
      previous = std::move(*p);
    else
      f.note(0, p.error());
  }
  if (report(t, agree(t, f))) return tool::exit_invalid;
  const round_outcome out = io::meter_usage_ranks(t, *m, o.usage_paths, o.round_bytes, previous.carry, previous.prepaid);
  if (report(t, out.verdict)) return tool::exit_invalid;
  int status = tool::exit_ok;
  if (t.rank() == 0) {
    const expected<invoice>& inv = *out.result;
    status = tool::finish_stdout(inv ? tool::print_invoice(*inv, o.format, o.detail, &m->tariff_value()) : tool::fail(inv.error()));
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (o.stats) print_stats(out.counters, t);
  return status;
}

// The command line, as `gpurent meter` reads it; 0 when it holds a command to run.
int parse_args(int argc, char** argv, options& o, const mpi_transport& t) {
  CLI::App app{"gpurent-mpi: gpurent meter on MPI ranks (mpirun -np N gpurent-mpi meter ...)"};
  app.name("gpurent-mpi");
  app.set_version_flag("--version", "gpurent-mpi " + std::string(gpurent::version), "print the version and exit");
  app.require_subcommand(1);
  auto* cmd = app.add_subcommand("meter", "rate usage CSVs under a tariff for one calendar month, on every rank");
  cmd->add_option("--tariff", o.tariff_path, "tariff JSON file")->required();
  cmd->add_option("--usage", o.usage_paths, "usage CSV files, rated as one stream")->required();
  cmd->add_option("--period", o.period, "calendar month in the tariff's time zone, YYYY-MM")->required();
  cmd->add_option("--rounding-point", o.rounding_point, "override the tariff's rounding point: record, line (default) or invoice");
  cmd->add_option("--previous", o.previous, "the previous month's invoice JSON: prepaid balances and carried remainders start from it");
  cmd->add_flag("--detail", o.detail, "add exact amounts, every rounding and waste to the output");
  cmd->add_option("--round-bytes", o.round_bytes, "packed records a rank sends per exchange round, at most (default 64 MiB)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--stats", o.stats, "print each rank's rounds, bytes exchanged, CPU time and peak memory to stderr");
  tool::add_format_option(*cmd, o.format, tool::meter_formats());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (t.rank() != 0) return e.get_exit_code() == 0 ? -1 : tool::exit_invalid;
    if (e.get_exit_code() == 0) return app.exit(e), -1;  // --help
    if (auto bad = tool::conversion_problem(app, e)) return tool::fail(*bad);
    std::fprintf(stderr, "gpurent: %s\nrun 'gpurent-mpi --help' for usage\n", e.what());
    return tool::exit_invalid;
  }
  if (auto bad = tool::bad_number_option(app)) return t.rank() == 0 ? tool::fail(*bad) : tool::exit_invalid;
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpi_transport t;
  options o;
  int status = parse_args(argc, argv, o, t);
  if (status == -1) {
    status = 0;
  } else if (status == 0) {
    try {
      status = run(o, t);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpurent: rank %zu: %s\n", t.rank(), e.what());
      MPI_Abort(MPI_COMM_WORLD, tool::exit_invalid);
    }
  }
  MPI_Finalize();
  return status;
}
