// SPDX-License-Identifier: MIT
#pragma once
// What a renter wants to run: training runs, inference services and bursts of short
// experiments, each with constraints, placed in one billing period (a calendar month in a
// time zone, as the meter bills it).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/calendar.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/planning/offer.hpp>
#include <gpurent/spec/catalog.hpp>

namespace gpurent {

enum class job_kind : std::uint8_t {
  training,     // gpu_hours of work at a reference GPU, scaled by TFLOPS, on whole GPUs
  service,      // replicas that each need a share of a reference GPU and memory, for a duration
  experiments,  // `runs` short runs of run_duration on gpus_per_run whole GPUs each
};

template <>
struct enum_names<job_kind> {
  static constexpr enum_entry<job_kind> entries[] = {
      {job_kind::training, "training"}, {job_kind::service, "service"}, {job_kind::experiments, "experiments"}};
};

// Where a job may run (empty: anywhere) and how.
struct job_constraints {
  std::vector<std::string> gpus;  // model names or aliases
  std::vector<std::string> regions;
  std::vector<std::string> zones;          // residency: the offer's zone must be one of them
  std::vector<std::string> jurisdictions;  // residency: the offer's jurisdiction must be one of them
  std::vector<std::string> providers;
  std::optional<bool> spot;  // default: training with checkpoints yes, others no
  bool reserved = true;      // may use reservations
};

// The most a job's whole allocation (every unit it holds at once) may cost per hour, by
// capacity mode: `on_demand` bounds on-demand and reserved offers, `spot` spot offers; owned
// pools are not rented and are not capped. Absent: no cap.
struct hourly_caps {
  std::optional<decimal<9>> on_demand;
  std::optional<decimal<9>> spot;
  [[nodiscard]] bool any() const noexcept { return on_demand.has_value() || spot.has_value(); }
  // The cap that applies to an offer of mode m, if any.
  [[nodiscard]] const std::optional<decimal<9>>& for_mode(offer_mode m) const noexcept {
    static const std::optional<decimal<9>> none;
    if (m == offer_mode::spot) return spot;
    return m == offer_mode::on_demand || m == offer_mode::reserved ? on_demand : none;
  }
};

// What a training job moves, where it says (planning/throughput.hpp): its checkpoint, its
// data and its gradients. Estimates, so doubles; what they feed into a cost is rounded up
// to whole seconds.
struct job_model {
  std::int64_t parameters = 0;                    // 0: not stated
  std::int32_t state_bytes_per_parameter = 16;    // checkpointed state (mixed-precision Adam: 16)
  std::int32_t gradient_bytes_per_parameter = 2;  // what all-reduce moves (bf16: 2)
  std::int64_t dataset_gib = 0;
  double read_mb_per_s_per_gpu = 0;  // data read by a reference GPU at full speed
  double step_seconds = 0;           // one step's computation at the reference GPU
  double overlap = 0;                // share of a step that hides communication, [0, 1]
};

struct job {
  std::string name;     // [A-Za-z0-9._-]+, unique
  std::string account;  // empty: the workload's
  job_kind kind = job_kind::training;
  seconds start{0};  // offset from the start of the period
  std::string reference_gpu = "H100-SXM5-80GB";
  std::int64_t memory_gib = 0;  // training: total state (sets the minimum GPUs); else per replica/run
  // training
  unit_quantity gpu_hours{};  // at the reference GPU
  std::int32_t max_gpus = 64;
  std::optional<seconds> checkpoint;         // checkpoint write time; checkpointable when set
  seconds restart{600};                      // restart from a checkpoint (provisioning + load)
  std::optional<seconds> deadline;           // from the job's start
  seconds start_slack{0};                    // the job may start this much later when that is cheaper (a cheaper price window)
  std::optional<decimal<9>> max_spot_price;  // per GPU-hour: spot offers only while their price is at or under it
  hourly_caps max_hourly_cost;               // per hour of the whole allocation, by mode
  job_model model;                           // training: checkpoint, data and gradient sizes
  // service
  seconds duration{0};
  std::int32_t replicas = 1;
  unit_quantity gpu_share{1};      // of the reference GPU's compute, per replica
  bool latency_sensitive = false;  // no time-sliced fractions
  // Kept from other tenants (sharing/isolation.hpp): gpu and above, never a time-sliced
  // fraction or share (MIG only); node, only offers of a node of its own (packed jobs are
  // always one account's); network, only offers that state it.
  isolation_level isolation = isolation_level::none;
  // experiments
  std::int32_t runs = 1;
  seconds run_duration{0};  // at the reference GPU
  std::int32_t gpus_per_run = 1;
  job_constraints constraints;

  // Resolved by validate(): the reference GPU's dense FP16 GFLOPS.
  std::int64_t reference_gflops = 0;

