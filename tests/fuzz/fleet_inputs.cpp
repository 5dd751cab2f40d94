// SPDX-License-Identifier: MIT
// Fuzz target: the input readers of `gpurent fleet run --jobs`, in the tool's order: the
// nodes CSV (read_fleet_nodes_csv, fleet_cluster::make), the topology JSON
// (read_topology_json), the jobs CSV (read_fleet_jobs_csv) and the node events CSV
// (read_node_events_csv). The input is the four files one after another, each ended by a
// line `%%` (a part left out is empty; empty or rejected nodes: a fixed cluster of four).
// A rejected file gives an error at file:line (1..its lines) naming the field, unless the
// CSV or JSON syntax itself is wrong. What is accepted respects the documented ranges, names
// are unique and UTF-8, and every file written back (the library's writers; the node events
// by hand, in another column order with CRLF) reads the same. A topology accepted has no key
// twice in one object (nlohmann alone keeps the last value silently). Small inputs then run
// (gpurent placement and victims), and the run and the usage it emits are checked.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/utf8.hpp>
#include <gpurent/fleet/fleet.hpp>
#include <gpurent/io/fleet/fleet_nodes_csv.hpp>
#include <gpurent/io/fleet/jobs_csv.hpp>
#include <gpurent/io/fleet/node_events_csv.hpp>
#include <gpurent/io/fleet/topology_json.hpp>
#include <gpurent/io/text/csv.hpp>
#include <gpurent/metering/usage.hpp>

#include "fuzz.hpp"

namespace {

using namespace gpurent;
using io::json;

// Two models, a drained node, a node without GPUs, two segments, three labels.
constexpr std::string_view fixed_nodes =
    "sn,cpu_milli,memory_mib,gpu,model,state,segment,labels\n"
    "n0,64000,262144,4,H100,up,pkey-a,region=eu\n"
    "n1,64000,262144,4,H100,,pkey-a,region=eu|tier=gold\n"
    "n2,32000,131072,8,A100,drain,pkey-b,region=us\n"
    "n3,16000,65536,0,,,,\n";

// The text up to each line "%%" (the separator's newlines are no part of either side).
std::array<std::string_view, 4> parts_of(std::string_view text) {
  std::array<std::string_view, 4> parts{};
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const bool empty = text.starts_with("%%\n");
    const std::size_t end = empty ? 0 : text.find("\n%%\n");
    if (end == std::string_view::npos || k + 1 == parts.size()) {
      parts[k] = text;
      return parts;
    }
    parts[k] = text.substr(0, end);
    text.remove_prefix(end + (empty ? 3 : 4));
  }
  return parts;
}

bool csv_syntax(const error& e) {
  return e.message.starts_with("header: ") || e.message == "unterminated quoted field" || e.message == "text after a closing quote" ||
         e.message == "a quote inside an unquoted field" || e.message.find(" fields, found ") != std::string::npos;
}

// The error is at `file`:N with N one of the text's lines, and names a field unless the
// text's syntax is at fault.
void check_located(const error& e, std::string_view file, std::string_view text) {
  const std::string prefix = std::string(file) + ":";
  FUZZ_CHECK(e.where.starts_with(prefix), "an error does not name the file: " + e.describe());
  const std::string_view n = std::string_view(e.where).substr(prefix.size());
  FUZZ_CHECK(!n.empty() && n.find_first_not_of("0123456789") == std::string_view::npos, "an error does not name a line: " + e.describe());
  const std::size_t line = std::stoull(std::string(n));
  FUZZ_CHECK(line >= 1 && line <= static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1,
             "an error names a line the file does not have: " + e.describe());
  const bool syntax = csv_syntax(e) || e.message.starts_with("not valid JSON");
  FUZZ_CHECK(syntax || !e.field.empty(), "an error names no field: " + e.describe());
}

// A node as the cluster keeps it: no model without GPUs, labels sorted, each once.
fleet_node kept(fleet_node n) {
  if (n.gpus == 0) n.model.clear();
  std::sort(n.labels.begin(), n.labels.end());
  n.labels.erase(std::unique(n.labels.begin(), n.labels.end()), n.labels.end());
  return n;
}

