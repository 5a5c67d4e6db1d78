// starzk: Groth16 over BLS12-381. Entry point of the command line; the
// subcommands live in cmd_*.cpp (see commands.hpp).
#include <cstdio>
#include <exception>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "starzk: Groth16 proofs over BLS12-381, from snarkjs (.zkey) and bellman/Filecoin (.params) keys.\n"
      "Run 'starzk COMMAND --help' for the options of each command."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "starzk 0.1.0");
  starzk::cli::add_prove_command(app);
  starzk::cli::add_verify_command(app);
  starzk::cli::add_setup_command(app);
  starzk::cli::add_info_command(app);
  starzk::cli::add_cache_command(app);
  starzk::cli::add_trace_command(app);
  starzk::cli::add_gen_command(app);
  starzk::cli::add_bench_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const starzk::cli::exit_status& s) {
    return s.code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "starzk: %s\n", e.what());
    return 1;
  }
  return 0;
}
