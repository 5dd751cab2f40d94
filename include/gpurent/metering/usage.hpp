// SPDX-License-Identifier: MIT
#pragma once
// A usage record: who used which resource, in which mode, how much of it, when.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/assert.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/core/utf8.hpp>
#include <gpurent/tariff/amount.hpp>

namespace gpurent {

struct usage_record {
  std::string id;
  std::string account;
  std::string resource;
  std::string mode;                          // the tariff's name for how it is bought, matched exactly like resource (not offer_mode)
  nano_quantity quantity{detail::nano_one};  // GPUs, slices, servers (0.5 allowed)
  instant start{};
  instant end{};
  // Free-form labels (project, job); carried, not priced, not part of a record's identity.
  std::vector<std::pair<std::string, std::string>> labels;

  [[nodiscard]] interval span() const { return *interval::make(start, end); }
  // Identity for deduplication: every priced field (labels are not priced).
  [[nodiscard]] bool same_usage(const usage_record& o) const noexcept {
    return account == o.account && resource == o.resource && mode == o.mode && quantity == o.quantity && start == o.start && end == o.end;
  }
  friend bool operator==(const usage_record&, const usage_record&) = default;
};

namespace detail {
// What is wrong with a record validate_usage turned down, the first failing rule first.
[[nodiscard, gnu::noinline]] inline error invalid_usage(std::string_view id, std::string_view account, nano_quantity quantity, instant start,
                                                        instant end) {
  if (id.empty()) return {error_code::invalid_argument, "id", "a record needs an id", {}};
  if (account.empty()) return {error_code::invalid_argument, "account", "a record needs an account", {}};
  if (!is_utf8(id)) return {error_code::invalid_argument, "id", utf8_problem(id), {}};
  if (!is_utf8(account)) return {error_code::invalid_argument, "account", utf8_problem(account), {}};
  if (quantity <= nano_quantity{0})
    return {error_code::invalid_argument, "quantity", "quantity must be greater than 0, got " + format_nano(quantity), {}};
  if (start < earliest_instant || start > latest_instant)
    return {
        error_code::invalid_argument, "start", std::to_string(start.time_since_epoch().count()) + " s from 1970 is outside the years 0000-9999", {}};
  if (end < earliest_instant || end > latest_instant)
    return {error_code::invalid_argument, "end", std::to_string(end.time_since_epoch().count()) + " s from 1970 is outside the years 0000-9999", {}};
  GPURENT_ASSERT(end <= start);
  return {error_code::invalid_argument, "end", "end " + format_instant(end) + " must be after start " + format_instant(start), {}};
}
}  // namespace detail

// What every record must satisfy before it is rated (the meter checks it on every record):
// an id, an account, both UTF-8 (an invoice writes them), a positive quantity, an end after
// the start, both in the years 0000-9999; the error names the field.
// Inline where it is called per record (an expected<void> returned from a call costs GCC a
// clear of its 112-byte error union); the explanation is built out of line.
[[nodiscard, gnu::always_inline]] inline expected<void> validate_usage(std::string_view id, std::string_view account, nano_quantity quantity,
                                                                       instant start, instant end) {
  if (!id.empty() && !account.empty() && quantity > nano_quantity{0} && start < end && start >= earliest_instant && end <= latest_instant &&
      is_utf8(id) && is_utf8(account)) [[likely]]
    return {};
  return unexpected(detail::invalid_usage(id, account, quantity, start, end));
}
[[nodiscard]] inline expected<void> validate(const usage_record& r) { return validate_usage(r.id, r.account, r.quantity, r.start, r.end); }

}  // namespace gpurent
