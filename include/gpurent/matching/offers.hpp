// SPDX-License-Identifier: MIT
#pragma once
// Rental offers: what a renter can rent (gpuhunt-like fields: provider, region, instance,
// GPU model and count, vCPUs, memory, disk, price, spot) plus what billing needs (the price
// per `per`, increment, minimum, spot price changes, tiers) and what gpurent adds (the unit
// sold: a whole server, one GPU, a MIG slice or a fraction of a GPU; spot notice window and
// interruption rate; reservations as a committed minimum). And the cheapest-offer choice for
// a simple demand ("n whole GPUs with at least V GiB for d seconds").
//
// An offer is one rate of the tariff the plan emits: its `id` is the tariff's `resource` and
// its mode the tariff's `mode`, so (id, mode) is unique in a catalog.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/rounding.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/mig_data.hpp>

namespace gpurent {

// What one rented unit of an offer is.
enum class offer_unit : std::uint8_t {
  server,     // a whole server of gpu_count GPUs
  gpu,        // one whole GPU (exclusive)
  mig_slice,  // one MIG instance of `mig_profile` on a GPU the provider partitions
  fraction,   // a time-sliced share of one GPU, sold in multiples of `fraction_step`
};
// How it is billed and whether it can be taken away.
enum class offer_mode : std::uint8_t { on_demand, spot, reserved };

[[nodiscard]] constexpr std::string_view to_string(offer_unit u) noexcept {
  switch (u) {
    case offer_unit::server: return "server";
    case offer_unit::gpu: return "gpu";
    case offer_unit::mig_slice: return "mig_slice";
    case offer_unit::fraction: return "fraction";
  }
  return "?";
}
[[nodiscard]] constexpr std::string_view to_string(offer_mode m) noexcept {
  switch (m) {
    case offer_mode::on_demand: return "on_demand";
    case offer_mode::spot: return "spot";
    case offer_mode::reserved: return "reserved";
  }
  return "?";
}
[[nodiscard]] constexpr std::optional<offer_unit> parse_offer_unit(std::string_view s) noexcept {
  for (auto u : {offer_unit::server, offer_unit::gpu, offer_unit::mig_slice, offer_unit::fraction})
    if (to_string(u) == s) return u;
  return std::nullopt;
}
[[nodiscard]] constexpr std::optional<offer_mode> parse_offer_mode(std::string_view s) noexcept {
  for (auto m : {offer_mode::on_demand, offer_mode::spot, offer_mode::reserved})
    if (to_string(m) == s) return m;
  return std::nullopt;
}

// Prices are decimals with 9 fractional digits; quantities (units rented) with 3.
using unit_price = decimal<9>;
using unit_quantity = decimal<3>;

// From `from` on, `price` applies (a spot price change, meter.md rule 5).
struct offer_price_change {
  instant from{};
  unit_price price;
  friend bool operator==(const offer_price_change&, const offer_price_change&) = default;
};

enum class price_tier_mode : std::uint8_t { none, graduated, volume };
// A tier step: up to `up_to` cumulative unit-hours (none: no bound, last), at `price` per
// unit-hour (meter.md rule 6).
struct offer_tier {
  std::optional<unit_quantity> up_to;
  unit_price price;
  friend bool operator==(const offer_tier&, const offer_tier&) = default;
};

// How one unit of an offer is billed: meter.md's rate.
struct billing_terms {
  unit_price price;               // per unit per `per` (ignored when tiered)
  seconds per{3600};
  seconds increment{1};
  seconds minimum{0};             // a reservation's term is its minimum
  std::vector<offer_price_change> changes;  // sorted by `from`
  price_tier_mode tiers = price_tier_mode::none;
  std::vector<offer_tier> steps;
  friend bool operator==(const billing_terms&, const billing_terms&) = default;
};

struct offer {
  std::string id;        // unique with mode; the tariff resource
  std::string provider;
  std::string region;
  std::string instance;
  std::string gpu;       // canonical catalog name where the catalog knows the model
  std::int32_t gpu_count = 1;     // GPUs of the server
  std::int64_t vram_mib = 0;      // per GPU
  std::int64_t gflops = 0;        // dense FP16/BF16 tensor throughput per GPU
  std::int32_t vcpus = 0;
  std::int64_t memory_gib = 0;
  std::int64_t disk_gib = 0;
  offer_unit unit = offer_unit::gpu;  // the quantity of a record: servers, GPUs, slices, or a share of one GPU
  std::string mig_profile;        // unit mig_slice: the NVIDIA profile name
  unit_quantity fraction_step{};  // unit fraction: smallest share sold (0.125)
  offer_mode mode = offer_mode::on_demand;
  seconds notice{0};              // spot: warning before an interruption
  double interruptions_per_hour = 0;  // spot: expected interruptions per unit-hour (an estimate)
  bool multi_node = false;        // one job may span several units (cluster networking)
  std::int32_t max_units = 1024;  // how many units can be rented at once
  billing_terms billing;

