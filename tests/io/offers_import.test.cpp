// SPDX-License-Identifier: MIT
// `gpurent offers import` (io/offer_import*.hpp): gpuhunt and SkyPilot catalogs written here
// from their documented columns (gpuhunt's RawCatalogItem, SkyPilot's vms.csv schema), the GPU
// names mapped onto the catalog, the billing terms and their sources, ids and determinism, the
// offers document plan reads back, and a round trip import -> plan -> meter.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/tool.hpp"

#include <gpurent/core/currency.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/io/plan/offer_import.hpp>
#include <gpurent/io/plan/offers_json.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_io_offers_import {

namespace {
namespace fs = std::filesystem;
using namespace gpurent;
using namespace gpurent::io;

constexpr instant seen_at{std::chrono::sys_days{std::chrono::year{2026} / 12 / 6}};

// Every column of a gpuhunt catalog (later versions' four included): an 8 x H100 instance on
// demand and on spot, a CPU-only row, an A10G (no catalog model), and a quoted provider_data.
const std::string gpuhunt_all =
    "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags,cpu_arch,provider_data\n"
    "p5.48xlarge,us-east-1,98.32,192,2048.0,8,H100,80.0,False,30720.0,nvidia,,x86,{}\n"
    "p5.48xlarge,us-east-1,31.4625,192,2048.0,8,H100,80.0,True,30720.0,nvidia,,x86,{}\n"
    "c5.large,us-east-1,0.085,2,4.0,0,,,False,,,,x86,{}\n"
    "g5.xlarge,us-east-1,1.006,4,16.0,1,A10G,22.3515625,False,250.0,nvidia,some-flag,x86,\"{\"\"pod_counts\"\": [2, 4]}\"\n";

// The import of gpuhunt CSV texts named `names`, at seen_at, with the built-in terms.
import_result import_gpuhunt(const std::vector<std::pair<std::string, std::string>>& files, const terms_table& terms = terms_table::builtin()) {
  std::vector<catalog_file> cf;
  for (const auto& [name, text] : files) {
    std::string provider = fs::path(name).stem().string();
    cf.push_back({name, text, provider, seen_at});
  }
  auto r = import_offers(cf, catalog_format::gpuhunt, terms);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().describe()));
  return *r;
}

error import_error(catalog_format format, const std::string& name, const std::string& text) {
  const catalog_file f{name, text, "aws", seen_at};
  auto r = import_offers(std::span(&f, 1), format, terms_table::builtin());
  REQUIRE_FALSE(r);
  return r.error();
}

const imported_offer& find(const import_result& r, const std::string& id, offer_mode mode) {
  for (const imported_offer& o : r.offers)
    if (o.id == id && o.row.mode == mode) return o;
  FAIL("no offer " << id);
  return r.offers.front();
}
}  // namespace

TEST_CASE("gpuhunt: every column, a spot row, a CPU-only row and a GPU the catalog does not know") {
  const import_result r = import_gpuhunt({{"aws.csv", gpuhunt_all}});
  REQUIRE(r.offers.size() == 3);
  const imported_offer& od = find(r, "aws/us-east-1/p5.48xlarge", offer_mode::on_demand);
  CHECK(od.gpu == "H100-SXM5-80GB");  // H100, 80 GB, on an HGX (p5) instance
  CHECK(od.row.gpu_count == 8);
  CHECK(od.row.vcpus == 192);
  CHECK(od.row.memory_gib == 2048);
  CHECK(od.row.disk_gib == 30720);
  CHECK(od.row.price == "98.32");
  CHECK(od.source == "aws.csv:2 (gpuhunt)");
  CHECK(od.terms.increment->value == seconds(1));
  CHECK(od.terms.minimum->value == seconds(60));
  const imported_offer& spot = find(r, "aws/us-east-1/p5.48xlarge", offer_mode::spot);
  CHECK(spot.row.price == "31.4625");
  CHECK(spot.terms.notice->value == seconds(120));
  CHECK(spot.terms.interruptions->source.starts_with("unknown: assumed"));
  const imported_offer& a10g = find(r, "aws/us-east-1/g5.xlarge", offer_mode::on_demand);
  CHECK(a10g.gpu == "gpuhunt:A10G");  // opaque: no catalog name or alias reads as it
  CHECK(a10g.vram_gib == 22);         // 22.35 GB per GPU, rounded down
  CHECK(a10g.row.line == 5);
  REQUIRE(r.report.files.size() == 1);
  CHECK(r.report.files[0].rows == 4);
  CHECK(r.report.files[0].skipped.no_gpu == 1);
  REQUIRE(r.report.unmapped.size() == 1);
  CHECK(r.report.unmapped[0].name == "A10G");
  CHECK(r.report.unmapped[0].why == "no catalog model of that name");
}

