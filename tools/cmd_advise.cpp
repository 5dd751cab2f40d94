// SPDX-License-Identifier: MIT
// gpurent advise: the planning advisors on files and flags (docs/advisors.md). Commitment
// sizing, build versus rent (scalar and load-profile forms), checkpointing on spot, and the
// scaling rules; each is one library call between a reader and a printer.
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpurent/core/currency.hpp>
#include <gpurent/core/decimal.hpp>
#include <gpurent/core/money.hpp>
#include <gpurent/core/quantity.hpp>
#include <gpurent/core/time.hpp>
#include <gpurent/io/load_csv.hpp>
#include <gpurent/io/nodes_csv.hpp>
#include <gpurent/io/offers_json.hpp>
#include <gpurent/planning/build_vs_rent.hpp>
#include <gpurent/planning/checkpoint.hpp>
#include <gpurent/planning/commitment.hpp>
#include <gpurent/planning/format.hpp>
#include <gpurent/planning/scaling.hpp>

#include "tool.hpp"

// A named namespace: the tool builds as one unity translation unit with the other commands.
namespace gpurent::tool::advise {
namespace {
using json = nlohmann::ordered_json;

void add_format(CLI::App& cmd, output_format& out) { add_format_option(cmd, out, {{"json", output_format::json}, {"table", output_format::table}}); }

// ---- Flags: every error names the flag it came from.

expected<decimal<9>> decimal_flag(const std::string& text, const char* flag) {
  auto d = decimal<9>::parse(text);
  if (!d) return unexpected(d.error().in_field(flag));
  return d;
}

expected<seconds> duration_flag(const std::string& text, const char* flag) {
  auto d = parse_duration(text);
  if (!d) return unexpected(d.error().in_field(flag));
  return d;
}

// A duration ("26280h", "1095d") or a whole number of hours ("26280").
expected<seconds> hours_flag(const std::string& text, const char* flag) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) return duration_flag(text + "h", flag);
  return duration_flag(text, flag);
}

// ---- Exact values printed: amounts in the currency's minor units, rates and shares rounded
// half to even at a stated number of digits (the library keeps them exact).

std::string amount(const ratio<>& r, const currency& c) { return money_value::round(c, r, rounding_mode::half_even).to_string(); }

std::string hourly(const ratio<>& r) { return r.round<6, round_half_even>().to_string(); }

double share(const ratio<>& r) { return r.round_to_digits(4, rounding_mode::half_even).convert_to<double>() / 1e4; }

json share_or_null(const std::optional<ratio<>>& r) { return r ? json(share(*r)) : json(); }

std::string percent(double s) { return fmt::format("{:.2f}%", s * 100); }

void print(const json& j) { fmt::print("{}\n", j.dump(2)); }

// ---- advise commitment

struct commitment_cli {
  std::string load, offers, offer, term;
  output_format format{};
};

struct commitment_inputs {
  io::load_profile load;
  offer_catalog catalog;
  ratio<> on_demand, committed;
  std::optional<seconds> term;
};

// The offer's price in one mode, per unit-hour; an error names --offer and the offers file.
expected<ratio<>> mode_price(const offer_catalog& cat, const commitment_cli& o, offer_mode m) {
  const offer* of = cat.find(o.offer, m);
  if (of == nullptr)
    return unexpected(error{error_code::invalid_argument, "--offer", fmt::format("no offer \"{}\" in mode {}", o.offer, to_string(m)), o.offers});
  auto p = base_price_per_hour(of->pricing);
  if (!p)
    return unexpected(
        error{p.error().code, "--offer", fmt::format("offer \"{}\" in mode {}: {}", o.offer, to_string(m), p.error().message), o.offers});
  return p;
}

expected<commitment_inputs> read_commitment(const commitment_cli& o) {
  GPURENT_TRY(load, io::read_load_file(o.load));
  GPURENT_TRY(cat, read_offers_file(o.offers));
  GPURENT_TRY(od, mode_price(*cat, o, offer_mode::on_demand));
  GPURENT_TRY(rsv, mode_price(*cat, o, offer_mode::reserved));
  std::optional<seconds> term;
  if (!o.term.empty()) {
    GPURENT_TRY(t, hours_flag(o.term, "--term"));
    if (t->count() <= 0) return make_error(error_code::invalid_argument, "--term", "must be positive");
    term = *t;
  } else if (const seconds m = cat->find(o.offer, offer_mode::reserved)->pricing.time.minimum(); m.count() > 0) {
    term = m;  // the reservation's minimum is its term
  }
  return commitment_inputs{std::move(*load), std::move(*cat), *od, *rsv, term};
}

