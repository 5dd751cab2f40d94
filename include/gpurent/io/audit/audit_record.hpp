// SPDX-License-Identifier: MIT
#pragma once
// What the audit log records of each kind of decision (io/audit/audit_log.hpp chains the lines):
//
//   match  the request, the policy, how many nodes each constraint rejected, and the
//          placement (node and GPUs) or null when it fits nowhere: one per matcher decision
//   plan   per job: the job's request (kind, isolation, residency), the offers each rule
//          rejected, and the choice (offer, mode, sharing, count, expected cost); then one
//          "plan-output": the inputs' SHA-256 and that of the plan as printed
//   meter  the inputs' SHA-256, the period, and the SHA-256 of the invoice bytes as written
//
//   gang   per gang decision (fleet pack, fleet run): the job, the member's request, every
//          member's placement, or null and the placer's explanation (per reason, per
//          constraint for one member)
//   preempt  per preemption (fleet run): the instant, the preemptor, each victim and what it
//          loses, the preemptor's placements

#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/audit/audit_log.hpp>
#include <gpurent/matching/gang/placer.hpp>
#include <gpurent/matching/node/matcher.hpp>
#include <gpurent/matching/observer.hpp>
#include <gpurent/planning/candidates.hpp>
#include <gpurent/planning/planner.hpp>