TEST_CASE("gpuhunt: the optional columns may be absent, and the document states price, terms, source and seen") {
  const std::string minimal =
      "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"
      "gpu_8x_h100_sxm5,us-east-1,23.92,208,1800,8,H100,80,False\n";
  const import_result r = import_gpuhunt({{"lambdalabs.csv", minimal}});
  REQUIRE(r.offers.size() == 1);
  CHECK_FALSE(r.offers[0].row.disk_gib);
  const auto doc = nlohmann::json::parse(offers_import_json(r.offers));
  CHECK(doc["currency"] == "USD");
  const auto& o = doc["offers"][0];
  CHECK(o["id"] == "lambdalabs/us-east-1/gpu_8x_h100_sxm5");
  CHECK(o["gpu"] == "H100-SXM5-80GB");
  CHECK(o["unit"] == "server");
  CHECK(o["price"] == "23.92");
  CHECK(o["per"] == "1h");
  CHECK(o["increment"] == "1min");  // Lambda bills by the minute
  CHECK(o["seen"] == "2026-12-06T00:00:00Z");
  CHECK(o["source"] == "lambdalabs.csv:2 (gpuhunt)");
  CHECK(o["terms_source"].get<std::string>().find("https://docs.lambda.ai/public-cloud/billing (seen 2026-12-06)") != std::string::npos);
  CHECK_FALSE(o.contains("spot"));
  CHECK_FALSE(o.contains("vram_gib"));  // the catalog knows the model
  // plan reads it back: same price, the terms, where and when.
  auto cat = read_offers_json(offers_import_json(r.offers));
  REQUIRE_MESSAGE(cat, (cat ? "" : cat.error().describe()));
  const offer& back = (*cat)[0];
  CHECK(back.pricing.price.base() == nano_price(23'920'000'000));
  CHECK(back.pricing.time.increment() == seconds(60));
  CHECK(back.source == "lambdalabs.csv:2 (gpuhunt)");
  CHECK(back.seen == seen_at);
  CHECK(back.terms_source == o["terms_source"]);
}

TEST_CASE("gpuhunt: CRLF, a byte-order mark and quoted fields read as the plain file does") {
  std::string crlf;
  for (char c : gpuhunt_all) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const std::string quoted =
      "\"instance_name\",location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags,cpu_arch,provider_data\n"
      "\"p5.48xlarge\",\"us-east-1\",\"98.32\",192,2048.0,8,\"H100\",80.0,False,30720.0,nvidia,,x86,{}\n";
  const std::string plain = offers_import_json(import_gpuhunt({{"aws.csv", gpuhunt_all}}).offers);
  CHECK(offers_import_json(import_gpuhunt({{"aws.csv", crlf}}).offers) == plain);
  CHECK(offers_import_json(import_gpuhunt({{"aws.csv", "\xEF\xBB\xBF" + crlf}}).offers) == plain);
  const import_result q = import_gpuhunt({{"aws.csv", quoted}});
  REQUIRE(q.offers.size() == 1);
  CHECK(q.offers[0].row.price == "98.32");
  CHECK(q.offers[0].gpu == "H100-SXM5-80GB");
}

TEST_CASE("a price the tariff cannot hold exactly, and malformed rows, name the file, the line and the column") {
  const std::string head = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n";
  const std::string ok = "p5.48xlarge,us-east-1,98.32,192,2048,8,H100,80,False\n";
  struct bad_case {
    std::string row, where, field, says;
  };
  const bad_case cases[] = {
      {"p5.48xlarge,us-east-1,0.30000000000000004,192,2048,8,H100,80,False\n", "aws.csv:3", "price", "more than 9 fractional digits"},
      {"p5.48xlarge,us-east-1,-1.5,192,2048,8,H100,80,False\n", "aws.csv:3", "price", "cannot be negative"},
      {"p5.48xlarge,us-east-1,99999999999.999999999,192,2048,8,H100,80,False\n", "aws.csv:3", "price", "too large (at most 9223372036.854775807)"},
      {"p5.48xlarge,us-east-1,1e-05,192,2048,8,H100,80,False\n", "aws.csv:3", "price", "not a decimal number"},
      {"p5.48xlarge,us-east-1,98.32,192,2048,8,H100,80,maybe\n", "aws.csv:3", "spot", "True or False"},
      {"p5.48xlarge,us-east-1,98.32,192,2048,eight,H100,80,False\n", "aws.csv:3", "gpu_count", "not a decimal number"},
      {"p5.48xlarge,us-east-1,98.32,192,2048,8,,80,False\n", "aws.csv:3", "gpu_name", "names none"},
      {"p5.48xlarge,us-east-1,98.32,192,2048,8,H100,80\n", "aws.csv:3", "spot", "expected 9 fields, found 8"},
      {"p5.48xlarge,\"us-east-1,98.32,192\n", "aws.csv:3", "", "unterminated quoted field"},
  };
  for (const bad_case& c : cases) {
    CAPTURE(c.row);
    const error e = import_error(catalog_format::gpuhunt, "aws.csv", head + ok + c.row);
    CHECK(e.where == c.where);
    CHECK(e.field == c.field);
    CHECK(e.message.find(c.says) != std::string::npos);
  }
  const error missing = import_error(catalog_format::gpuhunt, "aws.csv", "instance_name,location,price\nx,y,1\n");
  CHECK(missing.where == "aws.csv:1");
  CHECK(missing.field == "cpu");
  CHECK(missing.message.find("missing column") != std::string::npos);
  const error unknown =
      import_error(catalog_format::gpuhunt, "aws.csv", "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,colour\n");
  CHECK(unknown.field == "colour");
}

TEST_CASE("SkyPilot vms.csv: Price and SpotPrice, zones, GpuInfo's memory, and rows that are no offer") {
  const std::string aws =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
      "p4d.24xlarge,A100,8.0,96.0,1152.0,\"{'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 40960}}], "
      "'TotalGpuMemoryInMiB': 327680}\",32.7726,9.8318,us-east-1,use1-az2\n"
      "p4d.24xlarge,A100,8.0,96.0,1152.0,,32.7726,,us-east-1,use1-az4\n"
      ",T4,1,,,,0.35,0.07,us-central1,us-central1-a\n"
      "m5.large,,,2.0,8.0,,0.096,0.035,us-east-1,use1-az2\n"
      "g4ad.xlarge,Radeon Pro V520,0.25,4.0,16.0,,0.379,,us-east-1,use1-az2\n"
      "p5.48xlarge,H100,8.0,192.0,2048.0,,,,us-east-1,use1-az2\n";
  const catalog_file f{"vms.csv", aws, "aws", seen_at};
  auto r = import_offers(std::span(&f, 1), catalog_format::skypilot, terms_table::builtin());
  REQUIRE_MESSAGE(r, (r ? "" : r.error().describe()));
  REQUIRE(r->offers.size() == 3);  // az2: on demand and spot; az4: on demand
  const imported_offer& spot = find(*r, "aws/us-east-1/use1-az2/p4d.24xlarge", offer_mode::spot);
  CHECK(spot.row.price == "9.8318");
  CHECK(spot.row.zone == "use1-az2");
  CHECK(spot.gpu == "A100-SXM4-40GB");                                                                   // 40960 MiB on a p4d (HGX) instance
  CHECK(find(*r, "aws/us-east-1/use1-az4/p4d.24xlarge", offer_mode::on_demand).gpu == "skypilot:A100");  // no memory: 40 or 80 GB
  const catalog_skips& s = r->report.files[0].skipped;
  CHECK(r->report.files[0].rows == 6);
  CHECK(s.no_instance == 1);  // GCP's attachable T4, priced apart from a VM
  CHECK(s.no_gpu == 1);
  CHECK(s.fractional == 1);
  CHECK(s.no_price == 1);
}

TEST_CASE("SkyPilot vms.csv: a GpuInfo whose SizeInMiB is no whole number of MiB names the file, the line and the column") {
  // A probe found these read as "memory not stated" (or, past 12 digits, as a wrong size).
  const std::string head = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n";
  const auto row = [](std::string_view size) {
    return "p4d.24xlarge,A100,8.0,96.0,1152.0,\"{'Gpus': [{'Name': 'A100', 'MemoryInfo': {'SizeInMiB': " + std::string(size) +
           "}}]}\",32.7726,,us-east-1,use1-az2\n";
  };
  for (const std::string_view size : {"99999999999999999999999", "abc", "0", "81920.5", "2e4", "1073741825", "''"}) {
    CAPTURE(size);
    const error e = import_error(catalog_format::skypilot, "vms.csv", head + row("40960") + row(size));
    CHECK(e.where == "vms.csv:3");
    CHECK(e.field == "GpuInfo");
    CHECK(e.message.find("SizeInMiB is not a whole number of MiB") != std::string::npos);
  }
  for (const std::string_view size : {"81920", "'81920'", "1073741824"}) {
    CAPTURE(size);
    const std::string text = head + row(size);
    const catalog_file f{"vms.csv", text, "aws", seen_at};
    const auto r = import_offers(std::span(&f, 1), catalog_format::skypilot, terms_table::builtin());
    CHECK_MESSAGE(r, (r ? "" : r.error().describe()));
  }
}

TEST_CASE("SkyPilot vms.csv in Lambda's column order, without AvailabilityZone; --provider names it") {
  const std::string lambda =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
      "gpu_8x_a100_80gb_sxm4,A100-80GB,8.0,240.0,1800.0,22.32,us-east-1,\"{'Gpus': [{'Name': 'A100-80GB', 'MemoryInfo': {'SizeInMiB': 81920}}]}\",\n"
      "gpu_1x_a100,A100,1.0,30.0,200.0,1.99,us-east-1,\"{'Gpus': [{'Name': 'A100', 'MemoryInfo': {'SizeInMiB': 40960}}]}\",\n"
      "gpu_1x_h100_pcie,H100,1.0,26.0,200.0,3.29,us-east-1,\"{'Gpus': [{'Name': 'H100', 'MemoryInfo': {'SizeInMiB': 81920}}]}\",\n";
  const catalog_file f{"vms.csv", lambda, "lambda", seen_at};
  auto r = import_offers(std::span(&f, 1), catalog_format::skypilot, terms_table::builtin());
  REQUIRE(r);
  REQUIRE(r->offers.size() == 3);
  CHECK(find(*r, "lambda/us-east-1/gpu_8x_a100_80gb_sxm4", offer_mode::on_demand).gpu == "A100-SXM4-80GB");
  CHECK(find(*r, "lambda/us-east-1/gpu_1x_h100_pcie", offer_mode::on_demand).gpu == "H100-PCIE-80GB");
  const imported_offer& a100 = find(*r, "lambda/us-east-1/gpu_1x_a100", offer_mode::on_demand);
  CHECK(a100.gpu == "skypilot:A100");  // SXM4 or PCIe: the name does not say
  CHECK(a100.unmapped.find("form factor") != std::string::npos);
  CHECK(a100.vram_gib == 40);
  const error e = import_error(catalog_format::skypilot, "vms.csv",
                               "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
                               "gpu_1x_a10,A10,1.0,30.0,200.0,1.2.9,us-east-1\n");
  CHECK(e.where == "vms.csv:2");
  CHECK(e.field == "Price");
}

TEST_CASE("GPU names onto the catalog: by family, memory and the form the instance name states") {
  struct map_case {
    std::string name;
    std::optional<std::int64_t> mib;
    std::string instance, model;
  };
  const map_case cases[] = {
      {"H100", 81559, "p5.48xlarge", "H100-SXM5-80GB"},
      {"H100", 81920, "gpu_1x_h100_pcie", "H100-PCIE-80GB"},
      {"H100", 81920, "NVIDIA H100 80GB HBM3", "H100-SXM5-80GB"},
      {"H100", 81920, "gpu_8x_h100", ""},
      {"H100NVL", 96256, "NVIDIA H100 NVL", "H100-NVL-94GB"},
      {"H100", 96256, "Standard_NC40ads_H100_v5", "H100-NVL-94GB"},
      {"A100", 40960, "a2-highgpu-1g", "A100-SXM4-40GB"},
      {"A100", 81920, "a2-ultragpu-1g", "A100-SXM4-80GB"},
      {"A100", 40960, "gpu_1x_a100_pcie", "A100-PCIE-40GB"},
      {"A100", 81920, "Standard_NC24ads_A100_v4", ""},
      {"A100-80GB", 81920, "gpu_8x_a100_80gb_sxm4", "A100-SXM4-80GB"},
      {"L40S", 45776, "g6e.xlarge", "L40S"},
      {"L4", 24576, "g6.xlarge", "L4"},
      {"T4", 15360, "g4dn.xlarge", "T4"},
      {"A10G", 22888, "g5.xlarge", ""},
      {"GH200", 98304, "gpu_1x_gh200", "GH200"},
      {"GH200", 147456, "gpu_1x_gh200", ""},        // GH200-144GB: no FP16 figure to plan with
      {"GH200", std::nullopt, "gpu_1x_gh200", ""},  // 96 or 144 GB
      {"H200", 144384, "p5en.48xlarge", "H200-SXM-141GB"},
      {"H200", 144384, "NVIDIA H200 NVL", "H200-NVL-141GB"},
      {"H200", 143771, "gpu_8x_h200", ""},  // SXM or NVL: the name does not say
      {"H200NVL", 143771, "gpu_8x_h200", "H200-NVL-141GB"},
      {"H200", 143771, "Standard_NC80adis_H200_pcie", "H200-NVL-141GB"},  // the one PCIe H200
      {"A100", 81920, "gpu_1x_a100_80gb_pcie", "A100-PCIE-80GB"},
      {"A100-80GB", 81920, "gpu_1x_a100_80gb_pcie", "A100-PCIE-80GB"},
      {"GB200", 189471, "p6e-gb200.36xlarge", "GB200-186GB"},
      {"B200", 184320, "gpu_1x_b200_sxm6", "B200-180GB"},
      {"MI300X", 196608, "Standard_ND96isr_MI300X_v5", "MI300X"},
      {"V100", 16384, "gpu_8x_v100", ""},
      {"tpu-v5p-8", std::nullopt, "", ""},
  };
  for (const map_case& c : cases) {
    CAPTURE(c.name);
    CAPTURE(c.instance);
    const gpu_mapping m = map_gpu(c.name, c.mib, c.instance);
    CHECK(m.model == c.model);
    CHECK(m.why.empty() == !c.model.empty());
  }
  CHECK(map_gpu("GH200", 122880, "x").why.find("120 GiB") != std::string::npos);
  CHECK(map_gpu("GH200", 147456, "x").why == "it is GH200-144GB, for which the catalog has no FP16 figure: give tflops");
  CHECK(map_gpu("GH200", std::nullopt, "x").why == "its memory is not stated: it could be GH200 or GH200-144GB");
  CHECK(map_gpu("H200", 143771, "gpu_8x_h200").why.find("form factor") != std::string::npos);
  // Every model of the table is a catalog model of the memory the table gives it.
  for (const auto& rule : gpurent::io::detail::gpu_import::rules) {
    CAPTURE(rule.model);
    const gpu_model* m = find_model(rule.model);
    REQUIRE(m != nullptr);
    CHECK(m->name == rule.model);
    REQUIRE(m->vram);
    CHECK(to_mib(m->vram->value) == rule.gib * 1024);
  }
}

TEST_CASE("GPU names with several catalog models: without the memory, never guessed") {
  // A probe found an H100 with no memory stated mapped to H100-NVL-94GB, silently: the form
  // left unstated ruled out the SXM and PCIe models instead of leaving them possible.
  const gpu_mapping h100 = map_gpu("H100", std::nullopt, "x");
  CHECK(h100.model.empty());
  CHECK(h100.why == "its memory is not stated: it could be H100-SXM5-80GB, H100-PCIE-80GB or H100-NVL-94GB");
  CHECK(map_gpu("H100", std::nullopt, "x_pcie").why == "its memory is not stated: it could be H100-PCIE-80GB or H100-NVL-94GB");
  CHECK(map_gpu("H100", std::nullopt, "p5.48xlarge").why == "its memory is not stated: it could be H100-SXM5-80GB or H100-NVL-94GB");
  CHECK(map_gpu("H100", std::nullopt, "gpu_1x_h100_nvl").model == "H100-NVL-94GB");  // the name says NVL: one model
  CHECK(map_gpu("V100", std::nullopt, "x").why == "its memory is not stated: it could be V100-SXM2-16GB or V100-SXM2-32GB");
  // Every name the table gives more than one model: with no memory, on an instance whose name
  // states no form, it maps to none and says which it could be.
  std::map<std::string_view, std::set<std::string_view>> models;
  for (const auto& rule : gpurent::io::detail::gpu_import::rules) models[rule.family].insert(rule.model);
  for (const auto& entry : models) {
    if (entry.second.size() < 2) continue;
    const std::string family(entry.first);
    CAPTURE(family);
    const gpu_mapping m = map_gpu(family, std::nullopt, "instance");
    CHECK(m.model.empty());
    for (std::string_view model : entry.second) CHECK(m.why.find(model) != std::string::npos);
  }
  // Both readers: set aside and reported, never written as a model.
  const import_result g = import_gpuhunt({{"aws.csv",
                                           "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"
                                           "x,r,1.0,1,1,1,H100,,False\n"}});
  REQUIRE(g.offers.size() == 1);
  CHECK(g.offers[0].gpu == "gpuhunt:H100");
  REQUIRE(g.report.unmapped.size() == 1);
  CHECK(g.report.unmapped[0].why.find("could be H100-SXM5-80GB") != std::string::npos);
  const std::string sky =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,Region\n"
      "x,H100,1,1,1,,1.0,r\n";
  const catalog_file f{"vms.csv", sky, "unknowncloud", seen_at};
  const auto s = import_offers(std::span(&f, 1), catalog_format::skypilot, terms_table::builtin());
  REQUIRE(s);
  REQUIRE(s->offers.size() == 1);
  CHECK(s->offers[0].gpu == "skypilot:H100");
  CHECK(s->report.unmapped.size() == 1);
}

TEST_CASE("SkyPilot vms.csv: a GpuInfo without SizeInMiB states no memory (SkyPilot's schema: human-readable text)") {
  // SkyPilot's catalog schema calls GpuInfo "the human readable information of the GPU (not used
  // in code)"; its GCP catalog writes the accelerator's name there ("tpu-v6e-1"), so any text
  // without SizeInMiB reads as the memory not stated, never as an error or a guess.
  const std::string head = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n";
  for (const std::string_view info : {"not json at all", "A100", "{'Gpus': []}"}) {
    CAPTURE(info);
    const std::string text = head + "p4d.24xlarge,A100,8.0,96,1152," + std::string(info) + ",32.7,,us-east-1,\n" + "g6.xlarge,L4,1.0,4,16," +
                             std::string(info) + ",0.8,,us-east-1,\n";
    const catalog_file f{"vms.csv", text, "aws", seen_at};
    const auto r = import_offers(std::span(&f, 1), catalog_format::skypilot, terms_table::builtin());
    REQUIRE_MESSAGE(r, (r ? "" : r.error().describe()));
    const imported_offer& a100 = find(*r, "aws/us-east-1/p4d.24xlarge", offer_mode::on_demand);
    CHECK_FALSE(a100.row.gpu_mib);
    CHECK(a100.gpu == "skypilot:A100");  // 40 or 80 GB: set aside and reported
    CHECK(a100.unmapped.find("memory is not stated") != std::string::npos);
    CHECK(find(*r, "aws/us-east-1/g6.xlarge", offer_mode::on_demand).gpu == "L4");  // one model of that name
  }
}

TEST_CASE("billing terms: built-in per provider, a terms file over them, assumptions stated") {
  const terms_table builtin = terms_table::builtin();
  const offer_terms oci_vm = builtin.resolve("oci", "VM.GPU.A10.1");
  const offer_terms oci_bm = builtin.resolve("oci", "BM.GPU.H100.8");
  CHECK(oci_vm.minimum->value == seconds(60));
  CHECK(oci_bm.minimum->value == seconds(3600));  // bare metal: a one-hour minimum
  CHECK(oci_bm.increment->value == seconds(1));
  const offer_terms unknown = builtin.resolve("acme", "x");
  CHECK(unknown.increment->value == seconds(3600));
  CHECK(unknown.increment->source.starts_with("unknown: assumed"));
  CHECK(describe_terms(unknown, true).find("spot notice 0s") != std::string::npos);
  CHECK(builtin.resolve("vast", "x") == builtin.resolve("vastai", "x"));
  const std::string file = R"({"terms": [
    {"provider": "aws", "instances": "p5", "multi_node": {"value": true, "source": "https://a", "seen": "2026-12-01"}},
    {"provider": "aws", "instances": "p5en", "interruptions_per_hour": {"value": "0.02", "source": "https://b", "seen": "2026-12-02"}},
    {"provider": "aws", "minimum": {"value": "2min", "source": "unknown: a guess for the test"}}]})";
  auto rules = read_terms_json(file, "terms.json");
  REQUIRE_MESSAGE(rules, (rules ? "" : rules.error().describe()));
  terms_table t = terms_table::builtin();
  t.add(std::move(*rules));
  const offer_terms p5en = t.resolve("aws", "p5en.48xlarge");
  CHECK(p5en.multi_node->value);
  CHECK(p5en.interruptions->value == "0.02");
  CHECK(p5en.minimum->value == seconds(120));
  CHECK(p5en.increment->value == seconds(1));  // the built-in term stays
  CHECK_FALSE(t.resolve("aws", "g5.xlarge").multi_node->value);
  const std::string terms = describe_terms(p5en, true);
  CHECK(terms.find("interruptions_per_hour 0.02: https://b (seen 2026-12-02)") != std::string::npos);
  CHECK(terms.find("minimum 2min: unknown: a guess for the test") != std::string::npos);
}

