// SPDX-License-Identifier: MIT
#pragma once
// The billing terms public offer catalogs leave out (docs/offers-import.md): the increment a
// rental is billed by, its minimum charge, a spot offer's notice before an interruption and its
// interruptions per hour, and whether one job may span several instances. Each term carries
// where it comes from: a public page and the date it was read, or "unknown: assumed ..." with
// a conservative value, so a plan on the imported offers states what it rests on.
//
// Terms come from a built-in table per provider (below, read on 2026-12-06) and from a terms
// file (`--terms`), whose entries override the built-in ones term by term:
//
//   {"terms": [{"provider": "aws", "instances": "p5",
//               "multi_node": {"value": true, "source": "https://...", "seen": "2026-12-06"}}]}
//
// An entry names a provider and, optionally, a prefix of instance names it is limited to;
// for an offer the entries of its provider apply in order (the built-in ones, then the file's),
// an entry for a longer prefix after a shorter one.

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/text/json_reader.hpp>

namespace gpurent::io {

// One term and where it comes from. `source` is a page (or "unknown: assumed ..."), `seen`
// the day it was read ("2026-12-06"; empty for an assumption).
template <class T>
struct sourced_term {
  T value{};
  std::string source;
  std::string seen;
  friend bool operator==(const sourced_term&, const sourced_term&) = default;
};

// What a set of offers is billed by, beside its price: absent terms are not stated here.
struct offer_terms {
  std::optional<sourced_term<seconds>> increment;
  std::optional<sourced_term<seconds>> minimum;
  std::optional<sourced_term<seconds>> notice;             // spot: warning before an interruption
  std::optional<sourced_term<std::string>> interruptions;  // spot: per instance-hour, a decimal ("0.1")
  std::optional<sourced_term<bool>> multi_node;            // one job may span instances
  friend bool operator==(const offer_terms&, const offer_terms&) = default;
};

// The terms of a provider's offers, or of those whose instance names start with `instances`.
struct terms_rule {
  std::vector<std::string> providers;  // names the provider goes by ("lambda", "lambdalabs")
  std::string instances;               // a prefix of instance names; empty: every instance
  offer_terms terms;
};

namespace detail::import_terms {
inline constexpr std::string_view read_on = "2026-12-06";

[[nodiscard]] inline sourced_term<seconds> dur(std::int64_t s, std::string_view source, std::string_view seen = read_on) {
  return {seconds(s), std::string(source), std::string(seen)};
}

// The conservative values an unknown term is assumed to have.
[[nodiscard]] inline offer_terms assumed() {
  offer_terms t;
  t.increment = dur(3600, "unknown: assumed the started hour", "");
  t.minimum = dur(0, "unknown: assumed no minimum beyond the increment", "");
  t.notice = dur(0, "unknown: assumed no notice", "");
  t.interruptions = sourced_term<std::string>{"0.1", "unknown: assumed one interruption per 10 instance-hours", ""};
  t.multi_node = sourced_term<bool>{false, "unknown: assumed one instance per job", ""};
  return t;
}

inline void overlay(offer_terms& into, const offer_terms& from) {
  if (from.increment) into.increment = from.increment;
  if (from.minimum) into.minimum = from.minimum;
  if (from.notice) into.notice = from.notice;
  if (from.interruptions) into.interruptions = from.interruptions;
  if (from.multi_node) into.multi_node = from.multi_node;
}

// The built-in terms: what each provider's own pages say, read on 2026-12-06.
[[nodiscard]] inline std::vector<terms_rule> builtin_rules() {
  const std::string_view aws_billing = "https://aws.amazon.com/about-aws/whats-new/2017/10/announcing-amazon-ec2-per-second-billing/";
  const std::string_view gcp_billing = "https://cloud.google.com/compute/vm-instance-pricing";
  const std::string_view oci_billing = "https://the-report.cloud/oracle-announcing-per-second-billing-for-compute-and-autonomous-database";
  std::vector<terms_rule> r;
  r.push_back({{"aws"},
               {},
               {dur(1, aws_billing),
                dur(60, aws_billing),
                dur(120, "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html"),
                {},
                {}}});
  r.push_back(
      {{"gcp"},
       {},
       {dur(1, gcp_billing), dur(60, gcp_billing), dur(30, "https://cloud.google.com/compute/docs/instances/spot (preemption process)"), {}, {}}});
  r.push_back({{"azure"},
               {},
               {dur(60, "unknown: assumed per-minute billing (Azure's granularity was not found on its pages)", ""),
                dur(60, "unknown: assumed a one-minute minimum", ""),
                dur(30, "https://learn.microsoft.com/azure/virtual-machines/spot-vms (eviction notice)"),
                {},
                {}}});
  r.push_back({{"oci"}, {}, {dur(1, oci_billing), dur(60, oci_billing), {}, {}, {}}});
  r.push_back({{"oci"}, "BM.", {{}, dur(3600, oci_billing), {}, {}, {}}});  // bare metal: a one-hour minimum
  r.push_back({{"lambda", "lambdalabs"},
               {},
               {dur(60, "https://docs.lambda.ai/public-cloud/billing"),
                dur(0, "https://docs.lambda.ai/public-cloud/billing (no minimum stated)"),
                {},
                {},
                {}}});
  r.push_back({{"nebius"},
               {},
               {dur(1, "https://docs.nebius.com/object-storage/resources/pricing (GPUs on running VMs: billing unit 1 second)"),
                dur(0, "https://docs.nebius.com/object-storage/resources/pricing (no minimum stated)"),
                {},
                {},
                {}}});
  r.push_back({{"runpod"},
               {},
               {dur(1, "https://docs.runpod.io/pods/pricing"), dur(0, "https://docs.runpod.io/pods/pricing (no minimum stated)"), {}, {}, {}}});
  r.push_back({{"vastai", "vast"},
               {},
               {dur(1, "https://vast.ai/docs/billing/billing"), dur(0, "https://vast.ai/docs/billing/billing (no minimum stated)"), {}, {}, {}}});
  return r;
}

// A day "YYYY-MM-DD".
[[nodiscard]] inline expected<void> check_day(std::string_view day) {
  if (day.size() == 10 && parse_instant(std::string(day) + "T00:00:00Z")) return {};
  return make_error(error_code::parse_error, {}, "expected a day such as \"2026-12-06\", got \"" + std::string(day) + "\"");
}

// {"value": ..., "source": "...", "seen": "YYYY-MM-DD"}: `value` read by `take`; `seen` may be
// left out only for an assumption (a source starting "unknown").
template <class T, class Take>
[[nodiscard]] expected<void> read_term(json_object& r, std::string_view key, std::optional<sourced_term<T>>& out, Take&& take) {
  const json* j = r.find(key);
  if (j == nullptr) return {};
  json_object t(*j, r.field(key));
  GPURENT_TRY(t.check());
  sourced_term<T> term;
  GPURENT_TRY(take(t, term.value));
  GPURENT_TRY(t.name("source", term.source, true));
  GPURENT_TRY(t.string("seen", term.seen, !term.source.starts_with("unknown")));
  if (!term.seen.empty()) {
    if (auto d = check_day(term.seen); !d) return unexpected(d.error().in_field(t.field("seen")));
  }
  GPURENT_TRY(t.finish());
  out = std::move(term);
  return {};
}

// An interruption rate: a decimal string in [0, 10), as the offers reader takes it.
[[nodiscard]] inline expected<void> read_rate(json_object& t, std::string& out) {
  decimal<6> rate{};
  GPURENT_TRY(t.dec("value", rate, true));
  if (rate.sign() < 0 || rate >= decimal<6>(10)) return t.fail("value", "must be in [0, 10)");
  return t.string("value", out, true);
}

[[nodiscard]] inline expected<terms_rule> read_rule(const json& j, const std::string& path) {
  json_object r(j, path);
  GPURENT_TRY(r.check());
  terms_rule rule;
  rule.providers.emplace_back();
  GPURENT_TRY(r.name("provider", rule.providers.front(), true));
  GPURENT_TRY(r.name("instances", rule.instances));
  const auto dur_value = [](json_object& t, seconds& v) { return t.duration("value", v, true); };
  GPURENT_TRY(read_term(r, "increment", rule.terms.increment, dur_value));
  GPURENT_TRY(read_term(r, "minimum", rule.terms.minimum, dur_value));
  GPURENT_TRY(read_term(r, "spot_notice", rule.terms.notice, dur_value));
  GPURENT_TRY(read_term(r, "interruptions_per_hour", rule.terms.interruptions, read_rate));
  GPURENT_TRY(read_term(r, "multi_node", rule.terms.multi_node, [](json_object& t, bool& v) { return t.boolean("value", v, true); }));
  GPURENT_TRY(r.finish());
  if (rule.terms.increment && rule.terms.increment->value.count() <= 0) return r.fail("increment", "must be positive");
  return rule;
}
}  // namespace detail::import_terms

// The terms every import starts from: the built-in table, then the rules of a terms file.
class terms_table {
 public:
  [[nodiscard]] static terms_table builtin() {
    terms_table t;
    t.rules_ = detail::import_terms::builtin_rules();
    return t;
  }
  // Rules read from a terms file, applied after the built-in ones.
  void add(std::vector<terms_rule> rules) {
    rules_.insert(rules_.end(), std::make_move_iterator(rules.begin()), std::make_move_iterator(rules.end()));
  }

