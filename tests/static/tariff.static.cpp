// SPDX-License-Identifier: MIT
// Compile-time checks of the tariff and metering amounts: a price, a quantity, a usage and a
// cost numerator are distinct types that only compose where the dimensions make sense.
#include <chrono>
#include <concepts>
#include <cstdint>
#include <optional>
#include <type_traits>

#include <gpurent/metering/rating.hpp>
#include <gpurent/tariff/tariff.hpp>

namespace test_static_tariff {
using namespace gpurent;

template <class A, class B>
concept addable = requires(const A& a, const B& b) {
  a + b;
};
template <class A, class B>
concept subtractable = requires(const A& a, const B& b) {
  a - b;
};
template <class A, class B>
concept multipliable = requires(const A& a, const B& b) {
  a* b;
};
template <class A, class B>
concept comparable = requires(const A& a, const B& b) {
  a < b;
};
// A price applied to a usage gives a cost (checked: false on overflow).
template <class P, class U>
concept prices = requires(const P& p, const U& u, cost_numerator& out) {
  { mul_into(p, u, out) } -> std::same_as<bool>;
};
template <class A>
concept accumulates = requires(A& acc, const A& v) {
  { add_to(acc, v) } -> std::same_as<bool>;
};

// Like amounts add, subtract and compare; a price plus a quantity, cost plus price, usage
// plus quantity do not compile, and neither do amounts plus raw numbers.
static_assert(addable<nano_price, nano_price> && subtractable<nano_usage, nano_usage> && comparable<cost_numerator, cost_numerator>);
static_assert(!addable<nano_price, nano_quantity> && !addable<nano_quantity, nano_price>);
static_assert(!addable<cost_numerator, nano_price> && !addable<nano_price, cost_numerator>);
static_assert(!addable<nano_usage, nano_quantity> && !addable<nano_usage, price_seconds>);
static_assert(!addable<nano_money, nano_price> && !addable<nano_unit_hours, nano_quantity>);
static_assert(!addable<nano_price, std::int64_t> && !addable<cost_numerator, int> && !subtractable<nano_usage, int>);
static_assert(!comparable<nano_price, nano_money> && !comparable<nano_usage, nano_quantity> && !comparable<nano_price, int>);
static_assert(accumulates<cost_numerator> && accumulates<nano_usage>);

// The products that make sense, and their types.
static_assert(std::same_as<decltype(std::declval<nano_quantity>() * seconds{1}), nano_usage>);
static_assert(std::same_as<decltype(seconds{1} * std::declval<nano_quantity>()), nano_usage>);
static_assert(std::same_as<decltype(std::declval<nano_price>() * seconds{1}), price_seconds>);
static_assert(prices<nano_price, nano_usage> && prices<price_seconds, nano_quantity>);
// A usage where a price is wanted, a quantity where a usage is, a price times a price: no.
static_assert(!prices<nano_usage, nano_usage> && !prices<nano_usage, nano_price> && !prices<nano_quantity, nano_usage>);
static_assert(!prices<nano_price, nano_quantity> && !prices<nano_price, price_seconds> && !prices<nano_money, nano_usage>);
static_assert(!multipliable<nano_price, nano_price> && !multipliable<nano_price, nano_quantity> && !multipliable<nano_quantity, nano_quantity>);
static_assert(!multipliable<nano_usage, seconds> && !multipliable<cost_numerator, seconds> && !multipliable<nano_money, seconds>);

// Raw numbers become amounts only explicitly, floating point never; amounts never become
// numbers or each other implicitly.
static_assert(std::is_constructible_v<nano_price, std::int64_t> && !std::is_convertible_v<std::int64_t, nano_price>);
static_assert(!std::is_constructible_v<nano_price, double> && !std::is_constructible_v<nano_quantity, float>);
static_assert(!std::is_convertible_v<nano_price, std::int64_t> && !std::is_convertible_v<nano_usage, cost_numerator>);
static_assert(!std::is_constructible_v<nano_price, nano_money> && !std::is_assignable_v<nano_quantity&, nano_unit_hours>);
static_assert(!std::is_constructible_v<nano_usage, nano_quantity>);

// Only tariff::make builds a tariff, so every tariff has its currency and zone.
static_assert(!std::is_default_constructible_v<tariff>);
// The tariff and the meter take the typed values, not raw numbers.
static_assert(!std::is_constructible_v<price_schedule, std::int64_t> && std::is_constructible_v<price_schedule, nano_price>);
static_assert(!std::is_assignable_v<std::optional<nano_unit_hours>&, nano_quantity>);
static_assert(!std::is_assignable_v<decltype((std::declval<usage_record&>().quantity)), std::int64_t>);
template <class Q>
concept rates_quantity = requires(const rate& r, const interval& p, instant t, Q q, rated_usage& u) {
  rate_usage(r, p, t, t, q, u);
};
static_assert(rates_quantity<nano_quantity> && !rates_quantity<std::int64_t> && !rates_quantity<nano_usage>);
template <class U>
concept tier_costs = requires(const tier_table& t, U u, cost_numerator& c) {
  t.cost(u, c);
};
static_assert(tier_costs<nano_usage> && !tier_costs<nano_quantity> && !tier_costs<std::int64_t>);

// The one-unit usage of one hour, worked out at compile time.
static_assert(usage_of(nano_unit_hours(detail::nano_one)) == nano_quantity(detail::nano_one) * seconds{3600});
}  // namespace test_static_tariff