  // The GPUs (as a count of milli-GPUs of this model) and the memory one unit gives.
  [[nodiscard]] std::int64_t unit_milli_gpu() const;
  [[nodiscard]] std::int64_t unit_vram_mib() const;
  [[nodiscard]] std::string resource() const { return id; }
  // The price of one whole GPU of this offer for one hour, as an exact num/den (for lower
  // bounds and the naive baseline); flat price before changes, first tier when tiered.
  [[nodiscard]] ratio<> gpu_hour_price() const;
};

// The MIG profile of a slice offer on its model, with its compute share and memory.
struct mig_slice_info {
  const mig_geometry* geometry = nullptr;
  mig_profile_index profile = 0;
  std::int64_t milli_gpu = 0;   // compute slices / total compute slices, in milli-GPU (down)
  std::int64_t vram_mib = 0;
};

namespace detail {
// Memory of a MIG profile: the captured figure, else the nominal "Ng.XXgb" of its name.
[[nodiscard]] inline std::int64_t mig_profile_mib(const mig_profile& p) {
  if (auto m = p.memory_mib()) return *m;
  const auto dot = p.name.find('.');
  std::int64_t gbs = 0;
  for (std::size_t i = dot + 1; i < p.name.size() && p.name[i] >= '0' && p.name[i] <= '9'; ++i) gbs = gbs * 10 + (p.name[i] - '0');
  return gbs * 1024;
}
}  // namespace detail

[[nodiscard]] inline std::optional<mig_slice_info> mig_slice_of(std::string_view model, std::string_view profile) {
  const mig_geometry* g = find_mig_geometry(model);
  if (g == nullptr) return std::nullopt;
  auto p = g->find_profile(profile);
  if (!p) return std::nullopt;
  const mig_profile& pr = g->profiles[*p];
  return mig_slice_info{g, *p, std::int64_t{pr.compute_slices} * 1000 / g->compute_slices, detail::mig_profile_mib(pr)};
}

inline std::int64_t offer::unit_milli_gpu() const {
  switch (unit) {
    case offer_unit::server: return std::int64_t{gpu_count} * 1000;
    case offer_unit::gpu: return 1000;
    case offer_unit::mig_slice: {
      auto s = mig_slice_of(gpu, mig_profile);
      return s ? s->milli_gpu : 0;
    }
    case offer_unit::fraction: return fraction_step.raw().convert_to<std::int64_t>();
  }
  return 0;
}

inline std::int64_t offer::unit_vram_mib() const {
  switch (unit) {
    case offer_unit::server: return vram_mib * gpu_count;
    case offer_unit::gpu: return vram_mib;
    case offer_unit::mig_slice: {
      auto s = mig_slice_of(gpu, mig_profile);
      return s ? s->vram_mib : 0;
    }
    case offer_unit::fraction: return vram_mib * fraction_step.raw().convert_to<std::int64_t>() / 1000;
  }
  return 0;
}

inline ratio<> offer::gpu_hour_price() const {
  const unit_price p = billing.tiers == price_tier_mode::none ? billing.price : billing.steps.front().price;
  const seconds per = billing.tiers == price_tier_mode::none ? billing.per : seconds(3600);
  // price per unit per `per` -> per GPU per hour: x 3600/per x 1000/unit_milli. A fraction
  // offer's quantity is already a share of one GPU, so its price is per GPU.
  const std::int64_t milli = unit == offer_unit::fraction ? 1000 : std::max<std::int64_t>(1, unit_milli_gpu());
  return ratio<>(p.raw() * 3600 * 1000, unit_price::one() * per.count() * milli);
}

// A validated set of offers in one currency, billed with one rounding mode.
class offer_catalog {
 public:
  offer_catalog() = default;
  [[nodiscard]] static expected<offer_catalog> make(currency c, rounding_mode r, std::vector<offer> offers);

