// SPDX-License-Identifier: MIT
// Compute units as sold (a rate's `per_tflops`, docs/formats/billing.md "Compute units"): a
// price per TFLOPS-hour of the catalog model's dense throughput in a precision, billed per GPU
// exactly; written back as written; FOCUS prices it in TFLOPS-Hours and counts GPU-Hours
// consumed; its errors name the field.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/invoice_focus.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>
#include <gpurent/spec/catalog.hpp>

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_compute_units {

using namespace gpurent;

namespace {
expected<tariff> tariff_of(std::string_view rate) {
  return io::parse_tariff_json(R"({"currency":"USD","timezone":"UTC","rates":[)" + std::string(rate) + "]}", "t.json");
}
constexpr std::string_view h100_fp16 = R"({"resource":"compute/H100-SXM5-80GB","mode":"on_demand","unit_price":"0.0025","per_tflops":"fp16"})";

// Row `row` of a CSV text split into fields (quotes kept out; the rows here double none).
std::vector<std::string> fields_of(const std::string& csv, std::size_t row) {
  std::size_t at = 0;
  for (std::size_t k = 0; k < row; ++k) at = csv.find('\n', at) + 1;
  const std::string line = csv.substr(at, csv.find('\n', at) - at);
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}
}  // namespace

TEST_CASE("a price per TFLOPS-hour bills a GPU at its catalog throughput, exactly") {
  auto t = tariff_of(h100_fp16);
  if (!t) FAIL(t.error().describe());
  const gpu_model* h100 = find_model("H100-SXM5-80GB");
  REQUIRE(h100 != nullptr);
  REQUIRE(h100->throughput.fp16);
  const std::int64_t g = h100->throughput.fp16->value.count();  // GFLOPS
  auto m = meter::for_month(*t, "2026-11");
  REQUIRE(m);
  // 2 GPUs for 90 minutes: 2 x 1.5 h x g / 1000 TFLOPS x 0.0025.
  REQUIRE(io::meter_usage_csv(*m,
                              "id,account,resource,mode,quantity,start,end\n"
                              "c1,acme,compute/H100-SXM5-80GB,on_demand,2,2026-11-03T10:00:00Z,2026-11-03T11:30:00Z\n",
                              "u.csv"));
  auto inv = m->finish();
  REQUIRE(inv);
  const auto& l = inv->accounts.at(0).lines.at(0);
  CHECK(l.exact == ratio<>(int128(25) * 3 * g, int128(10000) * 1000));
  // Written back as written: the price per TFLOPS-hour and its precision.
  const nlohmann::json j = io::tariff_to_json(*t).value();
  CHECK(j["rates"][0]["unit_price"] == "0.0025");
  CHECK(j["rates"][0]["per_tflops"] == "fp16");
  auto again = io::parse_tariff_json(j.dump(), "again.json");
  REQUIRE(again);
  CHECK(again->rates() == t->rates());
  // FOCUS: priced in TFLOPS-Hours at the tariff's unit price, consumed in GPU-Hours.
  const std::string focus = io::write_invoice_focus(*inv, &*t);
  const auto header = fields_of(focus, 0), row = fields_of(focus, 1);
  const auto col = [&](std::string_view name) { return row.at(static_cast<std::size_t>(std::ranges::find(header, name) - header.begin())); };
  CHECK(col("PricingUnit") == "TFLOPS-Hours");
  CHECK(col("ListUnitPrice") == "0.0025");
  CHECK(col("ConsumedUnit") == "GPU-Hours");
  CHECK(col("ConsumedQuantity") == "3.0");
  CHECK(col("PricingQuantity") == io::billing_detail::quantity_text(ratio<>(int128(3) * g, int128(1000))));
}

TEST_CASE("compute-unit rate errors name the field") {
  const auto error_of = [](std::string_view rate) {
    auto t = tariff_of(rate);
    REQUIRE_FALSE(t);
    return t.error().describe();
  };
  CHECK(error_of(R"({"resource":"compute/H100-SXM5-80GB","mode":"m","unit_price":"1","per_tflops":"fp4"})").find("rates[0].per_tflops") !=
        std::string::npos);
  CHECK(error_of(R"({"resource":"compute/NoSuchGPU","mode":"m","unit_price":"1","per_tflops":"fp16"})").find("not a GPU model of the catalog") !=
        std::string::npos);
  CHECK(error_of(R"({"resource":"gpu/H100-SXM5-80GB","mode":"m","unit_price":"1","per_tflops":"fp16"})").find("compute/MODEL") != std::string::npos);
  CHECK(error_of(R"({"resource":"compute/H100-SXM5-80GB","mode":"m","unit_price":"1","per":"1min","per_tflops":"fp16"})").find("rates[0].per") !=
        std::string::npos);
  CHECK(
      error_of(
          R"({"resource":"compute/H100-SXM5-80GB","mode":"m","tiers":{"mode":"volume","steps":[{"up_to":null,"unit_price":"1"}]},"per_tflops":"fp16"})")
          .find("per_tflops") != std::string::npos);
}

}  // namespace test_metering_compute_units
