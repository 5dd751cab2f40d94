// SPDX-License-Identifier: MIT
#pragma once
// Whom a meter's line bills: an account and a label set (metering/labels.hpp). The invoice
// has one line per (account, resource, mode); the meter keeps it per label set as well, so
// that the line's amount can be told per label set, and shards and partials add up exactly.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <gpurent/core/bytes.hpp>
#include <gpurent/metering/paged.hpp>

namespace gpurent::detail {

// Names, each once, by index (found through a key_index as the ids are; the last one found
// is remembered, as records of one account often come together).
class interned_names {
 public:
  [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }
  [[nodiscard]] const std::string& operator[](std::size_t k) const noexcept { return names_[k]; }
  // The index of `name`; `added` tells that it is new.
  std::uint32_t intern(std::string_view name, bool& added) {
    added = false;
    if (last_ != UINT32_MAX && same_bytes(names_[last_], name)) return last_;
    const std::uint64_t h = table_hash(name);
    const std::size_t k = index_.find(h, [&](std::size_t i) { return same_bytes(names_[i], name); });
    if (k != key_index::npos) return last_ = static_cast<std::uint32_t>(k);
    last_ = static_cast<std::uint32_t>(names_.size());
    names_.emplace_back(name);
    added = true;
    index_.added(names_.size(), h, [&](std::size_t i) { return table_hash(names_[i]); });
    return last_;
  }

 private:
  std::vector<std::string> names_;
  key_index index_;
  std::uint32_t last_ = UINT32_MAX;
};

// The (account, label set) pairs of a meter's lines, each once, by index: the "owner" a
// stored record and a ledger line name.
class line_owners {
 public:
  line_owners() {
    bool added = false;
    (void)label_sets_.intern("", added);  // label set 0: no labels
  }
  [[nodiscard]] std::size_t size() const noexcept { return owners_.size(); }
  [[nodiscard]] const std::string& account(std::uint32_t o) const noexcept { return accounts_[owners_[o].account]; }
  [[nodiscard]] const std::string& labels(std::uint32_t o) const noexcept { return label_sets_[owners_[o].labels]; }
  // The account's own index (owners of one account share it).
  [[nodiscard]] std::uint32_t account_index(std::uint32_t o) const noexcept { return owners_[o].account; }
  [[nodiscard]] std::size_t accounts() const noexcept { return accounts_.size(); }

  // The owner index of (account, labels); `added` tells that it is new.
  std::uint32_t intern(std::string_view account, std::string_view labels, bool& added) {
    bool new_name = false;
    const std::uint32_t a = accounts_.intern(account, new_name);
    const std::uint32_t l = labels.empty() ? 0 : label_sets_.intern(labels, new_name);
    added = false;
    if (last_ != UINT32_MAX && owners_[last_].account == a && owners_[last_].labels == l) return last_;
    const std::uint64_t key = (std::uint64_t{a} << 32) | l;
    auto [it, fresh] = index_.try_emplace(key, static_cast<std::uint32_t>(owners_.size()));
    if (fresh) {
      owners_.push_back({a, l});
      added = true;
    }
    return last_ = it->second;
  }

 private:
  struct owner {
    std::uint32_t account, labels;
  };
  interned_names accounts_, label_sets_;
  std::vector<owner> owners_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::uint32_t last_ = UINT32_MAX;
};

}  // namespace gpurent::detail
