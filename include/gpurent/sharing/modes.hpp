// SPDX-License-Identifier: MIT
#pragma once
// How a GPU is handed out, as types: the whole GPU (exclusive), a time-sliced share in
// milli-GPU, a MIG slice (a profile such as "3g.40gb"), an MPS client with an active
// thread percentage, or preemptible/spot capacity with a notice window. Each mode is a
// small regular value; one that takes a number is made through `make`, which returns an
// error for a value outside its domain. `sharing_mode` is the variant of all of them and
// `sharing_kind` names which one a value is. What each mode isolates is in
// sharing/isolation.hpp.

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include <gpurent/core/error.hpp>
#include <gpurent/core/quantity.hpp>

namespace gpurent {

// The whole GPU, for one tenant.
struct exclusive {
  friend constexpr bool operator==(exclusive, exclusive) = default;
};

// A time-sliced share of one GPU: 1..1000 milli-GPU (the Alibaba trace's gpu_milli).
class fractional_share {
 public:
  [[nodiscard]] static expected<fractional_share> make(milli_gpu share) {
    if (share.count() < 1 || share.count() > whole_gpu.count())
      return make_error(error_code::invalid_argument, "share", "a fractional share is 1..1000 milli-GPU, got " + std::to_string(share.count()));
    return fractional_share(share);
  }
  [[nodiscard]] constexpr milli_gpu share() const noexcept { return share_; }
  friend constexpr bool operator==(const fractional_share&, const fractional_share&) = default;

 private:
  constexpr explicit fractional_share(milli_gpu s) noexcept : share_(s) {}
  milli_gpu share_{};
};

// One MIG GPU instance of a named profile ("1g.10gb", "3g.40gb", "1g.10gb+me"). Whether
// the profile exists on a given model is the MIG geometry's business (spec/mig.hpp); here
// the name must only have the NVIDIA form <n>g.<m>gb[+me].
class mig_slice {
 public:
  [[nodiscard]] static expected<mig_slice> make(std::string_view profile) {
    if (!well_formed(profile))
      return make_error(error_code::invalid_argument, "profile", "not a MIG profile name like 3g.40gb: \"" + std::string(profile) + "\"");
    return mig_slice(std::string(profile));
  }
  [[nodiscard]] const std::string& profile() const noexcept { return profile_; }
  friend bool operator==(const mig_slice&, const mig_slice&) = default;

  // <digits>g.<digits>gb, optionally followed by "+me".
  [[nodiscard]] static constexpr bool well_formed(std::string_view p) noexcept {
    auto digits = [&p](std::size_t& i) {
      const std::size_t start = i;
      while (i < p.size() && p[i] >= '0' && p[i] <= '9') ++i;
      return i > start;
    };
    std::size_t i = 0;
    if (!digits(i) || p.substr(i, 2) != "g.") return false;
    i += 2;
    if (!digits(i) || p.substr(i, 2) != "gb") return false;
    i += 2;
    return i == p.size() || p.substr(i) == "+me";
  }

 private:
  explicit mig_slice(std::string p) : profile_(std::move(p)) {}
  std::string profile_;
};

// A CUDA MPS client limited to a percentage of the GPU's SMs
// (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, 1..100).
class mps {
 public:
  [[nodiscard]] static expected<mps> make(std::int32_t active_thread_percentage) {
    if (active_thread_percentage < 1 || active_thread_percentage > 100)
      return make_error(error_code::invalid_argument, "active_thread_percentage",
                        "MPS active thread percentage is 1..100, got " + std::to_string(active_thread_percentage));
    return mps(active_thread_percentage);
  }
  [[nodiscard]] constexpr std::int32_t active_thread_percentage() const noexcept { return pct_; }
  friend constexpr bool operator==(const mps&, const mps&) = default;

 private:
  constexpr explicit mps(std::int32_t pct) noexcept : pct_(pct) {}
  std::int32_t pct_ = 100;
};

// Capacity the provider may take back (spot, preemptible) after a notice window
// (e.g. 30 s on GCP, 2 min on AWS): a positive number of seconds.
class preemptible {
 public:
  [[nodiscard]] static expected<preemptible> make(std::chrono::seconds notice) {
    if (notice.count() <= 0)
      return make_error(error_code::invalid_argument, "notice",
                        "a preemption notice window must be positive, got " + std::to_string(notice.count()) + " s");
    return preemptible(notice);
  }
  [[nodiscard]] constexpr std::chrono::seconds notice() const noexcept { return notice_; }
  friend constexpr bool operator==(const preemptible&, const preemptible&) = default;

