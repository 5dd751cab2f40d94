// SPDX-License-Identifier: MIT
#pragma once
// Rental offers: what a renter can rent (gpuhunt-like fields: provider, region, instance,
// GPU model and count, vCPUs, memory, disk, spot) and what one unit of it costs, as a
// tariff `rate`: the offer prices through the same rate type, and its usage through the
// same meter, as any invoice (tariff/, metering/). gpurent adds the unit sold (sharing/
// rental.hpp: a whole server, one GPU, a MIG slice or a fraction of a GPU), the spot notice
// window and interruption rate, and reservations as a rate with a minimum (the term).
//
// An offer is one rate of the tariff a plan is priced with: its `id` is the rate's
// `resource` and its mode the rate's `mode`, so (id, mode) is unique in a catalog.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/error.hpp>
#include <gpurent/core/rounding.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/sharing/isolation.hpp>
#include <gpurent/sharing/rental.hpp>
#include <gpurent/spec/catalog.hpp>
#include <gpurent/spec/mig_data.hpp>
#include <gpurent/tariff/rate.hpp>

namespace gpurent {

// Quantities of units rented: decimals with 3 fractional digits (0.125 of a GPU).
using unit_quantity = decimal<3>;

struct offer {
  std::string id;  // unique with mode; the tariff resource
  std::string provider;
  std::string region;
  std::string zone;                          // residency: where the provider says the unit runs (empty: not stated)
  std::string jurisdiction;                  // residency: the law its data is held under ("EU", "CH"; empty: not stated)
  std::optional<isolation_level> isolation;  // what the provider guarantees; default by unit (offer_isolation)
  std::string instance;
  std::string gpu;             // canonical catalog name where the catalog knows the model
  std::int32_t gpu_count = 1;  // GPUs of the server
  std::int64_t vram_mib = 0;   // per GPU
  std::int64_t gflops = 0;     // dense FP16/BF16 tensor throughput per GPU
  std::int32_t vcpus = 0;
  std::int64_t memory_gib = 0;
  std::int64_t disk_gib = 0;
  offer_unit unit = offer_unit::gpu;  // the quantity of a record: servers, GPUs, slices, or a share of one GPU
  std::string mig_profile;            // unit mig_slice: the NVIDIA profile name
  unit_quantity fraction_step{};      // unit fraction: smallest share sold (0.125)
  offer_mode mode = offer_mode::on_demand;
  seconds notice{0};                  // spot: warning before an interruption
  double interruptions_per_hour = 0;  // spot: expected interruptions per unit-hour (an estimate)
  bool multi_node = false;            // one job may span several units (cluster networking)
  std::int32_t max_units = 1024;      // how many units can be rented at once (owned: the pool's size)
  rate pricing;                       // one unit; resource and mode are set from id and mode. Owned: the marginal cost
  decimal<9> fixed_cost{};            // owned: what one unit costs per billing period whatever the use (capex, hosting, staff)
  // Storage and network of one unit, where the provider states them (0: not stated).
  std::int64_t storage_read_mb_per_s = 0;
  std::int64_t storage_write_mb_per_s = 0;
  std::int64_t internode_gbit_per_s = 0;  // per server, between servers (multi-node jobs)
  // Where the price came from and when it was seen, so a plan records the price it used and a
  // later report never reprices history; where the billing terms (increment, minimum, notice)
  // came from ("unknown: ..." when assumed). Empty / absent: not stated.
  std::string source;
  std::optional<instant> seen;
  std::string terms_source;
  // Unexpected interruptions (hardware, not spot reclaims) per GPU-hour; absent: the planner's
  // documented default.
  std::optional<decimal<9>> failures_per_gpu_hour;

