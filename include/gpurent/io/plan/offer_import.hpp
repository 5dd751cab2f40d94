// SPDX-License-Identifier: MIT
#pragma once
// Public offer catalogs into the offers document `gpurent plan --offers` reads (docs/planning.md,
// docs/offers-import.md): `import_offers` reads gpuhunt or SkyPilot CSVs (offer_import_csv.hpp),
// maps their GPUs onto the catalog (offer_import_gpu.hpp), adds the billing terms and their
// sources (offer_import_terms.hpp), and gives each offer an id; `offers_import_json` writes them.
//
// Each offer is a whole instance (`unit` server) priced per hour at the catalog's price text;
// its id is `provider/region/instance` (`provider/region/zone/instance` when the catalog names
// a zone), each part with '%', '/' and '#' escaped (`%25`, `%2F`, `%23`), so different names
// never give one id and '#' only ever starts the suffix below. The output is the same on every
// run: offers sorted by id and mode; a row that repeats another offer in everything but its
// place in the files is merged into the first; offers that differ but share an id and a mode
// are ordered by GPU count, price, vCPUs, memory and disk, the first keeps the id and the k-th
// becomes `id#k`.

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/enum.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/plan/offer_import_csv.hpp>
#include <gpurent/io/plan/offer_import_gpu.hpp>
#include <gpurent/io/plan/offer_import_terms.hpp>
#include <gpurent/sharing/rental.hpp>

namespace gpurent::io {

enum class catalog_format : std::uint8_t { gpuhunt, skypilot };

}  // namespace gpurent::io

template <>
struct gpurent::enum_names<gpurent::io::catalog_format> {
  static constexpr enum_entry<io::catalog_format> entries[] = {{io::catalog_format::gpuhunt, "gpuhunt"}, {io::catalog_format::skypilot, "skypilot"}};
};

