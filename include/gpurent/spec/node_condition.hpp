// SPDX-License-Identifier: MIT
#pragma once
// Whether a node takes work. The inventory (matching/inventory.hpp) holds each node's
// condition, once; the nodes CSV and node events (docs/formats/fleet.md) name it.

#include <cstdint>

#include <gpurent/core/enum.hpp>

namespace gpurent {

// `down` (failed: nothing runs there, and its GPUs do not count as capacity), `drain` (what
// runs stays, nothing new is placed), `up`.
enum class node_condition : std::uint8_t { up, down, drain };

template <>
struct enum_names<node_condition> {
  static constexpr enum_entry<node_condition> entries[] = {
      {node_condition::up, "up"}, {node_condition::down, "down"}, {node_condition::drain, "drain"}};
};

}  // namespace gpurent