json commitment_json(const commitment_cli& o, const commitment_inputs& in, const commitment_advice& a) {
  const currency& c = in.catalog.currency_value();
  json curve = json::array();
  for (const commitment_option& x : a.curve)
    curve.push_back({{"level", x.level}, {"cost", x.cost.to_string()}, {"utilization", share(x.utilization)}});
  json j = {{"offer", o.offer},
            {"currency", std::string(c.code)},
            {"hours", in.load.hourly.size()},
            {"peak", a.curve.back().level},
            {"on_demand_per_hour", hourly(in.on_demand)},
            {"committed_per_hour", hourly(in.committed)},
            {"level", a.best.level},
            {"cost", a.best.cost.to_string()},
            {"on_demand_cost", a.on_demand_cost.to_string()},
            {"savings", a.savings.to_string()},
            {"utilization", share(a.best.utilization)}};
  if (a.term)
    j["term"] = {{"hours", static_cast<double>(a.term->length.count()) / 3600},
                 {"cost", a.term->cost.to_string()},
                 {"on_demand_cost", a.term->on_demand_cost.to_string()},
                 {"savings", a.term->savings.to_string()}};
  j["curve"] = curve;
  return j;
}

void commitment_table(const commitment_cli& o, const commitment_inputs& in, const commitment_advice& a) {
  const std::string_view code = in.catalog.currency_value().code;
  fmt::print("offer {}: committed {} {}/h, on demand {} {}/h, over {} hours (peak {})\n", o.offer, hourly(in.committed), code, hourly(in.on_demand),
             code, in.load.hourly.size(), a.curve.back().level);
  fmt::print("commit {} units: {} {} against {} on demand, saving {} (utilization {})\n", a.best.level, a.best.cost.to_string(), code,
             a.on_demand_cost.to_string(), a.savings.to_string(), percent(share(a.best.utilization)));
  if (a.term)
    fmt::print("over the {} term: {} {} against {} on demand, saving {}\n", format_duration(a.term->length), a.term->cost.to_string(), code,
               a.term->on_demand_cost.to_string(), a.term->savings.to_string());
  fmt::print("{:>6} {:>16} {:>12}\n", "LEVEL", "COST", "UTILIZATION");
  for (const commitment_option& x : a.curve) fmt::print("{:>6} {:>16} {:>12}\n", x.level, x.cost.to_string(), percent(share(x.utilization)));
}

int run_commitment(const commitment_cli& o) {
  auto in = read_commitment(o);
  if (!in) return fail(in.error());
  auto a = size_commitment(in->load.hourly, in->catalog.currency_value(), in->catalog.rounding(), in->on_demand, in->committed, in->term);
  if (!a) return fail(a.error());
  if (o.format == output_format::json) {
    print(commitment_json(o, *in, *a));
  } else {
    commitment_table(o, *in, *a);
  }
  return exit_ok;
}

CLI::App* add_commitment(CLI::App& advise, std::shared_ptr<commitment_cli> o) {
  auto* cmd = advise.add_subcommand("commitment", "how many units of an offer to reserve for an hourly load, against on demand");
  cmd->add_option("--load", o->load, "hourly load CSV: hour,units or start,units (docs/advisors.md)")->required();
  cmd->add_option("--offers", o->offers, "offers JSON (docs/planning.md)")->required();
  cmd->add_option("--offer", o->offer, "the offer id; it needs an on_demand and a reserved mode")->required();
  cmd->add_option("--term", o->term, "commitment term (720h, 365d, or hours); default: the reserved rate's minimum");
  add_format(*cmd, o->format);
  return cmd;
}

// ---- advise build-vs-rent

struct build_cli {
  std::string purchase, life, hosting = "0", staff = "0", power_kw = "0", energy = "0", rent, utilization, load, currency = "USD";
  output_format format{};
};

struct build_inputs {
  ownership_costs own;
  decimal<9> rent{0};
  currency ccy{"USD", 2};
};

