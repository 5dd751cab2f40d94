// SPDX-License-Identifier: MIT
#pragma once
// Decision observers: what the matcher calls after it chose where a request goes (or found
// nowhere) and before it applies the placement, what the gang placer calls once it decided a
// gang, and what fleet run calls at a preemption (fleet/run/run.hpp), so an audit trail can
// record each decision with its per-constraint rejection counts. No hook, no cost: with no
// observer attached the decider tests one pointer per decision and calls nothing
// (bench/bench_matching.cpp measures it). An observer is a function pointer and a context,
// not a std::function: no allocation, nothing to copy, and the decider stays a cheap value
// to move.

#include <cstdint>
#include <optional>
#include <span>

#include <gpurent/core/fleet_time.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/preempt/victims.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

struct constraint_counts;  // why_not.hpp
struct why_not;            // why_not.hpp
struct gang_request;       // gang/request.hpp

// One decision, seen before it is applied: the inventory is still as the matcher saw it, so
// explain() counts the rejections that led to it.
struct match_decision {
  const inventory& inv;
  const placement_request& request;
  const std::optional<placement>& result;  // nothing: it fits nowhere
  const void* source = nullptr;            // the matcher
  constraint_counts (*explain_fn)(const void*, const placement_request&) = nullptr;
};

// A gang decision (gang_placer::place, matching/gang/placer.hpp), seen once it is made: placed
// gangs with their members' placements (already applied), gangs that did not fit with the
// inventory untouched, so explain_fn says why.
struct gang_decision {
  const inventory& inv;
  const gang_request& gang;
  std::uint32_t id = 0;               // the gang id the caller gave (fleet: the job index)
  std::span<const placement> placed;  // member order; empty: it did not fit
  void* source = nullptr;             // the placer
  why_not (*explain_fn)(void*, const gang_request&) = nullptr;
};

// A preemption in fleet run (fleet/run/run.hpp), once the victims are stopped and the preemptor
// is placed in their room.
struct preempt_decision {
  const inventory& inv;
  fleet_time time;                    // the victims stop at time + notice
  std::uint32_t preemptor = 0;        // job index
  std::span<const victim> victims;    // job indices, what each loses
  std::span<const placement> placed;  // the preemptor's members, in member order
};

// A function pointer and a context, called with each decision of kind D (match_decision,
// gang_decision, preempt_decision in fleet/run/run.hpp). Empty: nothing is called.
template <class D>
class observer_of {
 public:
  observer_of() = default;
  // Calls f(decision) for every decision; f must outlive the decider's use of it.
  template <class F>
  requires requires(F& f, const D& d) { f(d); }
  [[nodiscard]] static observer_of of(F& f) noexcept {
    observer_of o;
    o.ctx_ = &f;
    o.fn_ = [](void* c, const D& d) { (*static_cast<F*>(c))(d); };
    return o;
  }
  [[nodiscard]] explicit operator bool() const noexcept { return fn_ != nullptr; }
  void operator()(const D& d) const { fn_(ctx_, d); }

 private:
  void (*fn_)(void*, const D&) = nullptr;
  void* ctx_ = nullptr;
};

using decision_observer = observer_of<match_decision>;
using gang_observer = observer_of<gang_decision>;
using preempt_observer = observer_of<preempt_decision>;

}  // namespace gpurent
