// SPDX-License-Identifier: MIT
// gpurent probe: this machine's GPUs (CUDA runtime + NVML loaded at run time), mapped onto
// the catalog with their live MIG layout and live state (utilization, memory, power,
// temperature, ECC health). `--watch 5s --samples N` samples the live state N times and
// prints it as a Prometheus query_range answer with the DCGM exporter's names, which
// `gpurent idle` reads. Exit 3 with a one-line reason and nothing on stdout when there is no
// GPU, no driver, or the tool was built without the probe.
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <gpurent/core/time.hpp>

#include "tool.hpp"

#if defined(GPURENT_HAS_PROBE)
#include <gpurent/io/monitor/prometheus_json.hpp>
#include <gpurent/io/spec/probe_json.hpp>
#include <gpurent/probe/format.hpp>
#include <gpurent/probe/probe.hpp>
#include <gpurent/probe/telemetry.hpp>
#endif

namespace {
using namespace gpurent;

struct probe_options {
  tool::output_format format{};
  std::string watch;  // the sampling interval ("5s"); empty: one reading
  int samples = 0;
};

#if defined(GPURENT_HAS_PROBE)
int run_probe(tool::output_format format) {
  const auto m = probe::probe_machine();
  if (!m) {
    fmt::print(stderr, "gpurent: {}\n", m.error().message);
    return tool::exit_not_here;
  }
  const io::probe_context c{probe::cuda_version_string(m->cuda_version.runtime),
                            m->cuda_version.driver != 0 ? std::optional(probe::cuda_version_string(m->cuda_version.driver)) : std::nullopt,
                            m->cuda_error, probe::nvml_default_library(), m->nvml_error};
  const bool json = format == tool::output_format::json;
  fmt::print("{}", json ? io::probe_machine_json(c, m->gpus).dump(2) + "\n" : io::probe_machine_table(c, m->gpus));
  return tool::exit_ok;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

// Samples every GPU's live state `samples` times, `every` apart, at whole seconds; JSON (a
// query_range answer) at the end, or a table line per GPU and sample as it is read.
int run_watch(seconds every, int samples, tool::output_format format) {
  const auto nothing = [](const std::string& why) {
    fmt::print(stderr, "gpurent: no GPU to watch: {}\n", why);
    return tool::exit_not_here;
  };
  auto lib = probe::nvml_library::open();
  if (!lib) return nothing(lib.error().message);
  const auto devs = lib->devices();
  if (!devs) return nothing(devs.error().message);
  if (devs->empty()) return nothing("NVML sees none");
  const std::string host = host_name();
  io::probe_watch_series series;
  const instant first = std::chrono::ceil<seconds>(std::chrono::system_clock::now());
  for (int k = 0; k < samples; ++k) {
    const instant at = first + k * every;
    std::this_thread::sleep_until(at);
    for (const probe::nvml_device& d : *devs) {
      const auto t = lib->telemetry(d.index);
      if (!t) {  // a GPU lost mid-watch: its time goes unobserved, the others go on
        fmt::print(stderr, "gpurent: {}: {}\n", format_instant(at), t.error().message);
        continue;
      }
      series.add(at, d, *t, host);
      if (format == tool::output_format::table) {
        fmt::print("{}  gpu {} {}  {}\n", format_instant(at), d.index, t->uuid ? *t->uuid : d.name, io::probe_telemetry_line(*t));
        std::fflush(stdout);
      }
    }
  }
  if (format == tool::output_format::json) fmt::print("{}", io::write_query_range_json(series.series()));
  return tool::exit_ok;
}
#endif

tool::runner setup_probe(CLI::App& app) {
  auto o = std::make_shared<probe_options>();
  auto* cmd = app.add_subcommand("probe", "this machine's GPUs (CUDA runtime, NVML) mapped onto the catalog, with live MIG layouts and state");
  tool::add_format_option(*cmd, o->format, {{"json", tool::output_format::json}, {"table", tool::output_format::table}});
  cmd->add_option("--watch", o->watch, "sample the live state this often (5s, 1min); JSON: a Prometheus query_range answer for gpurent idle")
      ->type_name("DURATION");
  cmd->add_option("--samples", o->samples, "how many samples --watch takes");
  return [o] {
    if (o->watch.empty() && o->samples != 0) return tool::fail(error{error_code::invalid_argument, "--samples", "needs --watch", {}});
    std::optional<seconds> every;
    if (!o->watch.empty()) {
      auto d = tool::duration_option(o->watch, "--watch", {.positive = true});
      if (!d) return tool::fail(d.error());
      if (o->samples < 1) return tool::fail(error{error_code::invalid_argument, "--samples", "--watch needs --samples N, N >= 1", {}});
      every = *d;
    }
#if defined(GPURENT_HAS_PROBE)
    return every ? run_watch(*every, o->samples, o->format) : run_probe(o->format);
#else
    fmt::print(stderr, "gpurent: built without CUDA probe support\n");
    return tool::exit_not_here;
#endif
  };
}
GPURENT_TOOL_COMMAND("probe", &setup_probe);
}  // namespace
