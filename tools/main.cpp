// SPDX-License-Identifier: MIT
// gpurent: GPU compute rental, matched and billed exactly.
#include <csignal>
#include <cstdio>
#include <map>
#include <string>
#include <system_error>

#include <gpurent/version.hpp>

#include "suggest.hpp"
#include "tool.hpp"

int main(int argc, char** argv) {
  using namespace gpurent::tool;
  // A reader that closes the pipe early (`gpurent meter ... | head`) must not kill the tool
  // before it can say so: the write fails with EPIPE instead, which is exit 4 with a message.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"gpurent: match work to GPUs and bill for it, exactly"};
  app.name("gpurent");
  app.set_version_flag("--version", "gpurent " + std::string(gpurent::version), "print the version and exit");
  app.require_subcommand(1);
  std::map<std::string, runner> runners;
  for (const auto& [name, setup] : registry()) runners.emplace(name, setup(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (auto bad = conversion_problem(app, e)) return fail(*bad);
    fmt::print(stderr, "gpurent: {}\n", e.what());
    for (const std::string& s : suggestions(app, std::vector<std::string>(argv + 1, argv + argc))) fmt::print(stderr, "gpurent: {}\n", s);
    fmt::print(stderr, "run 'gpurent --help' for usage\n");
    return exit_invalid;
  }
  if (auto bad = bad_number_option(app)) return fail(*bad);
  for (const CLI::App* sub : app.get_subcommands()) {
    try {
      return finish_stdout(runners.at(sub->get_name())());
    } catch (const gpurent::exception& e) {
      return fail(e.err());
    } catch (const std::system_error& e) {  // fmt::print found stdout full or closed
      if (std::ferror(stdout) == 0) {
        fmt::print(stderr, "gpurent: {}\n", e.what());
        return exit_invalid;
      }
      fmt::print(stderr, "gpurent: cannot write the output to stdout: {}\n", e.code().message());
      return exit_not_written;
    } catch (const std::exception& e) {
      fmt::print(stderr, "gpurent: {}\n", e.what());
      return exit_invalid;
    }
  }
  return exit_invalid;
}
