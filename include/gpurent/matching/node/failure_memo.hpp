// SPDX-License-Identifier: MIT
#pragma once
// The requests that fit nowhere since the inventory's capacity last grew. Capacity only
// shrinks between releases (an undrain and a new node count as releases: the inventory's
// release epoch), so a request equal to one that found no node since then finds none now
// either. Exact, not a heuristic: a repeated shape that fits nowhere costs one comparison
// per remembered request instead of a scan. The matcher and the full-scan reference both
// use it, so they make the same calls in the same order.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

class failure_memo {
 public:
  static constexpr std::size_t capacity = 256;

  // Whether r is known to fit nowhere in inv now. Forgets everything first when capacity
  // may have grown (a release) or the inventory was assigned over (its epochs repeat).
  [[nodiscard]] bool known(const inventory& inv, const placement_request& r) {
    if (epoch_ != inv.release_epoch() || generation_ != inv.generation()) {
      failed_.clear();
      epoch_ = inv.release_epoch();
      generation_ = inv.generation();
    }
    return std::find(failed_.begin(), failed_.end(), r) != failed_.end();
  }

  // r found no node in the inventory `known` was last asked about.
  void note(const placement_request& r) {
    if (failed_.size() < capacity) failed_.push_back(r);
  }

 private:
  std::vector<placement_request> failed_;
  std::uint64_t epoch_ = ~std::uint64_t{0};
  std::uint64_t generation_ = 0;
};

}  // namespace gpurent
