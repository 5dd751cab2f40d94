// SPDX-License-Identifier: MIT
#pragma once
// Why a job does not fit: the one explanation every Placer gives (placer.hpp). For a
// one-member job it is the node matcher's count per constraint; for a gang it adds the member
// at which room ran out and what the domains or blocks lacked.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/matching/constraints.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

// How many nodes a request fits (or none): per constraint, how many nodes it was the first
// to reject.
struct constraint_counts {
  struct entry {
    std::string_view constraint;
    std::string reason;
    std::size_t nodes = 0;
    friend bool operator==(const entry&, const entry&) = default;
  };
  std::size_t nodes = 0;
  std::size_t feasible = 0;
  std::vector<entry> rejected;  // constraint order; only constraints that rejected something

  [[nodiscard]] std::size_t count(std::string_view constraint) const noexcept {
    for (const entry& e : rejected) {
      if (e.constraint == constraint) return e.nodes;
    }
    return 0;
  }
  // "0 of 1213 nodes fit: 1204 lack 4 idle GPUs in one NVLink domain, 9 are reserved for
  // another tenant"
  [[nodiscard]] std::string summary() const {
    std::string s = std::to_string(feasible) + " of " + std::to_string(nodes) + " nodes fit";
    const char* sep = ": ";
    for (const entry& e : rejected) {
      s += sep;
      s += std::to_string(e.nodes);
      s += ' ';
      s += e.reason;
      sep = ", ";
    }
    return s;
  }
  friend bool operator==(const constraint_counts&, const constraint_counts&) = default;
};

// Per constraint of Cs, how many of the nodes `keep` selects it was the first to reject
// for r (the matcher's and the gang placer's explanations).
template <ConstraintSet Cs, class Keep>
[[nodiscard]] constraint_counts explain_nodes(const inventory& inv, const placement_request& r, Keep&& keep) {
  std::array<std::size_t, Cs::size> counts{};
  constraint_counts w;
  for (node_index n = 0; n < inv.size(); ++n) {
    if (!keep(n)) continue;
    ++w.nodes;
    const std::size_t i = Cs::first_rejecting(inv, n, r);
    if (i == Cs::size) {
      ++w.feasible;
    } else {
      ++counts[i];
    }
  }
  std::array<std::string, Cs::size> reasons;
  if constexpr (requires { Cs::describe(r); }) {
    reasons = Cs::describe(r);
  } else {
    for (std::size_t i = 0; i < Cs::size; ++i) reasons[i] = std::string(Cs::names[i]);
  }
  for (std::size_t i = 0; i < Cs::size; ++i) {
    if (counts[i] > 0) w.rejected.push_back({Cs::names[i], reasons[i], counts[i]});
  }
  return w;
}

// Why a job does not fit: for a one-member job placed node by node, only `nodes` (and
// `candidates` empty); for a gang, the member at which room ran out, what the domains (or
// blocks) lacked, per reason, and per constraint what the nodes lacked for one member.
struct why_not {
  struct entry {
    std::string reason;
    std::size_t count = 0;
    friend bool operator==(const entry&, const entry&) = default;
  };
  std::size_t members = 0;     // the job's size
  std::size_t fit = 0;         // members that found room: member `fit` is the first that did not
  std::string candidates;      // what was counted: "blocks", "spine domains", "nodes"; empty: nodes only
  std::size_t total = 0;       // how many of them
  std::size_t holding = 0;     // how many could hold the gang (or a segment)
  std::string holds;           // what holding means ("a segment of 16", "64 members")
  std::vector<entry> reasons;  // why the others could not
  constraint_counts nodes;     // per constraint, the nodes that cannot take one member
  std::string note;            // anything else (an invalid gang, a search that ran out)

  // A one-member job: "0 of 1213 nodes fit: ..."; a gang: "member 48 of 64 does not fit:
  // 0 of 200 blocks can hold a segment of 16: 151 have room for fewer than 16 members, 49
  // are held exclusively by another gang (nodes for one member: ...)"
  [[nodiscard]] std::string summary() const {
    if (!note.empty()) return note;
    if (candidates.empty()) return nodes.summary();
    std::string s = "member " + std::to_string(fit) + " of " + std::to_string(members) + " does not fit: " + std::to_string(holding) + " of " +
                    std::to_string(total) + " " + candidates + " can hold " + holds;
    const char* sep = ": ";
    for (const entry& e : reasons) {
      s += sep + std::to_string(e.count) + " " + e.reason;
      sep = ", ";
    }
    return s + " (nodes for one member: " + nodes.summary() + ")";
  }
  friend bool operator==(const why_not&, const why_not&) = default;
};

}  // namespace gpurent
