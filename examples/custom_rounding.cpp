// SPDX-License-Identifier: MIT
// Plugging in a custom policy through its concept: a rounding rule that some billing
// systems use, "round half to odd" (ties go to the odd neighbour), written as a stateless
// type that models gpurent::RoundingPolicy. The library accepts it wherever a policy is
// asked for; a type that does not model the concept fails with one readable message.
#include <cstdio>

#include <gpurent/core/format.hpp>
#include <gpurent/core/money.hpp>

using namespace gpurent;
using namespace std::chrono_literals;

struct round_half_odd {
  static constexpr std::string_view name = "half_odd";
  template <CheckedInteger I>
  [[nodiscard]] static I divide(const I& num, const I& den) {
    const I q = num / den, r = num % den;
    if (r == 0) return q;
    const I twice = detail::abs(I(r * 2)), d = detail::abs(den);
    const bool neg = (num < 0) != (den < 0);
    const I away = neg ? I(q - 1) : I(q + 1);
    if (twice > d) return away;
    if (twice < d) return q;
    return q % 2 != 0 ? q : away;  // a tie: keep the odd one
  }
};
static_assert(RoundingPolicy<round_half_odd>);

int main() {
  const auto p = price<currencies::USD>::parse("0.09", 1h);  // 0.09 per hour
  if (!p) return 1;
  const auto exact = *p * 30min;  // 0.045: a tie at the cent
  const auto even = exact.round<round_half_even>();
  const auto odd = exact.round<round_half_odd>();
  fmt::print("30 min at {}: exact {} -> half_even {}, half_odd {}\n", *p, exact, even, odd);
  return even.to_string() == "0.04" && odd.to_string() == "0.05" ? 0 : 1;
}
