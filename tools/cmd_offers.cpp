// SPDX-License-Identifier: MIT
// gpurent offers import: public offer catalogs (dstack's gpuhunt CSVs, SkyPilot's vms.csv) into
// the offers JSON `gpurent plan --offers` reads (docs/planning.md, docs/offers-import.md). The reading,
// mapping, terms and ids are the library's (io/plan/offer_import.hpp); this reads the files and
// writes the result.
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gpurent/io/plan/offer_import.hpp>
#include <gpurent/io/text/file.hpp>

#include "tool.hpp"

namespace gpurent::tool::offers {
namespace {

struct import_cli {
  std::string from;
  std::vector<std::string> files;
  std::string provider;
  std::string terms;
  std::string seen;
  std::string out;
};

// When a file was last written: the default time its prices were seen.
expected<instant> modified(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return unexpected(error{error_code::io_error, {}, "cannot read \"" + path + "\"", path});
  return instant{seconds{st.st_mtim.tv_sec}};
}

// The provider of a catalog file: --provider, else (gpuhunt's convention) its name without .csv.
expected<std::string> provider_of(const import_cli& o, io::catalog_format format, const std::string& path) {
  if (!o.provider.empty()) return o.provider;
  if (format == io::catalog_format::skypilot)
    return make_error(error_code::invalid_argument, "--provider",
                      "a SkyPilot vms.csv does not name its cloud: give --provider (aws, gcp, lambda, ...)");
  std::string name = std::filesystem::path(path).filename().string();
  if (name.size() > 4 && name.ends_with(".csv")) name.resize(name.size() - 4);
  return name;
}

// The terms: the built-in table, then --terms.
expected<io::terms_table> terms_of(const import_cli& o) {
  io::terms_table t = io::terms_table::builtin();
  if (o.terms.empty()) return t;
  GPURENT_TRY(text, io::read_file(o.terms));
  GPURENT_TRY(rules, io::read_terms_json(*text, o.terms));
  t.add(std::move(*rules));
  return t;
}

expected<io::import_result> run_import_files(const import_cli& o, io::catalog_format format, std::vector<std::string>& texts) {
  std::optional<instant> seen;
  if (!o.seen.empty()) {
    auto t = parse_instant(o.seen);
    if (!t) return unexpected(t.error().in_field("--seen"));
    seen = *t;
  }
  GPURENT_TRY(terms, terms_of(o));
  std::vector<io::catalog_file> files;
  for (const std::string& path : o.files) {
    GPURENT_TRY(text, io::read_file(path));
    texts.push_back(std::move(*text));
    GPURENT_TRY(provider, provider_of(o, format, path));
    GPURENT_TRY(when, seen ? expected<instant>(*seen) : modified(path));
    files.push_back({path, {}, std::move(*provider), *when});
  }
  for (std::size_t i = 0; i < files.size(); ++i) files[i].text = texts[i];
  return io::import_offers(files, format, *terms);
}

int run_import(const import_cli& o) {
  std::vector<file_option> inputs{{"--terms", o.terms}};
  add_file_options(inputs, "a catalog file", o.files);
  const std::vector<file_option> outputs{{"--out", o.out}};
  if (auto d = distinct_outputs(inputs, outputs); !d) return fail(d.error());
  auto format = parse_enum_field<io::catalog_format>(o.from, "--from");
  if (!format) return fail(format.error());
  std::vector<std::string> texts;
  texts.reserve(o.files.size());
  auto result = run_import_files(o, *format, texts);
  if (!result) return fail(result.error());
  const std::string json = io::offers_import_json(result->offers);
  if (o.out.empty()) {
    fmt::print("{}", json);
  } else if (auto w = write_file(o.out, json, "--out"); !w) {
    return fail(w.error());
  }
  for (const std::string& line : io::describe_import(result->report, result->offers.size())) fmt::print(stderr, "gpurent: offers import: {}\n", line);
  return exit_ok;
}

runner setup_offers(CLI::App& app) {
  auto* offers = app.add_subcommand("offers", "offer catalogs: import public catalogs (gpuhunt, SkyPilot) as the offers JSON that plan reads");
  offers->require_subcommand(1);
  auto o = std::make_shared<import_cli>();
  auto* cmd = offers->add_subcommand("import", "read gpuhunt CSVs or SkyPilot vms.csv files into offers JSON (docs/offers-import.md)");
  cmd->add_option("--from", o->from, "the catalogs' format: gpuhunt or skypilot")->required();
  cmd->add_option("files", o->files, "catalog CSV files (gpuhunt: the provider is the file name without .csv)")->required();
  cmd->add_option("--provider", o->provider, "the provider of every file (required for skypilot)");
  cmd->add_option("--terms", o->terms, "billing terms JSON (increment, minimum, spot notice, interruptions, multi_node, with sources)");
  cmd->add_option("--seen", o->seen, "when the prices were seen (RFC 3339); default: each file's modification time");
  cmd->add_option("--out", o->out, "write the offers JSON here instead of stdout");
  return [o, cmd]() -> int { return cmd->parsed() ? run_import(*o) : exit_invalid; };
}

}  // namespace
}  // namespace gpurent::tool::offers

GPURENT_TOOL_COMMAND("offers", &gpurent::tool::offers::setup_offers);
