// SPDX-License-Identifier: MIT
#pragma once
// The order in which a preemption search visits the domains of one topology level, and the
// domains it need not visit (preempt/preemptor.hpp). Each domain comes with its eligible
// candidates and, per candidate, the GPUs (milli) its members hold inside the domain. A job
// that must fit inside the domain needs `needed` = its GPUs - the domain's idle GPUs freed
// there at least, so:
//  - a domain whose candidates hold fewer than `needed` inside cannot be made to hold it:
//    it is left out, without a fit test;
//  - under a policy that ranks by cost first (victim::cost, lost work plus restart), no set
//    of the domain costs less than covering `needed` with the cheapest GPU-seconds first,
//    taking fractions (each candidate's cost per milli-GPU is its lost plus restart seconds,
//    and a victim pays for all its GPUs, not only those inside): the domain's bound. The
//    domains are then visited from the lowest bound (ties: domain order), and the visit
//    stops at the first whose bound exceeds the cost of the best set found.
// Both only skip domains whose every set is worse than one found or that have none, so the
// chosen set is the one visiting every domain in order would choose (the selector breaks
// rank ties by domain order). Nothing allocates once grown.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gpurent/matching/preempt/victims.hpp>

namespace gpurent {

class domain_plan {
 public:
  struct entry {
    std::int64_t bound = 0;  // no set of the domain costs less (milli-GPU-seconds)
    std::uint32_t domain = 0;
    std::uint32_t first = 0, count = 0;  // its candidates: victims()[first, first + count)
  };

  void clear() noexcept {
    entries_.clear();
    victims_.clear();
    inside_.clear();
  }

  // Domain d's candidates follow, each with the milli-GPUs it holds inside d.
  void begin(std::uint32_t d) noexcept { open_ = entry{0, d, static_cast<std::uint32_t>(victims_.size()), 0}; }
  void add(const victim& v, std::int64_t milli_inside) {
    victims_.push_back(v);
    inside_.push_back(milli_inside);
    ++open_.count;
  }

  // Ends the domain begun last. `needed`: the milli-GPUs its candidates must free for the
  // job to fit inside it. `skip`: leave it out when they cannot (else it stays, bound 0);
  // `costed`: bound it by the cheapest cover of `needed`.
  void end(std::int64_t needed, bool skip, bool costed) {
    std::int64_t inside = 0;
    for (std::uint32_t i = open_.first; i < open_.first + open_.count; ++i) inside += inside_[i];
    if (open_.count == 0 || (skip && inside < needed)) {
      victims_.resize(open_.first);
      inside_.resize(open_.first);
      return;
    }
    if (costed) open_.bound = cheapest_cover(needed);
    entries_.push_back(open_);
  }

  // Lowest bound first; equal bounds in domain order.
  void order() {
    std::sort(entries_.begin(), entries_.end(),
              [](const entry& a, const entry& b) { return a.bound != b.bound ? a.bound < b.bound : a.domain < b.domain; });
  }

  [[nodiscard]] std::span<const entry> entries() const noexcept { return entries_; }
  [[nodiscard]] std::span<const victim> victims(const entry& e) const noexcept { return {victims_.data() + e.first, e.count}; }

 private:
  // The fractional cover of `needed` milli-GPUs by the open domain's candidates, cheapest
  // seconds per milli-GPU first.
  [[nodiscard]] std::int64_t cheapest_cover(std::int64_t needed) {
    order_.clear();
    for (std::uint32_t i = open_.first; i < open_.first + open_.count; ++i) order_.push_back(i);
    const auto rate = [&](std::uint32_t i) { return (victims_[i].lost + victims_[i].restart).count(); };
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return rate(a) != rate(b) ? rate(a) < rate(b) : a < b; });
    std::int64_t bound = 0;
    for (const std::uint32_t i : order_) {
      if (needed <= 0) break;
      const std::int64_t take = std::min(needed, inside_[i]);
      bound += take * rate(i);
      needed -= take;
    }
    return bound;
  }

  std::vector<entry> entries_;
  std::vector<victim> victims_;
  std::vector<std::int64_t> inside_;  // per candidate: milli-GPUs inside its domain
  std::vector<std::uint32_t> order_;
  entry open_;
};

}  // namespace gpurent
