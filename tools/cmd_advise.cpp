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
#include <gpurent/io/fleet/nodes_csv.hpp>
#include <gpurent/io/plan/advise_json.hpp>
#include <gpurent/io/plan/load_csv.hpp>
#include <gpurent/io/plan/offers_json.hpp>
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
    GPURENT_TRY(t, duration_option(o.term, "--term", {.positive = true}));
    term = *t;
  } else if (const seconds m = cat->find(o.offer, offer_mode::reserved)->pricing.time.minimum(); m.count() > 0) {
    term = m;  // the reservation's minimum is its term
  }
  return commitment_inputs{std::move(*load), std::move(*cat), *od, *rsv, term};
}

int run_commitment(const commitment_cli& o) {
  auto in = read_commitment(o);
  if (!in) return fail(in.error());
  auto a = size_commitment(in->load.hourly, in->catalog.currency_value(), in->catalog.rounding(), in->on_demand, in->committed, in->term);
  if (!a) return fail(a.error());
  const io::commitment_case c{o.offer, in->catalog.currency_value(), in->load.hourly.size(), in->on_demand, in->committed};
  fmt::print("{}", o.format == output_format::json ? io::commitment_json(c, *a).dump(2) + "\n" : io::commitment_table(c, *a));
  return exit_ok;
}

