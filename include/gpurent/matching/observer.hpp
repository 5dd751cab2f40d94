// SPDX-License-Identifier: MIT
#pragma once
// A decision observer: what the matcher calls after it chose where a request goes (or found
// nowhere) and before it applies the placement, so an audit trail can record the decision
// with its per-constraint rejection counts. No hook, no cost: with no observer attached the
// matcher tests one pointer per placement and calls nothing (bench/bench_matching.cpp
// measures it). The observer is a function pointer and a context, not a std::function: no
// allocation, nothing to copy, and the matcher stays a cheap value to move.

#include <optional>

#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/request.hpp>

namespace gpurent {

struct why_not;  // matcher.hpp

// One decision, seen before it is applied: the inventory is still as the matcher saw it, so
// explain() counts the rejections that led to it.
struct match_decision {
  const inventory& inv;
  const placement_request& request;
  const std::optional<placement>& result;  // nothing: it fits nowhere
  const void* source = nullptr;            // the matcher
  why_not (*explain_fn)(const void*, const placement_request&) = nullptr;
};

class decision_observer {
 public:
  decision_observer() = default;
  // Calls f(decision) for every decision; f must outlive the matcher's use of it.
  template <class F>
  requires requires(F& f, const match_decision& d) { f(d); }
  [[nodiscard]] static decision_observer of(F& f) noexcept {
    decision_observer o;
    o.ctx_ = &f;
    o.fn_ = [](void* c, const match_decision& d) { (*static_cast<F*>(c))(d); };
    return o;
  }
  [[nodiscard]] explicit operator bool() const noexcept { return fn_ != nullptr; }
  void operator()(const match_decision& d) const { fn_(ctx_, d); }

 private:
  void (*fn_)(void*, const match_decision&) = nullptr;
  void* ctx_ = nullptr;
};

}  // namespace gpurent
