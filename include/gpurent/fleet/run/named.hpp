// SPDX-License-Identifier: MIT
#pragma once
// fleet run with its policies chosen by name at run time (the tool's --policy and --victims,
// the C API's and Python's options): the named victim policy ("none": no preemption) on any
// Placer; jobs on a gang placer of the named policy, or pods (one-member jobs of the trace)
// on the node matcher of the named policy, planned for their workload, with the jobs that
// never started explained.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <gpurent/core/error.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/run.hpp>
#include <gpurent/matching/gang/placer.hpp>
#include <gpurent/matching/gang/policy.hpp>
#include <gpurent/matching/node/matcher.hpp>
#include <gpurent/matching/node/registry.hpp>
#include <gpurent/matching/observer.hpp>
#include <gpurent/matching/preempt/victims.hpp>

namespace gpurent {

// "a, b or c": the names a policy list knows, for an error.
template <class List>
[[nodiscard]] std::string policy_names_text() {
  std::string out;
  for (std::size_t i = 0; i < List::names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == List::names.size() ? " or " : ", ") + std::string(List::names[i]);
  return out;
}

// The error of a gang policy name that no builtin_gang_policies has, in the field "policy".
[[nodiscard]] inline unexpected<error> no_gang_policy(std::string_view name) {
  return make_error(error_code::invalid_argument, "policy",
                    "no gang policy \"" + std::string(name) + "\" (expected " + policy_names_text<builtin_gang_policies>() + ")");
}

// The error of a victim policy name that is neither "none" nor one of builtin_victim_policies,
// in the field "victims".
[[nodiscard]] inline unexpected<error> no_victim_policy(std::string_view name) {
  return make_error(error_code::invalid_argument, "victims",
                    "no victim policy \"" + std::string(name) + "\" (expected none, " + policy_names_text<builtin_victim_policies>() + ")");
}

// The error of a node policy name that builtin_policies lacks, in the field "policy".
[[nodiscard]] inline unexpected<error> no_node_policy(std::string_view name) {
  return make_error(error_code::invalid_argument, "policy",
                    "no node policy \"" + std::string(name) + "\" (expected " + policy_names_text<builtin_policies>() + ")");
}

// The node matcher's policies for pods (`fleet run --pods`): the trace's own comparison.
using builtin_pod_policies = policy_list<policy_gpurent, policy_fgd, policy_best_fit>;

// The error of a pod policy name that builtin_pod_policies lacks, in the field "policy".
[[nodiscard]] inline unexpected<error> no_pod_policy(std::string_view name) {
  return make_error(error_code::invalid_argument, "policy",
                    "no policy \"" + std::string(name) + "\" for pods (expected " + policy_names_text<builtin_pod_policies>() + ")");
}

// Runs jobs on b under the victim policy named `victims` ("none": no preemption); nothing
// when no victim policy has that name.
template <Placer B>
[[nodiscard]] std::optional<run_result> run_fleet_named(std::string_view victims, B& b, std::span<const fleet_job> jobs, const run_options& o) {
  std::optional<run_result> r;
  if (victims == "none") {
    r = run_fleet<victim_policy_kube, false>(b, jobs, o);
  } else {
    builtin_victim_policies::visit(victims, [&]<class VP>() { r = run_fleet<VP, true>(b, jobs, o); });
  }
  return r;
}

// Jobs on cluster c (its inventory and topology) with the gang policy named `policy`, planned
// for the jobs' workload (context_of), and the victim policy named `victims`; the jobs that
// never started explained. An unknown name is an error in the field "policy" or "victims".
// `observer`, when set, sees every gang decision (audit).
[[nodiscard]] inline expected<run_result> run_fleet_gangs(fleet_cluster& c, std::span<const fleet_job> jobs, std::string_view policy,
                                                          std::string_view victims, const run_options& o, gang_observer observer = {}) {
  if (victims != "none" && !builtin_victim_policies::visit(victims, []<class>() {})) return no_victim_policy(victims);
  const gang_context ctx = context_of(jobs, c);
  std::optional<run_result> r;
  const bool known = builtin_gang_policies::visit(policy, [&]<class GP>() {
    gang_placer<GP> b(c.inv, c.topology, ctx);
    if (observer) b.set_observer(observer);
    r = run_fleet_named(victims, b, jobs, o);
    explain_never_started(b, jobs, *r);
  });
  if (!known) return no_gang_policy(policy);
  return std::move(*r);
}

// Pods (one-member jobs, io/fleet/pod_jobs.hpp) on cluster c's inventory by the node matcher
// of the policy named `policy` (builtin_pod_policies), planned for the pods' shapes, and the
// victim policy named `victims`; the pods that never started explained. An unknown name is an
// error in the field "policy" or "victims".
[[nodiscard]] inline expected<run_result> run_fleet_pods(fleet_cluster& c, std::span<const fleet_job> jobs, std::string_view policy,
                                                         std::string_view victims, const run_options& o) {
  if (victims != "none" && !builtin_victim_policies::visit(victims, []<class>() {})) return no_victim_policy(victims);
  std::optional<run_result> r;
  const bool known = builtin_pod_policies::visit(policy, [&]<class P>() {
    const shape_distribution shapes = shapes_of(jobs);  // the workload fgd and gpurent plan for
    matcher<P> b(c.inv, policy_context{&shapes, 0});
    r = run_fleet_named(victims, b, jobs, o);
    explain_never_started(b, jobs, *r);
  });
  if (!known) return no_pod_policy(policy);
  return std::move(*r);
}

}  // namespace gpurent