  // The GPUs (as a count of milli-GPUs of this model) and the memory one unit gives.
  [[nodiscard]] std::int64_t unit_milli_gpu() const;
  [[nodiscard]] std::int64_t unit_vram_mib() const;
  [[nodiscard]] const std::string& resource() const noexcept { return id; }
  [[nodiscard]] bool tiered() const noexcept { return pricing.kind != price_kind::unit; }
  [[nodiscard]] bool owned() const noexcept { return mode == offer_mode::owned; }
  // The price of one whole GPU of this offer for one hour, as an exact ratio (for ordering
  // bin offers): the base price before any change; the first step's when tiered.
  [[nodiscard]] ratio<> gpu_hour_price() const;
  // How a job alone on one unit of this offer holds its GPU (sharing/rental.hpp).
  [[nodiscard]] job_sharing sharing() const;
};

// The MIG profile of a slice offer on its model, with its compute share and memory.
struct mig_slice_info {
  const mig_geometry* geometry = nullptr;
  mig_profile_index profile = 0;
  std::int64_t milli_gpu = 0;  // compute slices / total compute slices, in milli-GPU (down)
  std::int64_t vram_mib = 0;
};

// Memory of a MIG profile: the captured figure, else the nominal "Ng.XXgb" of its name.
[[nodiscard]] inline std::int64_t mig_profile_mib(const mig_profile& p) {
  if (auto m = p.memory_mib()) return *m;
  const auto dot = p.name.find('.');
  std::int64_t gbs = 0;
  for (std::size_t i = dot + 1; i < p.name.size() && p.name[i] >= '0' && p.name[i] <= '9'; ++i) gbs = gbs * 10 + (p.name[i] - '0');
  return gbs * 1024;
}

[[nodiscard]] inline std::optional<mig_slice_info> mig_slice_of(std::string_view model, std::string_view profile) {
  const mig_geometry* g = find_mig_geometry(model);
  if (g == nullptr) return std::nullopt;
  auto p = g->find_profile(profile);
  if (!p) return std::nullopt;
  const mig_profile& pr = g->profiles[*p];
  return mig_slice_info{g, *p, std::int64_t{pr.compute_slices} * 1000 / g->compute_slices, mig_profile_mib(pr)};
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
  const bool tiers = pricing.kind == price_kind::tiers;
  const std::int64_t nano = (tiers ? pricing.tiers.steps().front().unit_price : pricing.price.base()).raw();
  const std::int64_t per = tiers ? 3600 : pricing.per.count();  // tier prices are per unit-hour
  // price per unit per `per` -> per GPU per hour: x 3600/per x 1000/unit_milli. A fraction
  // offer's quantity is already a share of one GPU, so its price is per GPU.
  const std::int64_t milli = unit == offer_unit::fraction ? 1000 : std::max<std::int64_t>(1, unit_milli_gpu());
  return ratio<>(int128(nano) * 3600 * 1000, int128(detail::nano_one) * per * milli);
}

inline job_sharing offer::sharing() const {
  switch (unit) {
    case offer_unit::mig_slice: return {unit, *mig_slice::make(mig_profile), false};
    case offer_unit::fraction: return {unit, *fractional_share::make(milli_gpu(static_cast<std::int32_t>(unit_milli_gpu()))), false};
    case offer_unit::server:
    case offer_unit::gpu: break;
  }
  return {unit, exclusive{}, false};
}

// What one unit of the offer keeps from other tenants: what the provider states, else by
// unit: a whole server is a node of the renter's own; a GPU or a MIG slice (isolated memory,
// bandwidth and faults) a GPU of its own; a time-sliced fraction, sold to strangers, nothing
// (docs/isolation.md).
[[nodiscard]] inline isolation_level offer_isolation(const offer& o) {
  if (o.isolation) return *o.isolation;
  if (o.unit == offer_unit::server) return isolation_level::node;
  return level_of(kind_of(o.sharing().mode));
}

// A limit on the GPUs in use at once across offers: a provider's account quota, or one
// region's (region empty: every region of the provider; provider empty: every provider).
struct offer_quota {
  std::string provider;
  std::string region;
  std::int64_t max_gpus = 0;
  [[nodiscard]] bool covers(const offer& o) const { return (provider.empty() || provider == o.provider) && (region.empty() || region == o.region); }
  friend bool operator==(const offer_quota&, const offer_quota&) = default;
};

// An imported GPU name the catalog could not map keeps its source's name behind a prefix
// (`gpuhunt:A10G`, io/plan/offer_import_gpu.hpp): no catalog name has a colon.
[[nodiscard]] inline bool opaque_gpu_name(std::string_view gpu) noexcept { return gpu.find(':') != std::string_view::npos; }

// An offer the planner cannot weigh, kept out of the plan and reported: its GPU is opaque and
// the offer gives no VRAM or no FP16 throughput for it (hand-added `vram_gib` and `tflops`
// bring it back). A name without a colon is never set aside: unknown, it is an error.
struct set_aside_offer {
  std::string id;
  offer_mode mode = offer_mode::on_demand;
  std::string gpu;
  std::string reason;
  friend bool operator==(const set_aside_offer&, const set_aside_offer&) = default;
};

// A validated set of offers in one currency, billed with one rounding mode.
class offer_catalog {
 public:
  offer_catalog() = default;
  [[nodiscard]] static expected<offer_catalog> make(currency c, rounding_mode r, std::vector<offer> offers, std::vector<offer_quota> quotas = {});

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
  [[nodiscard]] std::span<const offer_quota> quotas() const noexcept { return quotas_; }
  [[nodiscard]] std::span<const set_aside_offer> set_aside() const noexcept { return set_aside_; }

