// SPDX-License-Identifier: MIT
#pragma once
// Hostile but valid usage files (issue 32), for the fast paths' slow twins (threads in
// parallel_quoting.test.cpp, ranks in rounds.test.cpp): RFC 4180 quoting of any field, at
// random where it need not be (quotes doubled inside, commas inside), CRLF or LF line ends, a
// UTF-8 byte-order mark, blank lines, non-ASCII names, fields of thousands of bytes, identical
// repeats of earlier lines, a label column and a `labels` column of key=value pairs (labels
// travel with every record through shards, ranks and partials); and the tariff they are rated
// under.
#include <cstddef>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace gpurent::test {

inline const char* const hostile_tariff = R"({
  "currency": "EUR", "timezone": "Europe/Berlin",
  "rates": [
    { "resource": "gpu/H100", "mode": "on_demand", "unit_price": "2.49", "per": "1h", "increment": "60s", "minimum": "60s" },
    { "resource": "gpu/H100", "mode": "spot", "unit_price": "1.10", "per": "1h", "increment": "1s",
      "price_changes": [ { "from": "2026-11-10T06:00:00Z", "unit_price": "0.87" } ] },
    { "resource": "mig/3g, \"half\"", "mode": "on_demand", "per": "1h", "increment": "15min",
      "tiers": { "mode": "graduated", "steps": [ { "up_to": "10", "unit_price": "1.20" }, { "up_to": null, "unit_price": "0.95" } ] } }
  ],
  "credits": [ { "account": "acme, \"inc\"", "amount": "25.00" } ]
})";

// A field as CSV: quoted when it must be, and at random when it need not be (the case the
// old parallel path lost).
inline std::string hostile_field(std::mt19937_64& rng, const std::string& v) {
  const bool must = v.find_first_of(",\"\r\n") != std::string::npos;
  if (!must && rng() % 3 != 0) return v;
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

struct hostile_file {
  std::string text;
  std::size_t records = 0;
};

// One usage file: a label column, random quoting, CRLF or LF, maybe a BOM, blank lines,
// long and non-ASCII ids and accounts, identical repeats of earlier records.
inline hostile_file hostile_usage(std::mt19937_64& rng, int rows, const std::string& tag) {
  const std::vector<std::string> accounts = {"acme, \"inc\"", "beta", "zeta gmbh", "\xc3\xa9quipe-\xe2\x82\xac", std::string(700, 'a') + "-long"};
  const std::vector<std::pair<std::string, std::string>> rates = {{"gpu/H100", "on_demand"}, {"gpu/H100", "spot"}, {"mig/3g, \"half\"", "on_demand"}};
  const std::string eol = rng() % 2 ? "\r\n" : "\n";
  hostile_file f;
  if (rng() % 2) f.text += "\xEF\xBB\xBF";
  f.text += hostile_field(rng, "id") + ",account,resource,mode,quantity,start,end," + hostile_field(rng, "project") + ",labels" + eol;
  std::vector<std::string> kept;
  for (int i = 0; i < rows; ++i) {
    if (!kept.empty() && rng() % 10 == 0) {  // an identical repeat of an earlier line
      f.text += kept[rng() % kept.size()];
      ++f.records;
      continue;
    }
    std::string id = tag + "-" + std::to_string(i) + (rng() % 4 == 0 ? ",\"q\"" : "");
    if (rng() % 25 == 0) id += std::string(3000 + rng() % 2000, 'x');
    const auto& [resource, mode] = rates[rng() % rates.size()];
    const int day = 1 + static_cast<int>(rng() % 28);
    const std::string start = "2026-11-" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "T0" + std::to_string(rng() % 10) + ":00:00Z";
    const std::string end = "2026-11-" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "T1" + std::to_string(rng() % 10) + ":30:00Z";
    const std::string project = rng() % 30 == 0 ? std::string(5000, 'p') : rng() % 5 == 0 ? "" : "proj " + std::to_string(rng() % 4);
    const std::vector<std::string> label_cells = {"", "team=cv", "team=cv|env=prod", "env=dev, \"eu\"|team=\xc3\xa9quipe",
                                                  "job.id=" + std::to_string(rng() % 3)};
    const std::string& labels = label_cells[rng() % label_cells.size()];
    const std::string line = hostile_field(rng, id) + "," + hostile_field(rng, accounts[rng() % accounts.size()]) + "," +
                             hostile_field(rng, resource) + "," + hostile_field(rng, mode) + "," + hostile_field(rng, std::to_string(1 + rng() % 8)) +
                             "," + hostile_field(rng, start) + "," + hostile_field(rng, end) + "," + hostile_field(rng, project) + "," +
                             hostile_field(rng, labels) + eol;
    f.text += line;
    kept.push_back(line);
    ++f.records;
    if (rng() % 40 == 0) f.text += eol;  // a blank line is no record
  }
  return f;
}

}  // namespace gpurent::test
