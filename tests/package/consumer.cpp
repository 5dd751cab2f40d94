// SPDX-License-Identifier: MIT
// A downstream program that only sees the installed package.
#include <chrono>
#include <cstdio>

#include <gpurent/gpurent.hpp>

int main() {
  using namespace gpurent;
  const auto p = price<currencies::USD>::parse("2.49", std::chrono::hours(1));
  if (!p) return 1;
  const auto amount = (*p * std::chrono::seconds(60)).round<round_half_even>();
  const auto zone = find_zone("America/New_York");
  if (!zone) return 2;
  const auto nov = month_period(*zone, date::year(2026) / date::November);
  fmt::print("60 s at {} = {}; November 2026 in New York lasts {} h\n", *p, amount,
             std::chrono::duration_cast<std::chrono::hours>(nov.length()).count());
  return amount.to_string() == "0.04" ? 0 : 3;
}
