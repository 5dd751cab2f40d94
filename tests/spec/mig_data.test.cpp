// SPDX-License-Identifier: MIT
// The constexpr MIG tables equal the sourced rows of the collected captures
// (GPURENT_DATA_DIR/mig/mig-profiles.csv, when that data set is at hand), row for row, source
// strings included; and they agree with the catalog where it exists.
#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/mig.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_spec_mig_data {

namespace {
using namespace gpurent;

// One CSV record: fields split on commas outside double quotes ("" is a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

// "19.62" -> 1962; "" -> 0 (no capture)
std::int32_t centi(const std::string& s) {
  if (s.empty()) return 0;
  const auto dot = s.find('.');
  std::string whole = s.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : s.substr(dot + 1);
  frac.resize(2, '0');
  return std::stoi(whole) * 100 + std::stoi(frac);
}

std::uint8_t starts(const std::string& s) {
  unsigned m = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto bar = s.find('|', i);
    m |= 1U << std::stoi(s.substr(i, bar - i));
    if (bar == std::string::npos) break;
    i = bar + 1;
  }
  return static_cast<std::uint8_t>(m);
}

TEST_CASE("mig: the tables equal mig-profiles.csv") {
  const std::string path = std::string(GPURENT_DATA_DIR) + "/mig/mig-profiles.csv";
  std::ifstream in(path);
  if (!in) {
    MESSAGE("skipped: " << path << " is absent");
    return;
  }
  std::string line;
  std::getline(in, line);
  REQUIRE(csv_fields(line) == std::vector<std::string>{"gpu", "profile", "profile_id", "compute_slices", "memory_slices", "max_instances",
                                                       "memory_gib", "sms", "start_slots", "source"});
  std::set<std::string> models;
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = csv_fields(line);
    CAPTURE(line);
    REQUIRE(f.size() == 10);
    const mig_geometry* g = find_mig_geometry(f[0]);
    REQUIRE(g != nullptr);
    const auto i = g->find_profile(f[1]);
    REQUIRE(i.has_value());
    const mig_profile& p = g->profiles[*i];
    CHECK(p.id == std::stoi(f[2]));
    CHECK(p.compute_slices == std::stoi(f[3]));
    CHECK(p.memory_slices == std::stoi(f[4]));
    CHECK(p.max_instances == std::stoi(f[5]));
    CHECK(p.memory_centigib == centi(f[6]));
    CHECK(p.sms == (f[7].empty() ? 0 : std::stoi(f[7])));
    CHECK(int{p.start_slots} == int{starts(f[8])});
    CHECK(p.source == f[9]);
    CHECK(p.media_extensions == (f[1].find("+me") != std::string::npos));
    models.insert(f[0]);
    ++rows;
  }
  // Every profile of every model the CSV covers is one of its rows, and no more.
  std::size_t table_rows = 0;
  for (const std::string& m : models) {
    const mig_geometry* g = find_mig_geometry(m);
    REQUIRE(g != nullptr);
    table_rows += g->profiles.size();
  }
  CHECK(rows == table_rows);
  CHECK(models == std::set<std::string>{"A100-SXM4-40GB", "A100-SXM4-80GB", "H100-SXM5-80GB", "H100-NVL-94GB", "H200-SXM-141GB", "B200-180GB"});
}

TEST_CASE("mig: every geometry is sane") {
  for (const mig_geometry& g : mig_geometries) {
    CAPTURE(g.model);
    CHECK(g.memory_slices <= mig_max_slices);
    CHECK(g.options != nullptr);
    CHECK((*g.options)[0] == mig_count_layouts(g));
    CHECK(!g.profiles.empty());
    std::set<std::string_view> names;
    std::set<std::uint16_t> ids;
    for (const mig_profile& p : g.profiles) {
      CAPTURE(p.name);
      names.insert(p.name);
      ids.insert(p.id);
      CHECK(!p.source.empty());
      CHECK(p.compute_slices >= 1);
      CHECK(p.compute_slices <= g.compute_slices);
      CHECK(p.start_slots != 0);
      // every allowed placement lies inside the GPU's memory
      for (int s = 0; s < mig_max_slices; ++s)
        if (p.can_start_at(s)) CHECK((p.occupancy(s) & ~g.all_slices()) == 0);
      // the name's "Ng" is the compute slice count
      CHECK(p.name.substr(0, p.name.find('g')) == std::to_string(p.compute_slices));
      CHECK(find_mig_geometry(g.model) == &g);
    }
    CHECK(names.size() == g.profiles.size());
    CHECK(ids.size() == g.profiles.size());
  }
}

TEST_CASE("mig: the whole-GPU profile is named after the model's memory (a table reused for the wrong model shows)") {
  for (const mig_geometry& g : mig_geometries) {
    CAPTURE(g.model);
    const gpu_model* m = find_model(g.model);
    REQUIRE(m != nullptr);
    REQUIRE(m->vram);
    const std::string gb = "." + std::to_string(m->vram->value.count() / (std::int64_t{1} << 30)) + "gb";
    std::size_t whole = 0;
    for (const mig_profile& p : g.profiles) {
      if (p.compute_slices != g.compute_slices) continue;
      ++whole;
      CHECK(std::string_view(p.name).ends_with(gb));
    }
    CHECK(whole == 1);
  }
}

TEST_CASE("mig: a catalog model has a MIG geometry exactly when it is MIG-capable") {
  for (const gpu_model& m : builtin_catalog()) {
    CAPTURE(m.name);
    CHECK(m.mig_capable == (find_mig_geometry(m.name) != nullptr));
  }
  for (const mig_geometry& g : mig_geometries) {
    CAPTURE(g.model);
    const gpu_model* m = find_model(g.model);
    REQUIRE(m != nullptr);
    CHECK(m->name == g.model);
  }
  const std::string alias = "H100";  // a run-time name, as the tool gets it
  const gpu_model* h100 = find_model(alias);
  REQUIRE(h100 != nullptr);
  CHECK(find_mig_geometry(h100->name) == find_mig_geometry("H100-SXM5-80GB"));
}
}  // namespace

}  // namespace test_spec_mig_data
