// SPDX-License-Identifier: MIT
#pragma once
// The rows of public offer catalogs (docs/offers-import.md), read with the io layer's one CSV
// reader (csv_split.hpp: quoted fields, CRLF, a byte-order mark; columns found by name):
//
// - dstack's gpuhunt: `instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,
//   spot,disk_size` and, in later versions, `gpu_vendor,flags,cpu_arch,provider_data`; one row
//   per (instance, location, spot), `spot` True or False, memory in GB.
// - SkyPilot's vms.csv: `InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,
//   Price,SpotPrice,Region,AvailabilityZone` (GpuInfo, SpotPrice and AvailabilityZone may be
//   absent); a row with a Price is an on-demand offer, with a SpotPrice a spot offer.
//
// Prices stay the text of the file: a decimal with at most 9 fractional digits (the tariff's
// scale), or the row is an error naming file, line and column. Rows that cannot be an offer of
// whole GPUs (no GPU, no price, no instance, a fraction of a GPU) are counted, not read.

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/io/text/csv_split.hpp>
#include <gpurent/sharing/rental.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent::io {

// One offer of a catalog row, as the catalog states it.
struct catalog_row {
  std::string region;
  std::string zone;  // SkyPilot's AvailabilityZone
  std::string instance;
  std::string gpu_name;
  std::int32_t gpu_count = 0;
  std::optional<std::int64_t> gpu_mib;  // memory per GPU, when stated
  std::int64_t vcpus = 0;               // 0: not stated
  std::int64_t memory_gib = 0;          // 0: not stated
  std::optional<std::int64_t> disk_gib;
  offer_mode mode = offer_mode::on_demand;
  std::string price;  // per instance-hour, exactly as written
  std::size_t line = 0;
};

// Rows that are no offer of whole GPUs.
struct catalog_skips {
  std::size_t no_gpu = 0;       // CPU-only rows
  std::size_t no_price = 0;     // no price at all (neither on demand nor spot)
  std::size_t no_instance = 0;  // no instance type (SkyPilot lists GCP's attachable GPUs so, priced apart from a VM)
  std::size_t fractional = 0;   // a fraction of a GPU (AcceleratorCount 0.25)
};

struct catalog_rows {
  std::vector<catalog_row> rows;
  std::size_t read = 0;  // rows in the file
  catalog_skips skipped;
};

