// SPDX-License-Identifier: MIT
// Compile-time checks: what must compile does, what must not compile does not.
#include <chrono>
#include <concepts>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <gpurent/core/core.hpp>

namespace {
using namespace gpurent;
using USD = currencies::USD;
using EUR = currencies::EUR;

template <class A, class B>
concept addable = requires(const A& a, const B& b) {
  a + b;
};
template <class A, class B>
concept multipliable = requires(const A& a, const B& b) {
  a* b;
};

// Money of one currency adds; of two currencies it does not compile.
static_assert(addable<money<USD>, money<USD>>);
static_assert(!addable<money<USD>, money<EUR>>);
// Money and durations never add; money and plain numbers neither.
static_assert(!addable<money<USD>, std::chrono::seconds>);
static_assert(!addable<std::chrono::seconds, money<USD>>);
static_assert(!addable<money<USD>, int>);
// price * duration is exact money; price * price and price + duration are not a thing.
static_assert(std::same_as<decltype(std::declval<price<USD>>() * std::chrono::seconds(1)), exact_money<USD>>);
static_assert(!multipliable<price<USD>, price<USD>>);
static_assert(!addable<price<USD>, std::chrono::seconds>);
static_assert(!addable<exact_money<USD>, exact_money<EUR>>);
// Quantities: bytes + bytes, never bytes + milli-GPU.
static_assert(addable<bytes, bytes>);
static_assert(!addable<bytes, milli_gpu>);
static_assert(!addable<gflops, mb_per_s>);
// No floating point becomes a decimal, and raw numbers need an explicit constructor.
static_assert(!std::is_constructible_v<decimal<2>, double>);
static_assert(!std::is_convertible_v<int, decimal<2>>);
static_assert(!std::is_convertible_v<long long, bytes>);
static_assert(std::is_constructible_v<decimal<2>, int>);
// A run-time amount is always told its currency: no default that would silently be USD.
static_assert(!std::is_default_constructible_v<money_value>);
static_assert(std::is_constructible_v<money_value, currency, int128>);
// Decimal products carry the sum of the scales.
static_assert(std::same_as<decltype(std::declval<decimal<2>>() * std::declval<decimal<3>>()), decimal<5>>);

// fleet run's clock: an instant plus a duration is an instant, two instants subtract to a
// duration; two instants do not add, and neither a plain number nor a calendar instant is one.
template <class A, class B>
concept subtractable = requires(const A& a, const B& b) {
  a - b;
};
static_assert(std::same_as<decltype(fleet_time{} + seconds{1}), fleet_time>);
static_assert(std::same_as<decltype(seconds{1} + fleet_time{}), fleet_time>);
static_assert(std::same_as<decltype(fleet_time{} - seconds{1}), fleet_time>);
static_assert(std::same_as<decltype(fleet_time{} - fleet_time{}), seconds>);
static_assert(!addable<fleet_time, fleet_time>);
static_assert(!addable<fleet_time, std::int64_t>);
static_assert(!subtractable<seconds, fleet_time>);
static_assert(!subtractable<fleet_time, instant>);
static_assert(!std::is_convertible_v<std::int64_t, fleet_time>);
static_assert(!std::is_convertible_v<seconds, fleet_time>);
static_assert(!std::is_convertible_v<instant, fleet_time>);
// Zero-cost: one int64, copied as one.
static_assert(sizeof(fleet_time) == sizeof(std::int64_t) && std::is_trivially_copyable_v<fleet_time>);
static_assert(fleet_time::at_second(100) - fleet_time::at_second(40) == seconds{60});
static_assert(fleet_time::at_second(40) + seconds{60} == fleet_time::at_second(100) && fleet_time{} < fleet_time::max());

// An archetype that models exactly RoundingPolicy, and types that do not.
struct rounding_archetype {
  static constexpr std::string_view name = "archetype";
  static int128 divide(const int128& a, const int128&) { return a; }
};
struct no_name {
  static int128 divide(const int128& a, const int128&) { return a; }
};
struct wrong_result {
  static constexpr std::string_view name = "x";
  static int divide(const int128&, const int128&) { return 0; }
};
static_assert(RoundingPolicy<rounding_archetype>);
static_assert(!RoundingPolicy<no_name>);
static_assert(!RoundingPolicy<wrong_result>);

struct overflow_archetype {
  static constexpr std::string_view name = "archetype";
  static void on_overflow(std::string_view) {}
};
static_assert(OverflowPolicy<overflow_archetype>);
static_assert(!OverflowPolicy<int>);
static_assert(CurrencyType<USD>);
static_assert(!CurrencyType<int>);

// The calendar types' cheap checks are constexpr.
static_assert(iso4217[static_cast<std::size_t>(currency_index("JPY"))].minor_units == 0);
static_assert(currency_index("XXX") == -1);
static_assert(interval().empty());
}  // namespace