  // The terms of `provider`'s instance `instance`: every rule that covers it, the shorter
  // prefixes first (then in table order), over the assumptions for what none states.
  [[nodiscard]] offer_terms resolve(std::string_view provider, std::string_view instance) const {
    std::vector<const terms_rule*> covering;
    for (const terms_rule& r : rules_)
      if (std::ranges::find(r.providers, provider) != r.providers.end() && instance.starts_with(r.instances)) covering.push_back(&r);
    std::ranges::stable_sort(covering, {}, [](const terms_rule* r) { return r->instances.size(); });
    offer_terms t = detail::import_terms::assumed();
    for (const terms_rule* r : covering) detail::import_terms::overlay(t, r->terms);
    return t;
  }
  [[nodiscard]] const std::vector<terms_rule>& rules() const noexcept { return rules_; }

 private:
  std::vector<terms_rule> rules_;
};

// The rules of a terms file; `file` names it in errors ("terms.json:4: field 'terms[0].minimum.value': ...").
[[nodiscard]] inline expected<std::vector<terms_rule>> read_terms_json(std::string_view text, std::string_view file = {}) {
  GPURENT_TRY(j, parse_json_text(text, file));
  const auto located = [&](error e) { return unexpected(file.empty() ? std::move(e) : json_located(std::move(e), text, file)); };
  json_object top(*j, "");
  if (auto c = top.check(); !c) return located(c.error());
  auto list = top.array("terms", true);
  if (!list) return located(list.error());
  std::vector<terms_rule> rules;
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    auto r = detail::import_terms::read_rule((**list)[i], json_item("terms", i));
    if (!r) return located(r.error());
    rules.push_back(std::move(*r));
  }
  if (auto f = top.finish(); !f) return located(f.error());
  return rules;
}