 private:
  currency ccy_{"USD", 2};
  rounding_mode rounding_ = rounding_mode::half_even;
  std::vector<offer> offers_;
  std::vector<offer_quota> quotas_;
  std::vector<set_aside_offer> set_aside_;
};

namespace detail::offers {
// Fills what the spec catalog knows (canonical name, VRAM, FP16 throughput) and checks what
// an offer's fields must satisfy; the rate's own rules were checked when it was made.
[[nodiscard]] inline expected<void> check(offer& o, const std::string& at) {
  const auto bad = [&](std::string_view field, std::string msg) {
    return make_error(error_code::invalid_argument, at + "." + std::string(field), std::move(msg));
  };
  if (o.id.empty()) return bad("id", "must not be empty");
  if (o.gpu.empty()) return bad("gpu", "must name a GPU model");
  if (const gpu_model* m = find_model(o.gpu)) {
    o.gpu = std::string(m->name);  // canonical, so MIG geometry and reference GPUs resolve
    if (o.vram_mib == 0 && m->vram) o.vram_mib = to_mib(m->vram->value);
    if (o.gflops == 0 && m->throughput.fp16) o.gflops = m->throughput.fp16->value.count();
  }
  if (o.vram_mib < 0) return bad("vram_gib", "must not be negative");
  if (o.gflops < 0) return bad("tflops", "must not be negative");
  if (o.vram_mib <= 0) return bad("vram_gib", "unknown GPU model \"" + o.gpu + "\": give vram_gib");
  if (o.gflops <= 0) return bad("tflops", "unknown GPU model \"" + o.gpu + "\" or no FP16 figure: give tflops");
  if (o.gpu_count <= 0) return bad("gpu_count", "must be positive");
  if (o.max_units <= 0) return bad("max_units", "must be positive");
  if (o.unit == offer_unit::mig_slice && !mig_slice_of(o.gpu, o.mig_profile))
    return bad("mig_profile", "\"" + o.mig_profile + "\" is not a MIG profile of " + o.gpu);
  const std::int64_t step = o.fraction_step.raw().convert_to<std::int64_t>();
  if (o.unit == offer_unit::fraction && (step <= 0 || step > 1000 || 1000 % step != 0))
    return bad("fraction_step", "must divide 1 (e.g. 0.125, 0.25, 0.5)");
  if (o.mode == offer_mode::spot && !(o.interruptions_per_hour >= 0 && o.interruptions_per_hour < 10))
    return bad("spot.interruptions_per_hour", "must be in [0, 10)");
  if (o.pricing.per.count() <= 0) return bad("per", "must be positive");
  if (o.fixed_cost.sign() < 0) return bad("owned.fixed_cost", "must not be negative");
  if (!o.owned() && o.fixed_cost.sign() != 0) return bad("owned", "only an owned offer has a fixed cost");
  if (o.storage_read_mb_per_s < 0 || o.storage_write_mb_per_s < 0 || o.internode_gbit_per_s < 0)
    return bad("storage", "bandwidths must not be negative");
  if (o.pricing.kind == price_kind::unit && o.pricing.price.base() < nano_price{0}) return bad("price", "must not be negative");
  o.pricing.resource = o.id;
  o.pricing.mode = std::string(to_string(o.mode));
  return {};
}
}  // namespace detail::offers

inline expected<offer_catalog> offer_catalog::make(currency c, rounding_mode r, std::vector<offer> offers, std::vector<offer_quota> quotas) {
  offer_catalog cat;
  cat.ccy_ = c;
  cat.rounding_ = r;
  for (std::size_t i = 0; i < quotas.size(); ++i)
    if (quotas[i].max_gpus < 0) return make_error(error_code::invalid_argument, "quotas[" + std::to_string(i) + "].max_gpus", "must not be negative");
  cat.quotas_ = std::move(quotas);
  for (std::size_t i = 0; i < offers.size(); ++i) {
    const std::string at = "offers[" + std::to_string(i) + "]";
    offer& o = offers[i];
    for (std::size_t j = 0; j < i; ++j)
      if (offers[j].id == o.id && offers[j].mode == o.mode)
        return make_error(error_code::duplicate, at + ".id",
                          "offer \"" + o.id + "\" in mode " + std::string(to_string(o.mode)) + " repeats offers[" + std::to_string(j) + "]");
    if (opaque_gpu_name(o.gpu) && !find_model(o.gpu) && (o.vram_mib == 0 || o.gflops == 0)) {
      cat.set_aside_.push_back(
          {o.id, o.mode, o.gpu, o.vram_mib == 0 ? "GPU not in the catalog: give vram_gib and tflops" : "GPU not in the catalog: give tflops"});
      continue;
    }
    GPURENT_TRY(detail::offers::check(o, at));
    cat.offers_.push_back(o);  // a copy: the duplicate check above reads the earlier offers
  }
  return cat;
}

}  // namespace gpurent