TEST_CASE("a terms file's errors name the file, the line and the field") {
  struct bad_case {
    std::string text, field, says;
  };
  const bad_case cases[] = {
      {R"({"terms": [{"provider": "aws", "minimum": {"value": "60s", "seen": "2026-12-06"}}]})", "terms[0].minimum.source", "missing required field"},
      {R"({"terms": [{"provider": "aws", "minimum": {"value": "1 minute", "source": "x", "seen": "2026-12-06"}}]})", "terms[0].minimum.value",
       "not a duration"},
      {R"({"terms": [{"provider": "aws", "minimum": {"value": "60s", "source": "x", "seen": "6/12/2026"}}]})", "terms[0].minimum.seen",
       "expected a day"},
      {R"({"terms": [{"provider": "aws", "colour": 1}]})", "terms[0].colour", "unknown field"},
      {R"({"terms": [{"provider": "aws", "interruptions_per_hour": {"value": "12", "source": "x", "seen": "2026-12-06"}}]})",
       "terms[0].interruptions_per_hour.value", "[0, 10)"},
      {"{\"terms\": [\n{\"instances\": \"p5\"}]}", "terms[0].provider", "missing required field"},
  };
  for (const bad_case& c : cases) {
    CAPTURE(c.text);
    auto r = read_terms_json(c.text, "terms.json");
    REQUIRE_FALSE(r);
    CHECK(r.error().field == c.field);
    CHECK(r.error().where.starts_with("terms.json:"));
    CHECK(r.error().message.find(c.says) != std::string::npos);
  }
}

