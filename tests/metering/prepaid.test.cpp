// SPDX-License-Identifier: MIT
// Prepaid packages of TFLOPS-hours (docs/formats/billing.md, "Prepaid packages"): bought once,
// drawn down by the usage of rates priced per TFLOPS-hour of their precision in (start, id)
// order, the balance carried from month to month through the previous invoice; checked by hand
// (bought, partly used, carried; usage beyond it; expiry; two packages; padding) and against a
// one-pass reference over two months on 1 and 3 threads; a previous invoice edited by hand is
// refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gpurent/io/billing/invoice_focus.hpp>
#include <gpurent/io/billing/invoice_json.hpp>
#include <gpurent/io/billing/meter_files.hpp>
#include <gpurent/io/billing/previous_invoice.hpp>
#include <gpurent/io/billing/tariff_json.hpp>
#include <gpurent/io/billing/usage_csv.hpp>
#include <gpurent/metering/metering.hpp>
#include <gpurent/spec/catalog.hpp>

#include "support/files.hpp"

// One namespace per test file: CI compiles each layer as a unity build.
namespace test_metering_prepaid {

using namespace gpurent;

namespace {
std::int64_t fp16_gflops(std::string_view model) { return find_model(model)->throughput.fp16->value.count(); }
const std::int64_t h100 = fp16_gflops("H100-SXM5-80GB");
const std::int64_t a100 = fp16_gflops("A100-SXM4-80GB");

// TFLOPS-hours of `gpu_hours` (a decimal text) of a GPU of `g` GFLOPS, as decimal text.
std::string tflops_hours(std::int64_t g, std::int64_t gpu_hours_milli) { return format_exact(ratio<>(int128(g) * gpu_hours_milli, int128(1000000))); }

// A tariff pricing H100 and A100 fp16 TFLOPS-hours at 0.0025 (`increment` on the H100 rate),
// with the given packages; `top`: more top-level members ("rounding_point":"invoice",).
expected<tariff> tariff_with(const std::string& packages, std::string_view increment = "1s", std::string_view top = "") {
  const std::string text = R"({"currency":"USD","timezone":"UTC",)" + std::string(top) +
                           R"("rates":[)"
                           R"({"resource":"compute/H100-SXM5-80GB","mode":"on_demand","unit_price":"0.0025","per_tflops":"fp16","increment":")" +
                           std::string(increment) +
                           R"("},)"
                           R"({"resource":"compute/A100-SXM4-80GB","mode":"on_demand","unit_price":"0.0025","per_tflops":"fp16"}],)"
                           R"("prepaid":[)" +
                           packages + "]}";
  return io::parse_tariff_json(text, "t.json");
}

std::string package(std::string_view id, const std::string& size, std::string_view bought, std::string_view extra = "") {
  return R"({"id":")" + std::string(id) + R"(","account":"acme","per_tflops":"fp16","tflops_hours":")" + size + R"(","price":"2.00","bought":")" +
         std::string(bought) + "\"" + std::string(extra) + "}";
}

// The month's invoice: on one meter, or (jobs > 1) through the threaded file reader in small
// blocks, so that records land in several shards.
expected<invoice> meter_month(const tariff& t, std::string_view month, const std::string& usage, const io::previous_month& previous = {},
                              unsigned jobs = 1) {
  GPURENT_TRY(m, meter::for_month(t, month));
  if (jobs == 1) {
    GPURENT_TRY(io::meter_usage_csv(*m, usage, "u.csv"));
    return m->finish(previous.carry, previous.prepaid);
  }
  const std::vector<std::string> files = {test::write_file(test::scratch_dir("prepaid") / "u.csv", usage)};
  GPURENT_TRY(shards, io::meter_usage_files(*m, files, {.shard = {}, .jobs = jobs, .block_bytes = 512}));
  return meter::finish_shards(*shards, previous.carry, previous.prepaid);
}

constexpr std::string_view header = "id,account,resource,mode,quantity,start,end\n";
std::string h100_row(std::string_view id, std::string_view start, std::string_view end, std::string_view quantity = "1") {
  return std::string(id) + ",acme,compute/H100-SXM5-80GB,on_demand," + std::string(quantity) + "," + std::string(start) + "," + std::string(end) +
         "\n";
}

