// SPDX-License-Identifier: MIT
#pragma once
// One table per public enum gives it its name, its parsing, the list of its names for
// messages and (core/format.hpp) its fmt formatter. The table is the only place an enum's
// names are written: to name an enum, specialize `enum_names` next to the enum,
//
//   template <> struct enum_names<offer_mode> {
//     static constexpr enum_entry<offer_mode> entries[] = {
//         {offer_mode::on_demand, "on_demand"}, {offer_mode::spot, "spot"}, ...};
//   };
//
// and every generic function below works for it (`parse_enum_field`, which reports a bad
// name as an error, is in core/error.hpp). The customization point is this trait,
// checked by the `NamedEnum` concept (one mechanism, STYLE.md rule 6).

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace gpurent {

template <class E>
struct enum_entry {
  E value;
  std::string_view name;
};

// Specialized for each named enum with `static constexpr enum_entry<E> entries[]`.
template <class E>
struct enum_names;

template <class E>
concept NamedEnum = std::is_enum_v<E> && requires {
  { std::size(enum_names<E>::entries) } -> std::convertible_to<std::size_t>;
  { enum_names<E>::entries[0].value } -> std::convertible_to<E>;
  { enum_names<E>::entries[0].name } -> std::convertible_to<std::string_view>;
};

// The value's name; "?" for a value outside the table (a cast from a bad integer).
template <NamedEnum E>
[[nodiscard]] constexpr std::string_view to_string(E e) noexcept {
  for (const auto& entry : enum_names<E>::entries) {
    if (entry.value == e) return entry.name;
  }
  return "?";
}

// The value of a name, exactly as written in the table (case-sensitive).
template <NamedEnum E>
[[nodiscard]] constexpr std::optional<E> parse_enum(std::string_view name) noexcept {
  for (const auto& entry : enum_names<E>::entries) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// Every name, for messages: "server, gpu, mig_slice or fraction".
template <NamedEnum E>
[[nodiscard]] std::string enum_choices() {
  std::string s;
  const std::size_t n = std::size(enum_names<E>::entries);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) s += i + 1 == n ? " or " : ", ";
    s += enum_names<E>::entries[i].name;
  }
  return s;
}

}  // namespace gpurent