expected<build_inputs> read_build(const build_cli& o) {
  build_inputs in;
  GPURENT_TRY(purchase, decimal_flag(o.purchase, "--purchase"));
  GPURENT_TRY(life, hours_flag(o.life, "--life"));
  if (life->count() % 3600 != 0) return make_error(error_code::invalid_argument, "--life", "must be whole hours");
  GPURENT_TRY(hosting, decimal_flag(o.hosting, "--hosting"));
  GPURENT_TRY(staff, decimal_flag(o.staff, "--staff"));
  GPURENT_TRY(power, decimal_flag(o.power_kw, "--power-kw"));
  GPURENT_TRY(energy, decimal_flag(o.energy, "--energy-price"));
  GPURENT_TRY(rent, decimal_flag(o.rent, "--rent"));
  auto c = parse_currency(o.currency);
  if (!c) return unexpected(c.error().in_field("--currency"));
  in.own = ownership_costs{*purchase, life->count() / 3600, *hosting, *staff, *power, *energy};
  in.rent = *rent;
  in.ccy = *c;
  return in;
}

// The library's field names as the flags that set them.
error as_flag(error e) {
  static const std::pair<std::string_view, std::string_view> names[] = {{"life_hours", "--life"},
                                                                        {"purchase", "--purchase"},
                                                                        {"hosting_per_hour", "--hosting"},
                                                                        {"staff_per_hour", "--staff"},
                                                                        {"power_kw", "--power-kw"},
                                                                        {"energy_per_kwh", "--energy-price"},
                                                                        {"rent", "--rent"},
                                                                        {"utilization", "--utilization"}};
  for (const auto& [field, flag] : names)
    if (e.field == field) e.field = flag;
  return e;
}

json build_rates_json(const ratio<>& fixed_h, const ratio<>& variable_h, const build_inputs& in, const std::optional<ratio<>>& break_even) {
  return {{"fixed_per_hour", hourly(fixed_h)},
          {"variable_per_hour", hourly(variable_h)},
          {"rent_per_hour", hourly(ratio<>(in.rent))},
          {"break_even_utilization", share_or_null(break_even)}};
}

int run_build_scalar(const build_cli& o, const build_inputs& in) {
  auto u = decimal<9>::parse(o.utilization);
  if (!u) return fail(u.error().in_field("--utilization"));
  auto r = compare_build_rent(in.own, in.rent, ratio<>(*u));
  if (!r) return fail(as_flag(r.error()));
  json j = {{"form", "scalar"}, {"currency", std::string(in.ccy.code)}};
  j.update(build_rates_json(r->fixed_per_hour, r->variable_per_hour, in, r->break_even));
  j["utilization"] = share(ratio<>(*u));
  j["owned_per_delivered_hour"] = hourly(r->owned_per_delivered_hour);
  j["own_is_cheaper"] = r->own_is_cheaper;
  if (o.format == output_format::json) {
    print(j);
    return exit_ok;
  }
  fmt::print("owned: {} {}/h fixed + {} per used hour; at {} utilization a delivered GPU-hour costs {} against {} rented\n",
             j["fixed_per_hour"].get<std::string>(), in.ccy.code, j["variable_per_hour"].get<std::string>(), percent(share(ratio<>(*u))),
             j["owned_per_delivered_hour"].get<std::string>(), j["rent_per_hour"].get<std::string>());
  fmt::print("break-even utilization: {}; {}\n", r->break_even ? percent(share(*r->break_even)) : "none (renting always wins)",
             r->own_is_cheaper ? "owning is cheaper" : "renting is cheaper");
  return exit_ok;
}

json owned_pool_json(const build_inputs& in, const owned_pool_advice& a) {
  const auto option = [&](const owned_pool_option& x) {
    return json{{"owned", x.owned}, {"cost", amount(x.cost, in.ccy)}, {"utilization", x.owned == 0 ? json() : json(share(x.utilization))}};
  };
  json j = {{"form", "profile"}, {"currency", std::string(in.ccy.code)}};
  j.update(build_rates_json(a.fixed_per_hour, a.variable_per_hour, in, a.break_even));
  j.update({{"hours", a.hours}, {"gpu_hours", a.gpu_hours}, {"peak", a.all_owned.owned}});
  j.update(option(a.best));
  // Savings as the differences of the amounts shown, as size_commitment gives them.
  const auto money = [&](const ratio<>& r) { return money_value::round(in.ccy, r, rounding_mode::half_even); };
  const money_value best = money(a.best.cost), rented = money(a.all_rented.cost), owned = money(a.all_owned.cost);
  j.update({{"all_rented_cost", rented.to_string()},
            {"all_owned_cost", owned.to_string()},
            {"savings_vs_rented", (rented - best).to_string()},
            {"savings_vs_owned", (owned - best).to_string()}});
  json curve = json::array();
  for (const owned_pool_option& x : a.curve) curve.push_back(option(x));
  j["curve"] = curve;
  return j;
}

