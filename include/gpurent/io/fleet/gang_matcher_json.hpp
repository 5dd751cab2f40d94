// SPDX-License-Identifier: MIT
#pragma once
// A gang matcher by job name, for embedders (the C API's matcher, Python's GangPlacer): a
// cluster, a gang placer of a policy chosen by name at run time, and the jobs placed so far
// by name. Requests are JSON jobs (io/fleet/job_json.hpp); answers are JSON written with the
// audit log's writers (io/audit/audit_record.hpp), so a placement and an explanation read
// the same from C, from Python and in the log.

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
#include <gpurent/fleet/run/named.hpp>
#include <gpurent/io/audit/audit_record.hpp>
#include <gpurent/io/fleet/job_json.hpp>
#include <gpurent/matching/gang/placer.hpp>
#include <gpurent/matching/gang/policy.hpp>

namespace gpurent::io {

namespace detail {
// What a matcher by job name (this one, node_matcher_json.hpp) answers and refuses alike.
[[nodiscard]] inline std::string matcher_answer(const ordered_json& j) { return j.dump(2) + "\n"; }
[[nodiscard]] inline unexpected<error> placed_already(std::string_view job) {
  return make_error(error_code::duplicate, "name", "job \"" + std::string(job) + "\" is placed already (release it first)");
}
[[nodiscard]] inline unexpected<error> no_placed_job(std::string_view job) {
  return make_error(error_code::not_found, "job", "no placed job \"" + std::string(job) + "\"");
}
}  // namespace detail

class gang_matcher_json {
 public:
  // Over cluster c with the gang policy named `policy`; never moved once made (the placer
  // points into the cluster), hence the pointer.
  [[nodiscard]] static expected<std::unique_ptr<gang_matcher_json>> make(fleet_cluster c, std::string_view policy) {
    std::unique_ptr<gang_matcher_json> m(new gang_matcher_json(std::move(c)));
    const bool known = builtin_gang_policies::visit(policy, [&]<class GP>() { m->placer_ = std::make_unique<boxed<GP>>(m->cluster_); });
    if (!known) return no_gang_policy(policy);
    return m;
  }
  gang_matcher_json(const gang_matcher_json&) = delete;
  gang_matcher_json& operator=(const gang_matcher_json&) = delete;

  // Places the job of `request` (JSON; `source` names it in errors): {"job", "placed": true,
  // "placements", "preferred_met"}, or {"job", "placed": false, "why_not"} when it fits
  // nowhere now. An error for a name already placed.
  [[nodiscard]] expected<std::string> place(std::string_view request, std::string_view source) {
    GPURENT_TRY(j, parse_job_json(request, source, cluster_, tenants_));
    if (jobs_.contains(j->name)) return detail::placed_already(j->name);
    if (next_id_ == no_gang) return make_error(error_code::overflow, "name", "this matcher has placed 2^32 - 1 jobs: make a new one");
    live_job live{next_id_, {}};
    const auto outcome = placer_->place(j->gang, live.id, live.placements);
    if (!outcome) return text({{"job", j->name}, {"placed", false}, {"why_not", audit_gang_why_not(placer_->explain(j->gang))}});
    ++next_id_;
    ordered_json list = ordered_json::array();
    for (const placement& p : live.placements) list.push_back(audit_placement(cluster_.inv, p));
    jobs_.emplace(j->name, std::move(live));
    return text({{"job", j->name}, {"placed", true}, {"placements", std::move(list)}, {"preferred_met", outcome->preferred_met}});
  }

  // Frees the capacity of the placed job named `job` (an error naming it when none is).
  [[nodiscard]] expected<void> release(std::string_view job) {
    const auto at = jobs_.find(job);
    if (at == jobs_.end()) return detail::no_placed_job(job);
    placer_->release(at->second.id, at->second.placements);
    jobs_.erase(at);
    return {};
  }

  // {"job", "fits", "why_not"}: whether the job of `request` fits now, and what stops it
  // where it does not.
  [[nodiscard]] expected<std::string> explain(std::string_view request, std::string_view source) {
    GPURENT_TRY(j, parse_job_json(request, source, cluster_, tenants_));
    const bool fits = placer_->fits(j->gang, next_id_);
    return text({{"job", j->name}, {"fits", fits}, {"why_not", audit_gang_why_not(placer_->explain(j->gang))}});
  }

 private:
  // A gang placer of any policy behind one interface: each call runs that policy's code.
  struct any_placer {
    virtual ~any_placer() = default;
    virtual std::optional<gang_outcome> place(const gang_request& g, gang_id id, std::vector<placement>& out) = 0;
    virtual void release(gang_id id, std::span<const placement> ps) = 0;
    virtual bool fits(const gang_request& g, gang_id id) = 0;
    [[nodiscard]] virtual why_not explain(const gang_request& g) = 0;
  };
  template <GangPolicy GP>
  struct boxed final : any_placer {
    explicit boxed(fleet_cluster& c) : p(c.inv, c.topology) {}
    std::optional<gang_outcome> place(const gang_request& g, gang_id id, std::vector<placement>& out) override { return p.place(g, id, out); }
    void release(gang_id id, std::span<const placement> ps) override { p.release(id, ps); }
    bool fits(const gang_request& g, gang_id id) override { return p.fits(g, id); }
    [[nodiscard]] why_not explain(const gang_request& g) override { return p.explain(g); }
    gang_placer<GP> p;
  };
  struct live_job {
    gang_id id = 0;
    std::vector<placement> placements;
  };

  explicit gang_matcher_json(fleet_cluster c) : cluster_(std::move(c)) {}
  [[nodiscard]] static std::string text(const ordered_json& j) { return detail::matcher_answer(j); }

  fleet_cluster cluster_;
  job_tenants tenants_;
  std::unique_ptr<any_placer> placer_;
  std::map<std::string, live_job, std::less<>> jobs_;
  gang_id next_id_ = 0;
};

}  // namespace gpurent::io
