// SPDX-License-Identifier: MIT
#pragma once
// What a renter rents and how a job uses it: the unit an offer sells (a whole server, one
// GPU, a MIG slice, a time-sliced fraction of a GPU), the capacity mode it is sold in
// (on demand, spot, reserved), and a job's sharing of what it rented, in the vocabulary of
// sharing/modes.hpp (exclusive, fractional share, MIG slice), alone or packed with other jobs
// on one rented unit. The planner's offers and plans are written in these types.

#include <cstdint>
#include <string>
#include <variant>

#include <gpurent/core/enum.hpp>
#include <gpurent/sharing/modes.hpp>

namespace gpurent {

// What one rented unit of an offer is.
enum class offer_unit : std::uint8_t {
  server,     // a whole server of gpu_count GPUs
  gpu,        // one whole GPU (exclusive)
  mig_slice,  // one MIG instance of a profile on a GPU the provider partitions
  fraction,   // a time-sliced share of one GPU, sold in multiples of a step
};
template <>
struct enum_names<offer_unit> {
  static constexpr enum_entry<offer_unit> entries[] = {
      {offer_unit::server, "server"}, {offer_unit::gpu, "gpu"}, {offer_unit::mig_slice, "mig_slice"}, {offer_unit::fraction, "fraction"}};
};

// How capacity is had: rented on demand, rented as spot (it can be taken back), reserved
// (paid for a term whether used or not), or owned (paid for whatever the use; each hour used
// costs only its marginal cost, such as power).
enum class offer_mode : std::uint8_t { on_demand, spot, reserved, owned };
template <>
struct enum_names<offer_mode> {
  static constexpr enum_entry<offer_mode> entries[] = {
      {offer_mode::on_demand, "on_demand"}, {offer_mode::spot, "spot"}, {offer_mode::reserved, "reserved"}, {offer_mode::owned, "owned"}};
};

// A job's use of what it rented. `mode` is how the job holds a GPU: exclusive (whole GPUs or
// servers), a fractional share (a time-sliced fraction; when packed, the job's compute share
// of the GPU it shares), or a MIG slice. `packed`: the rented unit is shared with other jobs
// of the plan.
struct job_sharing {
  offer_unit unit = offer_unit::gpu;
  sharing_mode mode = exclusive{};
  bool packed = false;
  friend bool operator==(const job_sharing&, const job_sharing&) = default;
};

// The plan's text for a sharing: "server", "gpu", "mig:1g.10gb", "fraction:0.25" (a share
// in multiples of 1/1000, trailing zeros dropped), "shared-gpu:mig:3g.40gb",
// "shared-server:time-sliced".
[[nodiscard]] inline std::string to_string(const job_sharing& s) {
  const auto* mig = std::get_if<mig_slice>(&s.mode);
  if (s.packed) {
    const std::string how = mig != nullptr ? "mig:" + mig->profile() : std::string("time-sliced");
    return std::string(s.unit == offer_unit::server ? "shared-server:" : "shared-gpu:") + how;
  }
  if (mig != nullptr) return "mig:" + mig->profile();
  if (const auto* f = std::get_if<fractional_share>(&s.mode)) {
    std::string digits = std::to_string(1000 + f->share().count()).substr(1);  // 250 -> "250"
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    return f->share().count() == 1000 ? "fraction:1" : "fraction:0." + digits;
  }
  return std::string(to_string(s.unit));
}

}  // namespace gpurent