void check_node(const fleet_node& n) {
  FUZZ_CHECK(!n.name.empty() && is_utf8(n.name) && is_utf8(n.model) && is_utf8(n.segment), "a node name empty or not UTF-8");
  FUZZ_CHECK(n.cpu_milli.count() >= 0 && n.memory_mib.count() >= 0 && n.gpus >= 0 && n.gpus <= trace_max_gpus_per_node,
             "a node out of range: " + n.name);
  FUZZ_CHECK(n.gpus == 0 || !n.model.empty(), "a node with GPUs and no model: " + n.name);
  for (const std::string& l : n.labels) FUZZ_CHECK(!l.empty() && is_utf8(l) && l.find('|') == std::string::npos, "a bad label: " + n.name);
}

// The nodes part read into a cluster: written back, it reads the same.
fleet_cluster cluster_of(std::string_view text) {
  auto nodes = io::read_fleet_nodes_csv(text, "nodes.csv");
  if (!nodes) {
    check_located(nodes.error(), "nodes.csv", text);
    nodes = io::read_fleet_nodes_csv(fixed_nodes, "fixed.csv");
    FUZZ_CHECK(nodes.has_value());
  }
  std::set<std::string, std::less<>> names;
  for (const fleet_node& n : *nodes) {
    check_node(n);
    FUZZ_CHECK(names.insert(n.name).second, "two nodes named " + n.name);
  }
  auto c = fleet_cluster::make(*nodes);
  FUZZ_CHECK(c.has_value(), "accepted nodes make no cluster: " + (c ? std::string() : c.error().describe()));
  FUZZ_CHECK(c->inv.size() == nodes->size());
  for (model_index m = 0; m < c->inv.model_count(); ++m) {
    const auto mask = c->inv.models_mask(c->inv.model(m).name);
    FUZZ_CHECK(mask && *mask == model_mask{1} << m, "a GPU model the jobs file cannot name: " + c->inv.model(m).name);
  }
  const std::string written = io::write_fleet_nodes_csv(*c);
  const auto again = io::read_fleet_nodes_csv(written, "again.csv");
  FUZZ_CHECK(again.has_value(), "nodes written back do not read: " + (again ? std::string() : again.error().describe()));
  FUZZ_CHECK(again->size() == nodes->size(), "nodes written back read as another count");
  for (std::size_t i = 0; i < nodes->size(); ++i) FUZZ_CHECK(kept((*nodes)[i]) == kept((*again)[i]), "a node written back reads differently");
  return std::move(*c);
}

// Callback of nlohmann's parser: true when some object has a key twice.
struct key_twice {
  std::vector<std::set<std::string>> open;
  bool found = false;
  bool operator()(int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open.emplace_back();
    if (event == json::parse_event_t::object_end && !open.empty()) open.pop_back();
    if (event == json::parse_event_t::key && !open.empty() && !open.back().insert(parsed.get<std::string>()).second) found = true;
    return true;
  }
};

bool has_key_twice(std::string_view text) {
  key_twice k;
  try {
    [[maybe_unused]] const json doc = json::parse(text.begin(), text.end(), [&k](int d, json::parse_event_t e, json& p) { return k(d, e, p); });
  } catch (const json::exception&) {
    return false;
  }
  return k.found;
}

// Every node of the topology has a domain at every level, inside its domain of the level above.
void check_topology(const fleet_cluster& c) {
  const cluster_topology& t = c.topology;
  FUZZ_CHECK(t.level_count() >= 1 && t.level_count() <= max_levels);
  for (node_index n = 0; n < c.inv.size(); ++n) {
    if (!t.in_topology(n)) continue;
    for (level_index l = 0; l < t.level_count(); ++l) {
      const domain_index d = t.domain_of(n, l);
      FUZZ_CHECK(d != outside_topology && !t.domain_name(l, d).empty(), "a node of the topology without a domain");
      FUZZ_CHECK(t.parent(l, d) == (l == 0 ? outside_topology : t.domain_of(n, static_cast<level_index>(l - 1))), "a domain under two parents");
    }
  }
}

