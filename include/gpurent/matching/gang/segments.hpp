// SPDX-License-Identifier: MIT
#pragma once
// The gang placer's job-level choice of a network segment (gang/placer.hpp): a gang under
// network isolation that names no segment goes into the first segment (in the nodes file's
// order of first appearance: ascending ids) that no other tenant keeps and that holds it,
// so that it never crosses two; when none does, explain says which segments other tenants
// keep and which have no room. The placer decides each segment as a gang naming it.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gpurent/matching/gang/request.hpp>
#include <gpurent/matching/inventory.hpp>
#include <gpurent/matching/tenancy.hpp>
#include <gpurent/matching/why_not.hpp>

namespace gpurent {

class gang_segments {
 public:
  // The nodes' network segments, read again (the placer's rebuild).
  void rebuild(const inventory& inv) {
    segments_.clear();
    for (node_index n = 0; n < inv.size(); ++n)
      if (const segment_id s = inv.spec(n).segment; s != no_segment) segments_.push_back(s);
    std::sort(segments_.begin(), segments_.end());
    segments_.erase(std::unique(segments_.begin(), segments_.end()), segments_.end());
  }

  // The first open segment s for which decided(g in s) holds (placing it, or asking whether
  // it fits); false when none does.
  template <class Decided>
  [[nodiscard]] bool first(const inventory& inv, const gang_request& g, Decided&& decided) {
    return std::any_of(segments_.begin(), segments_.end(),
                       [&](segment_id s) { return refusal_of(inv, g, s) == refusal::open && decided(g.in_segment(s, members_)); });
  }

  // Why g fits no segment: per segment, whether fits(g in s) holds; the failing segment in
  // which most members fit (explain(g in s)) says the rest.
  template <class Fits, class Explain>
  [[nodiscard]] why_not explain(const inventory& inv, const gang_request& g, Fits&& fits, Explain&& explain) {
    why_not w;
    std::size_t holding = 0;
    std::array<std::size_t, 3> refused{};  // per refusal
    bool failed = false;
    for (const segment_id s : segments_) {
      ++refused[static_cast<std::size_t>(refusal_of(inv, g, s))];
      const gang_request gs = g.in_segment(s, members_);
      if (fits(gs)) {
        ++holding;
        continue;
      }
      why_not ws = explain(gs);
      if (!failed || ws.fit > w.fit) w = std::move(ws);
      failed = true;
    }
    w.members = g.size();
    if (segments_.empty()) w.note = "no node is in a network segment (network isolation needs one)";
    w.candidates = "network segments";
    w.total = segments_.size();
    w.holding = holding;
    w.holds = "all " + std::to_string(g.size()) + " members";
    reasons(refused, segments_.size() - holding, w);
    if (!w.note.empty() && !segments_.empty())
      w.note = "no network segment holds all " + std::to_string(g.size()) + " members (network segment): " + w.note;
    return w;
  }

 private:
  // Whether another tenant keeps g's network members out of segment s (segment_tenancy):
  // it holds the segment in network isolation, or has work there.
  enum class refusal : std::uint8_t { open, held, busy };
  [[nodiscard]] static refusal refusal_of(const inventory& inv, const gang_request& g, segment_id s) noexcept {
    const segment_tenancy& t = inv.segment_tenants(s);
    refusal why = refusal::open;
    for (std::size_t i = 0; i < (g.homogeneous() ? 1 : g.size()); ++i) {
      const placement_request& r = g.at(i);
      if (r.isolation != isolation_level::network) continue;
      if (!t.open_to(r.tenant)) return refusal::held;
      if (!t.only(r.tenant)) why = refusal::busy;
    }
    return why;
  }

  // The reasons of explain: the segments other tenants keep (network isolation), and of the
  // rest those without room (of `failing` segments that do not hold the gang).
  static void reasons(const std::array<std::size_t, 3>& refused, std::size_t failing, why_not& w) {
    const std::size_t held = refused[static_cast<std::size_t>(refusal::held)];
    const std::size_t busy = refused[static_cast<std::size_t>(refusal::busy)];
    w.reasons.clear();
    if (held > 0) w.reasons.push_back({"are held in isolation by another tenant (network segment)", held});
    if (busy > 0) w.reasons.push_back({"hold another tenant's work (network segment)", busy});
    if (failing > held + busy || held + busy == 0) w.reasons.push_back({"have room for fewer (network segment)", failing - held - busy});
  }

  std::vector<segment_id> segments_;        // the nodes' network segments, ascending
  std::vector<placement_request> members_;  // a heterogeneous gang's members in one segment
};

}  // namespace gpurent