TEST_CASE("ids: exact repeats merge into the first, offers sharing an id become id#k, the output is the same in any row order") {
  const std::string head = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n";
  const std::vector<std::string> rows = {
      "NVIDIA L4,US-KS-2,1.64,8,117,1,L4,24,False\n", "NVIDIA L4,US-KS-2,3.28,16,234,2,L4,24,False\n", "NVIDIA L4,US-KS-2,1.64,8,117,1,L4,24,False\n",
      "NVIDIA L4,US-KS-2,0.82,8,117,1,L4,24,True\n",  "NVIDIA L4,US-KS-2,1.64,8,117,1,L4,24,True\n",
  };
  std::string forward = head, backward = head;
  for (const std::string& row : rows) forward += row;
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) backward += *it;
  const import_result f = import_gpuhunt({{"runpod.csv", forward}});
  CHECK(f.report.merged == 1);
  CHECK(f.report.renamed == 2);  // the 2-GPU on-demand offer, the dearer spot one
  std::vector<std::string> ids;
  for (const imported_offer& o : f.offers) ids.push_back(o.id + " " + std::string(to_string(o.row.mode)));
  CHECK(ids == std::vector<std::string>{"runpod/US-KS-2/NVIDIA L4 on_demand", "runpod/US-KS-2/NVIDIA L4 spot", "runpod/US-KS-2/NVIDIA L4#2 on_demand",
                                        "runpod/US-KS-2/NVIDIA L4#2 spot"});
  CHECK(find(f, "runpod/US-KS-2/NVIDIA L4#2", offer_mode::on_demand).row.gpu_count == 2);
  CHECK(find(f, "runpod/US-KS-2/NVIDIA L4", offer_mode::spot).row.price == "0.82");
  const std::string once = offers_import_json(f.offers);
  CHECK(offers_import_json(import_gpuhunt({{"runpod.csv", forward}}).offers) == once);
  // Rows in the other order: the same offers, ids and order (their sources name other lines).
  auto without_sources = [](const std::string& text) {
    auto j = nlohmann::json::parse(text);
    for (auto& o : j["offers"]) o.erase("source");
    return j;
  };
  CHECK(without_sources(offers_import_json(import_gpuhunt({{"runpod.csv", backward}}).offers)) == without_sources(once));
  CHECK(read_offers_json(once));
}