namespace gpurent::io {

// One catalog file: its text, the name sources and errors give it, its provider and when its
// prices were seen.
struct catalog_file {
  std::string name;
  std::string_view text;
  std::string provider;
  instant seen{};
};

// One offer of the output.
struct imported_offer {
  std::string id;
  std::string provider;
  catalog_row row;
  std::string gpu;                       // the catalog model, or "<format>:<the catalog's name>" when none fits
  std::string unmapped;                  // why no model fits (empty: mapped)
  std::optional<std::int64_t> vram_gib;  // stated only for a GPU the catalog does not know
  int128 price_raw = 0;                  // the price in 10^-9 units, for ordering
  offer_terms terms;
  std::string source;  // "aws.csv:7 (gpuhunt)"
  instant seen{};
  std::size_t file = 0;  // which catalog file, for ordering
};

struct file_report {
  std::string file;
  std::size_t rows = 0;
  std::size_t offers = 0;
  catalog_skips skipped;
};

// A GPU name left as it was, why, and how many offers carry it.
struct unmapped_gpu {
  std::string name;     // as the catalog gives it
  std::string written;  // as the offers give it ("gpuhunt:A10G")
  std::string why;
  std::size_t offers = 0;
};

struct import_report {
  std::vector<file_report> files;
  std::vector<unmapped_gpu> unmapped;                       // by name
  std::map<std::string, std::vector<std::string>> assumed;  // provider -> the terms assumed ("increment 1h")
  std::size_t merged = 0;                                   // rows that repeated an offer
  std::size_t renamed = 0;                                  // offers that became id#k
};

struct import_result {
  std::vector<imported_offer> offers;  // in output order
  import_report report;
};

namespace detail::offer_import {

// One part of an id: '%', '/' and '#' escaped as in a URL, so that the parts can be told apart
// ("x/y" + "z" is not "x" + "y/z") and no name reads as another offer's `id#k`.
[[nodiscard]] inline std::string id_part(std::string_view name) {
  std::string out;
  for (char c : name) out += c == '%' ? "%25" : c == '/' ? "%2F" : c == '#' ? "%23" : std::string(1, c);
  return out;
}

[[nodiscard]] inline std::string offer_id(std::string_view provider, const catalog_row& row) {
  std::string id = id_part(provider) + "/" + id_part(row.region);
  if (!row.zone.empty()) id += "/" + id_part(row.zone);
  return id + "/" + id_part(row.instance);
}

[[nodiscard]] inline imported_offer make_offer(const catalog_file& f, std::size_t file, catalog_row row, catalog_format format,
                                               const terms_table& terms) {
  imported_offer o;
  o.provider = f.provider;
  o.id = offer_id(f.provider, row);
  gpu_mapping m = map_gpu(row.gpu_name, row.gpu_mib, row.instance);
  // An unmapped name is written so that no catalog name or alias reads as it ("H100" alone
  // would be read as the SXM model): the format, a colon, the name.
  o.gpu = m.model.empty() ? std::string(to_string(format)) + ":" + row.gpu_name : m.model;
  o.unmapped = std::move(m.why);
  if (m.model.empty() && row.gpu_mib && *row.gpu_mib >= 1024) o.vram_gib = *row.gpu_mib / 1024;
  o.price_raw = decimal<9>::parse(row.price)->raw();  // checked by the reader
  o.terms = terms.resolve(f.provider, row.instance);
  o.source = f.name + ":" + std::to_string(row.line) + " (" + std::string(to_string(format)) + ")";
  o.seen = f.seen;
  o.file = file;
  o.row = std::move(row);
  return o;
}

// What makes two offers the same offer (everything but where and when the row was read).
[[nodiscard]] inline auto identity(const imported_offer& o) {
  const catalog_row& r = o.row;
  return std::tie(o.id, r.mode, r.gpu_count, o.price_raw, r.vcpus, r.memory_gib, r.disk_gib, o.gpu, o.vram_gib);
}

[[nodiscard]] inline bool before(const imported_offer& a, const imported_offer& b) {
  const auto ka = identity(a), kb = identity(b);
  if (ka != kb) return ka < kb;
  return std::tie(a.file, a.row.line) < std::tie(b.file, b.row.line);
}

// Merges exact repeats (the first kept) and renames the others of an id and mode `id#k`.
inline void merge_and_name(std::vector<imported_offer>& offers, import_report& report) {
  std::ranges::sort(offers, before);
  std::vector<imported_offer> kept;
  for (imported_offer& o : offers) {
    if (!kept.empty() && identity(kept.back()) == identity(o)) {
      ++report.merged;
      continue;
    }
    kept.push_back(std::move(o));
  }
  std::vector<std::string> base;
  for (const imported_offer& o : kept) base.push_back(o.id);
  std::size_t k = 1;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    k = i > 0 && base[i - 1] == base[i] && kept[i - 1].row.mode == kept[i].row.mode ? k + 1 : 1;
    if (k == 1) continue;
    kept[i].id += "#" + std::to_string(k);
    ++report.renamed;
  }
  std::ranges::sort(kept, [](const imported_offer& a, const imported_offer& b) { return std::tie(a.id, a.row.mode) < std::tie(b.id, b.row.mode); });
  // Unique by construction: no id part holds '#' (id_part), so no `id#k` is another offer's id.
  for (std::size_t i = 1; i < kept.size(); ++i)
    GPURENT_ASSERT(std::tie(kept[i - 1].id, kept[i - 1].row.mode) != std::tie(kept[i].id, kept[i].row.mode));
  offers = std::move(kept);
}

// The report's unmapped GPU names and assumed terms.
inline void note_assumptions(const std::vector<imported_offer>& offers, import_report& report) {
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> unmapped;
  for (const imported_offer& o : offers) {
    if (!o.unmapped.empty()) ++unmapped[{o.row.gpu_name, o.gpu, o.unmapped}];
    std::vector<std::string>& list = report.assumed[o.provider];
    const auto note = [&](std::string what, const auto& term) {
      if (term && term->source.starts_with("unknown") && std::ranges::find(list, what) == list.end()) list.push_back(std::move(what));
    };
    note("increment " + format_duration(o.terms.increment->value), o.terms.increment);
    note("minimum " + format_duration(o.terms.minimum->value), o.terms.minimum);
    if (o.row.mode == offer_mode::spot) note("spot notice " + format_duration(o.terms.notice->value), o.terms.notice);
    if (o.row.mode == offer_mode::spot) note("interruptions_per_hour " + o.terms.interruptions->value, o.terms.interruptions);
    note(std::string("multi_node ") + (o.terms.multi_node->value ? "true" : "false"), o.terms.multi_node);
  }
  for (auto it = report.assumed.begin(); it != report.assumed.end();) it = it->second.empty() ? report.assumed.erase(it) : std::next(it);
  for (const auto& [key, n] : unmapped) report.unmapped.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), n});
}

[[nodiscard]] inline expected<catalog_rows> read(const catalog_file& f, catalog_format format) {
  if (f.provider.empty()) return unexpected(error{error_code::invalid_argument, "provider", "no provider named for the catalog", f.name});
  return format == catalog_format::gpuhunt ? read_gpuhunt_rows(f.text, f.name) : read_skypilot_rows(f.text, f.name);
}
}  // namespace detail::offer_import

