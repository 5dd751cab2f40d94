// SPDX-License-Identifier: MIT
#pragma once
// fleet run's retry memo per job shape: queued jobs that ask for the same thing fail together.
// Two jobs have one shape when their gangs are equal, member for member and rule for rule, and
// so are their priority and whether they are preemptible. A placement of a shape that failed
// while the retry log stood at position p fails again until the log grows (placements only
// take room); a preemption of a shape that found no victims at instant t, log position p and
// running-set version v finds none again at the same (t, p, v): the room, the candidate
// victims and their eligibility are the same. Queued jobs hold no exclusive block (a victim's
// hold ends when it is back in the queue), so a gang's id never changes what fits.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <gpurent/core/fleet_time.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/matching/gang/request.hpp>

namespace gpurent {

class shape_memo {
 public:
  static constexpr std::size_t never = ~std::size_t{0};

  shape_memo() = default;
  // Numbers the shapes of `jobs`: jobs sorted by a hash of their shape, equal shapes found
  // within each run of one hash. A fixed number of allocations, whatever the jobs.
  explicit shape_memo(std::span<const fleet_job> jobs) : shape_(jobs.size()) {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> by_hash(jobs.size());
    for (std::uint32_t j = 0; j < jobs.size(); ++j) by_hash[j] = {hash_of(jobs[j]), j};
    std::ranges::sort(by_hash);
    std::vector<std::uint32_t> firsts;  // the first job of each shape of the current hash
    std::uint32_t shapes = 0;
    for (std::size_t i = 0; i < by_hash.size(); ++i) {
      if (i == 0 || by_hash[i].first != by_hash[i - 1].first) firsts.clear();
      const std::uint32_t j = by_hash[i].second;
      const auto same_as = [&](std::uint32_t k) { return same(jobs[k], jobs[j]); };
      if (const auto at = std::ranges::find_if(firsts, same_as); at != firsts.end()) {
        shape_[j] = shape_[*at];
      } else {
        shape_[j] = shapes++;
        firsts.push_back(j);
      }
    }
    memo_.resize(shapes);
  }

  [[nodiscard]] std::size_t shapes() const noexcept { return memo_.size(); }
  [[nodiscard]] bool place_fails(std::uint32_t j, std::size_t position) const noexcept { return memo_[shape_[j]].place_failed_at == position; }
  void place_failed(std::uint32_t j, std::size_t position) noexcept { memo_[shape_[j]].place_failed_at = position; }
  [[nodiscard]] bool preempt_fails(std::uint32_t j, fleet_time t, std::size_t position, std::uint64_t version) const noexcept {
    const entry& e = memo_[shape_[j]];
    return e.preempt_failed_at == position && e.preempt_t == t && e.preempt_version == version;
  }
  void preempt_failed(std::uint32_t j, fleet_time t, std::size_t position, std::uint64_t version) noexcept {
    entry& e = memo_[shape_[j]];
    e.preempt_failed_at = position;
    e.preempt_t = t;
    e.preempt_version = version;
  }

 private:
  struct entry {
    std::size_t place_failed_at = never;
    std::size_t preempt_failed_at = never;
    fleet_time preempt_t{};
    std::uint64_t preempt_version = 0;
  };

  [[nodiscard]] static bool same(const fleet_job& a, const fleet_job& b) noexcept {
    const gang_request &x = a.gang, &y = b.gang;
    if (a.priority != b.priority || a.preemptible != b.preemptible || x.member != y.member || x.workers != y.workers || x.per_node != y.per_node ||
        x.required != y.required || x.preferred != y.preferred || x.segment != y.segment || x.exclusive != y.exclusive ||
        x.members.size() != y.members.size())
      return false;
    for (std::size_t i = 0; i < x.members.size(); ++i)
      if (x.members[i] != y.members[i]) return false;
    return true;
  }
  [[nodiscard]] static std::uint64_t hash_of(const fleet_job& a) noexcept {
    const placement_request& m = a.gang.member;
    std::uint64_t h = 1469598103934665603ULL;
    for (const std::int64_t v : {std::int64_t{a.priority}, std::int64_t{a.preemptible}, std::int64_t{a.gang.workers}, std::int64_t{a.gang.per_node},
                                 std::int64_t{a.gang.segment}, std::int64_t{m.num_gpu}, std::int64_t{m.gpu_milli.count()}, m.cpu_milli.count(),
                                 m.memory_mib.count(), static_cast<std::int64_t>(a.gang.members.size())})
      h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
    return h;
  }

  std::vector<std::uint32_t> shape_;  // per job
  std::vector<entry> memo_;           // per shape
};

}  // namespace gpurent