TEST_CASE("ids: '/', '#' and '%' in a name are escaped, so two rows never share an id by accident and id#k is never a row's id") {
  // A probe found instance "p#2" given the id the second "p" offer was renamed to, and location
  // "x/y" + instance "z" sharing an id with location "x" + instance "y/z" (one renamed #2).
  const import_result r = import_gpuhunt({{"aws.csv",
                                           "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"
                                           "p,r,1.0,1,1,1,L4,24,False\n"
                                           "p,r,2.0,1,1,1,L4,24,False\n"
                                           "p#2,r,3.0,1,1,1,L4,24,False\n"
                                           "z,x/y,1.0,1,1,1,L4,24,False\n"
                                           "y/z,x,1.0,1,1,1,L4,24,False\n"
                                           "100%,r,1.0,1,1,1,L4,24,False\n"
                                           "100%25,r,1.0,1,1,1,L4,24,False\n"}});
  std::vector<std::string> ids;
  for (const imported_offer& o : r.offers) ids.push_back(o.id);
  std::ranges::sort(ids);
  CHECK(ids == std::vector<std::string>{"aws/r/100%25", "aws/r/100%2525", "aws/r/p", "aws/r/p#2", "aws/r/p%232", "aws/x%2Fy/z", "aws/x/y%2Fz"});
  CHECK(r.report.renamed == 1);  // only the dearer "p"
  CHECK(find(r, "aws/r/p%232", offer_mode::on_demand).row.instance == "p#2");
  CHECK(find(r, "aws/r/p#2", offer_mode::on_demand).row.price == "2.0");
  CHECK(find(r, "aws/x%2Fy/z", offer_mode::on_demand).row.region == "x/y");
  auto cat = read_offers_json(offers_import_json(r.offers));
  CHECK_MESSAGE(cat, (cat ? "" : cat.error().describe()));
  // A zone is a part of its own: region "a/b" without a zone is not region "a", zone "b".
  const std::string sky =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,AvailabilityZone\n"
      "i,L4,1,1,1,1.0,a/b,\n"
      "i,L4,1,1,1,1.0,a,b\n";
  const catalog_file f{"vms.csv", sky, "aws", seen_at};
  const auto s = import_offers(std::span(&f, 1), catalog_format::skypilot, terms_table::builtin());
  REQUIRE(s);
  REQUIRE(s->offers.size() == 2);
  CHECK(s->offers[0].id == "aws/a%2Fb/i");
  CHECK(s->offers[1].id == "aws/a/b/i");
  CHECK(s->report.renamed == 0);
}