// The price of `gpu_seconds` of a GPU of `g` GFLOPS at 0.0025 per TFLOPS-hour.
ratio<> cost(std::int64_t g, std::int64_t gpu_seconds) { return ratio<>(int128(25) * g * gpu_seconds, int128(10000) * 1000 * 3600); }
int128 flop(std::int64_t g, std::int64_t gpu_seconds) { return int128(g) * gpu_seconds * 1'000'000'000; }
}  // namespace

TEST_CASE("a package bought, partly used, the rest carried to the next month, then usage beyond it") {
  // Three H100 GPU-hours' worth of fp16 TFLOPS-hours, bought on November 1st.
  auto t = tariff_with(package("pkg-1", tflops_hours(h100, 3000), "2026-11-01T00:00:00Z"));
  if (!t) FAIL(t.error().describe());
  auto nov = meter_month(*t, "2026-11", std::string(header) + h100_row("n1", "2026-11-03T10:00:00Z", "2026-11-03T11:00:00Z"));
  if (!nov) FAIL(nov.error().describe());
  const invoice_account& a = nov->accounts.at(0);
  CHECK(a.lines.at(0).exact == ratio<>{});  // one GPU-hour, paid by the package
  REQUIRE(a.prepaid.size() == 1);
  const invoice_prepaid& p = a.prepaid[0];
  CHECK(p.amount.to_string() == "2.00");  // its price, in the month it is bought
  CHECK(p.opening == flop(h100, 3 * 3600));
  CHECK(p.drawn == flop(h100, 3600));
  CHECK(p.closing == flop(h100, 2 * 3600));
  CHECK(p.expired == 0);
  CHECK(a.total.to_string() == "2.00");
  const std::string nov_json = io::write_invoice_json(*nov);
  CHECK(nov_json.find("\"closing_tflops_hours\": \"" + tflops_hours(h100, 2000) + "\"") != std::string::npos);

  // December: three GPU-hours; two come from the carried balance, one is billed at the rate.
  const std::string dec_usage = std::string(header) + h100_row("d1", "2026-12-02T00:00:00Z", "2026-12-02T03:00:00Z");
  auto without = meter_month(*t, "2026-12", dec_usage);
  REQUIRE_FALSE(without);
  CHECK(without.error().field == "prepaid");
  CHECK(without.error().message.find("--previous") != std::string::npos);
  auto previous = io::parse_previous_invoice(nov_json, *t, date::year(2026) / date::December, "nov.json");
  if (!previous) FAIL(previous.error().describe());
  auto dec = meter_month(*t, "2026-12", dec_usage, *previous);
  if (!dec) FAIL(dec.error().describe());
  const invoice_account& d = dec->accounts.at(0);
  CHECK(d.lines.at(0).exact == cost(h100, 3600));
  CHECK(d.prepaid.at(0).amount.to_string() == "0.00");  // bought in November
  CHECK(d.prepaid.at(0).opening == flop(h100, 2 * 3600));
  CHECK(d.prepaid.at(0).drawn == flop(h100, 2 * 3600));
  CHECK(d.prepaid.at(0).closing == 0);
  // The FOCUS file of November has the purchase; December's has none.
  CHECK(io::write_invoice_focus(*nov, &*t).find("Purchase") != std::string::npos);
  CHECK(io::write_invoice_focus(*dec, &*t).find("Purchase") == std::string::npos);
  // January: the empty package is still listed (nothing to carry but its zero balance).
  auto jan_prev = io::parse_previous_invoice(io::write_invoice_json(*dec), *t, date::year(2027) / date::January, "dec.json");
  REQUIRE(jan_prev);
  auto jan = meter_month(*t, "2027-01", std::string(header), *jan_prev);
  REQUIRE(jan);
  REQUIRE(jan->accounts.size() == 1);
  CHECK(jan->accounts[0].prepaid.at(0).opening == 0);
  CHECK(jan->accounts[0].total.to_string() == "0.00");
}

TEST_CASE("a record larger than the balance pays for the rest; a record started before the purchase draws nothing") {
  // Half an H100 GPU-hour's worth, bought at 10:00.
  auto t = tariff_with(package("half", tflops_hours(h100, 500), "2026-11-03T10:00:00Z"));
  REQUIRE(t);
  auto inv = meter_month(*t, "2026-11",
                         std::string(header) + h100_row("early", "2026-11-03T09:00:00Z", "2026-11-03T10:30:00Z") +
                             h100_row("late", "2026-11-03T11:00:00Z", "2026-11-03T12:00:00Z"));
  REQUIRE(inv);
  const invoice_account& a = inv->accounts.at(0);
  // early pays all its 90 minutes; late pays 30 of its 60.
  CHECK(a.lines.at(0).exact == cost(h100, 5400) + cost(h100, 1800));
  CHECK(a.prepaid.at(0).closing == 0);
  CHECK(a.prepaid.at(0).drawn == flop(h100, 1800));
}

