// SPDX-License-Identifier: MIT
#pragma once
// What an invoice line is in the tariff's own terms, as the invoice's CSV and FOCUS both write
// it: the kind of unit its resource names (GPU, slice, server), its unit price, its quantity
// in the rate's time unit, and the decimal text of a quantity.

#include <cstdint>
#include <string>
#include <string_view>

#include <gpurent/core/decimal.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/metering/invoice.hpp>
#include <gpurent/tariff/amount.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent::io::billing_detail {

// An exact quantity as a decimal of 1 to 9 fractional digits (half-even), trailing zeros
// dropped but one: "1.5", "544.0", "0.000277778" (the validator reads a column of integers as
// not decimal).
[[nodiscard]] inline std::string quantity_text(const ratio<>& q) {
  std::string s = gpurent::detail::format_minor(q.round_to_digits(9, rounding_mode::half_even), 9);
  while (s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return s;
}

// What a resource name says about the GPU: its model, MIG profile and how it is shared.
struct gpu_facts {
  std::string model, mig_profile, sharing, unit;
};

[[nodiscard]] inline gpu_facts facts_of(std::string_view resource) {
  const auto slash = resource.find('/');
  const std::string_view rest = slash == std::string_view::npos ? std::string_view{} : resource.substr(slash + 1);
  switch (kind_of_resource(resource)) {
    case resource_kind::gpu: return {std::string(rest), "", "Exclusive", "GPU"};
    case resource_kind::fractional_share: return {std::string(rest), "", "Fractional", "GPU"};
    case resource_kind::compute_unit: return {std::string(rest), "", "Exclusive", "GPU"};
    case resource_kind::mig_slice: {
      const auto cut = rest.find('/');
      if (cut == std::string_view::npos) return {std::string(rest), "", "MIG", "Slice"};
      return {std::string(rest.substr(0, cut)), std::string(rest.substr(cut + 1)), "MIG", "Slice"};
    }
    case resource_kind::server: return {"", "", "Exclusive", "Server"};
    default: return {"", "", "", "Unit"};
  }
}

[[nodiscard]] inline std::string time_unit(std::int64_t per) {
  switch (per) {
    case 1: return "Seconds";
    case 60: return "Minutes";
    case 3600: return "Hours";
    case 86400: return "Days";
    default: return std::to_string(per) + "-Second-Blocks";
  }
}

// The pricing side of a line: unit price, quantity and unit in the tariff's terms.
struct pricing {
  std::string unit_price, quantity, unit, category;
  ratio<> quantity_exact{};
  std::int64_t per = 3600;
};

[[nodiscard]] inline pricing pricing_of(const invoice_line& l, const rate* r, const std::string& noun) {
  pricing p;
  const std::int64_t per = r != nullptr && r->kind == price_kind::unit ? r->per.count() : 3600;
  p.per = per;
  p.unit = noun + "-" + time_unit(per);
  // Quantity x billed seconds (increments and minimums included) in the rate's time unit.
  p.quantity_exact = ratio<>(gpurent::detail::to_int128(l.usage.raw()), int128(gpurent::detail::nano_one) * per);
  p.category = "Standard";
  if (r == nullptr) return p;
  if (r->mode == "spot" || (r->kind == price_kind::unit && !r->price.is_constant())) p.category = "Dynamic";
  if (r->mode == "reserved") p.category = "Committed";
  if (r->kind == price_kind::unit && r->price.is_constant() && r->price.base().raw() > 0) {
    // A compute-unit rate is priced per TFLOPS-hour as its tariff says, not per GPU-hour.
    const ratio<> unit_price(int128(r->price.base().raw()), int128(gpurent::detail::nano_one) * written_price_divisor(*r));
    if (!r->per_tflops.empty()) p.unit = "TFLOPS-Hours";
    p.unit_price = quantity_text(unit_price);
    p.quantity_exact = ratio<>(l.exact.num() * unit_price.den(), l.exact.den() * unit_price.num());
  }
  p.quantity = quantity_text(p.quantity_exact);
  return p;
}

// A label set's part of a line as a line of its own (its records, seconds and amounts), for
// the writers that print one row per label set.
[[nodiscard]] inline invoice_line label_part(const invoice_line& l, const invoice_label_share& s) {
  invoice_line part = l;
  part.labels.clear();
  part.records = s.records;
  part.billed_seconds = s.billed_seconds;
  part.used_seconds = s.used_seconds;
  part.usage = s.usage;
  part.used_usage = s.used_usage;
  part.exact = s.exact;
  part.amount = s.amount;
  return part;
}

}  // namespace gpurent::io::billing_detail