// The topology part onto c (none when empty): a rejected one leaves c as it was.
void read_topology(std::string_view text, fleet_cluster& c) {
  if (text.empty()) return;
  const fleet_cluster before = c;
  if (auto r = io::read_topology_json(text, "topology.json", c); !r) {
    check_located(r.error(), "topology.json", text);
    FUZZ_CHECK(c.topology == before.topology, "a rejected topology changed the cluster");
    return;
  }
  FUZZ_CHECK(!has_key_twice(text), "a topology with a key twice in one object was accepted");
  check_topology(c);
  fleet_cluster again = before;
  const auto r = io::read_topology_json(io::write_topology_json(c), "again.json", again);
  FUZZ_CHECK(r.has_value(), "a topology written back does not read: " + (r ? std::string() : r.error().describe()));
  FUZZ_CHECK(again.topology == c.topology, "a topology written back reads differently");
}

void check_job(const fleet_job& j, const fleet_cluster& c) {
  const placement_request& r = j.gang.member;
  FUZZ_CHECK(!j.name.empty() && is_utf8(j.name) && is_utf8(j.tenant), "a job name empty or not UTF-8");
  FUZZ_CHECK(check_gang(j.gang, c.topology).has_value(), "a job the gang placer refuses: " + j.name);
  FUZZ_CHECK(j.gang.workers >= 1 && j.gang.per_node >= 0 && j.gang.segment >= 0, "a gang out of range: " + j.name);
  const bool known = c.inv.model_count() >= max_models || r.allowed_models >> c.inv.model_count() == 0;
  FUZZ_CHECK(r.allowed_models == any_model || (r.allowed_models != 0 && known), "models the cluster does not have: " + j.name);
  FUZZ_CHECK(j.arrival >= fleet_time{} && j.duration >= seconds{-1} && j.checkpoint_every >= seconds{1}, "a time out of range: " + j.name);
  FUZZ_CHECK((r.tenant == no_tenant) == j.tenant.empty(), "a tenant id without a name or the other way: " + j.name);
  FUZZ_CHECK(r.segment == no_segment || r.isolation == isolation_level::network, "a network segment without network isolation: " + j.name);
}

bool same_job(const fleet_job& a, const fleet_job& b) {
  const gang_request &g = a.gang, &h = b.gang;
  return a.name == b.name && g.member == h.member && g.workers == h.workers && g.per_node == h.per_node && g.required == h.required &&
         g.preferred == h.preferred && g.segment == h.segment && g.exclusive == h.exclusive && a.priority == b.priority &&
         a.preemptible == b.preemptible && a.arrival == b.arrival && a.duration == b.duration && a.checkpoint_every == b.checkpoint_every &&
         a.tenant == b.tenant;
}

// The jobs part against c (none when rejected): ranges, and written back, the same jobs.
std::vector<fleet_job> jobs_of(std::string_view text, const fleet_cluster& c) {
  auto jobs = io::read_fleet_jobs_csv(text, "jobs.csv", c);
  if (!jobs) {
    check_located(jobs.error(), "jobs.csv", text);
    return {};
  }
  std::set<std::string, std::less<>> names;
  for (const fleet_job& j : *jobs) {
    check_job(j, c);
    FUZZ_CHECK(names.insert(j.name).second, "two jobs named " + j.name);
  }
  const std::string written = io::write_fleet_jobs_csv(*jobs, c);
  const auto again = io::read_fleet_jobs_csv(written, "again.csv", c);
  FUZZ_CHECK(again.has_value(), "jobs written back do not read: " + (again ? std::string() : again.error().describe()));
  FUZZ_CHECK(again->size() == jobs->size(), "jobs written back read as another count");
  for (std::size_t i = 0; i < jobs->size(); ++i) FUZZ_CHECK(same_job((*jobs)[i], (*again)[i]), "a job written back reads differently: " + written);
  return std::move(*jobs);
}