TEST_CASE("the package that expires first is drawn first, across GPU models; what is left at expiry is forfeited") {
  const std::string first = package("soon", tflops_hours(h100, 1000), "2026-11-01T00:00:00Z", R"(,"expires":"2026-11-10T00:00:00Z")");
  const std::string later = package("later", tflops_hours(h100, 1000), "2026-10-01T00:00:00Z");
  auto t = tariff_with(later + "," + first);
  REQUIRE(t);
  io::previous_month prev;
  prev.prepaid["later"] = flop(h100, 3600);  // full on November 1st
  const std::string usage = std::string(header) + "a1,acme,compute/A100-SXM4-80GB,on_demand,1,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z\n" +
                            h100_row("h1", "2026-11-20T00:00:00Z", "2026-11-20T01:00:00Z");
  auto inv = meter_month(*t, "2026-11", usage, prev);
  if (!inv) FAIL(inv.error().describe());
  const invoice_account& a = inv->accounts.at(0);
  REQUIRE(a.prepaid.size() == 2);
  CHECK(a.prepaid[0].id == "soon");  // drawn order: expiry first
  // a1 (an A100 hour) comes out of "soon"; its rest expires on the 10th; h1 (after it) draws "later".
  CHECK(a.prepaid[0].drawn == flop(a100, 3600));
  CHECK(a.prepaid[0].expired == flop(h100, 3600) - flop(a100, 3600));
  CHECK(a.prepaid[0].closing == 0);
  CHECK(a.prepaid[1].drawn == flop(h100, 3600));
  CHECK(a.prepaid[1].closing == 0);
  CHECK(a.exact_total == ratio<>(int128(200), int128(100)));  // only "soon"'s price; both hours paid by packages
}

TEST_CASE("a package pays a record's padding from its billed time: covered first, the padding last") {
  // The H100 rate bills whole hours; a 30-minute record bills one hour.
  auto t = tariff_with(package("p", tflops_hours(h100, 750), "2026-11-01T00:00:00Z"), "1h");
  REQUIRE(t);
  auto inv = meter_month(*t, "2026-11", std::string(header) + h100_row("r", "2026-11-05T00:00:00Z", "2026-11-05T00:30:00Z"));
  REQUIRE(inv);
  const invoice_line& l = inv->accounts.at(0).lines.at(0);
  CHECK(l.exact == cost(h100, 900));  // 45 of 60 billed minutes paid by the package
  CHECK(l.waste == cost(h100, 900));  // the rest is padding
  CHECK(inv->accounts[0].prepaid[0].closing == 0);
}

TEST_CASE("a package's price counts once in the account's total, at every rounding point") {
  for (const std::string_view point : {"line", "record", "invoice"}) {
    CAPTURE(point);
    auto t = tariff_with(package("p", tflops_hours(h100, 500), "2026-11-01T00:00:00Z"), "1s", R"("rounding_point":")" + std::string(point) + R"(",)");
    REQUIRE(t);
    // Half an hour paid by the package; the rest of r1 and all of r2 at the rate.
    auto inv = meter_month(*t, "2026-11",
                           std::string(header) + h100_row("r1", "2026-11-02T00:00:00Z", "2026-11-02T01:00:07Z") +
                               "r2,acme,compute/A100-SXM4-80GB,on_demand,3,2026-11-03T00:00:00Z,2026-11-03T00:17:13Z\n");
    REQUIRE(inv);
    const invoice_account& a = inv->accounts.at(0);
    int128 lines = 0;
    ratio<> exact;
    for (const invoice_line& l : a.lines) {
      lines += l.amount.minor_units();
      exact += l.exact;
    }
    CHECK(exact == cost(h100, 1807) + cost(a100, 3 * 1033));
    CHECK(a.prepaid.at(0).amount.to_string() == "2.00");
    const int128 off = lines - exact.round_to_digits(2, rounding_mode::half_even);
    CHECK((off >= -2 && off <= 2));           // the lines carry the usage only (a cent per line of rounding at most)
    if (point == "invoice") CHECK(off == 0);  // the lines share their own rounded total
    CHECK(a.total.minor_units() == lines + 200);
    CHECK(a.exact_total == exact + ratio<>(int128(2), int128(1)));
  }
}