namespace gpurent::io {

// A request as the matcher saw it (model and label masks as numbers: their names are the
// inventory's; a request names its own).
[[nodiscard]] inline ordered_json audit_request(const placement_request& r) {
  ordered_json j = ordered_json::object();
  j["tenant"] = r.tenant;
  j["num_gpu"] = r.num_gpu;
  j["gpu_milli"] = r.gpu_milli.count();
  if (r.is_mig()) j["mig_profile"] = std::string(r.mig_profile);
  j["cpu_milli"] = r.cpu_milli.count();
  j["memory_mib"] = r.memory_mib.count();
  j["isolation"] = std::string(to_string(r.isolation));
  if (r.segment != no_segment) j["segment"] = r.segment;
  if (r.residency != 0) j["residency_mask"] = r.residency;
  if (r.allowed_models != any_model) j["models_mask"] = r.allowed_models;
  return j;
}

// The node by name and the GPUs as `index:milli` (MIG: `index:profile@start`) joined by ';'.
[[nodiscard]] inline ordered_json audit_placement(const inventory& inv, const placement& p) {
  std::string gpus;
  for (std::size_t i = 0; i < p.count; ++i) {
    const gpu_take& t = p.gpus[i];
    if (i > 0) gpus += ';';
    gpus += std::to_string(t.gpu) + ':';
    if (t.mig_start >= 0) {
      const mig_geometry* g = inv.model(inv.spec(p.node).model).mig;
      gpus += std::string(g->profiles[t.mig_profile].name) + '@' + std::to_string(t.mig_start);
    } else {
      gpus += std::to_string(t.milli);
    }
  }
  return ordered_json{{"node", inv.spec(p.node).name}, {"gpus", gpus}};
}

// Nodes looked at, feasible, and per constraint (its name) how many it rejected first.
[[nodiscard]] inline ordered_json audit_rejections(const constraint_counts& w) {
  ordered_json rejected = ordered_json::object();
  for (const constraint_counts::entry& e : w.rejected) rejected[std::string(e.constraint)] = e.nodes;
  return ordered_json{{"nodes", w.nodes}, {"feasible", w.feasible}, {"rejected", std::move(rejected)}};
}

// One matcher decision; `task` names the request where the caller has a name (empty: none).
[[nodiscard]] inline ordered_json audit_match(const match_decision& d, std::string_view policy, std::string_view task) {
  ordered_json j = ordered_json::object();
  if (!task.empty()) j["task"] = std::string(task);
  j["policy"] = std::string(policy);
  j["request"] = audit_request(d.request);
  j["explain"] = audit_rejections(d.explain_fn(d.source, d.request));
  j["placement"] = d.result ? audit_placement(d.inv, *d.result) : ordered_json(nullptr);
  return j;
}

// Why a gang did not fit (why_not): per reason the candidates that could not hold it,
// and per constraint the nodes that cannot take one member.
[[nodiscard]] inline ordered_json audit_gang_why_not(const why_not& w) {
  ordered_json reasons = ordered_json::object();
  for (const why_not::entry& e : w.reasons) reasons[e.reason] = e.count;
  ordered_json j = {{"fit", w.fit}, {"candidates", w.candidates}, {"total", w.total}, {"holding", w.holding}, {"holds", w.holds}};
  j["rejected"] = std::move(reasons);
  j["nodes"] = audit_rejections(w.nodes);
  if (!w.note.empty()) j["note"] = w.note;
  return j;
}

// One gang decision of job `job` (the gang placer's; its explanation only when not placed).
[[nodiscard]] inline ordered_json audit_gang(const gang_decision& d, std::string_view policy, std::string_view job) {
  ordered_json j = ordered_json::object();
  j["job"] = std::string(job);
  j["policy"] = std::string(policy);
  j["workers"] = d.gang.size();
  j["request"] = audit_request(d.gang.at(0));
  if (d.placed.empty()) {
    j["explain"] = audit_gang_why_not(d.explain_fn(d.source, d.gang));
    j["placements"] = nullptr;
    return j;
  }
  ordered_json members = ordered_json::array();
  for (const placement& p : d.placed) members.push_back(audit_placement(d.inv, p));
  j["placements"] = std::move(members);
  return j;
}

// One preemption; `name(job index)` gives a job's name.
template <class Name>
[[nodiscard]] ordered_json audit_preempt(const preempt_decision& d, Name&& name) {
  ordered_json victims = ordered_json::array();
  for (const victim& v : d.victims)
    victims.push_back(ordered_json{{"job", std::string(name(v.job))},
                                   {"priority", v.priority},
                                   {"gpu_milli", v.gpu_milli},
                                   {"lost_s", v.lost.count()},
                                   {"restart_s", v.restart.count()}});
  ordered_json members = ordered_json::array();
  for (const placement& p : d.placed) members.push_back(audit_placement(d.inv, p));
  return ordered_json{
      {"at_s", d.time.count()}, {"preemptor", std::string(name(d.preemptor))}, {"victims", std::move(victims)}, {"placements", std::move(members)}};
}

// One planner decision: the job's request, how many offers each rule (and the job's hourly
// cap) rejected, the choice.
[[nodiscard]] inline ordered_json audit_plan_job(const job& j, const job_plan& p, const offer_catalog& cat) {
  ordered_json req = {{"job", j.name}, {"kind", std::string(to_string(j.kind))}, {"isolation", std::string(to_string(j.isolation))}};
  const job_constraints& c = j.constraints;
  for (const auto& [key, list] :
       {std::pair{"regions", &c.regions}, {"zones", &c.zones}, {"jurisdictions", &c.jurisdictions}, {"providers", &c.providers}, {"gpus", &c.gpus}}) {
    if (!list->empty()) req[key] = *list;
  }
  const rejection_counts& counts = p.rejected;  // as the planner counted them, the cap included
  ordered_json rejected = ordered_json::object();
  for (std::size_t i = 1; i < counts.size(); ++i) {
    if (counts[i] > 0) rejected[std::string(to_string(static_cast<offer_rejection>(i)))] = counts[i];
  }
  ordered_json choice = {{"offer", p.offer},
                         {"mode", std::string(to_string(p.mode))},
                         {"sharing", to_string(p.sharing)},
                         {"count", p.count},
                         {"expected_cost", p.expected_cost.to_string()}};
  return ordered_json{{"policy", "planner"},
                      {"request", std::move(req)},
                      {"explain", {{"offers", cat.size()}, {"allowed", counts[0]}, {"rejected", std::move(rejected)}}},
                      {"choice", std::move(choice)}};
}

// A file a decision was made from: its name and SHA-256.
[[nodiscard]] inline ordered_json audit_input(std::string_view file, std::string_view text) {
  return ordered_json{{"file", std::string(file)}, {"sha256", sha256_hex(text)}};
}

// The SHA-256 of a file's bytes, read in blocks (a usage file may not fit in memory).
[[nodiscard]] inline expected<std::string> file_sha256_hex(const std::string& path) {
  GPURENT_TRY(check_input_path(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return unexpected(error{error_code::io_error, {}, "cannot open \"" + path + "\" for reading", path});
  sha256 h;
  std::string block(std::size_t{1} << 20, '\0');
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    h.update(std::string_view(block.data(), static_cast<std::size_t>(in.gcount())));
  }
  if (!in.eof()) return unexpected(error{error_code::io_error, {}, "cannot read \"" + path + "\"", path});
  return to_hex(h.digest());
}

// One meter run: its inputs and the digest of the invoice bytes as written.
// `usage`: one audit_input per usage file, in the order given.
[[nodiscard]] inline ordered_json audit_meter(std::string_view tariff_path, std::string_view tariff_text, std::vector<ordered_json> usage,
                                              std::string_view period, std::string_view format, std::string_view invoice_bytes) {
  ordered_json j = ordered_json::object();
  j["tariff"] = audit_input(tariff_path, tariff_text);
  j["usage"] = ordered_json(std::move(usage));
  j["period"] = std::string(period);
  j["format"] = std::string(format);
  j["invoice_sha256"] = sha256_hex(invoice_bytes);
  return j;
}

}  // namespace gpurent::io