// Where an offer's terms come from, as its `terms_source` states it: the terms and their
// sources, terms of one source together ("increment 1s, minimum 1min: https://... (seen
// 2026-12-06); spot notice 2min: ..."). Spot terms only for a spot offer.
[[nodiscard]] inline std::string describe_terms(const offer_terms& t, bool spot) {
  std::vector<std::pair<std::string, std::string>> parts;  // (term, where)
  const auto add = [&](std::string what, const auto& term) {
    if (!term) return;
    std::string where = term->source + (term->seen.empty() ? "" : " (seen " + term->seen + ")");
    parts.emplace_back(std::move(what), std::move(where));
  };
  if (t.increment) add("increment " + format_duration(t.increment->value), t.increment);
  if (t.minimum) add("minimum " + format_duration(t.minimum->value), t.minimum);
  if (spot && t.notice) add("spot notice " + format_duration(t.notice->value), t.notice);
  if (spot && t.interruptions) add("interruptions_per_hour " + t.interruptions->value, t.interruptions);
  if (t.multi_node) add(std::string("multi_node ") + (t.multi_node->value ? "true" : "false"), t.multi_node);
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += parts[i].first;
    if (i + 1 < parts.size() && parts[i + 1].second == parts[i].second) {
      out += ", ";
      continue;
    }
    out += ": " + parts[i].second + (i + 1 < parts.size() ? "; " : "");
  }
  return out;
}

}  // namespace gpurent::io
