// SPDX-License-Identifier: MIT
// Fuzz target: the arguments of `gpurent mig fit --gpu G --want W --have H`, through the
// library functions the tool calls (spec/mig_text.hpp), then fit and repartition as the
// tool runs them. Input: three lines, G, W and H; when G's first byte is '#', the next byte
// picks a MIG model and its name is written in a fuzz-chosen case instead, so that most
// inputs reach the profile parsers.
// Checked:
//   - an error names the caller's field, has a message, and the message is printable ASCII
//     (names from the input are escaped), so a terminal or a log shows it as it is;
//   - nothing is dropped: an accepted list has exactly one entry per comma-separated item;
//   - what is accepted is valid: known profiles, a valid layout, at most 8 wanted;
//   - text round-trips: the wanted names and mig_layout_text(layout) parse to the same values;
//   - the fit and repartition the tool prints are consistent (fit's layout valid and keeps
//     `have`; a plan's target valid and holding the wanted instances).

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/spec/mig_text.hpp>

#include "fuzz.hpp"

namespace {

using namespace gpurent;

void check_error(const error& e, std::string_view field) {
  FUZZ_CHECK(e.field == field, "the error names another field: " + e.describe());
  FUZZ_CHECK(!e.message.empty());
  for (const char c : e.message) FUZZ_CHECK(c >= 0x20 && c < 0x7f, "an unprintable byte in the message: " + e.describe());
}

std::size_t items(std::string_view s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), ',')) + 1; }

bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

std::string_view take_line(std::string_view& s) {
  const auto nl = s.find('\n');
  const std::string_view line = s.substr(0, nl);
  s.remove_prefix(nl == std::string_view::npos ? s.size() : nl + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in = gpurent_fuzz::as_text(data, size);
  std::string gpu(take_line(in));
  const std::string_view want_text = take_line(in);
  const std::string_view have_text = in;
  if (gpu.size() >= 2 && gpu[0] == '#') {
    const auto pick = static_cast<unsigned char>(gpu[1]);
    std::string name(mig_geometries[pick % mig_geometries.size()].model);
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (((pick >> (i % 8)) & 1U) != 0)
        name[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[i])));
      else
        name[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
    }
    gpu = name;
  }

  const auto g = resolve_mig_geometry(gpu, "--gpu");
  if (!g) {
    check_error(g.error(), "--gpu");
    FUZZ_CHECK(g.error().code == error_code::unknown_name || g.error().code == error_code::not_found);
    return 0;
  }
  const mig_geometry& geo = **g;
  FUZZ_CHECK(&geo >= mig_geometries.data() && &geo < mig_geometries.data() + mig_geometries.size(), "not a built-in geometry");

  const auto want = parse_mig_profiles(geo, want_text, "--want");
  if (want) {
    FUZZ_CHECK(want->size() == items(want_text), "a wanted profile was dropped or added");
    FUZZ_CHECK(want->size() <= mig_max_slices);
    std::string back;
    for (const mig_profile_index p : *want) {
      FUZZ_CHECK(p < geo.profiles.size(), "an unknown profile was accepted");
      back += (back.empty() ? "" : ",") + std::string(geo.profiles[p].name);
    }
    const auto again = parse_mig_profiles(geo, back, "--want");
    FUZZ_CHECK(again && *again == *want, "wanted names do not read back: " + back);
  } else {
    check_error(want.error(), "--want");
  }

  const auto have = parse_mig_layout(geo, have_text, "--have");
  if (have) {
    FUZZ_CHECK(have->size() == (blank(have_text) ? 0 : items(have_text)), "an instance was dropped or added");
    FUZZ_CHECK(mig_valid(geo, *have), "an invalid layout was accepted");
    const std::string back = mig_layout_text(geo, *have);
    const auto again = parse_mig_layout(geo, back, "--have");
    FUZZ_CHECK(again && *again == *have, "the layout does not read back: " + back);
  } else {
    check_error(have.error(), "--have");
  }
  if (!want || !have) return 0;

  // What the tool runs next.
  const mig_fit_result r = mig_fit(geo, *have, *want);
  FUZZ_CHECK(!mig_explain(geo, *have, *want, r).empty());
  FUZZ_CHECK(r.status != mig_fit_status::invalid_layout && r.status != mig_fit_status::unknown_profile, "fit rejected what the parsers accepted");
  if (r.fits()) {
    const mig_layout after = mig_apply(*have, *want, r);
    FUZZ_CHECK(mig_valid(geo, after), "fit's layout is invalid");
    for (const mig_instance& x : *have) FUZZ_CHECK(after.contains(x), "fit moved an existing instance");
    return 0;
  }
  for (const auto mode : {mig_repartition_mode::move, mig_repartition_mode::drop}) {
    const auto plan = mig_plan_repartition(geo, *have, *want, mode);
    if (!plan) {
      FUZZ_CHECK(plan.error().code == error_code::not_found, plan.error().describe());
      continue;
    }
    FUZZ_CHECK(mig_valid(geo, plan->target), "a repartition target is invalid");
    for (std::size_t i = 0; i < want->size(); ++i)
      FUZZ_CHECK(plan->target.contains({(*want)[i], plan->starts[i]}), "a wanted instance is missing from the plan");
  }
  return 0;
}