// The node events part against c (none when rejected): in time order, and written back the same.
std::vector<node_event> events_of(std::string_view text, const fleet_cluster& c) {
  auto events = io::read_node_events_csv(text, "events.csv", c);
  if (!events) {
    check_located(events.error(), "events.csv", text);
    return {};
  }
  std::string written = "state,time,node\r\n";
  for (std::size_t i = 0; i < events->size(); ++i) {
    const node_event& e = (*events)[i];
    FUZZ_CHECK(e.time >= fleet_time{} && e.node < c.inv.size(), "a node event out of range");
    FUZZ_CHECK(i == 0 || (*events)[i - 1].time <= e.time, "node events not in time order");
    io::csv_row(written, {to_string(e.condition), std::to_string(e.time.count()), c.inv.spec(e.node).name});
  }
  const auto again = io::read_node_events_csv(written, "again.csv", c);
  FUZZ_CHECK(again.has_value(), "node events written back do not read: " + (again ? std::string() : again.error().describe()));
  FUZZ_CHECK(again->size() == events->size(), "node events written back read as another count");
  for (std::size_t i = 0; i < events->size(); ++i) {
    const node_event &a = (*events)[i], &b = (*again)[i];
    FUZZ_CHECK(a.time == b.time && a.node == b.node && a.condition == b.condition, "a node event written back reads differently");
  }
  return std::move(*events);
}

// Small enough for a run of well under 10 ms: few nodes, jobs, members and events.
bool small_run(const fleet_cluster& c, const std::vector<fleet_job>& jobs, const std::vector<node_event>& events) {
  std::int64_t members = 0;
  for (const fleet_job& j : jobs) {
    if (j.duration < seconds{0}) return false;  // fleet run needs a duration (the tool says so)
    members += j.gang.workers;
  }
  return !jobs.empty() && jobs.size() <= 16 && members <= 64 && c.inv.size() <= 16 && events.size() <= 16;
}

// fleet run as the tool runs it by default; its segments, the rules (without node events)
// and the usage --emit-usage writes.
void check_small_run(const fleet_cluster& c, const std::vector<fleet_job>& jobs, const std::vector<node_event>& events) {
  fleet_cluster state = c;
  run_options o;
  o.node_events = events;
  gang_placer<gang_policy_gpurent> backend(state.inv, state.topology, context_of(jobs, state));
  const run_result r = run_fleet<victim_policy_gpurent, true>(backend, jobs, o);
  FUZZ_CHECK(r.first_start.size() == jobs.size() && r.completed.size() == jobs.size());
  for (const run_segment& s : r.segments) {
    FUZZ_CHECK(s.job < jobs.size() && s.start >= jobs[s.job].arrival && s.end >= s.start, "a run segment out of order");
    FUZZ_CHECK(s.count == jobs[s.job].gang.size() && s.first + s.count <= r.members.size(), "a run segment without all its members");
    for (std::uint32_t m = 0; m < s.count; ++m) FUZZ_CHECK(r.members[s.first + m].node < c.inv.size());
  }
  for (std::size_t j = 0; j < jobs.size(); ++j)
    FUZZ_CHECK(r.first_start[j] == not_started || r.first_start[j] >= jobs[j].arrival, "a job started before it arrived: " + jobs[j].name);
  if (events.empty()) FUZZ_CHECK(gpurent::check_run(c, jobs, r).violations == 0, "fleet run broke a placement rule");
  (void)metrics_of(jobs, r, c.gpus_up());
  (void)timeline_of(jobs, r, r.end_time.since_zero() / 16 + seconds{1});
  static const instant epoch = *parse_instant("2026-11-01T00:00:00Z");
  const auto usage = usage_of_run(jobs, r, c.inv, epoch);
  if (!usage) {
    FUZZ_CHECK(usage.error().field == "start" || usage.error().field == "end", usage.error().describe());
    return;
  }
  for (const usage_record& u : *usage)
    FUZZ_CHECK(validate(u).has_value(), "fleet run emits usage the meter refuses: " + validate(u).error().describe());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parts = parts_of(gpurent_fuzz::as_text(data, size));
  fleet_cluster c = cluster_of(parts[0].empty() ? fixed_nodes : parts[0]);
  read_topology(parts[1], c);
  const std::vector<fleet_job> jobs = jobs_of(parts[2], c);
  const std::vector<node_event> events = events_of(parts[3], c);
  if (small_run(c, jobs, events)) check_small_run(c, jobs, events);
  return 0;
}