void owned_pool_table(const json& j) {
  const std::string code = j["currency"];
  fmt::print("owned: {} {}/h fixed + {} per used hour; rented {}/h; break-even utilization {}\n", j["fixed_per_hour"].get<std::string>(), code,
             j["variable_per_hour"].get<std::string>(), j["rent_per_hour"].get<std::string>(),
             j["break_even_utilization"].is_null() ? "none" : percent(j["break_even_utilization"].get<double>()));
  fmt::print("{} hours, {} GPU-hours, peak {}\n", j["hours"].get<std::int64_t>(), j["gpu_hours"].get<std::int64_t>(), j["peak"].get<std::int64_t>());
  fmt::print("own {} GPUs, rent the rest: {} {} (all rented {}, all owned {}; saving {} and {})\n", j["owned"].get<std::int64_t>(),
             j["cost"].get<std::string>(), code, j["all_rented_cost"].get<std::string>(), j["all_owned_cost"].get<std::string>(),
             j["savings_vs_rented"].get<std::string>(), j["savings_vs_owned"].get<std::string>());
  fmt::print("{:>6} {:>16} {:>12}\n", "OWNED", "COST", "UTILIZATION");
  for (const json& x : j["curve"])
    fmt::print("{:>6} {:>16} {:>12}\n", x["owned"].get<std::int64_t>(), x["cost"].get<std::string>(),
               x["utilization"].is_null() ? "-" : percent(x["utilization"].get<double>()));
}

int run_build(const build_cli& o) {
  auto in = read_build(o);
  if (!in) return fail(in.error());
  if (o.load.empty()) {
    if (o.utilization.empty())
      return fail(error{error_code::invalid_argument, "--utilization", "give --utilization (scalar form) or --load (profile form)", {}});
    return run_build_scalar(o, *in);
  }
  auto load = io::read_load_file(o.load);
  if (!load) return fail(load.error());
  auto a = size_owned_pool(in->own, in->rent, load->hourly);
  if (!a) return fail(as_flag(a.error()));
  const json j = owned_pool_json(*in, *a);
  if (o.format == output_format::json) {
    print(j);
  } else {
    owned_pool_table(j);
  }
  return exit_ok;
}

CLI::App* add_build(CLI::App& advise, std::shared_ptr<build_cli> o) {
  auto* cmd = advise.add_subcommand("build-vs-rent", "own or rent: the break-even utilization, or with --load the owned pool size that costs least");
  cmd->add_option("--purchase", o->purchase, "purchase price per GPU, with its share of server and network")->required();
  cmd->add_option("--life", o->life, "amortization period (26280h, 1095d, or hours)")->required();
  cmd->add_option("--hosting", o->hosting, "hosting per GPU-hour of wall time (space, cooling, network); default 0");
  cmd->add_option("--staff", o->staff, "operations staff per GPU-hour of wall time; default 0");
  cmd->add_option("--power-kw", o->power_kw, "power per GPU at load in kW, PUE included; default 0");
  cmd->add_option("--energy-price", o->energy, "energy price per kWh; default 0");
  cmd->add_option("--rent", o->rent, "rental price per GPU-hour")->required();
  auto* u = cmd->add_option("--utilization", o->utilization, "scalar form: the share of hours an owned GPU is used, in (0, 1]");
  cmd->add_option("--load", o->load, "profile form: hourly load CSV, hour,gpus or start,gpus (docs/advisors.md)")->excludes(u);
  cmd->add_option("--currency", o->currency, "currency the amounts are rounded to (ISO 4217); default USD");
  add_format(*cmd, o->format);
  return cmd;
}

// ---- advise checkpoint