namespace detail::import_csv {

// A price: a decimal the tariff holds exactly (at most 9 fractional digits), not negative.
[[nodiscard]] inline expected<std::string> price(std::string_view text, std::string_view column) {
  auto d = decimal<9>::parse(text);
  if (!d) return unexpected(d.error().in_field(column));
  if (d->sign() < 0)
    return make_error(error_code::invalid_argument, std::string(column), "a price cannot be negative, got \"" + std::string(text) + "\"");
  if (auto held = parse_nano(text); !held) return unexpected(held.error().in_field(column));  // what an offer's price can hold
  return std::string(text);
}

// A number of the file ("192", "192.0", "1.69921875") as an exact decimal, not negative.
[[nodiscard]] inline expected<decimal<9>> number(std::string_view text, std::string_view column) {
  auto d = decimal<9>::parse(text);
  if (!d) return unexpected(d.error().in_field(column));
  if (d->sign() < 0) return make_error(error_code::invalid_argument, std::string(column), "must not be negative, got \"" + std::string(text) + "\"");
  return d;
}

// Whole units, rounded down (an offer never states more memory than the catalog); 0 when empty.
[[nodiscard]] inline expected<std::int64_t> whole(std::string_view text, std::string_view column, std::int64_t most = std::int64_t{1} << 40) {
  if (text.empty()) return std::int64_t{0};
  GPURENT_TRY(d, number(text, column));
  const int128 units = d->raw() / decimal<9>::one();
  if (units > most) return make_error(error_code::invalid_argument, std::string(column), "too large: \"" + std::string(text) + "\"");
  return units.convert_to<std::int64_t>();
}

// GB (gpuhunt's GiB) per GPU as MiB, rounded down.
[[nodiscard]] inline expected<std::optional<std::int64_t>> gib_as_mib(std::string_view text, std::string_view column) {
  if (text.empty()) return std::optional<std::int64_t>{};
  GPURENT_TRY(d, number(text, column));
  const int128 mib = d->raw() * 1024 / decimal<9>::one();
  if (mib > (int128(1) << 40)) return make_error(error_code::invalid_argument, std::string(column), "too large: \"" + std::string(text) + "\"");
  return std::optional<std::int64_t>(mib.convert_to<std::int64_t>());
}

// The GPU count: 0 (or empty) for none; a fraction is reported as -1.
[[nodiscard]] inline expected<std::int32_t> gpu_count(std::string_view text, std::string_view column) {
  if (text.empty()) return 0;
  GPURENT_TRY(d, number(text, column));
  if (d->raw() % decimal<9>::one() != 0) return -1;
  const int128 n = d->raw() / decimal<9>::one();
  if (n > 1024) return make_error(error_code::invalid_argument, std::string(column), "more than 1024 GPUs: \"" + std::string(text) + "\"");
  return static_cast<std::int32_t>(n.convert_to<std::int64_t>());
}

// gpuhunt's `spot`: True or False (Python's spelling; any case).
[[nodiscard]] inline expected<bool> spot(std::string_view text, std::string_view column) {
  std::string s(text);
  for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (s == "true") return true;
  if (s == "false") return false;
  return make_error(error_code::parse_error, std::string(column), "expected True or False, got \"" + std::string(text) + "\"");
}

// The memory per GPU in SkyPilot's GpuInfo (a Python dict written as text:
// "{'Gpus': [{... 'MemoryInfo': {'SizeInMiB': 81920}}], ...}"): the first SizeInMiB, none when
// the dict has no such key; a value that is not a whole number of MiB in 1..2^30 is an error.
[[nodiscard]] inline expected<std::optional<std::int64_t>> gpuinfo_mib(std::string_view info, std::string_view column) {
  const std::size_t at = info.find("SizeInMiB");
  if (at == std::string_view::npos) return std::optional<std::int64_t>{};
  std::size_t i = at + 9;
  while (i < info.size() && (info[i] == '\'' || info[i] == '"' || info[i] == ':' || info[i] == ' ')) ++i;
  std::int64_t v = 0;
  std::size_t digits = 0;
  for (; i < info.size() && info[i] >= '0' && info[i] <= '9' && digits < 11; ++i, ++digits) v = v * 10 + (info[i] - '0');
  const bool ended = i == info.size() || !(std::isalnum(static_cast<unsigned char>(info[i])) || info[i] == '.');
  if (digits == 0 || !ended || v < 1 || v > std::int64_t{1} << 30)
    return make_error(error_code::invalid_argument, std::string(column), "SizeInMiB is not a whole number of MiB between 1 and 2^30");
  return std::optional<std::int64_t>(v);
}

// Reads the table, counting its rows; each row goes to `row(values, line, out)`. A row is one
// line (the reader keeps a quoted field within its line), so the k-th row that is not blank is
// the k-th such line after the header.
template <class F>
[[nodiscard]] expected<catalog_rows> read_rows(std::string_view text, std::string_view file, std::span<const csv_column> columns,
                                               std::string_view want, F&& row) {
  std::vector<std::size_t> numbers;
  csv_lines lines(text);
  for (std::string_view l; lines.next(l);)
    if (lines.number() > 1 && !l.empty()) numbers.push_back(lines.number());
  catalog_rows out;
  auto r = read_csv_table(text, file, columns, want, [&](std::span<const std::string_view> v, std::span<const std::string_view>) -> expected<void> {
    const std::size_t line = out.read < numbers.size() ? numbers[out.read] : 0;
    ++out.read;
    return row(v, line, out);
  });
  if (!r) return unexpected(r.error());
  return out;
}

// A row's offers, spot or not, with their prices.
struct priced {
  offer_mode mode;
  std::string_view price;
  std::string_view column;
};

// Appends `base` once per price; counts the row when it has no GPU or no price.
[[nodiscard]] inline expected<void> add_offers(catalog_row base, std::span<const priced> prices, catalog_rows& out) {
  std::size_t n = 0;
  for (const priced& p : prices) {
    if (p.price.empty()) continue;
    GPURENT_TRY(text, price(p.price, p.column));
    catalog_row r = base;
    r.mode = p.mode;
    r.price = std::move(*text);
    out.rows.push_back(std::move(r));
    ++n;
  }
  if (n == 0) ++out.skipped.no_price;
  return {};
}

// True when the row is no offer of whole GPUs (and counts it).
[[nodiscard]] inline bool skip_gpu_count(std::int32_t count, catalog_rows& out) {
  if (count == 0) ++out.skipped.no_gpu;
  if (count < 0) ++out.skipped.fractional;
  return count <= 0;
}

// A row with GPUs must name them.
[[nodiscard]] inline expected<void> named_gpu(std::string_view name, std::int32_t count, std::string_view column) {
  if (!name.empty()) return {};
  return make_error(error_code::parse_error, std::string(column), "missing value: the row has " + std::to_string(count) + " GPUs and names none");
}
}  // namespace detail::import_csv