TEST_CASE("prepaid packages: errors name the field") {
  const auto error_of = [](const std::string& packages) {
    auto t = tariff_with(packages);
    REQUIRE_FALSE(t);
    return t.error().field + ": " + t.error().message;
  };
  CHECK(error_of(R"({"id":"x","account":"a","per_tflops":"fp8","tflops_hours":"1","price":"1","bought":"2026-11-01T00:00:00Z"})")
            .find("prepaid[0].per_tflops: no rate is priced per TFLOPS-hour of \"fp8\"") != std::string::npos);
  const std::string ok = package("x", "1", "2026-11-01T00:00:00Z");
  CHECK(error_of(ok + "," + ok).find("prepaid[1].id") != std::string::npos);
  CHECK(error_of(package("x", "0", "2026-11-01T00:00:00Z")).find("prepaid[0].tflops_hours") != std::string::npos);
  CHECK(error_of(package("x", "1", "2026-11-01T00:00:00Z", R"(,"expires":"2026-11-01T00:00:00Z")")).find("prepaid[0].expires") != std::string::npos);
  CHECK(error_of(package("x", "1", "2026-11-01T00:00:00Z", R"(,"colour":"red")")).find("colour") != std::string::npos);

  auto t = tariff_with(package("pkg-1", "10", "2026-10-01T00:00:00Z"));
  REQUIRE(t);
  const auto previous_error = [&](const std::string& json) {
    auto p = io::parse_previous_invoice(json, *t, date::year(2026) / date::November, "nov.json");
    REQUIRE_FALSE(p);
    return p.error().describe();
  };
  const auto prev = [](std::string_view period, std::string_view id, std::string_view closing) {
    return R"({"currency":"USD","timezone":"UTC","period":")" + std::string(period) +
           R"(","accounts":[{"account":"acme","lines":[],"prepaid":[{"id":")" + std::string(id) + R"(","closing_tflops_hours":")" +
           std::string(closing) + R"("}]}]})";
  };
  CHECK(previous_error(prev("2026-09", "pkg-1", "1")).find("not the month before 2026-11") != std::string::npos);
  CHECK(previous_error(prev("2026-10", "pkg-2", "1")).find("accounts[0].prepaid[0].id") != std::string::npos);
  CHECK(previous_error(prev("2026-10", "pkg-1", "11")).find("closing_tflops_hours") != std::string::npos);
  CHECK(previous_error(prev("2026-10", "pkg-1", "one")).find("not an exact number") != std::string::npos);
  auto ok_prev = io::parse_previous_invoice(prev("2026-10", "pkg-1", "5/3"), *t, date::year(2026) / date::November, "nov.json");
  REQUIRE(ok_prev);
  CHECK(ok_prev->prepaid.at("pkg-1") == int128(5) * flop_per_tflops_hour / 3);
}