TEST_CASE("the shipped example catalog imports to examples/plan/sourced-offers.json") {
  const fs::path root = GPURENT_SOURCE_DIR;
  std::vector<std::string> texts;
  std::vector<catalog_file> files;
  for (const char* name : {"aws.csv", "lambdalabs.csv"}) {
    texts.push_back(gpurent::test::slurp(root / "examples/plan/catalog" / name));
    files.push_back({std::string("examples/plan/catalog/") + name, {}, fs::path(name).stem().string(), seen_at});
  }
  for (std::size_t i = 0; i < files.size(); ++i) files[i].text = texts[i];
  auto rules = read_terms_json(gpurent::test::slurp(root / "examples/plan/catalog/terms.json"), "terms.json");
  REQUIRE(rules);
  terms_table terms = terms_table::builtin();
  terms.add(std::move(*rules));
  auto r = import_offers(files, catalog_format::gpuhunt, terms);
  REQUIRE(r);
  CHECK(r->report.unmapped.empty());  // every shape maps: plan can run on it
  const std::string json = offers_import_json(r->offers);
  CHECK(json == gpurent::test::slurp(root / "examples/plan/sourced-offers.json"));
  auto cat = read_offers_json(json);
  REQUIRE_MESSAGE(cat, (cat ? "" : cat.error().describe()));
  CHECK(cat->size() == 10);
}