struct checkpoint_cli {
  std::string solve, write, restart = "0s", notice = "0s", rate, size_gb, size_gib;
  std::int64_t params = 0, bytes_per_param = 16, write_mbps = 0, read_mbps = 0;
  output_format format{};
};

struct checkpoint_inputs {
  seconds solve{0}, write{0}, restart{0}, notice{0};
  double per_hour = 0;
  std::optional<bytes> size;
  std::optional<seconds> restore;
};

// The checkpoint's size from --size-gb, --size-gib or --params x --bytes-per-param, if given.
expected<std::optional<bytes>> checkpoint_size(const checkpoint_cli& o) {
  if (o.params > 0) {
    auto b = model_state_bytes(o.params, o.bytes_per_param);
    if (!b) return unexpected(b.error().in_field("--params"));
    return std::optional<bytes>(*b);
  }
  const bool gib = !o.size_gib.empty();
  if (!gib && o.size_gb.empty()) return std::optional<bytes>();
  const char* flag = gib ? "--size-gib" : "--size-gb";
  GPURENT_TRY(d, decimal_flag(gib ? o.size_gib : o.size_gb, flag));
  // 1 GB is 10^9 bytes: the decimal's nano-units are bytes; a GiB is 2^30 bytes, rounded up.
  const int128 n = gib ? int128((d->raw() * (int128(1) << 30) + decimal<9>::one() - 1) / decimal<9>::one()) : d->raw();
  if (n < 0 || n > int128(std::numeric_limits<std::int64_t>::max()))
    return make_error(error_code::invalid_argument, flag, "must be in 0..2^63 bytes");
  return std::optional<bytes>(bytes(n.convert_to<std::int64_t>()));
}

// Write and restore times from the size and the bandwidths, else --write as given.
expected<void> checkpoint_times(const checkpoint_cli& o, checkpoint_inputs& in) {
  GPURENT_TRY(size, checkpoint_size(o));
  in.size = *size;
  if (!in.size) {
    if (o.write.empty())
      return make_error(error_code::invalid_argument, "--write",
                        "give --write, or a checkpoint size (--size-gb, --size-gib or --params) and --write-mb-per-s");
    GPURENT_TRY(w, duration_flag(o.write, "--write"));
    in.write = *w;
    return {};
  }
  if (o.write_mbps <= 0) return make_error(error_code::invalid_argument, "--write-mb-per-s", "a checkpoint size needs the storage's write bandwidth");
  GPURENT_TRY(w, transfer_time(*in.size, mb_per_s(o.write_mbps)));
  in.write = *w;
  if (o.read_mbps > 0) {
    GPURENT_TRY(r, transfer_time(*in.size, mb_per_s(o.read_mbps)));
    in.restore = *r;
    in.restart += *r;  // restart: getting going again, then reading the checkpoint back
  }
  return {};
}

expected<checkpoint_inputs> read_checkpoint(const checkpoint_cli& o) {
  checkpoint_inputs in;
  GPURENT_TRY(solve, duration_flag(o.solve, "--solve"));
  if (solve->count() <= 0) return make_error(error_code::invalid_argument, "--solve", "must be positive");
  GPURENT_TRY(restart, duration_flag(o.restart, "--restart"));
  GPURENT_TRY(notice, duration_flag(o.notice, "--notice"));
  GPURENT_TRY(rate, decimal<6>::parse(o.rate).map_error([](const error& e) { return e.in_field("--interruptions-per-hour"); }));
  if (rate->sign() < 0 || decimal<6>(10) <= *rate) return make_error(error_code::invalid_argument, "--interruptions-per-hour", "must be in [0, 10)");
  in.solve = *solve;
  in.restart = *restart;
  in.notice = *notice;
  in.per_hour = static_cast<double>(rate->raw().convert_to<std::int64_t>()) / 1e6;
  GPURENT_TRY(checkpoint_times(o, in));
  return in;
}

// Estimates of a random process, shown to the millisecond.
json seconds_json(double s) { return std::isfinite(s) ? json(std::round(s * 1000) / 1000) : json(); }

