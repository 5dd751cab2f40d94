// SPDX-License-Identifier: MIT
#pragma once
// A node matcher by job name, for embedders (Python's Matcher): a cluster's inventory, the
// single-node matcher of a policy chosen by name at run time (matching/node/registry.hpp),
// planned for a workload the caller names, and the jobs placed so far by name. Requests are
// one-member JSON jobs (io/fleet/job_json.hpp); answers are JSON written with the audit log's
// writers (io/audit/audit_record.hpp), as the gang matcher's are (gang_matcher_json.hpp).

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/fleet/cluster.hpp>
#include <gpurent/fleet/job.hpp>
#include <gpurent/fleet/run/named.hpp>
#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/fleet/gang_matcher_json.hpp>
#include <gpurent/io/fleet/job_json.hpp>
#include <gpurent/matching/node/matcher.hpp>
#include <gpurent/matching/node/registry.hpp>

namespace gpurent::io {

class node_matcher_json {
 public:
  // Over cluster c with the node policy named `policy`, planned for the jobs of `workload`
  // (JSON texts, the requests a workload-aware policy such as fgd or gpurent keeps room for;
  // `source` names them in errors). Never moved once made (the matcher points into it).
  [[nodiscard]] static expected<std::unique_ptr<node_matcher_json>> make(fleet_cluster c, std::string_view policy,
                                                                         std::span<const std::string> workload, std::string_view source) {
    std::unique_ptr<node_matcher_json> m(new node_matcher_json(std::move(c)));
    std::vector<placement_request> requests;
    for (std::size_t i = 0; i < workload.size(); ++i) {
      GPURENT_TRY(j, m->one_member(workload[i], std::string(source) + "[" + std::to_string(i) + "]"));
      requests.push_back(j->gang.member);
    }
    m->shapes_ = shape_distribution::of(requests);
    bool needs_workload = false;
    const bool known = builtin_policies::visit(policy, [&]<class P>() {
      needs_workload = WorkloadAware<P> && requests.empty();
      m->matcher_ = std::make_unique<boxed<P>>(m->cluster_.inv, policy_context{&m->shapes_, 0});
    });
    if (!known) return no_node_policy(policy);
    if (needs_workload)
      return make_error(error_code::invalid_argument, "workload",
                        "policy \"" + std::string(policy) + "\" plans for a workload: name the jobs it keeps room for");
    return m;
  }
  node_matcher_json(const node_matcher_json&) = delete;
  node_matcher_json& operator=(const node_matcher_json&) = delete;

  // Places the job of `request`: {"job", "placed": true, "placement": {"node", "gpus"}}, or
  // {"job", "placed": false, "explain"} (per constraint, the nodes it rejected). An error for a
  // name already placed, or a job that is no one-member job.
  [[nodiscard]] expected<std::string> place(std::string_view request, std::string_view source) {
    GPURENT_TRY(j, one_member(request, source));
    if (jobs_.contains(j->name)) return detail::placed_already(j->name);
    const auto p = matcher_->place(j->gang.member);
    if (!p) return text({{"job", j->name}, {"placed", false}, {"explain", audit_rejections(matcher_->explain(j->gang.member))}});
    jobs_.emplace(j->name, *p);
    return text({{"job", j->name}, {"placed", true}, {"placement", audit_placement(cluster_.inv, *p)}});
  }

  // Frees the capacity of the placed job named `job` (an error naming it when none is).
  [[nodiscard]] expected<void> release(std::string_view job) {
    const auto at = jobs_.find(job);
    if (at == jobs_.end()) return detail::no_placed_job(job);
    matcher_->release(at->second);
    jobs_.erase(at);
    return {};
  }

  // {"job", "fits", "explain"}: whether the job fits now, and per constraint the nodes it rejected.
  [[nodiscard]] expected<std::string> explain(std::string_view request, std::string_view source) {
    GPURENT_TRY(j, one_member(request, source));
    const constraint_counts c = matcher_->explain(j->gang.member);
    return text({{"job", j->name}, {"fits", c.feasible > 0}, {"explain", audit_rejections(c)}});
  }

 private:
  // The single-node matcher of any policy behind one interface.
  struct any_matcher {
    virtual ~any_matcher() = default;
    virtual std::optional<placement> place(const placement_request& r) = 0;
    virtual void release(const placement& p) = 0;
    [[nodiscard]] virtual constraint_counts explain(const placement_request& r) const = 0;
  };
  template <PlacementPolicy P>
  struct boxed final : any_matcher {
    boxed(inventory& inv, const policy_context& ctx) : m(inv, ctx) {}
    std::optional<placement> place(const placement_request& r) override { return m.place(r); }
    void release(const placement& p) override { m.release(p); }
    [[nodiscard]] constraint_counts explain(const placement_request& r) const override { return m.explain(r); }
    matcher<P> m;
  };

  explicit node_matcher_json(fleet_cluster c) : cluster_(std::move(c)) {}
  [[nodiscard]] static std::string text(const ordered_json& j) { return detail::matcher_answer(j); }

  // The job of `request`, which must be one member without topology (a gang is GangPlacer's).
  [[nodiscard]] expected<fleet_job> one_member(std::string_view request, std::string_view source) {
    GPURENT_TRY(j, parse_job_json(request, source, cluster_, tenants_));
    const gang_request& g = j->gang;
    if (g.size() != 1 || g.required != no_level || g.preferred != no_level || g.segment != 0 || g.exclusive || g.per_node != 0)
      return make_error(
          error_code::invalid_argument, "workers",
          "job \"" + j->name + "\" is a gang or asks for topology: the node matcher places one-member jobs (a gang placer places gangs)");
    return j;
  }

  fleet_cluster cluster_;
  job_tenants tenants_;
  shape_distribution shapes_;
  std::unique_ptr<any_matcher> matcher_;
  std::map<std::string, placement, std::less<>> jobs_;
};

}  // namespace gpurent::io
