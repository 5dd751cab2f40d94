// SPDX-License-Identifier: MIT
#pragma once
// Ranks: N processes (MPI's ranks, or threads in a test) that meter one usage stream
// together, and the little the round protocol (scale/rounds.hpp) needs of how they talk: the
// rank_transport concept, which tools/mpi binds to MPI calls and tests/metering to an
// in-process fake. Also what every rank computes alike: its byte range of the files, its
// earliest error, and the agreement of all ranks on the earliest error of all.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent {

// How ranks talk. Collectives are called by every rank, in the same order:
//   all_to_all(outboxes, in): outboxes[k] goes to rank k; `in` receives what every rank sent
//     this one, in rank order (its own outbox included);
//   min(v): the least of every rank's v;
//   exclusive_sum(counts, sums): sums[i] = counts[i] added over the ranks below this one
//     (rank 0's sums are left as they are);
//   broadcast(values): rank 0's values to every rank.
// Point to point: send_to_root(bytes) at a rank other than 0; receive_at_root(k) at rank 0
// returns rank k's messages in the order it sent them.
template <class T>
concept rank_transport = requires(T& t, const T& ct, std::span<const std::string> outboxes, std::string& in, std::uint64_t v,
                                  std::span<const std::uint64_t> counts, std::span<std::uint64_t> sums, std::span<std::int64_t> values,
                                  std::string_view bytes, std::size_t from) {
  { ct.rank() } -> std::same_as<std::size_t>;
  { ct.size() } -> std::same_as<std::size_t>;
  { t.all_to_all(outboxes, in) } -> std::same_as<void>;
  { t.min(v) } -> std::same_as<std::uint64_t>;
  { t.exclusive_sum(counts, sums) } -> std::same_as<void>;
  { t.broadcast(values) } -> std::same_as<void>;
  { t.send_to_root(bytes) } -> std::same_as<void>;
  { t.receive_at_root(from) } -> std::same_as<std::string>;
};

// Bytes [begin, end) of a file: a rank reads the lines that start in its range.
struct byte_range {
  std::uint64_t begin = 0, end = 0;
};

// Rank `rank` of `ranks`' byte range of each file: the files, taken as one stream, cut in
// `ranks` equal parts (a size below 0, a file that cannot be read, counts as empty).
[[nodiscard]] inline std::vector<byte_range> rank_ranges(std::span<const std::int64_t> sizes, std::size_t rank, std::size_t ranks) {
  std::uint64_t total = 0;
  for (const std::int64_t s : sizes) total += static_cast<std::uint64_t>(std::max<std::int64_t>(s, 0));
  const std::uint64_t lo = total * rank / ranks;
  const std::uint64_t hi = total * (rank + 1) / ranks;
  std::vector<byte_range> out(sizes.size());
  std::uint64_t offset = 0;
  for (std::size_t f = 0; f < sizes.size(); ++f) {
    const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(sizes[f], 0));
    const std::uint64_t b = std::clamp(lo, offset, offset + n), e = std::clamp(hi, offset, offset + n);
    out[f] = {b - offset, e - offset};
    offset += n;
  }
  return out;
}

// A position in the stream as one number, ordered as the stream: 0 before any file;
// (file + 1) << 40 | line.
inline constexpr std::uint64_t stream_nowhere = UINT64_MAX;
[[nodiscard]] constexpr std::uint64_t stream_position(std::size_t file, std::size_t line) noexcept {
  return (static_cast<std::uint64_t>(file + 1) << 40) | static_cast<std::uint64_t>(line);
}

// A record a rank adds again once every record is in: a conflict found out of stream order may
// name a first occurrence that an earlier one replaced later; added again, it names that one.
struct rank_record {
  std::uint32_t file = 0;
  std::size_t line = 0;
  std::string id, account;
  std::size_t rate = 0;
  nano_quantity quantity{};
  instant start{}, end{};
  std::string labels;
};

// A rank's earliest error (and, for a conflict, the record to add again).
struct rank_failure {
  std::uint64_t at = stream_nowhere;
  std::optional<error> err;
  std::optional<rank_record> again;
  void note(std::uint64_t where, const error& e, std::optional<rank_record> conflicting = std::nullopt) {
    if (where < at) {
      at = where;
      err = e;
      again = std::move(conflicting);
    }
  }
};

// Whether any rank failed; at rank 0, the earliest error of all, described.
struct rank_verdict {
  bool failed = false;
  std::string message;
};

// Every rank learns whether any failed; the rank holding the earliest error (the lowest rank
// on a tie) sends its description to rank 0, which alone reports it.
template <rank_transport T>
[[nodiscard]] rank_verdict agree(T& t, const rank_failure& f) {
  const std::uint64_t first = t.min(f.at);
  if (first == stream_nowhere) return {};
  const std::uint64_t holder = t.min(f.at == first ? t.rank() : t.size());
  rank_verdict v{true, {}};
  if (holder == t.rank() && t.rank() == 0) {
    v.message = f.err->describe();
  } else if (holder == t.rank()) {
    t.send_to_root(f.err->describe());
  } else if (t.rank() == 0) {
    v.message = t.receive_at_root(static_cast<std::size_t>(holder));
  }
  return v;
}

}  // namespace gpurent
