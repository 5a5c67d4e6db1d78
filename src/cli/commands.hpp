// The starzk command line: one binary, one file per subcommand. Each
// add_*_command registers its options on the CLI11 app and a callback that
// does the work; errors travel as exceptions to main(), which prints one
// line "starzk: <reason>" and exits non-zero.
#pragma once

#include <CLI/CLI.hpp>

namespace starzk::cli {

void add_prove_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_setup_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_cache_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_bench_command(CLI::App& app);

// Exit status of a subcommand that ran but reports "no" (verify of a bad
// proof): distinct from 1, which means the command could not run.
struct exit_status {
  int code;
};

}  // namespace starzk::cli