// The offers of a gpuhunt catalog CSV; `file` names it in errors ("aws.csv:7: field 'price': ...").
[[nodiscard]] inline expected<catalog_rows> read_gpuhunt_rows(std::string_view text, std::string_view file) {
  using namespace detail::import_csv;
  static const csv_column columns[] = {{{"instance_name"}},
                                       {{"location"}},
                                       {{"price"}},
                                       {{"cpu"}},
                                       {{"memory"}},
                                       {{"gpu_count"}},
                                       {{"gpu_name"}},
                                       {{"gpu_memory"}},
                                       {{"spot"}},
                                       {{"disk_size"}, true},
                                       {{"gpu_vendor"}, true},
                                       {{"flags"}, true},
                                       {{"cpu_arch"}, true},
                                       {{"provider_data"}, true}};
  const std::string_view want = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size";
  return read_rows(text, file, columns, want, [](std::span<const std::string_view> v, std::size_t line, catalog_rows& out) -> expected<void> {
    GPURENT_TRY(count, gpu_count(v[5], "gpu_count"));
    if (skip_gpu_count(*count, out)) return {};
    GPURENT_TRY(named_gpu(v[6], *count, "gpu_name"));
    catalog_row r;
    r.instance = std::string(v[0]);
    r.region = std::string(v[1]);
    r.gpu_count = *count;
    r.gpu_name = std::string(v[6]);
    r.line = line;
    GPURENT_TRY(vcpus, whole(v[3], "cpu", 1 << 20));
    GPURENT_TRY(memory, whole(v[4], "memory"));
    GPURENT_TRY(mib, gib_as_mib(v[7], "gpu_memory"));
    GPURENT_TRY(is_spot, spot(v[8], "spot"));
    r.vcpus = *vcpus;
    r.memory_gib = *memory;
    r.gpu_mib = *mib;
    if (!v[9].empty()) {
      GPURENT_TRY(disk, whole(v[9], "disk_size"));
      r.disk_gib = *disk;
    }
    if (r.instance.empty()) {
      ++out.skipped.no_instance;
      return {};
    }
    const priced p[] = {{*is_spot ? offer_mode::spot : offer_mode::on_demand, v[2], "price"}};
    return add_offers(std::move(r), p, out);
  });
}

// The offers of a SkyPilot vms.csv.
[[nodiscard]] inline expected<catalog_rows> read_skypilot_rows(std::string_view text, std::string_view file) {
  using namespace detail::import_csv;
  static const csv_column columns[] = {{{"InstanceType"}},
                                       {{"AcceleratorName"}},
                                       {{"AcceleratorCount"}},
                                       {{"vCPUs"}},
                                       {{"MemoryGiB"}},
                                       {{"GpuInfo", "GPUInfo"}, true},
                                       {{"Price"}},
                                       {{"SpotPrice"}, true},
                                       {{"Region"}},
                                       {{"AvailabilityZone"}, true}};
  const std::string_view want = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone";
  return read_rows(text, file, columns, want, [](std::span<const std::string_view> v, std::size_t line, catalog_rows& out) -> expected<void> {
    GPURENT_TRY(count, gpu_count(v[2], "AcceleratorCount"));
    if (skip_gpu_count(*count, out)) return {};
    GPURENT_TRY(named_gpu(v[1], *count, "AcceleratorName"));
    catalog_row r;
    r.instance = std::string(v[0]);
    r.gpu_name = std::string(v[1]);
    r.gpu_count = *count;
    r.region = std::string(v[8]);
    r.zone = std::string(v[9]);
    GPURENT_TRY(mib, gpuinfo_mib(v[5], "GpuInfo"));
    r.gpu_mib = *mib;
    r.line = line;
    GPURENT_TRY(vcpus, whole(v[3], "vCPUs", 1 << 20));
    GPURENT_TRY(memory, whole(v[4], "MemoryGiB"));
    r.vcpus = *vcpus;
    r.memory_gib = *memory;
    if (r.instance.empty()) {
      ++out.skipped.no_instance;
      return {};
    }
    const priced p[] = {{offer_mode::on_demand, v[6], "Price"}, {offer_mode::spot, v[7], "SpotPrice"}};
    return add_offers(std::move(r), p, out);
  });
}

}  // namespace gpurent::io