  [[nodiscard]] const currency& currency_value() const noexcept { return ccy_; }
  [[nodiscard]] rounding_mode rounding() const noexcept { return rounding_; }
  [[nodiscard]] std::span<const offer> offers() const noexcept { return offers_; }
  [[nodiscard]] std::size_t size() const noexcept { return offers_.size(); }
  [[nodiscard]] const offer& operator[](std::size_t i) const { return offers_[i]; }
  [[nodiscard]] const offer* find(std::string_view id, offer_mode m) const noexcept {
    for (const offer& o : offers_)
      if (o.id == id && o.mode == m) return &o;
    return nullptr;
  }
  // The least common multiple of 3600 and every offer's `per`: exact amounts of this
  // catalog are counts of 1 / (10^12 x scale()) currency units (see planning/billing.hpp).
  [[nodiscard]] std::int64_t scale() const noexcept { return scale_; }

 private:
  currency ccy_{"USD", 2};
  rounding_mode rounding_ = rounding_mode::half_even;
  std::vector<offer> offers_;
  std::int64_t scale_ = 3600;
};

namespace detail {
[[nodiscard]] constexpr std::int64_t gcd64(std::int64_t a, std::int64_t b) noexcept {
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
}  // namespace detail

inline expected<offer_catalog> offer_catalog::make(currency c, rounding_mode r, std::vector<offer> offers) {
  offer_catalog cat;
  cat.ccy_ = c;
  cat.rounding_ = r;
  std::int64_t scale = 3600;
  for (std::size_t i = 0; i < offers.size(); ++i) {
    offer& o = offers[i];
    const std::string at = "offers[" + std::to_string(i) + "]";
    const auto bad = [&](std::string_view field, std::string msg) {
      return make_error(error_code::invalid_argument, at + "." + std::string(field), std::move(msg));
    };
    if (o.id.empty()) return bad("id", "must not be empty");
    for (std::size_t j = 0; j < i; ++j)
      if (offers[j].id == o.id && offers[j].mode == o.mode)
        return make_error(error_code::duplicate, at + ".id",
                          "offer \"" + o.id + "\" in mode " + std::string(to_string(o.mode)) + " repeats offers[" + std::to_string(j) + "]");
    if (o.gpu.empty()) return bad("gpu", "must name a GPU model");
    if (const gpu_model* m = find_model(o.gpu)) {
      o.gpu = std::string(m->name);  // canonical, so MIG geometry and reference GPUs resolve
      if (o.vram_mib == 0 && m->vram) o.vram_mib = to_mib(m->vram->value);
      if (o.gflops == 0 && m->throughput.fp16) o.gflops = m->throughput.fp16->value.count();
    }
    if (o.vram_mib <= 0) return bad("vram_gib", "unknown GPU model \"" + o.gpu + "\": give vram_gib");
    if (o.gflops <= 0) return bad("tflops", "unknown GPU model \"" + o.gpu + "\" or no FP16 figure: give tflops");
    if (o.gpu_count <= 0) return bad("gpu_count", "must be positive");
    if (o.max_units <= 0) return bad("max_units", "must be positive");
    if (o.unit == offer_unit::mig_slice && !mig_slice_of(o.gpu, o.mig_profile))
      return bad("mig_profile", "\"" + o.mig_profile + "\" is not a MIG profile of " + o.gpu);
    if (o.unit == offer_unit::fraction &&
        (o.fraction_step.sign() <= 0 || o.fraction_step > unit_quantity(1) || 1000 % o.fraction_step.raw().convert_to<std::int64_t>() != 0))
      return bad("fraction_step", "must divide 1 (e.g. 0.125, 0.25, 0.5)");
    if (o.mode == offer_mode::spot && !(o.interruptions_per_hour >= 0 && o.interruptions_per_hour < 10))
      return bad("spot.interruptions_per_hour", "must be in [0, 10)");
    const billing_terms& b = o.billing;
    if (b.per.count() <= 0) return bad("per", "must be positive");
    if (b.increment.count() <= 0) return bad("increment", "must be positive");
    if (b.minimum.count() < 0) return bad("minimum", "must not be negative");
    if (b.tiers == price_tier_mode::none && b.price.sign() < 0) return bad("price", "must not be negative");
    if (b.tiers != price_tier_mode::none) {
      if (b.steps.empty()) return bad("tiers.steps", "needs at least one step");
      if (!b.changes.empty()) return bad("price_changes", "not together with tiers (meter.md)");
      for (std::size_t k = 0; k < b.steps.size(); ++k) {
        const bool last = k + 1 == b.steps.size();
        if (!b.steps[k].up_to && !last) return bad("tiers.steps[" + std::to_string(k) + "].up_to", "null must be last");
        if (b.steps[k].up_to && k > 0 && b.steps[k - 1].up_to && *b.steps[k].up_to <= *b.steps[k - 1].up_to)
          return bad("tiers.steps[" + std::to_string(k) + "].up_to", "must increase");
      }
    }
    for (std::size_t k = 1; k < b.changes.size(); ++k)
      if (b.changes[k].from <= b.changes[k - 1].from) return bad("price_changes[" + std::to_string(k) + "].from", "must increase");
    const std::int64_t per = b.per.count();
    const std::int64_t g = detail::gcd64(scale, per);
    if (scale / g > (std::int64_t{1} << 40) / per) return bad("per", "the periods of the offers have too large a common multiple");
    scale = scale / g * per;
  }
  cat.offers_ = std::move(offers);
  cat.scale_ = scale;
  return cat;
}

// ---- Exact rating (meter.md's default rules) --------------------------------------------
// The plan prices its usage with the same rules `gpurent meter` applies, so the two agree to
// the minor unit. Exact amounts are integer counts of 1 / (10^12 x catalog.scale()) currency
// units: price (10^-9) x quantity (10^-3) x seconds x scale/per, never rounded until a line
// is (rule 7). TODO(metering): once the metering layer lands, rate through it instead.

// One usage record, as meter.md's usage CSV holds it.
struct plan_record {
  std::string id;
  std::string account;
  std::string resource;
  offer_mode mode = offer_mode::on_demand;
  unit_quantity quantity{1};
  instant start{};
  instant end{};
  [[nodiscard]] seconds length() const noexcept { return end - start; }
  friend bool operator==(const plan_record&, const plan_record&) = default;
};

// Rule 3: billed seconds of a record of `actual` seconds that starts inside the period.
[[nodiscard]] inline seconds billed_seconds(const billing_terms& b, seconds actual, bool starts_in_period = true) {
  const std::int64_t x = std::max(actual, starts_in_period ? b.minimum : seconds(0)).count();
  const std::int64_t inc = b.increment.count();
  return seconds((x + inc - 1) / inc * inc);
}

// Rules 4 and 5: the exact amount of one record under a flat rate (with price changes).
[[nodiscard]] inline int128 flat_amount(const billing_terms& b, std::int64_t scale, const unit_quantity& q, instant start,
                                        seconds actual) {
  const seconds billed = billed_seconds(b, actual);
  const instant end = start + actual;
  std::size_t i = 0;
  while (i < b.changes.size() && b.changes[i].from <= start) ++i;
  const auto price_before = [&](std::size_t k) -> const unit_price& { return k == 0 ? b.price : b.changes[k - 1].price; };
  return detail::checked<throw_on_overflow>("rating", [&] {
    int128 sum = 0;
    for (instant t = start; t < end; ++i) {
      const instant next = i < b.changes.size() ? std::min(b.changes[i].from, end) : end;
      sum += price_before(i).raw() * int128((next - t).count());
      t = next;
    }
    // The extra billed seconds go at the price of the last actual second.
    std::size_t last = 0;
    while (last < b.changes.size() && b.changes[last].from <= end - seconds(1)) ++last;
    sum += price_before(last).raw() * int128((billed - actual).count());
    return int128(sum * q.raw() * int128(scale / b.per.count()));
  });
}

// Rules 4 to 6 for one line: `records` are the line's records in order of (start, id).
[[nodiscard]] inline int128 line_amount(const billing_terms& b, std::int64_t scale, std::span<const plan_record* const> records) {
  if (b.tiers == price_tier_mode::none) {
    int128 sum = 0;
    for (const plan_record* r : records) sum += flat_amount(b, scale, r->quantity, r->start, r->length());
    return sum;
  }
  return detail::checked<throw_on_overflow>("rating", [&] {
    // Usage in 10^-3 unit-seconds; a step bound of N unit-hours is N x 3600 of them.
    const int128 k = int128(scale / 3600);
    const auto bound = [&](std::size_t s) { return int128(b.steps[s].up_to->raw() * 3600); };
    int128 sum = 0;
    if (b.tiers == price_tier_mode::volume) {
      int128 total = 0;
      for (const plan_record* r : records) total += r->quantity.raw() * int128(billed_seconds(b, r->length()).count());
      std::size_t s = 0;
      while (s + 1 < b.steps.size() && bound(s) < total) ++s;
      return int128(b.steps[s].price.raw() * total * k);
    }
    int128 used = 0;
    for (const plan_record* r : records) {
      int128 u = r->quantity.raw() * int128(billed_seconds(b, r->length()).count());
      for (std::size_t s = 0; u > 0 && s < b.steps.size(); ++s) {
        const bool last = s + 1 == b.steps.size() || !b.steps[s].up_to;
        const int128 room = last ? u : std::max(int128(0), int128(bound(s) - used));
        const int128 part = std::min(u, room);
        sum += b.steps[s].price.raw() * part * k;
        used += part;
        u -= part;
      }
    }
    return sum;
  });
}

// The amount of one record on its own (a tiered rate as if it were the line's only record):
// what planning compares offers by.
[[nodiscard]] inline int128 record_amount(const billing_terms& b, std::int64_t scale, const unit_quantity& q, instant start,
                                          seconds actual) {
  if (b.tiers == price_tier_mode::none) return flat_amount(b, scale, q, start, actual);
  const plan_record r{{}, {}, {}, offer_mode::on_demand, q, start, start + actual};
  const plan_record* one[] = {&r};
  return line_amount(b, scale, one);
}

// Rule 7: an exact amount of the catalog, rounded once to the currency's minor units.
[[nodiscard]] inline money_value round_amount(const offer_catalog& cat, const int128& units) {
  return money_value::round(cat.currency_value(), ratio<>(units, detail::pow10<int128>(12) * int128(cat.scale())), cat.rounding());
}

// One line of an invoice: (account, resource, mode), its records and rounded amount.
struct plan_invoice_line {
  std::string account;
  std::string resource;
  offer_mode mode = offer_mode::on_demand;
  std::size_t records = 0;
  std::int64_t billed_seconds = 0;
  money_value amount{currency{"USD", 2}, 0};
};
struct plan_invoice {
  std::vector<plan_invoice_line> lines;  // sorted by account, resource, mode (byte order)
  money_value total{currency{"USD", 2}, 0};  // the sum of the accounts' totals (no credits)
};

// Rules 3 to 8 on a set of records that all lie inside the billing period.
[[nodiscard]] inline expected<plan_invoice> rate_plan_usage(const offer_catalog& cat, std::span<const plan_record> usage) {
  std::vector<const plan_record*> sorted;
  sorted.reserve(usage.size());
  for (const plan_record& r : usage) sorted.push_back(&r);
  std::ranges::sort(sorted, [](const plan_record* a, const plan_record* b) {
    const std::string_view ma = to_string(a->mode), mb = to_string(b->mode);
    return std::tie(a->account, a->resource, ma, a->start, a->id) < std::tie(b->account, b->resource, mb, b->start, b->id);
  });
  plan_invoice out;
  out.total = money_value(cat.currency_value(), 0);
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j]->account == sorted[i]->account && sorted[j]->resource == sorted[i]->resource &&
           sorted[j]->mode == sorted[i]->mode)
      ++j;
    const offer* o = cat.find(sorted[i]->resource, sorted[i]->mode);
    if (o == nullptr)
      return make_error(error_code::unknown_name, "resource",
                        "no rate for " + sorted[i]->resource + " in mode " + std::string(to_string(sorted[i]->mode)));
    plan_invoice_line line{sorted[i]->account, sorted[i]->resource, sorted[i]->mode, j - i, 0, out.total};
    for (std::size_t k = i; k < j; ++k) line.billed_seconds += billed_seconds(o->billing, sorted[k]->length()).count();
    try {
      line.amount = round_amount(cat, line_amount(o->billing, cat.scale(), std::span(sorted).subspan(i, j - i)));
    } catch (const exception& e) {
      return unexpected<error>(e.err());
    }
    out.total += line.amount;
    out.lines.push_back(std::move(line));
    i = j;
  }
  return out;
}