json checkpoint_json(const checkpoint_cli& o, const checkpoint_inputs& in, const spot_estimate& e) {
  json j = {{"solve_s", in.solve.count()},
            {"write_s", in.write.count()},
            {"restart_s", in.restart.count()},
            {"notice_s", in.notice.count()},
            {"interruptions_per_hour", in.per_hour}};
  if (in.size) j.update({{"checkpoint_bytes", in.size->count()}, {"write_mb_per_s", o.write_mbps}});
  if (in.restore) j.update({{"read_mb_per_s", o.read_mbps}, {"restore_s", in.restore->count()}});
  j.update({{"feasible", e.feasible},
            {"mtbf_s", seconds_json(e.mtbf_s)},
            {"notice_fits_checkpoint", e.notice_fits_checkpoint},
            {"young_interval_s", seconds_json(e.young_s)},
            {"daly_interval_s", seconds_json(e.daly_s)},
            {"rework_per_interruption_s", seconds_json(e.rework_per_interruption_s)},
            {"expected_wall_s", seconds_json(e.expected_wall_s)},
            {"expected_interruptions", seconds_json(e.expected_interruptions)},
            {"wall_s", e.wall.count()},
            {"interruptions", e.interruptions}});
  return j;
}

void checkpoint_table(const checkpoint_inputs& in, const spot_estimate& e) {
  if (in.size)
    fmt::print("checkpoint: {} bytes, written in {}{}\n", in.size->count(), format_duration(in.write),
               in.restore ? ", read back in " + format_duration(*in.restore) : std::string());
  fmt::print("{} of work, checkpoint write {}, restart {}, notice {}, {} interruptions per hour\n", format_duration(in.solve),
             format_duration(in.write), format_duration(in.restart), format_duration(in.notice), in.per_hour);
  if (!e.feasible) {
    fmt::print("infeasible: interruptions come faster than the work progresses\n");
    return;
  }
  if (in.per_hour > 0) fmt::print("mean time between interruptions {:.0f} s; Young {:.0f} s, Daly {:.0f} s\n", e.mtbf_s, e.young_s, e.daly_s);
  fmt::print("{}\n", e.notice_fits_checkpoint
                         ? "the notice holds a checkpoint: write on notice, lose write + restart per interruption"
                         : fmt::format("checkpoint every Daly interval; {:.0f} s of work lost per interruption", e.rework_per_interruption_s));
  fmt::print("expected wall time {} ({:.1f} s), {} interruptions ({:.2f})\n", duration_text(e.wall), e.expected_wall_s, e.interruptions,
             e.expected_interruptions);
}

int run_checkpoint(const checkpoint_cli& o) {
  auto in = read_checkpoint(o);
  if (!in) return fail(in.error());
  const spot_estimate e = estimate_spot(in->solve, in->write, in->restart, in->notice, in->per_hour);
  if (o.format == output_format::json) {
    print(checkpoint_json(o, *in, e));
  } else {
    checkpoint_table(*in, e);
  }
  return exit_ok;
}

CLI::App* add_checkpoint(CLI::App& advise, std::shared_ptr<checkpoint_cli> o) {
  auto* cmd =
      advise.add_subcommand("checkpoint", "checkpoint interval (Young/Daly), expected wall time and rework of a job on interruptible capacity");
  cmd->add_option("--solve", o->solve, "work to do, uninterrupted (48h, 2d)")->required();
  auto* w = cmd->add_option("--write", o->write, "checkpoint write time (5min); or give a size and --write-mb-per-s");
  auto* gb = cmd->add_option("--size-gb", o->size_gb, "checkpoint size in GB (10^9 bytes)");
  auto* gib = cmd->add_option("--size-gib", o->size_gib, "checkpoint size in GiB (2^30 bytes)");
  auto* params = cmd->add_option("--params", o->params, "model parameters: the checkpoint is params x --bytes-per-param")->check(CLI::PositiveNumber);
  cmd->add_option("--bytes-per-param", o->bytes_per_param, "bytes per parameter with optimizer state (16: mixed-precision Adam)")
      ->check(CLI::PositiveNumber)
      ->needs(params);
  gb->excludes(gib)->excludes(params)->excludes(w);
  gib->excludes(params)->excludes(w);
  params->excludes(w);
  cmd->add_option("--write-mb-per-s", o->write_mbps, "storage write bandwidth, MB/s (10^6 bytes a second)")->check(CLI::PositiveNumber);
  cmd->add_option("--read-mb-per-s", o->read_mbps, "storage read bandwidth, MB/s: adds the restore time to --restart")->check(CLI::PositiveNumber);
  cmd->add_option("--restart", o->restart, "time to get going again after an interruption, besides reading the checkpoint; default 0s");
  cmd->add_option("--notice", o->notice, "warning before an interruption (spot notice); default 0s");
  cmd->add_option("--interruptions-per-hour", o->rate, "expected interruptions per hour of the whole allocation")->required();
  add_format(*cmd, o->format);
  return cmd;
}