TEST_CASE("the previous invoice must be one the meter wrote under the tariff: a hand edit that would change an amount is refused") {
  // Found by a probe: a carry_out raised to 1000000 was billed in full, a package listed twice
  // kept its last balance, and another time zone or an unknown field went unnoticed.
  auto t = tariff_with(package("pkg-1", "10", "2026-10-01T00:00:00Z"), "1s", R"("carry":true,)");
  REQUIRE(t);
  const auto parse = [&](const std::string& accounts, std::string_view top = R"("timezone":"UTC")") {
    return io::parse_previous_invoice(R"({"currency":"USD","period":"2026-10",)" + std::string(top) + R"(,"accounts":[)" + accounts + "]}", *t,
                                      date::year(2026) / date::November, "oct.json");
  };
  const auto error_of = [&](const std::string& accounts, std::string_view top = R"("timezone":"UTC")") {
    auto p = parse(accounts, top);
    REQUIRE_FALSE(p);
    return p.error().describe();
  };
  const auto line = [](std::string_view resource, std::string_view carry) {
    return R"({"resource":")" + std::string(resource) + R"(","mode":"on_demand","amount":"1.00","carry_out":")" + std::string(carry) + R"("})";
  };
  const auto account = [](std::string_view name, const std::string& lines, const std::string& prepaid = "") {
    return R"({"account":")" + std::string(name) + R"(","lines":[)" + lines + R"(],"prepaid":[)" + prepaid + "]}";
  };
  const std::string pkg = R"({"id":"pkg-1","closing_tflops_hours":"4"})";
  // What the meter writes reads back: a carry within half a cent either way, a balance.
  auto ok = parse(account("acme", line("compute/H100-SXM5-80GB", "0.004") + "," + line("compute/A100-SXM4-80GB", "-1/300"), pkg));
  REQUIRE(ok);
  CHECK(ok->carry.size() == 2);
  CHECK(ok->prepaid.at("pkg-1") == int128(4) * flop_per_tflops_hour);
  const std::string res = "compute/H100-SXM5-80GB";
  CHECK(error_of(account("acme", line(res, "1000000"))).find("field 'accounts[0].lines[0].carry_out': not a rounding remainder") !=
        std::string::npos);
  CHECK(error_of(account("acme", line(res, "-0.01"))).find("smaller than one minor unit (0.01 USD)") != std::string::npos);
  CHECK(error_of(account("acme", line(res, "0") + "," + line(res, "0"))).find("field 'accounts[0].lines[1].resource': line") != std::string::npos);
  CHECK(error_of(account("acme", "", pkg + "," + pkg)).find("field 'accounts[0].prepaid[1].id': package \"pkg-1\" appears twice") !=
        std::string::npos);
  CHECK(error_of(account("acme", "") + "," + account("acme", "")).find("field 'accounts[1].account': account \"acme\" appears twice") !=
        std::string::npos);
  CHECK(error_of(account("acme", ""), R"("timezone":"Asia/Tokyo")")
            .find("field 'timezone': the previous invoice is in Asia/Tokyo, the tariff in UTC") != std::string::npos);
  CHECK(error_of(account("acme", ""), R"("timezone":"UTC","bogus":1)").find("field 'bogus': unknown field") != std::string::npos);
  CHECK(error_of(R"({"account":"acme","lines":[],"note":"x"})").find("field 'accounts[0].note': unknown field") != std::string::npos);
  CHECK(error_of(account("acme", R"({"resource":"r","mode":"m","carry_out":"0","colour":"red"})")).find("accounts[0].lines[0].colour") !=
        std::string::npos);
}

TEST_CASE("tariff JSON writes prepaid packages back as written") {
  auto t = tariff_with(package("p", "12.5", "2026-11-01T00:00:00Z", R"(,"expires":"2027-11-01T00:00:00Z")"));
  REQUIRE(t);
  const nlohmann::json j = io::tariff_to_json(*t).value();
  CHECK(j["prepaid"][0]["tflops_hours"] == "12.5");
  CHECK(j["prepaid"][0]["expires"] == "2027-11-01T00:00:00Z");
  auto again = io::parse_tariff_json(j.dump(), "again.json");
  REQUIRE(again);
  CHECK(again->prepaid() == t->prepaid());
}