// ---- The cheapest offer for a demand of whole GPUs ----------------------------------------
// `gpus` whole GPUs of at least `vram_mib` each, all on one server unless an offer allows
// several (multi_node), for `duration` seconds, as one record per unit. Spot offers only when
// asked. Ties go to the earlier offer. The matcher's placement constraints are not applied.
struct gpu_demand {
  std::int32_t gpus = 1;
  std::int64_t vram_mib = 0;
  seconds duration{3600};
  bool allow_spot = false;
  bool allow_reserved = true;
};
struct offer_choice {
  std::size_t offer = 0;       // index in the catalog
  std::int32_t units = 0;      // servers or GPUs rented
  int128 amount = 0;           // exact, in the catalog's amount units
};

// How many units of `o` hold `gpus` whole GPUs; 0 when it cannot.
[[nodiscard]] inline std::int32_t units_for_gpus(const offer& o, std::int32_t gpus) noexcept {
  if (o.unit == offer_unit::server) {
    const std::int32_t n = (gpus + o.gpu_count - 1) / o.gpu_count;
    return (n > 1 && !o.multi_node) || n > o.max_units ? 0 : n;
  }
  if (o.unit == offer_unit::gpu) return (gpus > o.gpu_count && !o.multi_node) || gpus > o.max_units ? 0 : gpus;
  return 0;
}

[[nodiscard]] inline std::optional<offer_choice> cheapest_offer(const offer_catalog& cat, const gpu_demand& d) {
  std::optional<offer_choice> best;
  for (std::size_t i = 0; i < cat.size(); ++i) {
    const offer& o = cat[i];
    if ((o.mode == offer_mode::spot && !d.allow_spot) || (o.mode == offer_mode::reserved && !d.allow_reserved)) continue;
    if (o.vram_mib < d.vram_mib) continue;
    const std::int32_t n = units_for_gpus(o, d.gpus);
    if (n == 0) continue;
    const int128 a = record_amount(o.billing, cat.scale(), unit_quantity(n), instant{}, d.duration);
    if (!best || a < best->amount) best = offer_choice{i, n, a};
  }
  return best;
}

}  // namespace gpurent
