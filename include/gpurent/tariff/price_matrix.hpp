// SPDX-License-Identifier: MIT
#pragma once
// A price matrix: unit prices by (GPU model, region, mode), as rental catalogs publish them,
// turned into tariff rates named "gpu/<model>/<region>".

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <gpurent/core/error.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

class price_matrix {
 public:
  using key = std::tuple<std::string, std::string, std::string>;  // model, region, mode

  // Adds a cell; a second price for the same cell is an error.
  [[nodiscard]] expected<void> set(std::string model, std::string region, std::string mode, nano_price unit_price) {
    if (unit_price < nano_price{0}) return make_error(error_code::invalid_argument, "unit_price", "a price must not be negative");
    key k{std::move(model), std::move(region), std::move(mode)};
    if (!cells_.emplace(k, unit_price).second) {
      return make_error(error_code::duplicate, "price_matrix",
                        "two prices for (" + std::get<0>(k) + ", " + std::get<1>(k) + ", " + std::get<2>(k) + ")");
    }
    return {};
  }
  [[nodiscard]] expected<nano_price> find(std::string_view model, std::string_view region, std::string_view mode) const {
    auto it = cells_.find(key{std::string(model), std::string(region), std::string(mode)});
    if (it == cells_.end()) {
      return make_error(
          error_code::unknown_name, "price_matrix",
          "no price for model \"" + std::string(model) + "\" in region \"" + std::string(region) + "\", mode \"" + std::string(mode) + "\"");
    }
    return it->second;
  }
  [[nodiscard]] std::size_t size() const noexcept { return cells_.size(); }
  // One rate per cell, all with the same time rule and `per`.
  [[nodiscard]] std::vector<rate> rates(billing_rule time, seconds per = seconds{3600}) const {
    std::vector<rate> out;
    for (const auto& [k, p] : cells_) {
      rate r;
      r.resource = "gpu/" + std::get<0>(k) + "/" + std::get<1>(k);
      r.mode = std::get<2>(k);
      r.per = per;
      r.time = time;
      r.price = price_schedule(p);
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  std::map<key, nano_price> cells_;
};

}  // namespace gpurent