 private:
  constexpr explicit preemptible(std::chrono::seconds n) noexcept : notice_(n) {}
  std::chrono::seconds notice_{};
};

using sharing_mode = std::variant<exclusive, fractional_share, mig_slice, mps, preemptible>;

// Which mode a value is, without its parameter; named as in the text form ("share:300" is
// a `share`). The variant's alternatives are in this order.
enum class sharing_kind : std::uint8_t { exclusive, share, mig, mps, preemptible };

template <>
struct enum_names<sharing_kind> {
  static constexpr enum_entry<sharing_kind> entries[] = {{sharing_kind::exclusive, "exclusive"},
                                                         {sharing_kind::share, "share"},
                                                         {sharing_kind::mig, "mig"},
                                                         {sharing_kind::mps, "mps"},
                                                         {sharing_kind::preemptible, "preemptible"}};
};

namespace detail {
template <sharing_kind K>
using sharing_alternative = std::variant_alternative_t<static_cast<std::size_t>(K), sharing_mode>;
template <class M, class V>
inline constexpr bool is_alternative = false;
template <class M, class... A>
inline constexpr bool is_alternative<M, std::variant<A...>> = (std::same_as<M, A> || ...);
}  // namespace detail
static_assert(std::same_as<detail::sharing_alternative<sharing_kind::exclusive>, exclusive> &&
              std::same_as<detail::sharing_alternative<sharing_kind::share>, fractional_share> &&
              std::same_as<detail::sharing_alternative<sharing_kind::mig>, mig_slice> &&
              std::same_as<detail::sharing_alternative<sharing_kind::mps>, mps> &&
              std::same_as<detail::sharing_alternative<sharing_kind::preemptible>, preemptible>);

// One of the mode types (the formatters in sharing/format.hpp print any of them).
template <class M>
concept SharingModeValue = detail::is_alternative<M, sharing_mode>;

[[nodiscard]] constexpr sharing_kind kind_of(const sharing_mode& m) noexcept { return static_cast<sharing_kind>(m.index()); }

// The mode as text, the inverse of `parse_sharing_mode`: the kind's name, then its
// parameter: "exclusive", "share:300", "mig:3g.40gb", "mps:50", "preemptible:30s".
[[nodiscard]] inline std::string to_string(const sharing_mode& m) {
  struct parameter {
    std::string operator()(exclusive) const { return {}; }
    std::string operator()(const fractional_share& s) const { return ":" + std::to_string(s.share().count()); }
    std::string operator()(const mig_slice& s) const { return ":" + s.profile(); }
    std::string operator()(const mps& s) const { return ":" + std::to_string(s.active_thread_percentage()); }
    std::string operator()(const preemptible& s) const { return ":" + std::to_string(s.notice().count()) + "s"; }
  };
  return std::string(to_string(kind_of(m))) + std::visit(parameter{}, m);
}

namespace detail {
[[nodiscard]] inline expected<std::int64_t> parse_sharing_int(std::string_view s, std::string_view what) {
  if (s.empty() || s.size() > 12) return make_error(error_code::parse_error, std::string(what), "not a number: \"" + std::string(s) + "\"");
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return make_error(error_code::parse_error, std::string(what), "not a number: \"" + std::string(s) + "\"");
    v = v * 10 + (c - '0');
  }
  return v;
}

template <class M>
[[nodiscard]] expected<sharing_mode> as_sharing_mode(expected<M> made) {
  if (!made) return unexpected<error>(std::move(made.error()));
  return sharing_mode(std::move(*made));
}

// A mode of `kind` from the text after its colon.
[[nodiscard]] inline expected<sharing_mode> parse_sharing_parameter(sharing_kind kind, std::string_view arg) {
  switch (kind) {
    case sharing_kind::exclusive: return sharing_mode(exclusive{});
    case sharing_kind::share: {
      GPURENT_TRY(n, parse_sharing_int(arg, "share"));
      if (*n > whole_gpu.count())
        return make_error(error_code::invalid_argument, "share", "a fractional share is 1..1000 milli-GPU, got " + std::to_string(*n));
      return as_sharing_mode(fractional_share::make(milli_gpu(static_cast<std::int32_t>(*n))));
    }
    case sharing_kind::mig: return as_sharing_mode(mig_slice::make(arg));
    case sharing_kind::mps: {
      GPURENT_TRY(n, parse_sharing_int(arg, "active_thread_percentage"));
      if (*n > 100)
        return make_error(error_code::invalid_argument, "active_thread_percentage",
                          "MPS active thread percentage is 1..100, got " + std::to_string(*n));
      return as_sharing_mode(mps::make(static_cast<std::int32_t>(*n)));
    }
    case sharing_kind::preemptible: {
      GPURENT_TRY(n, parse_sharing_int(arg.ends_with('s') ? arg.substr(0, arg.size() - 1) : arg, "notice"));
      return as_sharing_mode(preemptible::make(std::chrono::seconds(*n)));
    }
  }
  return make_error(error_code::parse_error, "sharing_mode", "unknown sharing mode");
}
}  // namespace detail

// Reads the text form written by `to_string`. "spot:N[s]" is accepted for preemptible.
[[nodiscard]] inline expected<sharing_mode> parse_sharing_mode(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view arg = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  const auto kind = name == "spot" ? std::optional(sharing_kind::preemptible) : parse_enum<sharing_kind>(name);
  if (!kind || (*kind == sharing_kind::exclusive && colon != std::string_view::npos))
    return make_error(error_code::parse_error, "sharing_mode",
                      "unknown sharing mode \"" + std::string(text) + "\" (exclusive, share:MILLI, mig:PROFILE, mps:PERCENT, preemptible:SECONDSs)");
  return detail::parse_sharing_parameter(*kind, arg);
}

}  // namespace gpurent