// ---- advise scaling

struct scaling_cli {
  std::string nodes;
  std::int64_t queued = 0;
  scaling_policy policy;
  output_format format{};
};

int run_scaling(const scaling_cli& o) {
  if (auto c = o.policy.check(); !c) {
    error e = c.error();
    e.field = "--" + e.field;
    std::ranges::replace(e.field, '_', '-');
    if (e.field == "--backlog-per-node-out") e.field = "--backlog-per-node";
    return fail(e);
  }
  auto nodes = io::read_nodes_file(o.nodes);
  if (!nodes) return fail(nodes.error());
  const scaling_decision d = decide_scaling(o.policy, o.queued, *nodes);
  if (o.format == output_format::table) {
    fmt::print("{} node(s), mean utilization {}, {} queued: {}\n", nodes->size(), percent(d.mean_utilization), o.queued, d.reason);
    fmt::print("{}{}\n", to_string(d.action), d.add > 0 ? fmt::format(": add {}", d.add) : std::string());
    if (!d.release.empty()) fmt::print("release now: {}\n", fmt::join(d.release, ", "));
    if (!d.waiting.empty()) fmt::print("waiting for a checkpoint: {}\n", fmt::join(d.waiting, ", "));
    return exit_ok;
  }
  print({{"action", to_string(d.action)},
         {"add", d.add},
         {"release", d.release},
         {"waiting", d.waiting},
         {"reason", d.reason},
         {"nodes", nodes->size()},
         {"queued", o.queued},
         {"mean_utilization", std::round(d.mean_utilization * 1e4) / 1e4}});
  return exit_ok;
}

CLI::App* add_scaling(CLI::App& advise, std::shared_ptr<scaling_cli> o) {
  auto* cmd = advise.add_subcommand("scaling", "scale out or in: nodes to add, and nodes safe to release (idle or checkpointed)");
  cmd->add_option("--nodes", o->nodes, "node status CSV: node,utilization,busy,last_checkpoint,last_progress (docs/advisors.md)")->required();
  cmd->add_option("--queued", o->queued, "jobs waiting in the queue")->required()->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  cmd->add_option("--backlog-per-node", o->policy.backlog_per_node_out, "queued jobs per node above which to add nodes; default 4");
  cmd->add_option("--utilization-out", o->policy.utilization_out, "mean utilization above which to add a node; default 0.85");
  cmd->add_option("--utilization-in", o->policy.utilization_in, "mean utilization below which to release nodes; default 0.30");
  cmd->add_option("--min-nodes", o->policy.min_nodes, "never fewer nodes; default 0");
  cmd->add_option("--max-nodes", o->policy.max_nodes, "never more nodes; default 64");
  add_format(*cmd, o->format);
  return cmd;
}

runner setup_advise(CLI::App& app) {
  auto* advise = app.add_subcommand("advise", "planning advisors: commitment sizing, build versus rent, checkpoints on spot, scaling");
  advise->require_subcommand(1);
  auto co = std::make_shared<commitment_cli>();
  auto bo = std::make_shared<build_cli>();
  auto ko = std::make_shared<checkpoint_cli>();
  auto so = std::make_shared<scaling_cli>();
  CLI::App* commitment = add_commitment(*advise, co);
  CLI::App* build = add_build(*advise, bo);
  CLI::App* checkpoint = add_checkpoint(*advise, ko);
  CLI::App* scaling = add_scaling(*advise, so);
  return [=]() -> int {
    if (commitment->parsed()) return run_commitment(*co);
    if (build->parsed()) return run_build(*bo);
    if (checkpoint->parsed()) return run_checkpoint(*ko);
    if (scaling->parsed()) return run_scaling(*so);
    return exit_invalid;
  };
}
}  // namespace
}  // namespace gpurent::tool::advise

GPURENT_TOOL_COMMAND("advise", &gpurent::tool::advise::setup_advise);