// The offers of catalog files in one format, with their terms from `terms`. Errors name the
// file, the line and the column.
[[nodiscard]] inline expected<import_result> import_offers(std::span<const catalog_file> files, catalog_format format, const terms_table& terms) {
  import_result out;
  for (std::size_t i = 0; i < files.size(); ++i) {
    GPURENT_TRY(rows, detail::offer_import::read(files[i], format));
    out.report.files.push_back({files[i].name, rows->read, rows->rows.size(), rows->skipped});
    for (catalog_row& r : rows->rows) out.offers.push_back(detail::offer_import::make_offer(files[i], i, std::move(r), format, terms));
  }
  detail::offer_import::merge_and_name(out.offers, out.report);
  detail::offer_import::note_assumptions(out.offers, out.report);
  return out;
}

// One offer as the offers document writes it.
[[nodiscard]] inline nlohmann::ordered_json offer_import_json(const imported_offer& o) {
  const catalog_row& r = o.row;
  nlohmann::ordered_json j{{"id", o.id}, {"provider", o.provider}, {"region", r.region}};
  if (!r.zone.empty()) j["zone"] = r.zone;
  j["instance"] = r.instance;
  j["gpu"] = o.gpu;
  j["gpu_count"] = r.gpu_count;
  if (o.vram_gib) j["vram_gib"] = *o.vram_gib;
  if (r.vcpus > 0) j["vcpus"] = r.vcpus;
  if (r.memory_gib > 0) j["memory_gib"] = r.memory_gib;
  if (r.disk_gib) j["disk_gib"] = *r.disk_gib;
  j["unit"] = "server";
  j["mode"] = to_string(r.mode);
  if (o.terms.multi_node->value) j["multi_node"] = true;
  j["price"] = r.price;
  j["per"] = "1h";
  j["increment"] = format_duration(o.terms.increment->value);
  j["minimum"] = format_duration(o.terms.minimum->value);
  if (r.mode == offer_mode::spot)
    j["spot"] = nlohmann::ordered_json{{"notice", format_duration(o.terms.notice->value)}, {"interruptions_per_hour", o.terms.interruptions->value}};
  j["source"] = o.source;
  j["seen"] = format_instant(o.seen);
  j["terms_source"] = describe_terms(o.terms, r.mode == offer_mode::spot);
  return j;
}

// The offers document (USD: both catalogs price in US dollars per hour), as text.
[[nodiscard]] inline std::string offers_import_json(std::span<const imported_offer> offers) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const imported_offer& o : offers) list.push_back(offer_import_json(o));
  const nlohmann::ordered_json doc{{"currency", "USD"}, {"rounding", "half_even"}, {"offers", std::move(list)}};
  return doc.dump(2) + "\n";
}

namespace detail::offer_import {
[[nodiscard]] inline std::string count(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}
}  // namespace detail::offer_import

// What an import did, one line each: per file the rows read, the offers and the rows skipped;
// merged and renamed offers; GPU names left as they were; terms assumed per provider.
[[nodiscard]] inline std::vector<std::string> describe_import(const import_report& r, std::size_t offers) {
  using detail::offer_import::count;
  std::vector<std::string> lines;
  for (const file_report& f : r.files) {
    std::string s = f.file + ": " + count(f.rows, "row", "rows") + ", " + count(f.offers, "offer", "offers") + "; skipped " +
                    count(f.skipped.no_gpu, "row", "rows") + " without GPUs";
    if (f.skipped.no_price > 0) s += ", " + count(f.skipped.no_price, "row", "rows") + " without a price";
    if (f.skipped.no_instance > 0) s += ", " + count(f.skipped.no_instance, "row", "rows") + " without an instance type";
    if (f.skipped.fractional > 0) s += ", " + count(f.skipped.fractional, "row", "rows") + " with a fraction of a GPU";
    lines.push_back(std::move(s));
  }
  if (r.merged > 0) lines.push_back(count(r.merged, "row repeated an offer and was", "rows repeated an offer and were") + " merged into the first");
  if (r.renamed > 0)
    lines.push_back(count(r.renamed, "offer shares", "offers share") + " an id and a mode with a smaller or cheaper one: named id#2, id#3, ...");
  for (const unmapped_gpu& u : r.unmapped)
    lines.push_back("GPU \"" + u.name + "\" (" + count(u.offers, "offer", "offers") + ") written as \"" + u.written +
                    "\", not a catalog model: " + u.why + "; plan needs the offer's tflops (and vram_gib)");
  for (const auto& [provider, terms] : r.assumed) {
    std::string s = "provider \"" + provider + "\": terms no source states, assumed:";
    for (std::size_t i = 0; i < terms.size(); ++i) s += (i == 0 ? " " : ", ") + terms[i];
    lines.push_back(std::move(s));
  }
  lines.push_back(count(offers, "offer", "offers"));
  return lines;
}

}  // namespace gpurent::io
