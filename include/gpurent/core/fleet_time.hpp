// SPDX-License-Identifier: MIT
#pragma once
// Simulated time, apart from the calendar (core/time.hpp) so that what keeps it (matching's
// preemption, fleet run) does not pay for the time zone database at every include.

#include <chrono>
#include <cstdint>

namespace gpurent {

using std::chrono::seconds;

// An instant on the simulated clock of `fleet run` (fleet/run.hpp) and of its preemption
// (matching/preempt/): whole seconds since the run's time 0, not a calendar instant (that
// is `instant`). An instant plus a duration (`seconds`) is an instant, two instants
// subtract to a duration, and two instants do not add. One int64: constexpr, no cost.
// count() and at_second() are for the files, which hold plain seconds.
class fleet_time {
 public:
  constexpr fleet_time() noexcept = default;
  constexpr explicit fleet_time(seconds since_zero) noexcept : s_(since_zero.count()) {}
  // The instant a file's plain count of seconds names.
  [[nodiscard]] static constexpr fleet_time at_second(std::int64_t s) noexcept { return fleet_time(seconds(s)); }
  // Later than any instant a run reaches: "never".
  [[nodiscard]] static constexpr fleet_time max() noexcept { return fleet_time(seconds::max()); }

  [[nodiscard]] constexpr seconds since_zero() const noexcept { return seconds(s_); }
  [[nodiscard]] constexpr std::int64_t count() const noexcept { return s_; }

  constexpr fleet_time& operator+=(seconds d) noexcept {
    s_ += d.count();
    return *this;
  }
  constexpr fleet_time& operator-=(seconds d) noexcept {
    s_ -= d.count();
    return *this;
  }
  [[nodiscard]] friend constexpr fleet_time operator+(fleet_time t, seconds d) noexcept { return t += d; }
  [[nodiscard]] friend constexpr fleet_time operator+(seconds d, fleet_time t) noexcept { return t += d; }
  [[nodiscard]] friend constexpr fleet_time operator-(fleet_time t, seconds d) noexcept { return t -= d; }
  [[nodiscard]] friend constexpr seconds operator-(fleet_time a, fleet_time b) noexcept { return seconds(a.s_ - b.s_); }
  friend constexpr bool operator==(fleet_time, fleet_time) noexcept = default;
  friend constexpr auto operator<=>(fleet_time, fleet_time) noexcept = default;

 private:
  std::int64_t s_ = 0;
};

}  // namespace gpurent