CLI::App* add_commitment(CLI::App& advise, std::shared_ptr<commitment_cli> o) {
  auto* cmd = advise.add_subcommand("commitment", "how many units of an offer to reserve for an hourly load, against on demand");
  cmd->add_option("--load", o->load, "hourly load CSV: hour,units or start,units (docs/advisors.md)")->required();
  cmd->add_option("--offers", o->offers, "offers JSON (docs/planning.md)")->required();
  cmd->add_option("--offer", o->offer, "the offer id; it needs an on_demand and a reserved mode")->required();
  cmd->add_option("--term", o->term, "commitment term (720h, 365d, 52w); default: the reserved rate's minimum")->type_name("DURATION");
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
  GPURENT_TRY(life, duration_option(o.life, "--life"));
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

int run_build_scalar(const build_cli& o, const build_inputs& in) {
  auto u = decimal<9>::parse(o.utilization);
  if (!u) return fail(u.error().in_field("--utilization"));
  auto r = compare_build_rent(in.own, in.rent, ratio<>(*u));
  if (!r) return fail(as_flag(r.error()));
  const json j = io::build_scalar_json(in.ccy, in.rent, ratio<>(*u), *r);
  fmt::print("{}", o.format == output_format::json ? j.dump(2) + "\n" : io::build_scalar_table(j, in.ccy, *r));
  return exit_ok;
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
  const json j = io::owned_pool_json(in->ccy, in->rent, *a);
  fmt::print("{}", o.format == output_format::json ? j.dump(2) + "\n" : io::owned_pool_table(j));
  return exit_ok;
}

CLI::App* add_build(CLI::App& advise, std::shared_ptr<build_cli> o) {
  auto* cmd = advise.add_subcommand("build-vs-rent", "own or rent: the break-even utilization, or with --load the owned pool size that costs least");
  cmd->add_option("--purchase", o->purchase, "purchase price per GPU, with its share of server and network")->required();
  cmd->add_option("--life", o->life, "amortization period (26280h, 1095d, 156w)")->type_name("DURATION")->required();
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

// Write and restore times from the size and the bandwidths, else --checkpoint-write as given.
expected<void> checkpoint_times(const checkpoint_cli& o, io::checkpoint_case& in) {
  GPURENT_TRY(size, checkpoint_size(o));
  in.size = *size;
  if (!in.size) {
    if (o.write.empty())
      return make_error(error_code::invalid_argument, "--checkpoint-write",
                        "give --checkpoint-write, or a checkpoint size (--size-gb, --size-gib or --params) and --write-mb-per-s");
    GPURENT_TRY(w, duration_option(o.write, "--checkpoint-write"));
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

expected<io::checkpoint_case> read_checkpoint(const checkpoint_cli& o) {
  io::checkpoint_case in;
  GPURENT_TRY(solve, duration_option(o.solve, "--solve", {.positive = true}));
  GPURENT_TRY(restart, duration_option(o.restart, "--restart"));
  GPURENT_TRY(notice, duration_option(o.notice, "--notice"));
  GPURENT_TRY(rate, decimal<6>::parse(o.rate).map_error([](const error& e) { return e.in_field("--interruptions-per-hour"); }));
  if (rate->sign() < 0 || decimal<6>(10) <= *rate) return make_error(error_code::invalid_argument, "--interruptions-per-hour", "must be in [0, 10)");
  in.solve = *solve;
  in.restart = *restart;
  in.notice = *notice;
  in.per_hour = static_cast<double>(rate->raw().convert_to<std::int64_t>()) / 1e6;
  in.write_mbps = o.write_mbps;
  in.read_mbps = o.read_mbps;
  GPURENT_TRY(checkpoint_times(o, in));
  return in;
}

int run_checkpoint(const checkpoint_cli& o) {
  auto in = read_checkpoint(o);
  if (!in) return fail(in.error());
  const spot_estimate e = estimate_spot(in->solve, in->write, in->restart, in->notice, in->per_hour);
  fmt::print("{}", o.format == output_format::json ? io::checkpoint_json(*in, e).dump(2) + "\n" : io::checkpoint_table(*in, e));
  return exit_ok;
}

// A finite number above 0 (finite_number's reading): CLI::PositiveNumber says "not in range
// 0.000000 to " and the 309 digits of the largest double.
const CLI::Validator positive_number(
    [](std::string& s) -> std::string {
      const std::optional<double> v = finite_number(s);
      return v && *v > 0 ? std::string() : "must be a number above 0, got \"" + s + "\"";
    },
    "POSITIVE");

CLI::App* add_checkpoint(CLI::App& advise, std::shared_ptr<checkpoint_cli> o) {
  auto* cmd =
      advise.add_subcommand("checkpoint", "checkpoint interval (Young/Daly), expected wall time and rework of a job on interruptible capacity");
  cmd->add_option("--solve", o->solve, "work to do, uninterrupted (48h, 2d12h)")->type_name("DURATION")->required();
  auto* w = cmd->add_option("--checkpoint-write,--write", o->write,
                            "checkpoint write time (5min, 1m30s), as fleet run's --checkpoint-write and a workload's checkpoint; or give a "
                            "size and --write-mb-per-s")
                ->type_name("DURATION");
  auto* gb = cmd->add_option("--size-gb", o->size_gb, "checkpoint size in GB (10^9 bytes)");
  auto* gib = cmd->add_option("--size-gib", o->size_gib, "checkpoint size in GiB (2^30 bytes)");
  auto* params = cmd->add_option("--params", o->params, "model parameters: the checkpoint is params x --bytes-per-param")->check(positive_number);
  cmd->add_option("--bytes-per-param", o->bytes_per_param, "bytes per parameter with optimizer state (16: mixed-precision Adam)")
      ->check(positive_number)
      ->needs(params);
  gb->excludes(gib)->excludes(params)->excludes(w);
  gib->excludes(params)->excludes(w);
  params->excludes(w);
  cmd->add_option("--write-mb-per-s", o->write_mbps, "storage write bandwidth, MB/s (10^6 bytes a second)")->check(positive_number);
  cmd->add_option("--read-mb-per-s", o->read_mbps, "storage read bandwidth, MB/s: adds the restore time to --restart")->check(positive_number);
  cmd->add_option("--restart", o->restart, "time to get going again after an interruption, besides reading the checkpoint; default 0s")
      ->type_name("DURATION");
  cmd->add_option("--notice", o->notice, "warning before an interruption (spot notice); default 0s")->type_name("DURATION");
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
  const bool table = o.format == output_format::table;
  fmt::print("{}", table ? io::scaling_table(d, nodes->size(), o.queued) : io::scaling_json(d, nodes->size(), o.queued).dump(2) + "\n");
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