namespace {
struct gen_record {
  std::string id, account, model;
  std::int64_t start = 0, seconds = 0, quantity = 1;
};

// The slow twin: every record of both months in (start, id) order per account, each drawing
// whole nano GPU-seconds from the first package (by expiry, purchase, id) it may use; the
// exact cost each month of what no package paid, and the balances after each month.
struct reference {
  std::map<std::string, ratio<>> cost;  // by "account month"
  std::map<std::string, int128> left;   // by package id, after the last month
};
reference one_pass(std::vector<gen_record> recs, const std::vector<prepaid_package>& pkgs) {
  reference out;
  std::ranges::sort(recs, [](const gen_record& a, const gen_record& b) { return std::tie(a.start, a.id) < std::tie(b.start, b.id); });
  for (const prepaid_package& p : pkgs) out.left[p.id] = p.size_flop();
  for (const gen_record& r : recs) {
    const std::int64_t g = fp16_gflops(r.model);
    const std::string month = r.start < 1'796'083'200 ? "2026-11" : "2026-12";  // 2026-12-01T00:00:00Z
    int128 want = int128(r.seconds) * r.quantity * 1'000'000'000;
    for (const prepaid_package& p : pkgs) {
      if (p.account != r.account || !p.usable_at(instant{seconds{r.start}})) continue;
      const int128 can = out.left[p.id] / g;
      const int128 take = want < can ? want : can;
      out.left[p.id] -= take * g;
      want -= take;
    }
    out.cost[r.account + " " + month] += ratio<>(want * 25 * g, int128(10000) * 1000 * 3600 * 1'000'000'000);
  }
  return out;
}
}  // namespace

TEST_CASE("prepaid draws month by month through the previous invoice equal one pass over both months, on 1 and 3 threads") {
  std::mt19937_64 rng(20261206);
  int128 drawn = 0;  // over all trials: the draws and the payments both happened
  ratio<> paid;
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<gen_record> recs;
    std::string usage(header);
    const std::int64_t nov1 = 1'793'491'200;  // 2026-11-01T00:00:00Z
    for (int i = 0; i < 40; ++i) {
      gen_record r{.id = "r" + std::to_string(rng() % 1000) + "-" + std::to_string(i),
                   .account = rng() % 3 == 0 ? "beta" : "acme",
                   .model = rng() % 2 == 0 ? "H100-SXM5-80GB" : "A100-SXM4-80GB",
                   .start = nov1 + static_cast<std::int64_t>(rng() % (58 * 86400)),
                   .seconds = 1 + static_cast<std::int64_t>(rng() % 20000),
                   .quantity = 1 + static_cast<std::int64_t>(rng() % 4)};
      const std::int64_t month_end = r.start < 1'796'083'200 ? 1'796'083'200 : 1'798'761'600;
      r.seconds = std::min(r.seconds, month_end - r.start);  // within its month
      usage += r.id + "," + r.account + ",compute/" + r.model + ",on_demand," + std::to_string(r.quantity) + "," +
               format_instant(instant{seconds{r.start}}) + "," + format_instant(instant{seconds{r.start + r.seconds}}) + "\n";
      recs.push_back(r);
    }
    std::string pkgs;
    for (int k = 0; k < 3; ++k) {
      const std::int64_t bought = nov1 + static_cast<std::int64_t>(rng() % (40 * 86400));
      const std::string expiry =
          rng() % 2 == 0 ? ""
                         : R"(,"expires":")" + format_instant(instant{seconds{bought + 86400 * static_cast<std::int64_t>(5 + rng() % 30)}}) + "\"";
      if (k > 0) pkgs += ",";
      pkgs += R"({"id":"p)" + std::to_string(k) + R"(","account":")" + (k == 2 ? "beta" : "acme") + R"(","per_tflops":"fp16","tflops_hours":")" +
              std::to_string(500 + rng() % 20000) + R"(","price":"10","bought":")" + format_instant(instant{seconds{bought}}) + "\"" + expiry + "}";
    }
    auto t = tariff_with(pkgs);
    if (!t) FAIL(t.error().describe());
    const reference want = one_pass(recs, t->prepaid());
    for (unsigned jobs : {1U, 3U}) {
      CAPTURE(trial);
      CAPTURE(jobs);
      auto nov = meter_month(*t, "2026-11", usage, {}, jobs);
      if (!nov) FAIL(nov.error().describe());
      auto prev = io::parse_previous_invoice(io::write_invoice_json(*nov), *t, date::year(2026) / date::December, "nov.json");
      if (!prev) FAIL(prev.error().describe());
      auto dec = meter_month(*t, "2026-12", usage, *prev, jobs);
      if (!dec) FAIL(dec.error().describe());
      for (const invoice* inv : {&*nov, &*dec}) {
        for (const invoice_account& a : inv->accounts) {
          ratio<> lines;
          for (const invoice_line& l : a.lines) lines += l.exact;
          const auto c = want.cost.find(a.account + " " + inv->period);
          CHECK(lines == (c == want.cost.end() ? ratio<>{} : c->second));
          for (const invoice_prepaid& p : a.prepaid) {
            CHECK(p.opening - p.drawn == p.closing + p.expired);
            drawn += p.drawn;
          }
          paid += lines;
        }
      }
      for (const invoice_account& a : dec->accounts)
        for (const invoice_prepaid& p : a.prepaid) {
          const prepaid_package& pk = *std::ranges::find(t->prepaid(), p.id, &prepaid_package::id);
          const bool gone = pk.expires && *pk.expires <= dec->span.end();
          CHECK((gone ? p.closing == 0 : p.closing == want.left.at(p.id)));
        }
    }
  }
  CHECK(drawn > 0);
  CHECK(paid > ratio<>{});
}

}  // namespace test_metering_prepaid
