// starzk: Groth16 over BLS12-381. Entry point of the command line; the
// subcommands live in cmd_*.cpp (see commands.hpp). Every failure ends
// here: one stderr line "starzk: <reason>" and the exit status of its kind
// (commands.hpp; docs/usage.md, "Exit status").
//
// <starpu.h> is included here for one reason: a StarPU built with SimGrid
// (for `starzk trace replay` on simulated machines) renames the main() of
// any file that includes it and starts the simulation before calling it.
#include <starpu.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "groth16/prover.hpp"
#include "io/io_error.hpp"
#include "util/config.hpp"
#include "util/crash_report.hpp"

#ifndef STARZK_VERSION
#define STARZK_VERSION "0.0.0"
#endif

namespace {

int fail(int code, const std::string& why) {
  std::fprintf(stderr, "starzk: %s\n", why.c_str());
  if (!starzk::cli::json_command.empty())
    std::printf("%s\n",
                nlohmann::json{{"command", starzk::cli::json_command}, {"error", why}, {"exit", code}}.dump().c_str());
  return code;
}

// A CLI11 parse error: usage (2), except a file option naming a file that
// does not exist or is a folder (CLI::ExistingFile), which is bad input (3),
// said file first as for every bad input: CLI11's "--wtns: File does not
// exist: w.wtns" as "w.wtns: does not exist (--wtns)".
int parse_failure(const CLI::ParseError& e) {
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ValidationError*>(&e))
    for (const auto& [cli11, problem] : {std::pair{": File does not exist: ", "does not exist"},
                                         std::pair{": File is actually a directory: ", "is a folder, not a file"}})
      if (const size_t at = what.find(cli11); at != std::string::npos)
        return fail(starzk::cli::exit_bad_input, what.substr(at + std::string_view(cli11).size()) + ": " + problem +
                                                     " (" + what.substr(0, at) + ")");
  return fail(starzk::cli::exit_usage, what + " (see --help)");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace starzk::cli;
  starzk::install_crash_report();  // a crash says where (util/crash_report.hpp)
  CLI::App app{
      "starzk: Groth16 proofs over BLS12-381, from snarkjs (.zkey) and bellman/Filecoin (.params) keys.\n"
      "Run 'starzk COMMAND --help' for the options of each command. Exit status: 0 ok, 1 a proof invalid or\n"
      "a partition failed, 2 usage, 3 an input file unreadable or malformed, 4 resources, 5 a batch stopped by\n"
      "SIGUSR1 with partitions left (docs/usage.md)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "starzk " STARZK_VERSION);
  add_prove_command(app);
  add_verify_command(app);
  add_setup_command(app);
  add_info_command(app);
  add_cache_command(app);
  add_trace_command(app);
  add_gen_command(app);
  add_bench_command(app);
  add_vk_command(app);
  // --quiet, --verbose and --log-format on every command (the leaves:
  // `trace summary`, `vk export`, ...), registered once here.
  std::function<void(CLI::App*)> add_everywhere = [&](CLI::App* a) {
    const std::vector<CLI::App*> subs = a->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) add_log_options(a);
    for (CLI::App* s : subs) add_everywhere(s);
  };
  for (CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) add_everywhere(s);
  try {
    // A bad STARZK_* value is refused before any work (config.hpp), except
    // when only help or the version is asked for.
    bool help = false;
    for (int i = 1; i < argc; ++i)
      help = help || std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h" ||
             std::string_view(argv[i]) == "--version";
    if (!help) {
      try {
        starzk::config::check_environment();
      } catch (const std::runtime_error& e) {
        return fail(exit_usage, e.what());
      }
    }
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return parse_failure(e);
  } catch (const exit_status& s) {
    return s.code;
  } catch (const starzk::io_error& e) {
    return fail(exit_bad_input, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(exit_usage, e.what());
  } catch (const starzk::prove_error& e) {
    return fail(exit_no, e.what());
  } catch (const resource_error& e) {
    return fail(exit_resources, e.what());
  } catch (const std::bad_alloc&) {
    return fail(exit_resources, "out of memory");
  } catch (const std::exception& e) {
    return fail(exit_no, e.what());
  }
  return 0;
}