  [[nodiscard]] bool allows_spot() const noexcept {
    return constraints.spot.value_or(kind == job_kind::training && (checkpoint.has_value() || model.parameters > 0));
  }
};

struct workload {
  std::string period = "2026-11";  // YYYY-MM
  std::string timezone = "UTC";
  std::string account = "renter";
  std::vector<job> jobs;
  // The period's total the plan may cost, in the offers' currency (planning/budget.hpp):
  // rentals and owned pools' marginal cost; an owned pool's fixed cost is paid whatever the
  // plan and is not part of it. Absent: no budget.
  std::optional<decimal<9>> budget;
};

namespace detail {
[[nodiscard]] inline bool plain_name(std::string_view s) noexcept {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) return false;
  return true;
}
}  // namespace detail

// Checks every field and resolves the reference GPUs; errors name "jobs[i].field".
[[nodiscard]] inline expected<void> validate(workload& w) {
  auto ym = parse_year_month(w.period);
  if (!ym) return unexpected<error>(ym.error().in_field("period"));
  auto zone = find_zone(w.timezone);
  if (!zone) return unexpected<error>(zone.error().in_field("timezone"));
  if (!detail::plain_name(w.account)) return make_error(error_code::invalid_argument, "account", "must be 1-64 of [A-Za-z0-9._-]");
  GPURENT_TRY(period, writable_month_period(*zone, *ym));
  if (w.budget && w.budget->sign() < 0) return make_error(error_code::invalid_argument, "budget", "must not be negative");
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    job& j = w.jobs[i];
    const std::string at = "jobs[" + std::to_string(i) + "]";
    const auto bad = [&](std::string_view field, std::string msg) {
      return make_error(error_code::invalid_argument, at + "." + std::string(field), std::move(msg));
    };
    if (!detail::plain_name(j.name)) return bad("name", "must be 1-64 of [A-Za-z0-9._-]");
    for (std::size_t k = 0; k < i; ++k)
      if (w.jobs[k].name == j.name)
        return make_error(error_code::duplicate, at + ".name", "\"" + j.name + "\" repeats jobs[" + std::to_string(k) + "]");
    if (!j.account.empty() && !detail::plain_name(j.account)) return bad("account", "must be 1-64 of [A-Za-z0-9._-]");
    const gpu_model* ref = find_model(j.reference_gpu);
    if (ref == nullptr) return make_error(error_code::unknown_name, at + ".reference_gpu", "unknown GPU model \"" + j.reference_gpu + "\"");
    if (!ref->throughput.fp16) return bad("reference_gpu", "the catalog has no FP16 figure for " + std::string(ref->name));
    j.reference_gpu = std::string(ref->name);
    j.reference_gflops = ref->throughput.fp16->value.count();
    for (std::size_t k = 0; k < j.constraints.gpus.size(); ++k) {
      std::string& g = j.constraints.gpus[k];
      if (g.empty()) return bad("constraints.gpus[" + std::to_string(k) + "]", "must not be empty");
      if (const gpu_model* m = find_model(g)) g = std::string(m->name);  // aliases match offers' canonical names
    }
    if (j.start.count() < 0 || j.start >= period->length()) return bad("start", "must lie inside the period " + w.period);
    if (j.memory_gib < 0) return bad("memory_gib", "must not be negative");
    if (j.deadline && j.deadline->count() <= 0) return bad("deadline", "must be positive");
    if (j.start_slack.count() < 0) return bad("start_slack", "must not be negative");
    if (j.max_spot_price && j.max_spot_price->sign() <= 0) return bad("max_spot_price", "must be positive");
    if (j.max_hourly_cost.on_demand && j.max_hourly_cost.on_demand->sign() <= 0) return bad("max_hourly_cost.on_demand", "must be positive");
    if (j.max_hourly_cost.spot && j.max_hourly_cost.spot->sign() <= 0) return bad("max_hourly_cost.spot", "must be positive");
    switch (j.kind) {
      case job_kind::training:
        if (j.gpu_hours.sign() <= 0) return bad("gpu_hours", "must be positive");
        if (j.max_gpus <= 0) return bad("max_gpus", "must be positive");
        if (j.checkpoint && j.checkpoint->count() <= 0) return bad("checkpoint", "must be positive");
        if (j.restart.count() < 0) return bad("restart", "must not be negative");
        if (j.model.parameters < 0 || j.model.dataset_gib < 0 || j.model.read_mb_per_s_per_gpu < 0 || j.model.step_seconds < 0)
          return bad("model", "sizes, rates and times must not be negative");
        if (!(j.model.overlap >= 0 && j.model.overlap <= 1)) return bad("model.overlap", "must be in [0, 1]");
        break;
      case job_kind::service:
        if (j.duration.count() <= 0) return bad("duration", "must be positive");
        if (j.replicas <= 0) return bad("replicas", "must be positive");
        if (j.gpu_share.sign() <= 0) return bad("gpu_share", "must be positive");
        break;
      case job_kind::experiments:
        if (j.runs <= 0) return bad("runs", "must be positive");
        if (j.run_duration.count() <= 0) return bad("run_duration", "must be positive");
        if (j.gpus_per_run <= 0) return bad("gpus_per_run", "must be positive");
        break;
    }
  }
  return {};
}

}  // namespace gpurent