TEST_CASE("gpurent offers import, then plan and meter: the invoice totals the plan's billed total") {
  const fs::path d = gpurent::test::scratch_dir("offers-import");
  gpurent::test::write_file(d / "lambdalabs.csv",
                            "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size\n"
                            "gpu_8x_h100_sxm5,us-east-1,23.92,208,1800.0,8,H100,80.0,False,24780.0\n"
                            "gpu_1x_h100_sxm5,us-east-1,3.29,26,225.0,1,H100,80.0,False,2750.0\n"
                            "gpu_1x_a10,us-east-1,0.75,30,200.0,1,A10,24.0,False,1400.0\n"
                            "cpu_4x_general,us-east-1,0.2,4,16.0,0,,,False,\n");
  gpurent::test::write_file(d / "w.json", R"({"period": "2026-11", "timezone": "UTC", "account": "acme", "jobs": [
    {"name": "train", "kind": "training", "reference_gpu": "H100-SXM5-80GB", "gpu_hours": "64", "memory_gib": 60, "max_gpus": 8, "deadline": "2d"},
    {"name": "sweep", "kind": "experiments", "runs": 10, "run_duration": "12min", "gpus_per_run": 1, "memory_gib": 20, "deadline": "4h"},
    {"name": "api", "kind": "service", "duration": "72h", "replicas": 1, "gpu_share": "0.5", "memory_gib": 16}]})");
  const auto q = [&](const char* f) { return "'" + (d / f).string() + "'"; };
  const auto imp =
      gpurent::test::run_tool("offers import --from gpuhunt " + q("lambdalabs.csv") + " --seen 2026-11-01T00:00:00Z --out " + q("offers.json"));
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  CHECK(imp.out.empty());
  CHECK(imp.err.find("4 rows, 3 offers; skipped 1 row without GPUs") != std::string::npos);
  const auto p = gpurent::test::run_tool("plan --workload " + q("w.json") + " --offers " + q("offers.json") + " --emit-usage " + q("u.csv") +
                                         " --emit-tariff " + q("t.json"));
  REQUIRE_MESSAGE(p.status == 0, p.err);
  const auto plan = nlohmann::json::parse(p.out);
  for (const auto& j : plan["jobs"]) CHECK(j["offer"].get<std::string>().starts_with("lambdalabs/us-east-1/"));
  const auto m = gpurent::test::run_tool("meter --tariff " + q("t.json") + " --usage " + q("u.csv") + " --period 2026-11");
  REQUIRE_MESSAGE(m.status == 0, m.err);
  const auto invoice = nlohmann::json::parse(m.out);
  const currency usd{"USD", 2};
  money_value total(usd, 0);
  for (const auto& a : invoice["accounts"]) total += *money_value::parse(usd, a["total"].get<std::string>());
  CHECK(total.to_string() == plan["billed_total"].get<std::string>());
  CHECK(plan["billed_total"].get<std::string>() != "0.00");
}

TEST_CASE("gpurent offers import: exit 2 for bad input (nothing on stdout), 4 for an output not written") {
  const fs::path d = gpurent::test::scratch_dir("offers-import-bad");
  gpurent::test::write_file(d / "aws.csv",
                            "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"
                            "p5.48xlarge,us-east-1,98.32,192,2048,8,H100,80,False\n"
                            "p5.48xlarge,us-east-1,98.320000000001,192,2048,8,H100,80,True\n");
  gpurent::test::write_file(d / "ok.csv",
                            "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"
                            "p5.48xlarge,us-east-1,98.32,192,2048,8,H100,80,False\n");
  const auto in = [&](const std::string& args) { return gpurent::test::run_tool(args, {}, d); };
  const auto price = in("offers import --from gpuhunt aws.csv");
  CHECK(price.status == 2);
  CHECK(price.out.empty());
  CHECK(price.err.find("aws.csv:3: field 'price'") != std::string::npos);
  CHECK(in("offers import --from gpuhunt ok.csv --out no-such-dir/offers.json").status == 4);
  const auto provider = in("offers import --from skypilot ok.csv");
  CHECK(provider.status == 2);
  CHECK(provider.err.find("--provider") != std::string::npos);
  CHECK(in("offers import --from csv ok.csv").status == 2);
  CHECK(in("offers import --from gpuhunt ok.csv --seen yesterday").status == 2);
  CHECK(in("offers import --from gpuhunt missing.csv").status == 2);
  // The default time seen: the file's modification time.
  const auto mtime = in("offers import --from gpuhunt ok.csv");
  REQUIRE(mtime.status == 0);
  CHECK(nlohmann::json::parse(mtime.out)["offers"][0]["seen"].get<std::string>().ends_with("Z"));
}

}  // namespace test_io_offers_import
